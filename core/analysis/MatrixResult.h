// What the analysis keeps for one typed matrix of one checkpoint: where it came from, its
// spectrum (the expensive part) and its metrics at the current energy threshold.
#pragma once

#include "model/MatrixType.h"
#include "spectral/SpectralMetrics.h"

#include <Eigen/Core>
#include <QList>
#include <QString>

namespace rankscope {

struct MatrixResult {
    qint64 step = 0;
    int layer = 0;
    MatrixType type = MatrixType::Q;
    QString tensor; // source tensor name, with the part for a split: "…c_attn.weight[Q]"
    QString checkpointPath;
    QString dtype;
    qint64 rows = 0;
    qint64 cols = 0;
    Eigen::VectorXd singularValues;
    SpectralMetrics metrics{};
};

// Sorted by step, then layer, then type in the contract's order.
void sortResults(QList<MatrixResult> &results);
// Recomputes the τ-dependent metrics of every result from its stored spectrum (no checkpoint is
// read, no power law is fitted again).
void applyEnergy(QList<MatrixResult> &results, double energy);

} // namespace rankscope
