#include "figures/BarFigure.h"

#include "figures/FigureNoData.h"

#include <algorithm>
#include <limits>

namespace rankscope {

BarGeometry BarGeometry::of(int bars, double slotPixels)
{
    constexpr double kGroup = 0.8, kThinnest = 3, kOutlined = 4;
    const int n = std::max(1, bars);
    if (!(slotPixels > 0))
        return {kGroup / n, 0, true};
    const double groupPixels = kGroup * slotPixels;
    const double gap = n > 1 && (groupPixels - (n - 1)) / n >= kThinnest ? 1.0 : 0.0;
    const double barPixels = (groupPixels - (n - 1) * gap) / n;
    return {barPixels / slotPixels, gap / slotPixels, barPixels >= kOutlined};
}

BarSeries BarFigureBuilder::seriesOf(MatrixType type, const QList<int> &layers, qint64 step) const
{
    const ViewState &s = m_state;
    BarSeries series;
    series.type = type;
    series.visible = s.isTypeVisible(type);
    const auto h = s.highlighted();
    series.highlighted = m_mode.interactive && h && h->id.type == type && h->id.block == s.block() && h->run == m_run && series.visible;
    for (int layer : layers) {
        const MatrixCell cell = s.cell(m_run, step, s.block(), layer, type);
        const AggregatePoint v = cell.isEmpty() ? AggregatePoint{0, std::nan(""), 0, 0, 0, 0} : aggregateValues(cell.matrices, m_metric);
        series.layers.append(layer);
        series.values.append(v);
        if (cell.matrices.size() > 1 && series.visible) {
            // The whiskers start at the first layer of several experts; the layers before get none.
            series.spreadBelow.resize(series.values.size() - 1, std::nan(""));
            series.spreadAbove.resize(series.values.size() - 1, std::nan(""));
            series.spreadBelow.append(std::isfinite(v.value) ? v.value - v.min : std::nan(""));
            series.spreadAbove.append(std::isfinite(v.value) ? v.max - v.value : std::nan(""));
        } else if (series.hasSpread()) {
            series.spreadBelow.append(std::nan(""));
            series.spreadAbove.append(std::nan(""));
        }
    }
    return series;
}

BarFigure BarFigureBuilder::build() const
{
    const ViewState &s = m_state;
    BarFigure figure;
    figure.metric = m_metric;
    figure.run = m_run;
    figure.step = s.stepAt(m_run);
    figure.logY = s.logYBars();
    const QList<int> layers = s.visibleLayersAt(m_run, LayerView::Bars);
    const QList<MatrixType> types = s.typesIn(s.block());
    const auto visible = std::count_if(types.begin(), types.end(), [&s](MatrixType t) { return s.isTypeVisible(t); });
    figure.barWidth = visible == 0 ? 0.8 : 0.8 / double(visible);
    for (MatrixType type : types)
        figure.series.append(seriesOf(type, layers, figure.step));
    for (int layer : layers)
        figure.layerTicks.insert(layer, s.relativeDepth() ? QString::number(s.depthFraction(m_run, layer), 'f', 2) : QString::number(layer));
    figure.xLabel = s.relativeDepth() ? tr("Relative depth (layer / (depth − 1))") : tr("Layer");
    figure.yLabel = metricAxisLabel(m_metric, s.energy());
    if (!layers.isEmpty())
        figure.xRange = AxisRange{layers.first() - 0.6, layers.last() + 0.6};
    figure.yRange = valueRange(figure);
    if (!figure.yRange)
        figure.noData = FigureNoData::reason(s, m_metric, m_run, figure.step, LayerView::Bars);
    figure.title = title(figure);
    if (!m_mode.titled)
        sayInLabels(figure);
    const QList<int> shown = s.visibleRuns();
    figure.legendShown = shown.isEmpty() || !shown.contains(m_run) || m_run == shown.last();
    return figure;
}

std::optional<AxisRange> BarFigureBuilder::valueRange(const BarFigure &figure) const
{
    QList<MatrixType> visible;
    double whiskerLow = std::numeric_limits<double>::infinity(), whiskerHigh = -whiskerLow;
    for (const BarSeries &series : figure.series) {
        if (!series.visible)
            continue;
        visible << series.type;
        for (qsizetype i = 0; i < series.spreadBelow.size(); ++i) {
            const AggregatePoint &v = series.values[i];
            if (std::isfinite(series.spreadBelow[i]) && (!figure.logY || v.min > 0)) {
                whiskerLow = std::min(whiskerLow, v.min);
                whiskerHigh = std::max(whiskerHigh, v.max);
            }
        }
    }
    // The value axis spans every shown run, so side-by-side panels share one scale; the whiskers must fit too.
    const auto range = m_state.valueRangeAtSteps(m_metric, {m_state.block()}, visible, figure.logY, LayerView::Bars);
    if (!range)
        return std::nullopt;
    const double lowest = std::min(range->first, whiskerLow), highest = std::max(range->second, whiskerHigh);
    if (figure.logY)
        return AxisRange{lowest / 1.5, highest * 1.5};
    if (m_metric == Metric::CompressionPct && lowest >= 0)
        return AxisRange{0, 100};
    return AxisRange{std::min(0.0, lowest * 1.08), std::max(0.0, highest * 1.08)};
}

void BarFigureBuilder::sayInLabels(BarFigure &figure) const
{
    const ViewState &s = m_state;
    const QString step = s.stepWords(m_run, figure.step, true);
    figure.xLabel = labelWithScope(figure.xLabel, s.block().isEmpty() ? step : s.block() + QStringLiteral(", ") + step);
    const bool anyExperts = std::any_of(figure.series.begin(), figure.series.end(), [](const BarSeries &b) { return b.hasSpread(); });
    if (anyExperts)
        figure.yLabel = labelWithScope(figure.yLabel, tr("mean of experts, whiskers min–max"));
    else if (!s.expert().isEmpty())
        figure.yLabel = labelWithScope(figure.yLabel, s.expert() == QLatin1String(kSharedExpert) ? tr("shared expert") : tr("expert %1").arg(s.expert()));
}

QString BarFigureBuilder::title(const BarFigure &figure) const
{
    const ViewState &s = m_state;
    QString scope = s.runNameAt(m_run);
    if (const QString range = s.layerRangeText(LayerView::Bars); !range.isEmpty())
        scope = range + QStringLiteral(", ") + scope;
    if (!s.block().isEmpty())
        scope = s.block() + QStringLiteral(", ") + scope;
    const bool anyExperts = std::any_of(figure.series.begin(), figure.series.end(), [](const BarSeries &b) { return b.hasSpread(); });
    if (anyExperts)
        scope = tr("mean of experts (whiskers: min–max), %1").arg(scope);
    else if (!s.expert().isEmpty())
        scope = (s.expert() == QLatin1String(kSharedExpert) ? tr("shared expert") : tr("expert %1").arg(s.expert())) + QStringLiteral(", ") + scope;
    return tr("%1 by layer at %2 — %3").arg(QString::fromUtf8(m_metric.info().label), s.stepWords(m_run, figure.step), scope);
}

} // namespace rankscope
