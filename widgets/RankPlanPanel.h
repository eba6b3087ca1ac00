// The plan figure's page (its catalog row, "plan", builds it; in the window, the Rank plan tab): a
// target (a parameter budget, an energy or a largest error per matrix, as `rankscope plan` takes
// them), the ranks it chooses at the shown step as a heatmap beside the error-vs-budget curve (the
// figure's two panels), what the plan keeps and saves, and its export as JSON (PEFT's
// rank_pattern) or CSV.
#pragma once

#include "analysis/results/RankPlanner.h"
#include "figures/ViewState.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;

namespace rankscope {

class ChartView;
class RankPlanCurve;
class RankPlanHeatmap;

class RankPlanPanel : public QWidget {
    Q_OBJECT
public:
    explicit RankPlanPanel(ViewState *state, QWidget *parent = nullptr);

    RankTarget target() const { return m_target; }
    void setTarget(const RankTarget &target);
    RankPlanHeatmap *heatmap() const { return m_heatmap; }
    RankPlanCurve *curve() const { return m_curve; }
    QList<ChartView *> views() const;
    QString summary() const;
    // The plan shown, as FILE.json or FILE.csv (by its suffix); false with the reason.
    bool exportPlan(const QString &path, QString *error) const;
    QComboBox *kindBox() const { return m_kind; }
    QDoubleSpinBox *valueBox() const { return m_value; }

private:
    void syncControls();
    void refreshSummary();

    ViewState *m_state;
    RankTarget m_target{RankTarget::Kind::Keep, 0.5};
    QComboBox *m_kind;
    QDoubleSpinBox *m_value;
    QPushButton *m_export;
    QLabel *m_summary;
    RankPlanHeatmap *m_heatmap;
    RankPlanCurve *m_curve;
};

} // namespace rankscope
