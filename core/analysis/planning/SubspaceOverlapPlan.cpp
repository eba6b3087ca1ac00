#include "analysis/planning/SubspaceOverlapPlan.h"

#include <algorithm>

namespace rankscope {

namespace {

// A checkpoint analysed again only for its vectors keeps the agreement it had with its predecessor.
void keepSubspaceMetrics(QList<MatrixResult> &results, const QList<MatrixResult> &earlier)
{
    QHash<MatrixIdentity, const SpectralMetrics *> before;
    for (const MatrixResult &r : earlier)
        before.insert(r.identity(), &r.metrics);
    for (MatrixResult &r : results) {
        if (const SpectralMetrics *metrics = before.value(r.identity())) {
            r.metrics.subspaceOverlap = metrics->subspaceOverlap;
            r.metrics.topVectorCosine = metrics->topVectorCosine;
        } else {
            clearSubspaceMetrics(r.metrics);
        }
    }
}

} // namespace

SubspaceOverlapPlan::SubspaceOverlapPlan(int k, const QList<CheckpointRecord> &identities, const QList<const CheckpointRecord *> &reusable,
                                         const QHash<QString, QList<MatrixResult>> &knownResults)
    : m_enabled(true), m_k(k)
{
    const qsizetype count = identities.size();
    m_compare = m_recompute = QList<bool>(count, false);
    // Vectors of another k are no V_k of this one.
    auto keepsVectors = [&](qsizetype i) {
        const QList<MatrixResult> results = knownResults.value(identities[i].path);
        return reusable[i] && reusable[i]->subspaceK == k &&
               std::any_of(results.begin(), results.end(), [](const MatrixResult &r) { return r.topVectors.size() > 0; }) &&
               std::all_of(results.begin(), results.end(), [&](const MatrixResult &r) {
                   // A LoRA update has no more directions than its rank (lowRankProductTopRightVectors).
                   const qint64 most = std::min<qint64>(k, r.updateRank > 0 ? std::min<qint64>(r.updateRank, std::min(r.rows, r.cols)) : std::min(r.rows, r.cols));
                   return r.topVectors.size() == 0 || r.topVectors.cols() == most || (r.updateRank > 0 && r.topVectors.cols() < most);
               });
    };
    for (qsizetype i = 0; i < count; ++i) {
        const QString before = i > 0 ? identities[i - 1].subspaceKey() : QString();
        m_compare[i] = !reusable[i] || reusable[i]->subspacePrevious != before || reusable[i]->subspaceK != k;
        if (!m_compare[i])
            continue;
        m_recompute[i] = m_recompute[i] || !keepsVectors(i);
        if (i > 0 && !keepsVectors(i - 1))
            m_recompute[i - 1] = true;
    }
}

void SubspaceOverlapPlan::apply(qsizetype i, qsizetype count, CheckpointRecord &record, QList<MatrixResult> &results,
                                const CheckpointRecord *cached, const QList<MatrixResult> &known)
{
    if (!enabled())
        return;
    if (compares(i)) {
        for (MatrixResult &r : results) {
            const auto previous = m_previousVectors.constFind(r.identity());
            if (previous != m_previousVectors.constEnd() && r.topVectors.size() > 0)
                setSubspaceMetrics(r.metrics, r.topVectors, *previous);
            else
                clearSubspaceMetrics(r.metrics);
        }
        record.subspacePrevious = m_previousKey;
        record.subspaceK = m_k;
    } else if (cached && !record.fromCache) {
        // Read again only for its vectors (the checkpoint after it needs them): its own agreement
        // with the one before it (at this k: see the constructor) still holds.
        keepUnasked(record, cached);
        keepSubspaceMetrics(results, known);
    }
    // Only the newest checkpoint's vectors are kept past the next one.
    m_previousVectors.clear();
    for (MatrixResult &r : results) {
        if (r.topVectors.size() > 0)
            m_previousVectors.insert(r.identity(), i + 1 < count ? std::move(r.topVectors) : r.topVectors);
        if (i + 1 < count)
            r.topVectors = {};
    }
    m_previousKey = record.subspaceKey();
}

void SubspaceOverlapPlan::keepUnasked(CheckpointRecord &record, const CheckpointRecord *cached)
{
    if (!cached)
        return;
    record.subspacePrevious = cached->subspacePrevious;
    record.subspaceK = cached->subspaceK;
}

} // namespace rankscope
