// --subspace over one analysis: which checkpoints compare their top vectors with the one before
// them now (never compared, compared at another k, or the one before them changed), and which of
// those held by earlier results are read again all the same, for vectors not kept: only the
// newest checkpoint's are (in its results). As the checkpoints are analysed in order, each one's
// agreement with its predecessor is set from the vectors kept of that predecessor.
#pragma once

#include "analysis/results/RunAnalysis.h"

#include <Eigen/Core>
#include <QHash>

namespace rankscope {

class SubspaceOverlapPlan {
public:
    SubspaceOverlapPlan() = default; // without --subspace: nothing is compared or kept
    // identities and reusable: each checkpoint's identity now and its earlier analysis that still
    // holds (CacheReusePlan); knownResults: the earlier results by checkpoint path.
    SubspaceOverlapPlan(int k, const QList<CheckpointRecord> &identities, const QList<const CheckpointRecord *> &reusable,
                        const QHash<QString, QList<MatrixResult>> &knownResults);

    bool enabled() const { return m_enabled; }
    bool compares(qsizetype i) const { return m_compare.value(i); }
    // Checkpoint i is computed again for its vectors, though its earlier results would serve.
    bool recomputes(qsizetype i) const { return m_recompute.value(i); }
    // After checkpoint i of count: its subspace metrics set against the previous checkpoint's
    // vectors (or, read again only for its vectors, those it had kept), and its record saying
    // what they compare with. Only the newest checkpoint's vectors stay in the results.
    void apply(qsizetype i, qsizetype count, CheckpointRecord &record, QList<MatrixResult> &results,
               const CheckpointRecord *cached, const QList<MatrixResult> &known);
    // Without --subspace, an analysed checkpoint keeps what its earlier results said they compare with.
    static void keepUnasked(CheckpointRecord &record, const CheckpointRecord *cached);

private:
    bool m_enabled = false;
    int m_k = 0;
    QList<bool> m_compare, m_recompute;
    QHash<MatrixIdentity, Eigen::MatrixXf> m_previousVectors; // of the checkpoint the next compares with
    QString m_previousKey;
};

} // namespace rankscope
