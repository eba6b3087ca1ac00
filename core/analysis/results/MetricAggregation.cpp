#include "analysis/results/MetricAggregation.h"

#include <algorithm>
#include <cmath>

namespace rankscope {

namespace {
AggregatePoint summarise(QList<double> values, int missing, Aggregate aggregate)
{
    AggregatePoint p;
    p.count = int(values.size());
    p.missing = missing;
    if (values.isEmpty()) {
        p.value = p.min = p.max = std::nan("");
        return p;
    }
    std::sort(values.begin(), values.end());
    p.min = values.first();
    p.max = values.last();
    if (aggregate == Aggregate::Mean) {
        double sum = 0;
        for (double v : values)
            sum += v;
        p.value = sum / double(values.size());
    } else {
        const qsizetype n = values.size();
        p.value = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
    }
    return p;
}
} // namespace

bool ExpertChoice::accepts(const QString &matrixExpert) const
{
    if (matrixExpert.isEmpty())
        return true;
    if (!expert.isEmpty())
        return matrixExpert == expert;
    bool routed = false;
    matrixExpert.toLongLong(&routed);
    return routed;
}

QList<AggregatePoint> aggregateOverLayers(const QList<MatrixResult> &results, MatrixType type, Metric metric,
                                          Aggregate aggregate, const MatrixFilter &filter)
{
    QMap<qint64, QList<double>> byStep;
    QMap<qint64, int> missing;
    for (const MatrixResult &r : results) {
        if (r.type != type || !filter.accepts(r))
            continue;
        const double v = metricValue(r.metrics, metric);
        QList<double> &values = byStep[r.step]; // a step whose values are all NaN still gets a (gap) point
        if (std::isfinite(v))
            values.append(v);
        else
            ++missing[r.step];
    }
    QList<AggregatePoint> points;
    for (auto it = byStep.begin(); it != byStep.end(); ++it) {
        AggregatePoint p = summarise(it.value(), missing.value(it.key()), aggregate);
        p.step = it.key();
        points.append(p);
    }
    return points;
}

AggregatePoint aggregateValues(const QList<const MatrixResult *> &matrices, Metric metric, Aggregate aggregate)
{
    QList<double> values;
    int missing = 0;
    for (const MatrixResult *r : matrices) {
        const double v = metricValue(r->metrics, metric);
        if (std::isfinite(v))
            values.append(v);
        else
            ++missing;
    }
    AggregatePoint p = summarise(values, missing, aggregate);
    p.step = matrices.isEmpty() ? 0 : matrices.first()->step;
    return p;
}

} // namespace rankscope
