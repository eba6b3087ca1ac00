#include "RankPlanPanel.h"

#include "FigurePanels.h"
#include "RankPlanCurve.h"
#include "RankPlanHeatmap.h"
#include "analysis/results/RankPlanTable.h"
#include "io/OutputFile.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>

namespace rankscope {

RankPlanPanel::RankPlanPanel(ViewState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_kind(new QComboBox(this)), m_value(new QDoubleSpinBox(this)),
      m_export(new QPushButton(tr("Export plan…"), this)), m_summary(new QLabel(this)), m_heatmap(new RankPlanHeatmap(state, this)),
      m_curve(new RankPlanCurve(state, this))
{
    m_kind->addItem(tr("Keep parameters (budget)"));
    m_kind->addItem(tr("Energy per matrix (τ)"));
    m_kind->addItem(tr("Max relative error per matrix"));
    m_kind->setToolTip(tr("--keep: a fraction of the attention and MLP parameters, ranks chosen greedily by energy kept per parameter; "
                          "--energy: per matrix the smallest rank keeping τ of Σσ²; --max-error: per matrix the smallest rank "
                          "whose relative Frobenius error is at most E"));
    m_value->setDecimals(3);
    m_value->setSingleStep(0.05);
    m_value->setRange(0, 1);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Target"), this));
    controls->addWidget(m_kind);
    controls->addWidget(m_value);
    controls->addWidget(m_export);
    controls->addStretch(1);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_heatmap);
    splitter->addWidget(m_curve);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(controls);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);

    connect(m_kind, &QComboBox::activated, this, [this](int index) {
        // Each kind starts from a value that means something for it.
        const RankTarget::Kind kind = RankTarget::Kind(index);
        setTarget({kind, kind == RankTarget::Kind::Keep ? 0.5 : kind == RankTarget::Kind::Energy ? 0.9 : 0.3});
    });
    connect(m_value, &QDoubleSpinBox::editingFinished, this, [this] { setTarget({m_target.kind, m_value->value()}); });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export the rank plan"), QStringLiteral("%1-rank-plan.json").arg(m_state->runName()),
                                                          tr("JSON for PEFT's rank_pattern (*.json);;CSV (*.csv)"));
        QString error;
        if (!path.isEmpty() && !exportPlan(path, &error))
            QMessageBox::warning(this, tr("Export the rank plan"), error);
    });
    connect(state, &ViewState::resultsChanged, this, &RankPlanPanel::refreshSummary);
    connect(state, &ViewState::currentStepChanged, this, &RankPlanPanel::refreshSummary);
    setTarget(m_target);
}

QList<ChartView *> RankPlanPanel::views() const { return {m_heatmap, m_curve}; }

QString RankPlanPanel::summary() const { return m_summary->text(); }

void RankPlanPanel::setTarget(const RankTarget &target)
{
    m_target = target;
    m_heatmap->setTarget(target);
    m_curve->setTarget(target);
    syncControls();
    refreshSummary();
}

void RankPlanPanel::syncControls()
{
    const QSignalBlocker kind(m_kind), value(m_value);
    m_kind->setCurrentIndex(int(m_target.kind));
    // The ranges `rankscope plan` takes; a budget from the smallest plan of the step.
    const double lowest = m_target.kind == RankTarget::Kind::Keep ? m_heatmap->figure().smallestKeep
                          : m_target.kind == RankTarget::Kind::Energy ? 0.001 : 0.0;
    m_value->setRange(std::min(lowest, 1.0), 1.0);
    m_value->setValue(m_target.value);
}

void RankPlanPanel::refreshSummary()
{
    const RankPlanFigure &figure = m_heatmap->figure();
    syncControls();
    m_summary->setText(figure.noData.isEmpty() ? figure.summary : figure.noData);
    m_export->setEnabled(figure.noData.isEmpty());
}

bool RankPlanPanel::exportPlan(const QString &path, QString *error) const
{
    const RankPlanFigure &figure = m_heatmap->figure();
    if (!figure.noData.isEmpty()) {
        *error = figure.noData;
        return false;
    }
    const bool csv = QFileInfo(path).suffix().compare(QLatin1String("csv"), Qt::CaseInsensitive) == 0;
    const QByteArray bytes = csv ? RankPlanTable::toCsv(figure.plan) : RankPlanTable::toJson(figure.plan, m_state->run().folder).toJson();
    return writeOutputFile(path, bytes, error);
}

namespace {

// The Rank plan figure: its two views as panels, shown in the window with the target's controls
// and the plan's summary around them.
class RankPlanPanels : public FigurePanels {
public:
    RankPlanPanels(ViewState *state, QWidget *figure) : FigurePanels(figure), m_page(new RankPlanPanel(state, figure))
    {
        adopt(m_page->heatmap());
        adopt(m_page->curve());
    }
    QList<QList<ChartView *>> panels(QSize) const override { return {m_page->views()}; }
    void place(QGridLayout *grid, QSize) override
    {
        if (grid->indexOf(m_page) < 0)
            grid->addWidget(m_page, 0, 0);
    }
    QString configure(const ViewState &, const FigureOptions &options) override
    {
        m_page->setTarget(options.rankTarget);
        const RankPlanFigure &figure = m_page->heatmap()->figure();
        return figure.noData.isEmpty() ? figure.targetProblem : figure.noData;
    }

private:
    RankPlanPanel *m_page;
};

} // namespace

FigurePanels *buildRankPlanPanels(ViewState *state, QWidget *figure) { return new RankPlanPanels(state, figure); }

} // namespace rankscope
