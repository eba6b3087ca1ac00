#include "MetricLineChart.h"

#include "MetricSelector.h"
#include "PlotStyle.h"
#include "TypeStyle.h"
#include "analysis/MetricsTable.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <cmath>

namespace rankscope {

namespace {
QString number(double v) { return std::isfinite(v) ? QString::number(v, 'g', 5) : QStringLiteral("NaN"); }

// Types differ by colour and marker; the k-th visible run by its line's dash pattern.
Qt::PenStyle runLineStyle(int k)
{
    static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    return styles[k % 5];
}

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
} // namespace

double MetricLineChart::xOf(int run, qint64 step) const
{
    return state()->relativeStep() ? state()->stepFraction(run, step) : double(step);
}

MetricLineChart::MetricLineChart(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_modeBox(new QComboBox(this))
{
    m_metricBox = addMetricSelector(m_metric);
    headerLayout()->addSpacing(12);
    headerLayout()->addWidget(new QLabel(tr("Lines"), this));
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
        for (const Line &line : m_lines)
            if (line.graph == plottableItem->plottable() && line.layer < 0) // toggling a type in the legend
                this->state()->setTypeVisible(line.type, !this->state()->isTypeVisible(line.type));
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
    m_guideBand->topLeft->setCoords(0, 6);
    m_guideBand->bottomRight->setCoords(1, 2);
    m_stepMarker = new QCPItemStraightLine(plot());
    m_stepMarker->setPen(QPen(QColor(0x88, 0x88, 0x88), 1, Qt::DashLine));
    m_stepMarker->setSelectable(false);

    connect(state, &ViewState::resultsChanged, this, [this] { fillModeBox(); rebuild(); });
    connect(state, &ViewState::displayChanged, this, [this] { fillModeBox(); rebuild(); });
    connect(state, &ViewState::highlightChanged, this, &MetricLineChart::rebuild);
    connect(state, &ViewState::currentStepChanged, this, [this] { updateStepMarker(); refresh(); });
    fillModeBox();
    rebuild();
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

bool MetricLineChart::alphaGuideDrawn() const { return m_guideBand->visible(); }

void MetricLineChart::setPerLayerType(std::optional<MatrixType> type)
{
    m_perLayerType = type;
    m_modeBox->setCurrentIndex(std::max(0, m_modeBox->findData(type ? int(*type) : -1)));
    rebuild();
}

void MetricLineChart::rebuild()
{
    QCustomPlot *p = plot();
    p->clearGraphs();
    p->legend->clearItems();
    m_lines.clear();
    if (m_layerScale) { // the colour bar of the per-layer lines
        body()->remove(m_layerScale);
        body()->simplify();
        m_layerScale = nullptr;
    }
    p->legend->setVisible(true);
    const ViewState *s = state();
    const QList<MatrixResult> &results = s->results();
    p->xAxis->setLabel(s->relativeStep() ? tr("Fraction of training (step / last step)") : tr("Training step"));
    const QString metricLabel = metricAxisLabel(m_metric, s->energy());
    const bool logY = s->logY();
    const bool guide = m_alphaGuide && m_metric == Metric::Alpha;
    m_guideBox->setVisible(m_metric == Metric::Alpha);
    m_guideBand->setVisible(guide);
    if (guide) {
        QColor fill = theme().guide;
        fill.setAlpha(theme().dark ? 46 : 38);
        m_guideBand->setBrush(fill);
    }
    // A logarithmic axis cannot show zero or negative values: those points become gaps.
    auto plotted = [logY](double v) { return logY && !(v > 0) ? std::nan("") : v; };

    if (!m_perLayerType) {
        const QString aggregateName = s->aggregate() == Aggregate::Mean ? tr("mean") : tr("median");
        const QList<int> runs = s->visibleRuns();
        const bool comparing = runs.size() > 1;
        // Bands sit below every line so no band tints another type's line; with many types they are lighter.
        int shownTypes = 0;
        for (MatrixType type : s->typesIn(s->block()))
            shownTypes += s->isTypeVisible(type);
        const int bandAlpha = shownTypes > 3 ? 22 : 45;
        for (qsizetype k = 0; k < runs.size(); ++k) {
            const int run = runs[k];
            if (s->visibleLayersAt(run).isEmpty())
                continue;
            for (MatrixType type : s->typesIn(s->block())) {
                const QList<AggregatePoint> points = aggregateOverLayers(s->resultsAt(run), type, m_metric, s->aggregate(), s->filterAt(run));
                if (points.isEmpty())
                    continue;
                const bool visible = s->isTypeVisible(type);
                const QColor colour = typeColour(type);
                if (s->showBand() && !comparing) { // several runs' bands would hide each other
                    QCPGraph *lower = p->addGraph();
                    QCPGraph *upper = p->addGraph();
                    for (QCPGraph *g : {lower, upper}) {
                        g->setPen(Qt::NoPen);
                        g->removeFromLegend();
                        g->setSelectable(QCP::stNone);
                        g->setVisible(visible);
                        g->setLayer(QStringLiteral("bands"));
                    }
                    QColor fill = colour;
                    fill.setAlpha(bandAlpha);
                    upper->setBrush(fill);
                    upper->setChannelFillGraph(lower);
                    for (const AggregatePoint &pt : points) {
                        lower->addData(xOf(run, pt.step), plotted(pt.min));
                        upper->addData(xOf(run, pt.step), plotted(pt.max));
                    }
                }
                const bool highlighted = !isExporting() && s->highlighted() && s->highlighted()->id.type == type &&
                                         s->highlighted()->id.block == s->block();
                const double width = highlighted ? 3.4 : 2.0;
                if (isLightColour(colour) && !theme().dark) {
                    // A light line gets a darker casing under it, so it holds its own on white.
                    QCPGraph *casing = p->addGraph();
                    QPen edge(typeOutline(type), width + 1.4);
                    edge.setStyle(runLineStyle(int(k)));
                    casing->setPen(edge);
                    casing->removeFromLegend();
                    casing->setSelectable(QCP::stNone);
                    casing->setVisible(visible);
                    for (const AggregatePoint &pt : points)
                        casing->addData(xOf(run, pt.step), plotted(pt.value));
                }
                QCPGraph *graph = p->addGraph();
                graph->setName(displayLabel(type));
                // Colour and marker are the type; the dash pattern is the run.
                QPen pen = typePen(type, width);
                pen.setStyle(runLineStyle(int(k)));
                graph->setPen(pen);
                graph->setScatterStyle(QCPScatterStyle(markerShape(type), QPen(typeOutline(type), 1.2), colour, 7));
                for (const AggregatePoint &pt : points)
                    graph->addData(xOf(run, pt.step), plotted(pt.value));
                graph->setVisible(visible);
                if (k > 0)
                    graph->removeFromLegend(); // the legend lists each type once, then each run
                if (auto *item = p->legend->itemWithPlottable(graph))
                    item->setTextColor(visible ? theme().text : theme().muted);
                m_lines.append({graph, type, -1, points, run});
            }
        }
        if (comparing) {
            for (qsizetype k = 0; k < runs.size(); ++k) {
                QCPGraph *key = p->addGraph(); // no data: a legend entry for the run's line style
                key->setName(s->runNameAt(runs[k]));
                key->setPen(QPen(theme().ink, 1.6, runLineStyle(int(k))));
                key->setSelectable(QCP::stNone);
            }
        }
        const QList<int> layers = s->visibleLayers();
        QString layerText = layers.isEmpty() ? QString()
                            : layers.size() == 1 ? tr("layer %1").arg(layers.first())
                                                 : tr("%1 of layers %2–%3").arg(aggregateName).arg(layers.first()).arg(layers.last());
        if (comparing) {
            // The range means the same for every run; a run with none of its layers in it says so.
            const QString range = s->layerRangeText();
            layerText = range.isEmpty() ? tr("%1 of each run's layers").arg(aggregateName) : tr("%1 of %2 of each run").arg(aggregateName, range);
            QStringList without;
            for (int run : runs)
                if (s->visibleLayersAt(run).isEmpty())
                    without << s->runNameAt(run);
            if (!without.isEmpty())
                layerText += tr(" (none in %1)").arg(without.join(QLatin1String(", ")));
        }
        if (!s->experts().isEmpty())
            layerText += s->expert().isEmpty() ? tr(" and experts")
                         : s->expert() == QLatin1String(kSharedExpert) ? tr(", shared expert") : tr(", expert %1").arg(s->expert());
        QStringList names;
        for (int run : runs)
            names << s->runNameAt(run);
        setTitle(tr("%1 vs training step, %2 — %3").arg(QString::fromUtf8(metricInfo(m_metric).label),
                                                         s->block().isEmpty() ? layerText : s->block() + QStringLiteral(", ") + layerText,
                                                         names.join(QLatin1String(" vs "))));
    } else {
        // One line per layer on a sequential colour map, read off a colour bar rather than a legend
        // of indistinguishable shades.
        const MatrixType type = *m_perLayerType;
        const QList<int> layers = s->visibleLayers();
        const QCPColorGradient gradient = PlotStyle::viridis(8); // no pale yellow lines on white
        const QCPRange layerRange(layers.isEmpty() ? -0.5 : layers.first() - 0.5, layers.isEmpty() ? 0.5 : layers.last() + 0.5);
        for (qsizetype i = 0; i < layers.size(); ++i) {
            const int layer = layers[i];
            MatrixFilter filter = s->filterAt(0);
            filter.layers = {layer, layer};
            const QList<AggregatePoint> points = aggregateOverLayers(results, type, m_metric, Aggregate::Mean, filter);
            if (points.isEmpty())
                continue;
            const QColor colour = QColor::fromRgb(QCPColorGradient(gradient).color(layer, layerRange));
            QCPGraph *graph = p->addGraph();
            graph->setName(tr("layer %1").arg(layer));
            graph->setPen(QPen(colour, 1.8));
            graph->setScatterStyle(QCPScatterStyle(markerShape(type), colour.darker(130), colour, 5));
            graph->removeFromLegend();
            for (const AggregatePoint &pt : points)
                graph->addData(xOf(0, pt.step), plotted(pt.value));
            const auto h = s->highlighted();
            const bool highlighted = !isExporting() && h && h->id.layer == layer && h->id.type == type && h->id.block == s->block();
            if (highlighted)
                graph->setPen(QPen(colour, 3.2));
            m_lines.append({graph, type, layer, points, 0});
        }
        p->legend->setVisible(false);
        // The colour bar sits where the legend was: the column right of the plot.
        m_layerScale = new QCPColorScale(p);
        m_layerScale->setType(QCPAxis::atRight);
        m_layerScale->setGradient(gradient);
        m_layerScale->setDataRange(layerRange);
        m_layerScale->setBarWidth(10);
        m_layerScale->axis()->setLabel(tr("Layer"));
        m_layerScale->axis()->setTicker(QSharedPointer<QCPAxisTickerFixed>::create());
        m_layerScale->axis()->ticker().staticCast<QCPAxisTickerFixed>()->setTickStep(1);
        m_layerScale->axis()->ticker().staticCast<QCPAxisTickerFixed>()->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        PlotStyle::applyFonts(p, fontSize());
        body()->addElement(0, body()->columnCount(), m_layerScale);
        auto *margins = new QCPMarginGroup(p); // the bar as tall as the plot
        p->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        m_layerScale->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
        setTitle(tr("%1 of %2 by layer vs training step — %3")
                     .arg(QString::fromUtf8(metricInfo(m_metric).label),
                          s->block().isEmpty() ? displayLabel(type) : QStringLiteral("%1 %2").arg(s->block(), displayLabel(type)), s->runName()));
    }

    if (guide && !m_perLayerType) { // the band's legend entry, after the lines': a graph without data draws only its swatch
        QCPGraph *entry = p->addGraph();
        entry->setPen(Qt::NoPen);
        entry->setBrush(m_guideBand->brush());
        entry->setName(tr("2 \u2264 \u03b1 \u2264 6")); // WeightWatcher's range; short, so the legend stays beside small figures
    }
    p->yAxis->setLabel(metricLabel);
    PlotStyle::setLogScale(p->yAxis, logY);
    double xFirst = 0, xLast = 0;
    bool anyStep = false;
    for (int run : s->visibleRuns())
        for (qint64 step : s->stepsAt(run)) {
            const double x = xOf(run, step);
            xFirst = anyStep ? std::min(xFirst, x) : x;
            xLast = anyStep ? std::max(xLast, x) : x;
            anyStep = true;
        }
    if (anyStep) {
        const double span = xLast > xFirst ? xLast - xFirst : 1.0;
        p->xAxis->setRange(xFirst - 0.03 * span, xLast + 0.03 * span);
    }
    bool found = false;
    QCPRange yRange;
    for (int gi = 0; gi < p->graphCount(); ++gi) {
        QCPGraph *g = p->graph(gi);
        if (!g->visible())
            continue;
        bool ok = false;
        const QCPRange r = g->getValueRange(ok, QCP::sdBoth);
        if (ok) {
            yRange = found ? QCPRange(std::min(yRange.lower, r.lower), std::max(yRange.upper, r.upper)) : r;
            found = true;
        }
    }
    if (found) {
        if (logY) {
            p->yAxis->setRange(yRange.lower / 1.3, yRange.upper * 1.3);
        } else {
            const double pad = std::max(1e-12, 0.06 * (yRange.upper - yRange.lower));
            double lower = yRange.lower - pad;
            if (yRange.lower >= 0 && lower < 0)
                lower = 0; // never pad a non-negative metric below zero
            p->yAxis->setRange(lower, yRange.upper + pad);
        }
    }
    updateStepMarker();
    refresh();
}

void MetricLineChart::updateStepMarker()
{
    const double x = xOf(0, state()->currentStep());
    m_stepMarker->point1->setCoords(x, 0);
    m_stepMarker->point2->setCoords(x, 1);
    m_stepMarker->setVisible(state()->steps().size() > 1 && !isExporting());
}

QList<QCPGraph *> MetricLineChart::visibleLines() const
{
    QList<QCPGraph *> out;
    for (const Line &line : m_lines)
        if (line.graph->visible())
            out.append(line.graph);
    return out;
}

MetricLineChart::Hit MetricLineChart::hitAt(const QPoint &pixel) const
{
    Hit best;
    double bestDistance = 10.0; // pixels
    for (const Line &line : m_lines) {
        if (!line.graph->visible())
            continue;
        for (qsizetype i = 0; i < line.points.size(); ++i) {
            const double v = line.points[i].value;
            if (!std::isfinite(v))
                continue;
            const QPointF point = line.graph->coordsToPixels(xOf(line.run, line.points[i].step), v);
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
    const QString metricName = QString::fromUtf8(metricInfo(m_metric).label);
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

QString MetricLineChart::dataCsv() const
{
    const QString column = QString::fromLatin1(metricInfo(m_metric).column);
    QString csv;
    if (m_perLayerType) {
        csv = QStringLiteral("step,block,layer,type,%1\n").arg(column);
        for (const Line &line : m_lines)
            for (const AggregatePoint &p : line.points)
                csv += QStringLiteral("%1,%2,%3,%4,%5\n").arg(p.step).arg(MetricsTable::csvField(state()->block())).arg(line.layer)
                           .arg(csvName(line.type)).arg(MetricsTable::formatNumber(p.value));
        return csv;
    }
    const QString aggregate = state()->aggregate() == Aggregate::Mean ? QStringLiteral("mean") : QStringLiteral("median");
    csv = QStringLiteral("run,step,block,type,%1_%2,%1_min,%1_max,matrices,nan_matrices\n").arg(column, aggregate);
    for (const Line &line : m_lines) {
        if (!line.graph->visible())
            continue;
        for (const AggregatePoint &p : line.points)
            csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9\n").arg(MetricsTable::csvField(state()->runNameAt(line.run))).arg(p.step)
                       .arg(MetricsTable::csvField(state()->block()), csvName(line.type), MetricsTable::formatNumber(p.value),
                            MetricsTable::formatNumber(p.min), MetricsTable::formatNumber(p.max))
                       .arg(p.count).arg(p.missing);
    }
    return csv;
}

} // namespace rankscope
