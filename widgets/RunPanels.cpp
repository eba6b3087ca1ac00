#include "RunPanels.h"

#include "LayerBarChart.h"
#include "MetricLineChart.h"
#include "TypeLayerHeatmap.h"

#include <QGridLayout>
#include <QTimer>

namespace rankscope {

FigurePanels *buildBarPanels(ViewState *state, QWidget *figure) { return new RunPanels(state, figure, RunPanels::Kind::Bars); }
FigurePanels *buildHeatmapPanels(ViewState *state, QWidget *figure) { return new RunPanels(state, figure, RunPanels::Kind::Heatmaps); }
FigurePanels *buildLinesAndBarsPanels(ViewState *state, QWidget *figure) { return new RunPanels(state, figure, RunPanels::Kind::LinesAndBars); }

RunPanels::RunPanels(ViewState *state, QWidget *figure, Kind kind) : FigurePanels(figure), m_state(state), m_kind(kind)
{
    switch (kind) {
    case Kind::Bars: m_metrics = {Metric::CompressionPct}; break;
    case Kind::Heatmaps: m_metrics = {Metric::CompressionPct, Metric::WeightedAlpha}; break;
    case Kind::LinesAndBars:
        m_lines = new MetricLineChart(state, figure);
        adopt(m_lines);
        m_metrics = {Metric::CompressionPct}; // the bars'; the lines keep theirs
        break;
    }
    connect(state, &ViewState::resultsChanged, this, &RunPanels::syncPanels);
    connect(state, &ViewState::displayChanged, this, &RunPanels::syncPanels);
    syncPanels();
}

void RunPanels::setMetrics(const QList<Metric> &metrics)
{
    if (m_kind == Kind::LinesAndBars) {
        m_lines->setMetric(metrics.first());
        m_metrics = {metrics.value(1, metrics.first())};
    } else {
        m_metrics = m_kind == Kind::Bars ? QList<Metric>{metrics.first()} : metrics;
    }
    m_panelRuns = {-1}; // panels for the new metrics
    syncPanels();
}

QString RunPanels::configure(const ViewState &, const FigureOptions &options)
{
    if (options.metric)
        setMetrics({*options.metric});
    if (m_lines)
        return m_lines->configure(options);
    if (m_kind != Kind::Heatmaps)
        return {};
    if (options.colourRanges.size() > m_metrics.size())
        return QStringLiteral("--vmin/--vmax give %1 panels' ends; the heatmaps have %2").arg(options.colourRanges.size()).arg(m_metrics.size());
    m_colourRanges = options.colourRanges;
    applyColourRanges();
    return {};
}

void RunPanels::syncPanels()
{
    const QList<int> runs = m_state->visibleRuns();
    if (runs == m_panelRuns) {
        emit layoutChanged(); // the layers shown may have changed: the panels' widths follow
        return;
    }
    m_panelRuns = runs;
    for (const QList<RunStepView *> &row : std::as_const(m_byMetric))
        qDeleteAll(row);
    m_byMetric = QList<QList<RunStepView *>>(m_metrics.size());
    for (int row = 0; row < m_metrics.size(); ++row)
        for (int run : runs)
            m_byMetric[row] << makePanel(row, run);
    applyColourRanges();
    emit panelsChanged();
}

RunStepView *RunPanels::makePanel(int row, int run)
{
    RunStepView *view = nullptr;
    if (m_kind != Kind::Heatmaps) {
        auto *bars = new LayerBarChart(m_state, figure());
        bars->setMetric(m_metrics[row]);
        view = bars;
    } else {
        view = new TypeLayerHeatmap(m_state, m_metrics[row], figure());
    }
    adopt(view);
    view->setRunIndex(run);
    if (m_state->visibleRuns().size() > 1)
        view->keepRunInTitle(); // beside other runs' panels, each names its own
    connect(view->plot(), &QCustomPlot::afterLayout, this, [this] {
        if (!std::exchange(m_levelQueued, true))
            QTimer::singleShot(0, this, &RunPanels::levelPanels);
    });
    // A metric chosen in one panel is the metric of its row: every run on one scale.
    connect(view, &RunStepView::metricChanged, this, [this, row](Metric metric) {
        m_metrics[row] = metric;
        for (RunStepView *other : m_byMetric.value(row))
            if (other->metric() != metric)
                other->setMetric(metric);
    });
    return view;
}

void RunPanels::applyColourRanges()
{
    if (m_colourRanges.isEmpty())
        return;
    for (qsizetype row = 0; row < m_byMetric.size(); ++row)
        for (RunStepView *view : m_byMetric[row])
            if (auto *heatmap = qobject_cast<TypeLayerHeatmap *>(view))
                heatmap->setColourRange(m_colourRanges.value(row, m_colourRanges.last()));
}

QList<QList<ChartView *>> RunPanels::panels(QSize) const
{
    // Bars: one row, after the lines for lines+bars. Heatmaps of one run: the metrics side by
    // side; of several: a row per metric, a column per run.
    QList<QList<ChartView *>> rows;
    const bool oneRow = m_kind != Kind::Heatmaps || m_panelRuns.size() <= 1;
    for (const QList<RunStepView *> &metricPanels : m_byMetric) {
        if (!oneRow || rows.isEmpty())
            rows.append(m_lines ? QList<ChartView *>{m_lines} : QList<ChartView *>());
        for (RunStepView *view : metricPanels)
            rows.last() << view;
    }
    if (rows.isEmpty() && m_lines)
        rows.append({m_lines});
    return rows;
}

void RunPanels::place(QGridLayout *grid, QSize size)
{
    placeRows(grid, panels(size));
    // Compared runs' panels are as wide as their layers need: a 4-layer run beside a 16-layer one
    // gets a quarter of the other's width, so a layer is as wide in both (in relative depth every
    // panel spans 0 to 1: as wide as the others).
    const bool byLayers = m_panelRuns.size() > 1 && !m_state->relativeDepth();
    for (int c = 0; c < grid->columnCount(); ++c)
        grid->setColumnStretch(c, byLayers && c < m_panelRuns.size()
                                      ? int(std::max<qsizetype>(1, m_state->visibleLayersAt(m_panelRuns[c]).size())) : 1);
}

void RunPanels::levelPanels()
{
    m_levelQueued = false;
    for (const QList<ChartView *> &row : panels(QSize())) {
        int top = 0;
        for (const ChartView *view : row)
            top = std::max(top, row.size() > 1 ? view->naturalPlotTop() : 0);
        for (ChartView *view : row)
            view->alignPlot(top, 0);
    }
}

} // namespace rankscope
