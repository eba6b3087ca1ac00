// alpha's bootstrap interval (--alpha-ci) where the views show alpha of several matrices at once.
// One matrix: its own alpha_ci_low and alpha_ci_high. The mean of k matrices: each interval read as
// ±1.96 standard errors (SEᵢ = (highᵢ − lowᵢ)/(2·1.96)), the matrices' bootstraps independent, so
// the mean's standard error is √(Σ SEᵢ²)/k and its interval mean ± 1.96·that. The stored columns
// keep no resamples to average one by one, and drawing them again per view would cost the
// bootstrap anew; the mean of several alphas is near normal even where one alpha's interval is
// skewed. A median gets no interval (no such rule holds for it), nor does a mean of which any
// matrix with an alpha lacks an interval.
#pragma once

#include "analysis/results/MetricAggregation.h"
#include "figures/AxisRange.h"

#include <optional>

namespace rankscope {

// 1.96: the standard normal quantile of 97.5 %, for kAlphaCiLevel's 95 %.
inline constexpr double kAlphaCiNormalQuantile = 1.959963984540054;

// The interval of the mean alpha of these matrices (those with a finite alpha take part, as in
// the mean); nullopt when none has an alpha, or one of those lacks an interval.
std::optional<AxisRange> meanAlphaInterval(const QList<const MatrixResult *> &matrices);

// For each point of aggregateOverLayers(results, type, Metric::Alpha, Aggregate::Mean, filter):
// the interval of its mean, {NaN, NaN} where it has none. Empty when no point has one.
QList<AxisRange> alphaIntervalsOverLayers(const QList<MatrixResult> &results, MatrixType type, const MatrixFilter &filter,
                                          const QList<AggregatePoint> &points);

// "[2.95, 3.30]" with `decimals` decimals, empty when the interval is not finite.
QString alphaIntervalText(const AxisRange &interval, int decimals);

} // namespace rankscope
