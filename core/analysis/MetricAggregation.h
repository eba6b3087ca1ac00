// Per-type values across layers (the line chart's points): mean or median over the selected
// layers with min, max and count; NaN values are left out and counted as missing.
#pragma once

#include "analysis/MatrixResult.h"
#include "spectral/MetricCatalog.h"

#include <QList>
#include <QMap>

namespace rankscope {

enum class Aggregate { Mean, Median };

struct AggregatePoint {
    qint64 step = 0;
    double value = 0; // mean or median
    double min = 0;
    double max = 0;
    int count = 0;    // finite values that took part
    int missing = 0;  // NaN values left out
};

struct LayerRange {
    int first = 0;
    int last = 1 << 30;
    bool contains(int layer) const { return layer >= first && layer <= last; }
};

// One point per step at which the type has at least one matrix in the range, in step order.
QList<AggregatePoint> aggregateOverLayers(const QList<MatrixResult> &results, MatrixType type, Metric metric,
                                          Aggregate aggregate, LayerRange layers);

} // namespace rankscope
