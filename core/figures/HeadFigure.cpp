#include "figures/HeadFigure.h"

#include <QMap>
#include <algorithm>
#include <QSet>
#include <cmath>

namespace rankscope {

namespace {

// A cell of several experts (an MoE's attention) shows their mean, as the type × layer heatmap does.
struct Mean {
    double sum = 0;
    int count = 0;
    int kvHead = -1;
    void add(double v, int kv)
    {
        kvHead = kv;
        if (std::isfinite(v)) {
            sum += v;
            ++count;
        }
    }
    double value() const { return count ? sum / count : std::nan(""); }
};

} // namespace

QString HeadFigureBuilder::noHeadsReason()
{
    return tr("Per-head spectra were not computed: analyze with --heads, or Analysis \u25b8 Also compute per-head spectra and "
              "QK/OV circuits.");
}

QString HeadFigureBuilder::headText(MatrixType type, int head, int kvHead)
{
    if (type == MatrixType::K || type == MatrixType::V)
        return tr("K/V head %1").arg(head);
    return kvHead >= 0 ? tr("head %1 (K/V head %2)").arg(head).arg(kvHead) : tr("head %1").arg(head);
}

QString HeadHeatmap::tooltip(int row, int column) const
{
    const double v = values[row][column];
    return QStringLiteral("layer %1 \u00b7 %2 \u00b7 %3: %4 %5")
        .arg(layers[column])
        .arg(HeadFigureBuilder::headText(type, heads[row], kvHeads[row][column]), displayLabel(type),
             QString::fromUtf8(metric.info().label), std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("NaN"));
}

bool HeadFigureBuilder::takes(const MatrixResult &r) const
{
    return r.type == m_type && r.block == m_state.block() && (m_state.expert().isEmpty() || r.expert == m_state.expert());
}

QString HeadFigureBuilder::typeText() const
{
    switch (m_type) {
    // Words, not notation: the circuits' formulas are in the tooltips and docs/metrics.md.
    case MatrixType::QK: return tr("head's QK circuit");
    case MatrixType::OV: return tr("head's OV circuit");
    default: return tr("%1 heads").arg(displayLabel(m_type));
    }
}

QList<int> HeadFigureBuilder::layers() const
{
    QSet<int> layers;
    for (const MatrixResult &r : m_state.headResults())
        if (takes(r))
            layers.insert(r.layer);
    QList<int> sorted(layers.begin(), layers.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

HeadHeatmap HeadFigureBuilder::heatmap() const
{
    HeadHeatmap figure;
    figure.metric = m_metric;
    figure.type = m_type;
    figure.step = m_state.currentStep();
    const QString label = QString::fromUtf8(m_metric.info().label);
    figure.title = tr("%1 of each %2 \u00b7 step %3").arg(label, typeText()).arg(figure.step);
    figure.xLabel = tr("Layer");
    figure.yLabel = tr("Head");
    figure.captionedXLabel = tr("Layer (%1)").arg(m_state.stepWords(0, figure.step, true));
    figure.captionedYLabel = tr("Head (%1)").arg(m_type == MatrixType::QK ? tr("QK circuit") : m_type == MatrixType::OV ? tr("OV circuit") : displayLabel(m_type));
    if (m_state.headResults().isEmpty()) {
        figure.noData = noHeadsReason();
        return figure;
    }
    const QList<int> shown = m_state.visibleLayers();
    QMap<std::pair<int, int>, Mean> cells; // (head, layer)
    QSet<int> heads, layers;
    for (const MatrixResult &r : m_state.headResults()) {
        if (!takes(r) || r.step != figure.step || (!shown.isEmpty() && !shown.contains(r.layer)))
            continue;
        cells[{r.head, r.layer}].add(metricValue(r.metrics, m_metric), r.kvHead);
        heads.insert(r.head);
        layers.insert(r.layer);
    }
    figure.heads = QList<int>(heads.begin(), heads.end());
    figure.layers = QList<int>(layers.begin(), layers.end());
    std::sort(figure.heads.begin(), figure.heads.end());
    std::sort(figure.layers.begin(), figure.layers.end());
    for (int head : figure.heads) {
        QList<double> row;
        QList<int> kv;
        for (int layer : figure.layers) {
            const Mean cell = cells.value({head, layer});
            row << cell.value();
            kv << cell.kvHead;
            if (std::isfinite(row.back()))
                figure.range = figure.range ? AxisRange{std::min(figure.range->lower, row.back()), std::max(figure.range->upper, row.back())}
                                            : AxisRange{row.back(), row.back()};
        }
        figure.values << row;
        figure.kvHeads << kv;
    }
    if (!figure.range)
        figure.noData = tr("No finite %1 of a %2 at step %3: try another step, type or metric.").arg(label, typeText()).arg(figure.step);
    return figure;
}

HeadLines HeadFigureBuilder::lines(int layer) const
{
    HeadLines figure;
    figure.metric = m_metric;
    figure.type = m_type;
    figure.layer = layer;
    const QString label = QString::fromUtf8(m_metric.info().label);
    figure.title = tr("%1 of each %2 \u00b7 layer %3").arg(label, typeText()).arg(layer);
    figure.xLabel = tr("Step");
    figure.yLabel = label;
    if (m_state.headResults().isEmpty()) {
        figure.noData = noHeadsReason();
        return figure;
    }
    QMap<int, QMap<qint64, Mean>> byHead;
    for (const MatrixResult &r : m_state.headResults())
        if (takes(r) && r.layer == layer)
            byHead[r.head][r.step].add(metricValue(r.metrics, m_metric), r.kvHead);
    for (auto head = byHead.cbegin(); head != byHead.cend(); ++head) {
        HeadLine line;
        line.head = head.key();
        for (auto step = head->cbegin(); step != head->cend(); ++step) {
            line.kvHead = step->kvHead;
            if (std::isfinite(step->value()))
                line.points << QPointF(double(step.key()), step->value());
        }
        figure.lines << line;
    }
    const bool any = std::any_of(figure.lines.begin(), figure.lines.end(), [](const HeadLine &l) { return !l.points.isEmpty(); });
    if (!any)
        figure.noData = tr("No finite %1 of a %2 in layer %3: try another layer, type or metric.").arg(label, typeText()).arg(layer);
    return figure;
}

} // namespace rankscope
