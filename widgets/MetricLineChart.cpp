#include "MetricLineChart.h"

#include "AxisTickers.h"
#include "MetricSelector.h"
#include "PlotStyle.h"
#include "TypeStyle.h"
#include "figures/AlphaIntervals.h"
#include "figures/FigureOptions.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <cmath>

namespace rankscope {

namespace {

QCPScatterStyle::ScatterShape markerShape(MatrixType type)
{
    switch (typeMarker(type)) {
    case TypeMarker::Circle: return QCPScatterStyle::ssCircle;
    case TypeMarker::Square: return QCPScatterStyle::ssSquare;
    case TypeMarker::Triangle: return QCPScatterStyle::ssTriangle;
    case TypeMarker::Diamond: return QCPScatterStyle::ssDiamond;
    case TypeMarker::TriangleInverted: return QCPScatterStyle::ssTriangleInverted;
    case TypeMarker::Star: return QCPScatterStyle::ssStar;
    case TypeMarker::Cross: return QCPScatterStyle::ssCrossCircle;
    }
    return QCPScatterStyle::ssCircle;
}

// Lines of more checkpoints than this are drawn without markers.
constexpr qsizetype kMostMarkedPoints = 30;

QCPRange layerRangeOf(const LineFigure &figure)
{
    return figure.layerScale ? QCPRange(figure.layerScale->range.lower, figure.layerScale->range.upper) : QCPRange(-0.5, 0.5);
}
} // namespace

MetricLineChart::MetricLineChart(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_modeBox(new QComboBox(this))
{
    m_metricBox = addMetricSelector(m_metric);
    headerLayout()->addSpacing(12);
    headerLayout()->addWidget(new QLabel(tr("Lines"), this));
    m_modeBox->setSizeAdjustPolicy(QComboBox::AdjustToContents); // "MLP↑ by layer" whole, never "MLP↑ by laye"
    headerLayout()->addWidget(m_modeBox);
    headerLayout()->addSpacing(12);
    m_guideBox = new QCheckBox(tr("Guide band 2 \u2264 \u03b1 \u2264 6"), this);
    m_guideBox->setToolTip(tr("Shade WeightWatcher's range of \u03b1 for well-trained layers"));
    m_guideBox->setChecked(m_alphaGuide);
    headerLayout()->addWidget(m_guideBox);
    connect(m_guideBox, &QCheckBox::toggled, this, &MetricLineChart::setAlphaGuide);
    headerLayout()->addStretch(1);
    connect(m_metricBox, &MetricSelector::metricChosen, this, &MetricLineChart::setMetric);
    connect(m_modeBox, &QComboBox::activated, this, [this] {
        const int v = m_modeBox->currentData().toInt();
        setPerLayerType(v < 0 ? std::nullopt : std::optional<MatrixType>(MatrixType(v)));
    });

    plot()->xAxis->setLabel(tr("Training step"));
    plot()->yAxis->setRangeLower(0);
    useSideLegend();
    enableCrosshair();
    plot()->setInteractions(QCP::iSelectLegend);
    enableZoom({plot()->axisRect()});
    plot()->legend->setSelectableParts(QCPLegend::spItems);
    connect(plot(), &QCustomPlot::legendClick, this, [this](QCPLegend *, QCPAbstractLegendItem *item, QMouseEvent *) {
        auto *plottableItem = qobject_cast<QCPPlottableLegendItem *>(item);
        if (!plottableItem)
            return;
        for (qsizetype i = 0; i < m_graphs.size(); ++i) {
            const LineSeries &line = m_figure.series[i];
            if (m_graphs[i] == plottableItem->plottable() && line.layer < 0) // toggling a type in the legend
                this->state()->setTypeVisible(line.type, !this->state()->isTypeVisible(line.type));
        }
        plot()->legend->setSelectedParts(QCPLegend::spNone);
    });

    plot()->addLayer(QStringLiteral("bands"), plot()->layer(QStringLiteral("main")), QCustomPlot::limBelow);
    // The guide band spans the axis rect's width at any zoom, between α = 2 and α = 6.
    m_guideBand = new QCPItemRect(plot());
    m_guideBand->setLayer(QStringLiteral("bands"));
    m_guideBand->setSelectable(false);
    m_guideBand->setPen(Qt::NoPen);
    m_guideBand->setClipToAxisRect(true);
    for (QCPItemPosition *corner : {m_guideBand->topLeft, m_guideBand->bottomRight}) {
        corner->setTypeX(QCPItemPosition::ptAxisRectRatio);
        corner->setTypeY(QCPItemPosition::ptPlotCoords);
    }
    m_stepMarker = addStepMarker();

    connect(state, &ViewState::resultsChanged, this, [this] { fillModeBox(); rebuild(); });
    connect(state, &ViewState::displayChanged, this, [this] { fillModeBox(); rebuild(); });
    connect(state, &ViewState::highlightChanged, this, &MetricLineChart::rebuild);
    connect(state, &ViewState::currentStepChanged, this, [this] { placeStepMarker(m_stepMarker); refresh(); });
    fillModeBox();
    rebuild();
}

std::unique_ptr<ChartView> MetricLineChart::createSibling() const
{
    auto sibling = std::make_unique<MetricLineChart>(state());
    sibling->m_metric = m_metric;
    sibling->m_perLayerType = m_perLayerType;
    sibling->m_alphaGuide = m_alphaGuide;
    sibling->m_steps = m_steps;
    return sibling;
}

void MetricLineChart::fillModeBox()
{
    const QVariant current = m_modeBox->currentData();
    m_modeBox->clear();
    m_modeBox->addItem(tr("One per type"), -1);
    for (MatrixType type : state()->typesIn(state()->block()))
        m_modeBox->addItem(tr("%1 by layer").arg(displayLabel(type)), int(type));
    const int index = m_modeBox->findData(current);
    m_modeBox->setCurrentIndex(index < 0 ? 0 : index);
}

void MetricLineChart::setMetric(Metric metric)
{
    m_metric = metric;
    m_metricBox->setMetric(metric);
    rebuild();
    emit metricChanged(metric);
}

void MetricLineChart::setAlphaGuide(bool shown)
{
    if (shown == m_alphaGuide)
        return;
    m_alphaGuide = shown;
    const QSignalBlocker quiet(m_guideBox);
    m_guideBox->setChecked(shown);
    rebuild();
}

void MetricLineChart::setStepWindow(std::optional<StepWindow> steps)
{
    m_steps = steps;
    rebuild();
}

bool MetricLineChart::alphaGuideDrawn() const { return m_guideBand->visible(); }

void MetricLineChart::setPerLayerType(std::optional<MatrixType> type)
{
    const bool changed = type != m_perLayerType;
    m_perLayerType = type;
    m_modeBox->setCurrentIndex(std::max(0, m_modeBox->findData(type ? int(*type) : -1)));
    rebuild();
    if (changed)
        emit perLayerTypeChanged();
}

void MetricLineChart::clearFigure()
{
    QCustomPlot *p = plot();
    p->clearPlottables(); // the lines, their bands and error bars
    p->legend->clearItems();
    m_graphs.clear();
    m_errorBars.clear();
    if (m_layerScale) { // the colour bar of the per-layer lines
        body()->remove(m_layerScale);
        body()->simplify();
        m_layerScale = nullptr;
    }
    p->legend->setVisible(true);
}

void MetricLineChart::rebuild()
{
    clearFigure();
    m_figure = LineFigureBuilder(*state(), {m_metric, m_perLayerType, m_alphaGuide, !isPaper(), !titleLeftOut()}).setStepWindow(m_steps).build();
    const LineFigure &f = m_figure;
    QCustomPlot *p = plot();
    p->xAxis->setLabel(f.xLabel);
    ReadableTicker::markWholeNumbers(p->xAxis, !state()->relativeStep());
    drawGuideBand(f);
    for (const LineSeries &series : f.series)
        m_graphs.append(series.layer < 0 ? drawTypeLine(series, f) : drawLayerLine(series));
    for (const RunKey &run : f.runKeys) {
        QCPGraph *key = p->addGraph(); // no data: a legend entry for the run's line style
        key->setName(run.name);
        key->setPen(QPen(theme().ink, 1.6 * penScale(), PlotStyle::runLineStyle(run.runOrder)));
        key->setSelectable(QCP::stNone);
    }
    p->legend->setVisible(f.legendShown);
    if (f.layerScale)
        addLayerScale(*f.layerScale);
    setTitle(f.title, f.shortTitle);
    if (f.guideBand && f.legendShown) { // the band's legend entry, after the lines': a graph without data draws only its swatch
        QCPGraph *entry = p->addGraph();
        entry->setPen(Qt::NoPen);
        entry->setBrush(m_guideBand->brush());
        entry->setName(f.guideLabel);
    }
    if (!f.intervalLabel.isEmpty() && f.legendShown) { // error bars without data: their legend icon only
        auto *entry = new QCPErrorBars(p->xAxis, p->yAxis);
        entry->setPen(QPen(theme().ink, 1.2));
        entry->setName(f.intervalLabel);
        entry->setSelectable(QCP::stNone);
    }
    p->yAxis->setLabel(m_shortValueLabel && !f.compactYLabel.isEmpty() ? f.compactYLabel : f.yLabel);
    PlotStyle::setLogScale(p->yAxis, f.logY);
    if (f.xRange)
        p->xAxis->setRange(f.xRange->lower, f.xRange->upper);
    if (f.yRange)
        p->yAxis->setRange(f.yRange->lower, f.yRange->upper);
    placeStepMarker(m_stepMarker);
    setNoDataMessage(f.noData);
    refresh();
}

void MetricLineChart::adaptLayout(QSize size)
{
    ChartView::adaptLayout(size);
    // Under a caption the value axis says what the title would have ("Stable rank (mean of layers
    // 0–3)"), on two lines if need be; where two lines leave the step axis fewer than three labels
    // (figure (1) in one column), the figure's short form ("Stable rank (mean)") instead.
    QCPAxis *x = plot()->xAxis;
    const auto ticker = x->ticker().dynamicCast<ReadableTicker>();
    if (!isPaper() || m_shortValueLabel || m_figure.compactYLabel.isEmpty() || !ticker || x->axisRect()->rect().width() <= 0 ||
        !plot()->yAxis->label().contains(QLatin1Char('\n')))
        return;
    const QCPRange range = x->range();
    const double step = ticker->stepFor(range);
    if (std::floor(range.upper / step) - std::ceil(range.lower / step) + 1 >= 3)
        return;
    m_shortValueLabel = true;
    plot()->yAxis->setLabel(m_figure.compactYLabel);
    ChartView::adaptLayout(size);
}

QString MetricLineChart::crosshairReadout(double x, double, double *snappedX) const
{
    // Snapped to the nearest checkpoint, each visible line's value there, rounded as the axis shown.
    const QCPRange shown = plot()->yAxis->range();
    const auto readout = m_figure.readoutAt(x, *state(), AxisRange{shown.lower, shown.upper});
    if (!readout)
        return {};
    *snappedX = readout->x;
    return readout->text();
}

void MetricLineChart::drawGuideBand(const LineFigure &figure)
{
    m_guideBox->setVisible(m_metric == Metric::Alpha);
    m_guideBand->setVisible(bool(figure.guideBand));
    if (!figure.guideBand)
        return;
    QColor fill = theme().guide;
    fill.setAlpha(theme().dark ? 46 : 38);
    m_guideBand->setBrush(fill);
    m_guideBand->topLeft->setCoords(0, figure.guideBand->upper);
    m_guideBand->bottomRight->setCoords(1, figure.guideBand->lower);
}

QCPGraph *MetricLineChart::drawTypeLine(const LineSeries &series, const LineFigure &figure)
{
    QCustomPlot *p = plot();
    const QColor colour = typeColour(series.type);
    auto addPoints = [&](QCPGraph *graph, auto value) {
        for (qsizetype i = 0; i < series.points.size(); ++i)
            graph->addData(series.x[i], plottedValue(value(series.points[i]), figure.logY));
    };
    if (figure.bands) {
        QCPGraph *lower = p->addGraph();
        QCPGraph *upper = p->addGraph();
        for (QCPGraph *g : {lower, upper}) {
            g->setPen(Qt::NoPen);
            g->removeFromLegend();
            g->setSelectable(QCP::stNone);
            g->setVisible(series.visible);
            g->setLayer(QStringLiteral("bands"));
        }
        QColor fill = colour;
        fill.setAlpha(figure.bandAlpha);
        upper->setBrush(fill);
        upper->setChannelFillGraph(lower);
        addPoints(lower, [](const AggregatePoint &pt) { return pt.min; });
        addPoints(upper, [](const AggregatePoint &pt) { return pt.max; });
    }
    // Lines and markers scale with the paper's font (penScale); a line of many checkpoints has no
    // markers, which would merge into a thick band, and neither has a line under a paper's caption:
    // plain lines, as matplotlib draws them (a marker on every point hid Q's line under K's).
    const double k = penScale();
    const double width = (series.highlighted ? 3.4 : 2.0) * k;
    const bool dimOnDark = theme().dark && isDimOn(series.type, theme().background);
    if (((isLightColour(colour) && !theme().dark) || dimOnDark) && !isCaptioned()) {
        // A light line gets a darker casing under it, so it holds its own on white; a dim one (Q's
        // blue) a lighter casing on the dark theme. Under a paper's caption lines are plain, as
        // matplotlib draws them (K's cased line covered Q's beside it).
        QCPGraph *casing = p->addGraph();
        QPen edge(typeEdgeOn(series.type, theme().background), width + (dimOnDark ? 1.0 : 1.4) * k);
        edge.setStyle(PlotStyle::runLineStyle(series.runOrder));
        casing->setPen(edge);
        casing->removeFromLegend();
        casing->setSelectable(QCP::stNone);
        casing->setVisible(series.visible);
        addPoints(casing, [](const AggregatePoint &pt) { return pt.value; });
    }
    QCPGraph *graph = p->addGraph();
    graph->setName(displayLabel(series.type));
    // Colour and marker are the type; the dash pattern is the run.
    QPen pen = typePen(series.type, width);
    pen.setStyle(PlotStyle::runLineStyle(series.runOrder));
    // A hidden type's graph is not drawn; its legend entry is, in grey, so it reads as switched off.
    const QColor edge = series.visible ? typeEdgeOn(series.type, theme().background) : theme().muted;
    if (!series.visible)
        pen.setColor(theme().muted);
    graph->setPen(pen);
    // Under a caption plain lines, as matplotlib draws them; a line of one point (a base model
    // beside its fine-tuning, a run of one checkpoint) is its marker, or it would not be drawn at all.
    if (series.points.size() <= kMostMarkedPoints && (!isCaptioned() || series.points.size() == 1))
        graph->setScatterStyle(QCPScatterStyle(markerShape(series.type), QPen(edge, 1.2 * k), series.visible ? colour : theme().muted, 7 * k));
    addPoints(graph, [](const AggregatePoint &pt) { return pt.value; });
    graph->setVisible(series.visible);
    drawIntervals(series, graph, typeOutline(series.type));
    if (!series.inLegend)
        graph->removeFromLegend();
    if (auto *item = p->legend->itemWithPlottable(graph))
        PlotStyle::setLegendEntryMuted(item, theme(), !series.visible);
    return graph;
}

QCPGraph *MetricLineChart::drawLayerLine(const LineSeries &series)
{
    const QColor colour = QColor::fromRgb(PlotStyle::viridis(8).color(series.layer, layerRangeOf(m_figure)));
    QCPGraph *graph = plot()->addGraph();
    graph->setName(tr("layer %1").arg(series.layer));
    graph->setPen(QPen(colour, (series.highlighted ? 3.2 : 1.8) * penScale()));
    if (series.points.size() <= kMostMarkedPoints && (!isCaptioned() || series.points.size() == 1))
        graph->setScatterStyle(QCPScatterStyle(markerShape(series.type), colour.darker(130), colour, 5 * penScale()));
    graph->removeFromLegend();
    for (qsizetype i = 0; i < series.points.size(); ++i)
        graph->addData(series.x[i], plottedValue(series.points[i].value, m_figure.logY));
    drawIntervals(series, graph, colour.darker(130));
    return graph;
}

void MetricLineChart::drawIntervals(const LineSeries &series, QCPGraph *line, const QColor &colour)
{
    // Each point's interval as the distances below and above its value; a point without one, or
    // off a logarithmic axis, gets none (NaN is not drawn).
    if (series.intervals.isEmpty())
        return;
    auto *bars = new QCPErrorBars(plot()->xAxis, plot()->yAxis);
    bars->removeFromLegend();
    bars->setSelectable(QCP::stNone);
    bars->setErrorType(QCPErrorBars::etValueError);
    bars->setPen(QPen(colour, series.highlighted ? 2.0 : 1.3));
    bars->setWhiskerWidth(7);
    bars->setSymbolGap(0);
    bars->setDataPlottable(line);
    QVector<double> below, above;
    for (qsizetype i = 0; i < series.points.size(); ++i) {
        const double value = plottedValue(series.points[i].value, m_figure.logY);
        const AxisRange interval = series.intervals.value(i, AxisRange{std::nan(""), std::nan("")});
        below << value - plottedValue(interval.lower, m_figure.logY);
        above << plottedValue(interval.upper, m_figure.logY) - value;
    }
    bars->setData(below, above);
    bars->setVisible(series.visible);
    m_errorBars.append(bars);
}

void MetricLineChart::addLayerScale(const LayerColourScale &scale)
{
    // The colour bar sits where the legend was: the column right of the plot.
    QCustomPlot *p = plot();
    m_layerScale = new QCPColorScale(p);
    m_layerScale->setType(QCPAxis::atRight);
    m_layerScale->setGradient(PlotStyle::viridis(8)); // no pale yellow lines on white
    m_layerScale->setDataRange(QCPRange(scale.range.lower, scale.range.upper));
    m_layerScale->setBarWidth(10);
    m_layerScale->axis()->setLabel(scale.label);
    m_layerScale->axis()->setTicker(QSharedPointer<QCPAxisTickerFixed>::create());
    m_layerScale->axis()->ticker().staticCast<QCPAxisTickerFixed>()->setTickStep(1);
    m_layerScale->axis()->ticker().staticCast<QCPAxisTickerFixed>()->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    PlotStyle::applyFonts(p, fontSize());
    body()->addElement(0, body()->columnCount(), m_layerScale);
    auto *margins = new QCPMarginGroup(p); // the bar as tall as the plot
    p->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_layerScale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
}


QList<QCPGraph *> MetricLineChart::visibleLines() const
{
    QList<QCPGraph *> out;
    for (QCPGraph *graph : m_graphs)
        if (graph->visible())
            out.append(graph);
    return out;
}

MetricLineChart::Hit MetricLineChart::hitAt(const QPoint &pixel) const
{
    Hit best;
    double bestDistance = 10.0; // pixels
    for (qsizetype s = 0; s < m_graphs.size(); ++s) {
        const LineSeries &line = m_figure.series[s];
        if (!m_graphs[s]->visible())
            continue;
        for (qsizetype i = 0; i < line.points.size(); ++i) {
            const double v = line.points[i].value;
            if (!std::isfinite(v))
                continue;
            const QPointF point = m_graphs[s]->coordsToPixels(line.x[i], v);
            const double distance = std::hypot(point.x() - pixel.x(), point.y() - pixel.y());
            if (distance < bestDistance) {
                bestDistance = distance;
                best = {&line, int(i)};
            }
        }
    }
    return best;
}

QString MetricLineChart::tooltipAt(const QPoint &pixel) const
{
    const Hit hit = hitAt(pixel);
    if (!hit.line)
        return {};
    const AggregatePoint &pt = hit.line->points[hit.index];
    const QString metricName = QString::fromUtf8(m_metric.info().label);
    auto number = [](double v) { return valueNumber(v); };
    if (hit.line->layer >= 0) {
        const MatrixCell cell = state()->cell(0, pt.step, state()->block(), hit.line->layer, hit.line->type);
        return cell.isEmpty() ? QString() : describeCell(cell, m_metric);
    }
    const QString aggregateName = state()->aggregate() == Aggregate::Mean ? tr("mean") : tr("median");
    QString text = QStringLiteral("<b>%1</b> · step %2<br>%3 %4 = <b>%5</b><br>min %6 · max %7 · %8 %9")
                       .arg((state()->block().isEmpty() ? QString() : state()->block().toHtmlEscaped() + QStringLiteral(" · ")) +
                            displayLabel(hit.line->type).toHtmlEscaped() +
                            (state()->runCount() > 1 ? QStringLiteral(" · ") + state()->runNameAt(hit.line->run).toHtmlEscaped() : QString()))
                       .arg(pt.step)
                       .arg(metricName, aggregateName, number(pt.value), number(pt.min), number(pt.max)).arg(pt.count)
                       .arg(state()->experts().isEmpty() ? tr("layers") : tr("matrices (layers × experts)"));
    if (pt.missing > 0)
        text += tr(" (%1 NaN left out)").arg(pt.missing);
    if (hit.index < hit.line->intervals.size())
        if (const QString interval = alphaIntervalText(hit.line->intervals[hit.index], 2); !interval.isEmpty())
            text += tr("<br>95 % interval of the mean %1").arg(interval);
    return text;
}

std::optional<MatrixKey> MetricLineChart::matrixAt(const QPoint &pixel) const
{
    const Hit hit = hitAt(pixel);
    if (!hit.line || hit.line->layer < 0)
        return std::nullopt;
    const qint64 step = hit.line->points[hit.index].step;
    const MatrixCell cell = state()->cell(0, step, state()->block(), hit.line->layer, hit.line->type);
    if (cell.isEmpty())
        return std::nullopt;
    return MatrixKey{0, step, cell.matrices.first()->identity()}; // of several experts, the first
}

void MetricLineChart::activate(const QPoint &pixel)
{
    const Hit hit = hitAt(pixel);
    if (hit.line && hit.line->layer < 0) {
        // An aggregate point has no single matrix: it moves the per-layer views to its step.
        state()->setCurrentStep(hit.line->points[hit.index].step);
        return;
    }
    ChartView::activate(pixel);
}

QString MetricLineChart::dataCsv() const { return m_figure.csv(*state()); }

QString MetricLineChart::configure(const FigureOptions &options)
{
    if (options.metric)
        setMetric(*options.metric);
    setStepWindow(options.steps);
    setAlphaGuide(options.alphaGuide);
    if (options.byLayer) {
        QString error;
        const auto type = matrixTypeOption(QStringLiteral("by-layer"), *options.byLayer, &error);
        if (!type)
            return error;
        setPerLayerType(*type);
    }
    return {};
}

} // namespace rankscope
