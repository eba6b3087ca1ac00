#include "figures/FigureNoData.h"

#include <algorithm>
#include <cmath>

namespace rankscope {

namespace {

bool anyFinite(const QList<MatrixResult> &results, Metric metric)
{
    return std::any_of(results.begin(), results.end(), [metric](const MatrixResult &r) { return std::isfinite(metricValue(r.metrics, metric)); });
}

} // namespace

QString FigureNoData::howToCompute(Metric metric)
{
    const char *how = howToAskFor(metric.info().optIn);
    return how ? tr(how) : QString();
}

QString FigureNoData::reason(const ViewState &state, Metric metric, int run, std::optional<qint64> step, LayerView view)
{
    const QString label = QString::fromUtf8(metric.info().label);
    const QList<MatrixResult> &results = state.resultsAt(run);
    if (results.isEmpty())
        return tr("No checkpoint of %1 is analysed yet.").arg(state.runNameAt(run));
    if (state.visibleTypes().isEmpty())
        return tr("Every matrix type is hidden: choose one under Types.");
    if (state.visibleLayersAt(run, view).isEmpty()) {
        const LayerRange range = state.layerRange(view);
        const QString asked = range.first == range.last ? tr("layer %1").arg(range.first) : tr("layers %1–%2").arg(range.first).arg(range.last);
        return tr("No layer of %1 is in the layer range (%2): widen it under Layers.").arg(state.runNameAt(run), asked);
    }
    if (!anyFinite(results, metric)) {
        const QString how = howToCompute(metric);
        return how.isEmpty() ? tr("%1 is NaN for every matrix of %2 (docs/metrics.md defines it).").arg(label, state.runNameAt(run))
                             : how + QLatin1Char('.');
    }
    if (step)
        return tr("No finite %1 at step %2 in the layers and types shown: try another step, layer range or type.").arg(label).arg(*step);
    return tr("No finite %1 in the layers and types shown: try another layer range or type.").arg(label);
}

} // namespace rankscope
