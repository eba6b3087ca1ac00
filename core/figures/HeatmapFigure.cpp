#include "figures/HeatmapFigure.h"

#include <QSet>
#include <algorithm>

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
    figure.colours.label = metricAxisLabel(m_metric, s.energy());
    // One colour scale for every shown run: equal colours mean equal values across panels.
    if (const auto range = s.valueRangeAtSteps(m_metric, s.blocks(), s.visibleTypes(), false)) {
        const auto [lowest, highest] = *range;
        figure.colours.range = highest > lowest ? AxisRange{lowest, highest} : AxisRange{lowest - 0.5, highest + 0.5};
    }
    figure.title = title(figure);
    const auto h = s.highlighted();
    const qsizetype hx = h && h->run == m_run ? figure.columns.indexOf(h->id.layer) : -1;
    const qsizetype hy = h ? figure.rows.indexOf(HeatmapRow{h->id.block, h->id.type}) : -1;
    if (hx >= 0 && hy >= 0)
        figure.highlighted = std::pair{int(hx), int(hy)};
    return figure;
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
    return tr("%1 at step %2 — %3").arg(QString::fromUtf8(metricInfo(m_metric).label)).arg(figure.step).arg(scope);
}

} // namespace rankscope
