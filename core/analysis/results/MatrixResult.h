// What the analysis keeps for one typed matrix of one checkpoint: where it came from, its
// spectrum (the expensive part) and its metrics at the current energy threshold.
#pragma once

#include "model/MatrixIdentity.h"
#include "spectral/SpectralMetrics.h"

#include <Eigen/Core>
#include <QList>
#include <QString>

namespace rankscope {

struct MatrixResult {
    qint64 step = 0;
    bool unnumbered = false; // its checkpoint records no step: see CheckpointRecord::unnumbered
    QString block;  // the stack (empty for a single-stack model), see MatrixIdentity
    int layer = 0;
    MatrixType type = MatrixType::Q;
    QString expert; // an MoE expert's index, "shared", or empty
    QString tensor; // source tensor name, with the part for a split: "…c_attn.weight[Q]"
    QString checkpointPath;
    QString dtype;
    qint64 rows = 0;
    qint64 cols = 0;
    // What the matrix is of a fine-tuning run: "update" for a LoRA update ΔW = s·B·A (of rank at most
    // updateRank, the adapter's r); empty for a model's own weights.
    QString weights;
    qint64 updateRank = 0;
    // The fingerprint of its stored bytes (MatrixPartSource::contentHash): the same at two steps,
    // the same weights. 0 when not known (results of an older schema).
    quint64 contentHash = 0;
    Eigen::VectorXd singularValues;
    // The singular values of D = W − W_ref (--delta), descending; empty when not computed.
    Eigen::VectorXd deltaSingularValues;
    // --subspace: W's top-k right singular vectors (cols × k, float32). Held only while the next
    // checkpoint may need them: RunAnalyzer keeps those of the run's newest checkpoint alone.
    Eigen::MatrixXf topVectors;
    SpectralMetrics metrics{};
    // --heads: the attention head this row is (-1: the whole matrix). A head of Q or O, and a QK or
    // OV circuit, is a query head; a head of K or V is a key/value head. kvHead is the key/value
    // head it is or is served by (query head h of a group of g = heads / kv_heads: h / g).
    int head = -1;
    int kvHead = -1;
    // --heads, while its checkpoint is analysed: R of the thin QR of the head's factor as the
    // circuits take it (d × head_dim, HeadCircuits), for the circuits only; never stored.
    Eigen::MatrixXd headFactor;

    MatrixIdentity identity() const { return {block, layer, type, expert}; }
    bool isHead() const { return head >= 0; }
};

// The step as the views write it: the number, or "final" for a checkpoint that records no step
// (its `step` only places it after the numbered ones).
QString stepLabel(qint64 step, bool unnumbered);

// Sorted by step, block, layer, type (in the contract's order), expert, then head (the whole
// matrix first).
void sortResults(QList<MatrixResult> &results);
// Moves the per-head rows (--heads) out of results, keeping both in order: what every
// whole-matrix list, count and figure must never hold.
QList<MatrixResult> takeHeadRows(QList<MatrixResult> &results);
// Recomputes the τ-dependent metrics of every result from its stored spectrum (no checkpoint is
// read, no power law is fitted again).
void applyEnergy(QList<MatrixResult> &results, double energy);

} // namespace rankscope
