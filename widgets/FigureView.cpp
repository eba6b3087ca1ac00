#include "FigureView.h"

#include "FigureExporter.h"
#include "HeadView.h"
#include "LayerBarChart.h"
#include "MetricLineChart.h"
#include "TrainingCurveChart.h"
#include "RankPlanCurve.h"
#include "RankPlanHeatmap.h"
#include "SpectrumOverStepsView.h"
#include "SpectrumView.h"
#include "TypeLayerHeatmap.h"

#include <QGridLayout>
#include <QTimer>

namespace rankscope {

FigureView::FigureView(ViewState *state, FigureKind kind, QWidget *parent)
    : QWidget(parent), m_state(state), m_kind(kind), m_grid(new QGridLayout(this))
{
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(4);
    switch (kind) {
    case FigureKind::Lines:
        m_lines = new MetricLineChart(state, this);
        m_metrics = {m_lines->metric()};
        m_grid->addWidget(m_lines, 0, 0);
        connect(m_lines, &ChartView::exportRequested, this, &FigureView::exportRequested);
        connect(m_lines, &MetricLineChart::metricChanged, this, [this](Metric m) { m_metrics = {m}; });
        addTrainingCurves();
        return;
    case FigureKind::LinesAndBars:
        m_lines = new MetricLineChart(state, this);
        m_grid->addWidget(m_lines, 0, 0);
        connect(m_lines, &ChartView::exportRequested, this, &FigureView::exportRequested);
        m_metrics = {Metric::CompressionPct}; // the bars'; the lines keep theirs
        break;
    case FigureKind::Spectrum:
        m_spectrum = new SpectrumView(state, this);
        m_grid->addWidget(m_spectrum, 0, 0);
        connect(m_spectrum, &ChartView::exportRequested, this, &FigureView::exportRequested);
        return;
    case FigureKind::SpectrumOverSteps:
        m_spectrumOverSteps = new SpectrumOverStepsView(state, this);
        m_grid->addWidget(m_spectrumOverSteps, 0, 0);
        connect(m_spectrumOverSteps, &ChartView::exportRequested, this, &FigureView::exportRequested);
        return;
    case FigureKind::Heads:
        m_heads = new HeadView(state, this);
        m_metrics = {m_heads->metric()};
        m_grid->addWidget(m_heads, 0, 0);
        connect(m_heads, &ChartView::exportRequested, this, &FigureView::exportRequested);
        return;
    case FigureKind::RankPlan:
        m_planRanks = new RankPlanHeatmap(state, this);
        m_planCurve = new RankPlanCurve(state, this);
        m_grid->addWidget(m_planRanks, 0, 0);
        m_grid->addWidget(m_planCurve, 0, 1);
        m_grid->setColumnStretch(0, 3); // as the tab's splitter shares them
        m_grid->setColumnStretch(1, 2);
        return;
    case FigureKind::Bars:
        m_metrics = {Metric::CompressionPct};
        break;
    case FigureKind::Heatmaps:
        m_metrics = {Metric::CompressionPct, Metric::WeightedAlpha};
        break;
    }
    connect(state, &ViewState::resultsChanged, this, &FigureView::syncPanels);
    connect(state, &ViewState::displayChanged, this, &FigureView::syncPanels);
    syncPanels();
}

void FigureView::addTrainingCurves()
{
    // One step axis: zooming or panning either moves both (the lines' own range otherwise).
    m_curves = new TrainingCurveChart(m_state, this);
    auto follow = [](QCPAxis *from, QCPAxis *to) {
        connect(from, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), to, [to](const QCPRange &range) {
            if (to->range() != range) {
                to->setRange(range);
                to->parentPlot()->replot(QCustomPlot::rpQueuedReplot);
            }
        });
    };
    follow(m_lines->plot()->xAxis, m_curves->plot()->xAxis);
    follow(m_curves->plot()->xAxis, m_lines->plot()->xAxis);
    // One crosshair: the step under the cursor in either plot is read out in both.
    connect(m_lines, &ChartView::crosshairMoved, m_curves, &ChartView::followCrosshair);
    connect(m_curves, &ChartView::crosshairMoved, m_lines, &ChartView::followCrosshair);
    auto showWhenLogged = [this] {
        m_curves->setVisible(m_state->hasScalars());
        layoutPanels();
        if (m_state->hasScalars())
            m_curves->plot()->xAxis->setRange(m_lines->plot()->xAxis->range());
        m_alignTimer.start();
    };
    connect(m_state, &ViewState::scalarsChanged, this, showWhenLogged);
    showWhenLogged();
    // The plots' left edges level, so a step of the curves stands under the same step of the lines.
    m_alignTimer.setSingleShot(true);
    connect(&m_alignTimer, &QTimer::timeout, this, &FigureView::alignStepAxes);
    connect(m_state, &ViewState::scalarsChanged, &m_alignTimer, qOverload<>(&QTimer::start));
    connect(m_state, &ViewState::resultsChanged, &m_alignTimer, qOverload<>(&QTimer::start));
    connect(m_state, &ViewState::displayChanged, &m_alignTimer, qOverload<>(&QTimer::start));
    connect(m_lines, &MetricLineChart::metricChanged, &m_alignTimer, qOverload<>(&QTimer::start));
}

void FigureView::alignStepAxes()
{
    if (!m_curves || !m_curves->isVisible())
        return;
    // Each plot where its own labels put it, then both where the wider needs.
    for (ChartView *view : {static_cast<ChartView *>(m_lines), static_cast<ChartView *>(m_curves)}) {
        view->alignPlotLeft(0);
        view->plot()->replot(QCustomPlot::rpImmediateRefresh);
    }
    const int left = std::max(m_lines->plotLeft(), m_curves->plotLeft());
    for (ChartView *view : {static_cast<ChartView *>(m_lines), static_cast<ChartView *>(m_curves)}) {
        view->alignPlotLeft(left);
        view->plot()->replot(QCustomPlot::rpQueuedReplot);
    }
}

void FigureView::setMetrics(const QList<Metric> &metrics)
{
    if (metrics.isEmpty())
        return;
    if (m_kind == FigureKind::Lines) {
        m_metrics = {metrics.first()};
        m_lines->setMetric(metrics.first());
        return;
    }
    if (m_heads) {
        m_metrics = {metrics.first()};
        m_heads->setMetric(metrics.first());
        return;
    }
    if (m_kind == FigureKind::LinesAndBars) {
        m_lines->setMetric(metrics.first());
        m_metrics = {metrics.value(1, metrics.first())};
    } else {
        m_metrics = m_kind == FigureKind::Bars ? QList<Metric>{metrics.first()} : metrics;
    }
    m_panelRuns = {-1}; // panels for the new metrics
    syncPanels();
}

void FigureView::setRankTarget(const RankTarget &target)
{
    if (!m_planRanks)
        return;
    m_planRanks->setTarget(target);
    m_planCurve->setTarget(target);
}

void FigureView::setTitleOverride(const QString &title)
{
    m_titleOverride = title;
    for (const QList<ChartView *> &row : panels())
        for (ChartView *view : row)
            view->setTitleOverride(title);
}

void FigureView::setPanelTitles(const QStringList &titles)
{
    m_panelTitles = titles;
    applyPanelOptions();
}

void FigureView::setColourRanges(const QList<HeatmapColourRange> &ranges)
{
    m_colourRanges = ranges;
    applyPanelOptions();
}

void FigureView::applyPanelOptions()
{
    qsizetype i = 0;
    for (const QList<ChartView *> &row : panels())
        for (ChartView *view : row) {
            if (!m_panelTitles.isEmpty())
                view->setTitleOverride(m_panelTitles.value(i).isEmpty() ? m_titleOverride : m_panelTitles.value(i));
            ++i;
        }
    if (m_colourRanges.isEmpty())
        return;
    for (qsizetype row = 0; row < m_byMetric.size(); ++row)
        for (RunStepView *view : m_byMetric[row])
            if (auto *heatmap = qobject_cast<TypeLayerHeatmap *>(view))
                heatmap->setColourRange(m_colourRanges.value(row, m_colourRanges.last()));
}

void FigureView::syncPanels()
{
    if (m_kind != FigureKind::Bars && m_kind != FigureKind::Heatmaps && m_kind != FigureKind::LinesAndBars)
        return;
    const QList<int> runs = m_state->visibleRuns();
    if (runs == m_panelRuns) {
        layoutPanels(); // the layers shown may have changed: the panels' widths follow
        return;
    }
    m_panelRuns = runs;
    qDeleteAll(m_bars);
    qDeleteAll(m_heatmaps);
    m_bars.clear();
    m_heatmaps.clear();
    m_byMetric = QList<QList<RunStepView *>>(m_metrics.size());
    for (qsizetype row = 0; row < m_metrics.size(); ++row)
        for (int run : runs) {
            RunStepView *view = nullptr;
            if (m_kind != FigureKind::Heatmaps) {
                auto *bars = new LayerBarChart(m_state, this);
                bars->setMetric(m_metrics[row]);
                m_bars << bars;
                view = bars;
            } else {
                auto *heatmap = new TypeLayerHeatmap(m_state, m_metrics[row], this);
                m_heatmaps << heatmap;
                view = heatmap;
            }
            view->setRunIndex(run);
            if (runs.size() > 1)
                view->keepRunInTitle(); // beside other runs' panels, each names its own
            connect(view, &ChartView::exportRequested, this, &FigureView::exportRequested);
            connect(view->plot(), &QCustomPlot::afterLayout, this, [this] {
                if (!std::exchange(m_levelQueued, true))
                    QTimer::singleShot(0, this, &FigureView::levelPanels);
            });
            if (!m_titleOverride.isEmpty())
                view->setTitleOverride(m_titleOverride);
            m_byMetric[int(row)] << view;
            // A metric chosen in one panel is the metric of its row: every run on one scale.
            connect(view, &RunStepView::metricChanged, this, [this, row](Metric metric) {
                m_metrics[row] = metric;
                for (RunStepView *other : m_byMetric.value(int(row)))
                    if (other->metric() != metric)
                        other->setMetric(metric);
            });
        }
    applyPanelOptions();
    layoutPanels();
}

QList<QList<ChartView *>> FigureView::panels(QSize size) const
{
    if (!size.isValid())
        size = this->size();
    switch (m_kind) {
    case FigureKind::Lines: // the training curves under the lines when the run logged any
        return m_curves && m_state->hasScalars() ? QList<QList<ChartView *>>{{m_lines}, {m_curves}} : QList<QList<ChartView *>>{{m_lines}};
    case FigureKind::Spectrum: return {{m_spectrum}};
    case FigureKind::SpectrumOverSteps: return {{m_spectrumOverSteps}};
    case FigureKind::Heads: return {{m_heads}};
    case FigureKind::RankPlan: return {{m_planRanks, m_planCurve}};
    case FigureKind::Bars:
    case FigureKind::LinesAndBars: {
        QList<ChartView *> row;
        if (m_kind == FigureKind::LinesAndBars)
            row << m_lines;
        for (LayerBarChart *b : m_bars)
            row << b;
        return {row};
    }
    case FigureKind::Heatmaps: {
        // One run: the metrics side by side. Several: a row per metric, a column per run.
        const qsizetype runs = std::max<qsizetype>(1, m_panelRuns.size());
        QList<QList<ChartView *>> rows;
        if (runs == 1) {
            QList<ChartView *> row;
            for (TypeLayerHeatmap *h : m_heatmaps)
                row << h;
            return {row};
        }
        for (qsizetype i = 0; i < m_heatmaps.size(); ++i) {
            if (i % runs == 0)
                rows.append(QList<ChartView *>());
            rows.last() << m_heatmaps[i];
        }
        return rows;
    }
    }
    return {};
}

void FigureView::levelPanels()
{
    m_levelQueued = false;
    for (const QList<ChartView *> &row : panels()) {
        int top = 0;
        for (const ChartView *view : row)
            top = std::max(top, row.size() > 1 ? view->naturalPlotTop() : 0);
        for (ChartView *view : row)
            view->alignPlot(top, 0);
    }
}

void FigureView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    layoutPanels();
    if (m_curves)
        m_alignTimer.start();
}

void FigureView::layoutPanels()
{
    const QList<QList<ChartView *>> rows = panels();
    for (ChartView *view : findChildren<ChartView *>(Qt::FindDirectChildrenOnly))
        m_grid->removeWidget(view);
    for (int r = 0; r < rows.size(); ++r)
        for (int c = 0; c < rows[r].size(); ++c)
            m_grid->addWidget(rows[r][c], r, c);
    // The training curves take two fifths under the lines; a row left empty (no logs) takes nothing.
    for (int r = 0; r < m_grid->rowCount(); ++r)
        m_grid->setRowStretch(r, r >= rows.size() ? 0 : rows[r].contains(m_curves) ? 2 : 3);
    // Compared runs' panels are as wide as their layers need: a 4-layer run beside a 16-layer one
    // gets a quarter of the other's width, so a layer is as wide in both (in relative depth every
    // panel spans 0 to 1: as wide as the others).
    const bool byLayers = m_panelRuns.size() > 1 && !m_state->relativeDepth();
    for (int c = 0; c < m_grid->columnCount(); ++c)
        m_grid->setColumnStretch(c, byLayers && c < m_panelRuns.size()
                                        ? int(std::max<qsizetype>(1, m_state->visibleLayersAt(m_panelRuns[c]).size())) : 1);
}

bool FigureView::exportTo(const QString &path, const FigureSize &size, QString *error, const std::optional<QString> &title)
{
    if (m_spectrum && !m_spectrum->matrix()) {
        *error = QStringLiteral("no matrix is chosen for the spectrum");
        return false;
    }
    const QList<QList<ChartView *>> rows = panels(size.layoutSize());
    if (rows.isEmpty() || rows.first().isEmpty()) {
        *error = QStringLiteral("no run is shown");
        return false;
    }
    return FigureExporter::write(rows, path, size, error, title);
}

QString FigureView::dataCsv() const
{
    // Panels of one kind (bars, heatmaps, a comparison's runs) are one table: a header repeated
    // by the next panel is not written again.
    QString csv, header;
    for (const QList<ChartView *> &row : panels())
        for (const ChartView *view : row) {
            QString part = view->dataCsv();
            const QString first = part.section(QLatin1Char('\n'), 0, 0);
            if (!header.isEmpty() && first == header)
                part.remove(0, first.size() + 1);
            header = first;
            csv += part;
        }
    return csv;
}

} // namespace rankscope
