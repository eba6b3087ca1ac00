// The Rank plan tab's error-vs-budget curve: the budget greedy's plans from rank 1 everywhere to
// every matrix dense (x: fraction of the attention and MLP parameters kept, y: total relative
// Frobenius error), with the target's plan marked. Drawn from RankPlanFigure.
#pragma once

#include "ChartView.h"
#include "figures/RankPlanFigure.h"

namespace rankscope {

class RankPlanCurve : public ChartView {
    Q_OBJECT
public:
    explicit RankPlanCurve(ViewState *state, QWidget *parent = nullptr);

    RankTarget target() const { return m_target; }
    void setTarget(const RankTarget &target);
    const RankPlanFigure &figure() const { return m_figure; }
    QCPGraph *curveGraph() const { return m_curve; }
    QCPGraph *markGraph() const { return m_mark; }

    QString tooltipAt(const QPoint &pixel) const override;
    std::optional<MatrixKey> matrixAt(const QPoint &) const override { return std::nullopt; }
    // kept_fraction,relative_error: the curve's points.
    QString dataCsv() const override;
    bool labelsCanReplaceTitle() const override { return true; } // the plan's target goes on the x axis

public slots:
    void rebuild() override;

protected:
    std::unique_ptr<ChartView> createSibling() const override;
    void adaptLayout(QSize size) override;

private:
    void labelAxes();
    RankTarget m_target;
    RankPlanFigure m_figure;
    QCPGraph *m_curve;
    QCPGraph *m_mark;
};

} // namespace rankscope
