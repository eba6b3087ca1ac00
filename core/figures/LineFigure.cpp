#include "figures/LineFigure.h"

#include "analysis/results/MetricsTable.h"
#include "figures/AlphaIntervals.h"
#include "figures/FigureMode.h"
#include "figures/FigureNoData.h"

#include <algorithm>

namespace rankscope {

double LineFigureBuilder::xOf(const ViewState &state, int run, qint64 step)
{
    return state.relativeStep() ? state.stepFraction(run, step) : double(step);
}

QString LineFigureBuilder::aggregateName() const { return m_state.aggregate() == Aggregate::Mean ? tr("mean") : tr("median"); }

LineSeries LineFigureBuilder::seriesOf(MatrixType type, int layer, int run, QList<AggregatePoint> points) const
{
    LineSeries series;
    series.type = type;
    series.layer = layer;
    series.run = run;
    if (m_steps)
        points.removeIf([this](const AggregatePoint &pt) { return !m_steps->contains(pt.step); });
    series.points = std::move(points);
    for (const AggregatePoint &pt : series.points)
        series.x.append(xOf(m_state, run, pt.step));
    return series;
}

void LineFigureBuilder::addIntervals(LineFigure &figure, LineSeries &series, const QList<MatrixResult> &results,
                                     const MatrixFilter &filter) const
{
    // A median has no interval the columns give (figures/AlphaIntervals); a layer's line is its
    // matrix, or the mean of its experts.
    const bool mean = series.layer >= 0 || m_state.aggregate() == Aggregate::Mean;
    if (m_options.metric != Metric::Alpha || !mean)
        return;
    series.intervals = alphaIntervalsOverLayers(results, series.type, filter, series.points);
    if (series.intervals.isEmpty())
        return;
    const bool single = series.layer >= 0 && m_state.experts().isEmpty();
    figure.intervalLabel = single ? tr("bars: 95 % bootstrap interval") : tr("bars: 95 % interval of the mean");
}

LineFigure LineFigureBuilder::build() const
{
    LineFigure figure;
    figure.metric = m_options.metric;
    figure.perLayer = m_options.perLayerType.has_value();
    figure.xLabel = m_state.relativeStep() ? tr("Fraction of training (step / last step)") : tr("Training step");
    figure.yLabel = metricAxisLabel(m_options.metric, m_state.energy());
    figure.logY = m_state.logY();
    if (m_options.alphaGuide && m_options.metric == Metric::Alpha) {
        figure.guideBand = AxisRange{2, 6};
        // WeightWatcher's range; short, so the legend stays beside small figures.
        figure.guideLabel = tr("2 \u2264 \u03b1 \u2264 6");
    }
    if (m_options.perLayerType) {
        addLayerLines(figure);
        figure.title = layerLinesTitle();
        const QString type = displayLabel(*m_options.perLayerType);
        figure.shortTitle = tr("%1 of %2 by layer").arg(QString::fromUtf8(m_options.metric.info().label),
                                                        m_state.block().isEmpty() ? type : m_state.block() + QLatin1Char(' ') + type);
    } else {
        addTypeLines(figure);
        figure.title = typeLinesTitle();
        const QString scope = m_state.block().isEmpty() ? layerScopeText() : m_state.block() + QStringLiteral(", ") + layerScopeText();
        figure.shortTitle = tr("%1, %2").arg(QString::fromUtf8(m_options.metric.info().label), scope);
    }
    if (!figure.intervalLabel.isEmpty() && !figure.legendShown)
        for (QString *title : {&figure.title, &figure.shortTitle})
            *title += QStringLiteral(" (") + figure.intervalLabel + QLatin1Char(')');
    if (!m_options.titled) {
        // What the title said that neither the axes nor the legend say: the layers averaged (or
        // the type whose layers the lines are), and the error bars where no legend names them.
        QString scope = m_options.perLayerType ? (m_state.block().isEmpty() ? displayLabel(*m_options.perLayerType)
                                                                            : m_state.block() + QLatin1Char(' ') + displayLabel(*m_options.perLayerType))
                        : m_state.block().isEmpty() ? layerScopeText() : m_state.block() + QStringLiteral(", ") + layerScopeText();
        if (!figure.intervalLabel.isEmpty() && !figure.legendShown)
            scope += QStringLiteral("; ") + figure.intervalLabel;
        const QString plain = figure.yLabel;
        figure.yLabel = labelWithScope(plain, scope);
        const bool everyLayer = m_state.visibleRuns().size() == 1 && m_state.block().isEmpty() && m_state.experts().isEmpty() &&
                                m_state.layerRangeText(LayerView::Lines).isEmpty() && m_state.visibleLayers(LayerView::Lines).size() > 1;
        if (!m_options.perLayerType && everyLayer && figure.intervalLabel.isEmpty())
            figure.compactYLabel = labelWithScope(plain, aggregateName());
    }
    figure.xRange = stepRange(m_state, m_steps);
    figure.yRange = valueRange(figure);
    if (!figure.yRange) {
        const QList<int> runs = m_state.visibleRuns();
        figure.noData = FigureNoData::reason(m_state, m_options.metric, runs.isEmpty() ? 0 : runs.first(), std::nullopt, LayerView::Lines);
    }
    if (m_state.steps().size() > 1 && m_options.interactive)
        figure.stepMarker = xOf(m_state, 0, m_state.currentStep());
    return figure;
}

void LineFigureBuilder::addTypeLines(LineFigure &figure) const
{
    const ViewState &s = m_state;
    const QList<int> runs = s.visibleRuns();
    const bool comparing = runs.size() > 1;
    figure.bands = s.showBand() && !comparing; // several runs' bands would hide each other
    // Bands sit below every line so no band tints another type's line; with many types they are lighter.
    const QList<MatrixType> types = s.typesIn(s.block());
    const auto shownTypes = std::count_if(types.begin(), types.end(), [&s](MatrixType t) { return s.isTypeVisible(t); });
    // On paper as matplotlib's fill_between(alpha=0.2): a band a reader sees in print.
    figure.bandAlpha = !m_options.interactive ? 51 : shownTypes > 3 ? 22 : 45;
    const auto h = s.highlighted();
    for (qsizetype k = 0; k < runs.size(); ++k) {
        const int run = runs[k];
        if (s.visibleLayersAt(run, LayerView::Lines).isEmpty())
            continue;
        for (MatrixType type : types) {
            QList<AggregatePoint> points = aggregateOverLayers(s.resultsAt(run), type, m_options.metric, s.aggregate(), s.filterAt(run, LayerView::Lines));
            if (points.isEmpty())
                continue;
            LineSeries series = seriesOf(type, -1, run, std::move(points));
            addIntervals(figure, series, s.resultsAt(run), s.filterAt(run));
            series.runOrder = int(k);
            series.visible = s.isTypeVisible(type);
            series.highlighted = m_options.interactive && h && h->id.type == type && h->id.block == s.block();
            series.inLegend = k == 0; // the legend lists each type once, then each run
            figure.series.append(std::move(series));
        }
    }
    if (comparing)
        for (qsizetype k = 0; k < runs.size(); ++k)
            figure.runKeys.append({s.runNameAt(runs[k]), int(k)});
}

void LineFigureBuilder::addLayerLines(LineFigure &figure) const
{
    // One line per layer on a sequential colour map, read off a colour bar rather than a legend
    // of indistinguishable shades.
    const ViewState &s = m_state;
    const MatrixType type = *m_options.perLayerType;
    const QList<int> layers = s.visibleLayers(LayerView::Lines);
    const auto h = s.highlighted();
    for (int layer : layers) {
        MatrixFilter filter = s.filterAt(0, LayerView::Lines);
        filter.layers = {layer, layer};
        QList<AggregatePoint> points = aggregateOverLayers(s.results(), type, m_options.metric, Aggregate::Mean, filter);
        if (points.isEmpty())
            continue;
        LineSeries series = seriesOf(type, layer, 0, std::move(points));
        addIntervals(figure, series, s.results(), filter);
        series.highlighted = m_options.interactive && h && h->id.layer == layer && h->id.type == type && h->id.block == s.block();
        figure.series.append(std::move(series));
    }
    figure.legendShown = false;
    figure.layerScale = LayerColourScale{{layers.isEmpty() ? -0.5 : layers.first() - 0.5, layers.isEmpty() ? 0.5 : layers.last() + 0.5},
                                         tr("Layer")};
}

QString LineFigureBuilder::layerScopeText() const
{
    const ViewState &s = m_state;
    const QList<int> runs = s.visibleRuns();
    const QList<int> layers = s.visibleLayers(LayerView::Lines);
    QString text = layers.isEmpty() ? QString()
                   : layers.size() == 1 ? tr("layer %1").arg(layers.first())
                                        : tr("%1 of layers %2–%3").arg(aggregateName()).arg(layers.first()).arg(layers.last());
    if (runs.size() > 1) {
        // The range means the same for every run; a run with none of its layers in it says so.
        const QString range = s.layerRangeText(LayerView::Lines);
        text = range.isEmpty() ? tr("%1 of each run's layers").arg(aggregateName()) : tr("%1 of %2 of each run").arg(aggregateName(), range);
        QStringList without;
        for (int run : runs)
            if (s.visibleLayersAt(run, LayerView::Lines).isEmpty())
                without << s.runNameAt(run);
        if (!without.isEmpty())
            text += tr(" (none in %1)").arg(without.join(QLatin1String(", ")));
    }
    if (!s.experts().isEmpty())
        text += s.expert().isEmpty() ? tr(" and experts")
                : s.expert() == QLatin1String(kSharedExpert) ? tr(", shared expert") : tr(", expert %1").arg(s.expert());
    return text;
}

QString LineFigureBuilder::typeLinesTitle() const
{
    const ViewState &s = m_state;
    const QString scope = layerScopeText();
    QStringList names;
    for (int run : s.visibleRuns())
        names << s.runNameAt(run);
    return tr("%1 vs training step, %2 — %3").arg(QString::fromUtf8(m_options.metric.info().label),
                                                   s.block().isEmpty() ? scope : s.block() + QStringLiteral(", ") + scope,
                                                   names.join(QLatin1String(" vs ")));
}

QString LineFigureBuilder::layerLinesTitle() const
{
    const ViewState &s = m_state;
    const MatrixType type = *m_options.perLayerType;
    return tr("%1 of %2 by layer vs training step — %3")
        .arg(QString::fromUtf8(m_options.metric.info().label),
             s.block().isEmpty() ? displayLabel(type) : QStringLiteral("%1 %2").arg(s.block(), displayLabel(type)), s.runName());
}

std::optional<AxisRange> LineFigureBuilder::stepRange(const ViewState &state, std::optional<StepWindow> window)
{
    std::optional<AxisRange> steps;
    for (int run : state.visibleRuns())
        for (qint64 step : state.stepsAt(run)) {
            if (window && !window->contains(step))
                continue;
            const double x = xOf(state, run, step);
            steps = steps ? AxisRange{std::min(steps->lower, x), std::max(steps->upper, x)} : AxisRange{x, x};
        }
    if (!steps)
        return std::nullopt;
    // One step alone stands in the middle of an axis of whole steps (50 … 150 for step 100), not
    // of ±0.03 around it; step 0 alone in ±0.5, so that the axis labels only it, not step −1.
    if (steps->upper <= steps->lower) {
        const double half = std::max(0.5, 0.5 * std::abs(steps->lower));
        return AxisRange{steps->lower - half, steps->upper + half};
    }
    const double span = steps->upper - steps->lower;
    return AxisRange{steps->lower - 0.03 * span, steps->upper + 0.03 * span};
}

std::optional<AxisRange> LineFigureBuilder::valueRange(const LineFigure &figure)
{
    // What the visible lines draw, their bands included; NaN (gaps) is left out, as the plot does.
    std::optional<AxisRange> values;
    auto include = [&values](double v) {
        if (!std::isnan(v))
            values = values ? AxisRange{std::min(values->lower, v), std::max(values->upper, v)} : AxisRange{v, v};
    };
    for (const LineSeries &series : figure.series) {
        if (!series.visible)
            continue;
        const bool band = figure.bands && series.layer < 0;
        for (const AggregatePoint &pt : series.points) {
            include(plottedValue(pt.value, figure.logY));
            if (band) {
                include(plottedValue(pt.min, figure.logY));
                include(plottedValue(pt.max, figure.logY));
            }
        }
        for (const AxisRange &interval : series.intervals) {
            include(plottedValue(interval.lower, figure.logY));
            include(plottedValue(interval.upper, figure.logY));
        }
    }
    if (!values)
        return std::nullopt;
    if (figure.logY)
        return AxisRange{values->lower / 1.3, values->upper * 1.3};
    const double pad = std::max(1e-12, 0.06 * (values->upper - values->lower));
    double lower = values->lower - pad;
    if (values->lower >= 0 && lower < 0)
        lower = 0; // never pad a non-negative metric below zero
    return AxisRange{lower, values->upper + pad};
}

namespace {

// A value as the readout shows it: one digit finer than the ticks of an axis spanning `range`
// (ticks step by about a fifth of the span), three significant digits on a logarithmic axis.
QString readoutNumber(double v, AxisRange range, bool log) { return axisNumber(v, range, log); }

} // namespace

std::optional<LineReadout> LineFigure::readoutAt(double x, const ViewState &state, std::optional<AxisRange> shownY) const
{
    // The nearest checkpoint of any visible line; then every visible line's point there.
    std::optional<std::pair<double, qint64>> nearest;
    for (const LineSeries &line : series)
        for (qsizetype i = 0; line.visible && i < line.x.size(); ++i)
            if (!nearest || std::abs(line.x[i] - x) < std::abs(nearest->first - x))
                nearest = std::pair{line.x[i], line.points[i].step};
    if (!nearest)
        return std::nullopt;
    LineReadout readout;
    std::tie(readout.x, readout.step) = *nearest;
    const AxisRange range = shownY ? *shownY : yRange.value_or(AxisRange{0, 1});
    for (const LineSeries &line : series) {
        const qsizetype i = line.visible ? line.x.indexOf(readout.x) : -1;
        if (i < 0)
            continue;
        QString name = line.layer >= 0 ? QStringLiteral("layer %1").arg(line.layer) : displayLabel(line.type);
        if (!runKeys.isEmpty())
            name += QStringLiteral(" · ") + state.runNameAt(line.run);
        QString value = readoutNumber(line.points[i].value, range, logY);
        // --alpha-ci: "3.12 [2.95, 3.30]", the endpoints rounded as the value.
        if (i < line.intervals.size() && std::isfinite(line.intervals[i].lower) && std::isfinite(line.intervals[i].upper))
            value += QStringLiteral(" [%1, %2]").arg(readoutNumber(line.intervals[i].lower, range, logY),
                                                      readoutNumber(line.intervals[i].upper, range, logY));
        readout.entries.append({name, value});
    }
    return readout;
}

QString LineReadout::text() const
{
    QStringList lines{QStringLiteral("step %1").arg(step)};
    for (const Entry &entry : entries)
        lines << QStringLiteral("%1  %2").arg(entry.name, entry.value);
    return lines.join(QLatin1Char('\n'));
}

QString LineFigure::csv(const ViewState &state) const
{
    const QString column = QString::fromLatin1(metric.info().column);
    const QString block = MetricsTable::csvField(state.block());
    // --alpha-ci: the interval of each point's value (its matrix's, or its mean's) in two more columns.
    const bool intervals = std::any_of(series.begin(), series.end(), [](const LineSeries &line) { return !line.intervals.isEmpty(); });
    auto intervalOf = [intervals](const LineSeries &line, qsizetype i) {
        if (!intervals)
            return QString();
        const AxisRange interval = i < line.intervals.size() ? line.intervals[i] : AxisRange{std::nan(""), std::nan("")};
        return QStringLiteral(",%1,%2").arg(MetricsTable::formatNumber(interval.lower), MetricsTable::formatNumber(interval.upper));
    };
    const QString intervalColumns = intervals ? QStringLiteral(",alpha_ci_low,alpha_ci_high") : QString();
    QString csv;
    if (perLayer) {
        csv = QStringLiteral("step,block,layer,type,%1%2\n").arg(column, intervalColumns);
        for (const LineSeries &line : series)
            for (qsizetype i = 0; i < line.points.size(); ++i)
                csv += QStringLiteral("%1,%2,%3,%4,%5%6\n").arg(line.points[i].step).arg(block).arg(line.layer)
                           .arg(csvName(line.type)).arg(MetricsTable::formatNumber(line.points[i].value), intervalOf(line, i));
        return csv;
    }
    const QString aggregate = state.aggregate() == Aggregate::Mean ? QStringLiteral("mean") : QStringLiteral("median");
    csv = QStringLiteral("run,step,block,type,%1_%2,%1_min,%1_max,matrices,nan_matrices%3\n").arg(column, aggregate, intervalColumns);
    for (const LineSeries &line : series) {
        if (!line.visible)
            continue;
        for (qsizetype i = 0; i < line.points.size(); ++i) {
            const AggregatePoint &p = line.points[i];
            csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9").arg(MetricsTable::csvField(state.runNameAt(line.run))).arg(p.step)
                       .arg(block, csvName(line.type), MetricsTable::formatNumber(p.value),
                            MetricsTable::formatNumber(p.min), MetricsTable::formatNumber(p.max))
                       .arg(p.count).arg(p.missing) + intervalOf(line, i) + QLatin1Char('\n');
        }
    }
    return csv;
}

} // namespace rankscope
