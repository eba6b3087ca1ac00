// Values across matrices: the line chart's points (mean or median over the selected layers of a
// block, with min, max and count) and one cell of the per-layer views (the experts of one MoE layer).
// NaN values are left out and counted as missing.
#pragma once

#include "analysis/results/MatrixResult.h"
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

// Which experts of an MoE layer count: every routed expert (empty, the default), "shared", or one
// expert by number. Matrices that belong to no expert (attention, dense MLPs) always count.
struct ExpertChoice {
    QString expert;
    bool accepts(const QString &matrixExpert) const;
};

// The matrices a view aggregates: one block, a range of layers, the chosen experts.
struct MatrixFilter {
    QString block;
    LayerRange layers;
    ExpertChoice experts;
    bool accepts(const MatrixResult &r) const
    {
        return r.block == block && layers.contains(r.layer) && experts.accepts(r.expert);
    }
};

// One point per step at which the type has a matrix the filter accepts, in step order. Every
// accepted matrix is one value: a layer's experts and the layers are pooled.
QList<AggregatePoint> aggregateOverLayers(const QList<MatrixResult> &results, MatrixType type, Metric metric,
                                          Aggregate aggregate, const MatrixFilter &filter);
// Mean, min and max of a metric over some matrices (one cell: a layer's chosen experts).
AggregatePoint aggregateValues(const QList<const MatrixResult *> &matrices, Metric metric, Aggregate aggregate = Aggregate::Mean);

} // namespace rankscope
