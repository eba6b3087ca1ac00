#include "figures/HeatmapFigure.h"

#include "figures/FigureNoData.h"

#include <QSet>
#include <algorithm>
#include <cmath>

namespace rankscope {

HeatmapFigure HeatmapFigureBuilder::build() const
{
    const ViewState &s = m_state;
    HeatmapFigure figure;
    figure.metric = m_metric;
    figure.run = m_run;
    figure.step = s.stepAt(m_run);
    addRowsAndColumns(figure);
    addCells(figure);
    figure.xLabel = s.relativeDepth() ? tr("Relative depth") : tr("Layer");
    figure.yLabel = s.blocks().size() > 1 ? tr("Block · matrix type") : tr("Matrix type");
    figure.colours.map = m_metric == Metric::CompressionPct ? HeatmapColourScale::Map::YellowOrangeRed : HeatmapColourScale::Map::Viridis;
    addColourRange(figure);
    const bool anyValue = std::any_of(figure.values.begin(), figure.values.end(), [](const QList<double> &row) {
        return std::any_of(row.begin(), row.end(), [](double v) { return std::isfinite(v); });
    });
    if (!anyValue)
        figure.noData = FigureNoData::reason(s, m_metric, m_run, figure.step);
    figure.title = title(figure);
    if (!m_mode.titled) {
        // The step (and the experts' mean) on the layer axis: the colour bar names the metric.
        QString scope = s.stepWords(m_run, figure.step, true);
        if (!s.experts().isEmpty())
            scope += QStringLiteral(", ") + (s.expert().isEmpty() ? tr("mean of experts")
                                             : s.expert() == QLatin1String(kSharedExpert) ? tr("shared expert") : tr("expert %1").arg(s.expert()));
        figure.xLabel = labelWithScope(figure.xLabel, scope);
    }
    const auto h = m_mode.interactive ? s.highlighted() : std::nullopt;
    const qsizetype hx = h && h->run == m_run ? figure.columns.indexOf(h->id.layer) : -1;
    const qsizetype hy = h ? figure.rows.indexOf(HeatmapRow{h->id.block, h->id.type}) : -1;
    if (hx >= 0 && hy >= 0)
        figure.highlighted = std::pair{int(hx), int(hy)};
    return figure;
}

std::optional<std::pair<double, double>> HeatmapFigureBuilder::rangeOverAllSteps() const
{
    const ViewState &s = m_state;
    std::optional<std::pair<double, double>> range;
    for (int run : s.visibleRuns())
        for (qint64 step : s.stepsAt(run))
            for (const QString &block : s.blocks())
                for (int layer : s.visibleLayersAt(run, block))
                    for (MatrixType type : s.visibleTypes()) {
                        // A cell of several experts shows their mean: that is the value the scale must hold.
                        const MatrixCell c = s.cell(run, step, block, layer, type);
                        const double v = c.isEmpty() ? std::nan("") : aggregateValues(c.matrices, m_metric).value;
                        if (std::isfinite(v))
                            range = range ? std::pair{std::min(range->first, v), std::max(range->second, v)} : std::pair{v, v};
                    }
    return range;
}

void HeatmapFigureBuilder::addColourRange(HeatmapFigure &figure) const
{
    const ViewState &s = m_state;
    // One colour scale for every shown run: equal colours mean equal values across panels.
    const bool allSteps = m_colourRange.fit == HeatmapColourRange::Fit::AllSteps;
    auto range = allSteps ? rangeOverAllSteps() : s.valueRangeAtSteps(m_metric, s.blocks(), s.visibleTypes(), false);
    const bool byHand = m_colourRange.min || m_colourRange.max;
    if (byHand && (range || (m_colourRange.min && m_colourRange.max))) {
        const double lowest = m_colourRange.min.value_or(range ? range->first : 0);
        const double highest = m_colourRange.max.value_or(range ? range->second : 0);
        range = std::pair{lowest, highest};
    }
    if (range) {
        const auto [lowest, highest] = *range;
        figure.colours.range = highest > lowest ? AxisRange{lowest, highest} : AxisRange{lowest - 0.5, highest + 0.5};
    }
    figure.colours.label = metricAxisLabel(m_metric, s.energy());
    figure.colours.shortLabel = QString::fromUtf8(m_metric.info().label);
}

void HeatmapFigureBuilder::addRowsAndColumns(HeatmapFigure &figure) const
{
    const ViewState &s = m_state;
    QSet<int> layers;
    for (const QString &block : s.blocks()) {
        for (MatrixType type : s.typesIn(block))
            if (s.isTypeVisible(type))
                figure.rows.append({block, type});
        for (int layer : s.visibleLayersAt(m_run, block))
            layers.insert(layer);
    }
    figure.columns = QList<int>(layers.begin(), layers.end());
    std::sort(figure.columns.begin(), figure.columns.end());
    for (int layer : figure.columns)
        figure.columnLabels << (s.relativeDepth() ? QString::number(s.depthFraction(m_run, layer), 'f', 2) : QString::number(layer));
    for (qsizetype y = 0; y < figure.rows.size(); ++y) {
        const HeatmapRow &row = figure.rows[y];
        figure.rowLabels << (row.block.isEmpty() ? displayLabel(row.type) : QStringLiteral("%1 · %2").arg(row.block, displayLabel(row.type)));
        if (y > 0 && row.block != figure.rows[y - 1].block)
            figure.blockStarts << int(y);
    }
}

void HeatmapFigureBuilder::addCells(HeatmapFigure &figure) const
{
    for (const HeatmapRow &row : figure.rows) {
        QList<double> values;
        for (int layer : figure.columns) {
            const MatrixCell cell = m_state.cell(m_run, figure.step, row.block, layer, row.type);
            values << (cell.isEmpty() ? std::nan("") : aggregateValues(cell.matrices, m_metric).value);
        }
        figure.values << values;
    }
}

QString HeatmapFigureBuilder::title(const HeatmapFigure &figure) const
{
    const ViewState &s = m_state;
    QString scope = s.runNameAt(m_run);
    if (const QString range = s.layerRangeText(); !range.isEmpty())
        scope = range + QStringLiteral(", ") + scope;
    if (!s.experts().isEmpty())
        scope = (s.expert().isEmpty() ? tr("mean of experts")
                 : s.expert() == QLatin1String(kSharedExpert) ? tr("shared expert") : tr("expert %1").arg(s.expert())) +
                QStringLiteral(", ") + scope;
    return tr("%1 at %2 — %3").arg(QString::fromUtf8(m_metric.info().label), m_state.stepWords(m_run, figure.step), scope);
}

} // namespace rankscope
