#include "analysis/MetricAggregation.h"

#include <algorithm>
#include <cmath>

namespace rankscope {

QList<AggregatePoint> aggregateOverLayers(const QList<MatrixResult> &results, MatrixType type, Metric metric,
                                          Aggregate aggregate, LayerRange layers)
{
    QMap<qint64, QList<double>> byStep;
    QMap<qint64, int> missing;
    for (const MatrixResult &r : results) {
        if (r.type != type || !layers.contains(r.layer))
            continue;
        const double v = metricValue(r.metrics, metric);
        if (std::isfinite(v))
            byStep[r.step].append(v);
        else
            ++missing[r.step];
        byStep[r.step]; // a step whose values are all NaN still gets a (gap) point
    }
    QList<AggregatePoint> points;
    for (auto it = byStep.begin(); it != byStep.end(); ++it) {
        QList<double> values = it.value();
        AggregatePoint p;
        p.step = it.key();
        p.count = int(values.size());
        p.missing = missing.value(it.key());
        if (values.isEmpty()) {
            p.value = p.min = p.max = std::nan("");
        } else {
            std::sort(values.begin(), values.end());
            p.min = values.first();
            p.max = values.last();
            if (aggregate == Aggregate::Mean) {
                double sum = 0;
                for (double v : values)
                    sum += v;
                p.value = sum / values.size();
            } else {
                const qsizetype n = values.size();
                p.value = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
            }
        }
        points.append(p);
    }
    return points;
}

} // namespace rankscope
