#include "figures/AlphaIntervals.h"

#include <QMap>
#include <cmath>
#include <limits>

namespace rankscope {

std::optional<AxisRange> meanAlphaInterval(const QList<const MatrixResult *> &matrices)
{
    double sum = 0, variance = 0;
    int count = 0;
    const MatrixResult *only = nullptr;
    for (const MatrixResult *r : matrices) {
        const SpectralMetrics &m = r->metrics;
        if (!std::isfinite(m.alpha))
            continue; // left out of the mean, as aggregateOverLayers leaves it out
        if (!std::isfinite(m.alphaCiLow) || !std::isfinite(m.alphaCiHigh))
            return std::nullopt;
        const double standardError = (m.alphaCiHigh - m.alphaCiLow) / (2 * kAlphaCiNormalQuantile);
        sum += m.alpha;
        variance += standardError * standardError;
        ++count;
        only = r;
    }
    if (count == 0)
        return std::nullopt;
    // One matrix keeps its own percentile interval, asymmetric as its bootstrap made it.
    if (count == 1)
        return AxisRange{only->metrics.alphaCiLow, only->metrics.alphaCiHigh};
    const double mean = sum / count, half = kAlphaCiNormalQuantile * std::sqrt(variance) / count;
    return AxisRange{mean - half, mean + half};
}

QList<AxisRange> alphaIntervalsOverLayers(const QList<MatrixResult> &results, MatrixType type, const MatrixFilter &filter,
                                          const QList<AggregatePoint> &points)
{
    QMap<qint64, QList<const MatrixResult *>> byStep;
    for (const MatrixResult &r : results)
        if (r.type == type && filter.accepts(r))
            byStep[r.step].append(&r);
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    QList<AxisRange> intervals;
    bool any = false;
    for (const AggregatePoint &point : points) {
        const std::optional<AxisRange> interval = meanAlphaInterval(byStep.value(point.step));
        any |= interval.has_value();
        intervals.append(interval.value_or(AxisRange{kNaN, kNaN}));
    }
    return any ? intervals : QList<AxisRange>{};
}

QString alphaIntervalText(const AxisRange &interval, int decimals)
{
    if (!std::isfinite(interval.lower) || !std::isfinite(interval.upper))
        return {};
    return QStringLiteral("[%1, %2]").arg(interval.lower, 0, 'f', decimals).arg(interval.upper, 0, 'f', decimals);
}

} // namespace rankscope
