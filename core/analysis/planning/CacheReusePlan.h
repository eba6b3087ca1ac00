// What an earlier analysis of the same folder still gives this one. A checkpoint whose identity
// (path, size, mtime, content fingerprint) is unchanged is taken whole from the earlier results when
// they were made with these settings and every opt-in metric asked for now; results made without
// some opt-in metric serve for the rest (their spectra), and only what is missing is computed.
// While the analysis runs, the snapshot it saves holds what the earlier results know of the
// checkpoints not reached yet, so that a save (or a cancel) loses none of them.
#pragma once

#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/results/AnalysisSettingsKey.h"
#include "analysis/results/RunAnalysis.h"

#include <QHash>

namespace rankscope {

// How one checkpoint is analysed, given what the earlier results hold of it.
struct CheckpointReuse {
    const CheckpointRecord *cached = nullptr; // its earlier analysis, when its identity is unchanged
    bool whole = false;                       // taken from it as it is: nothing is read
    AnalysisOptIns missing;                   // otherwise, the opt-in metrics cached lacks; when whole,
                                              // alphaCi alone: the intervals to add from its stored spectra
};

class CacheReusePlan {
public:
    // previous: the earlier analysis (null: none); wantedKey: this analysis's settings key.
    // Reads every checkpoint's identity now (its fingerprint included).
    CacheReusePlan(const RunAnalysis *previous, const QString &wantedKey, const QList<PlacedCheckpoint> &checkpoints);

    // Each checkpoint's identity now (absolute path), in the order given.
    const QList<CheckpointRecord> &identities() const { return m_identities; }
    // Each checkpoint's earlier analysis that still holds, or null.
    const QList<const CheckpointRecord *> &reusable() const { return m_reusable; }
    // The earlier results and issues of a checkpoint, by absolute path.
    const QHash<QString, QList<MatrixResult>> &knownResults() const { return m_knownResults; }
    QList<AnalysisIssue> knownIssues(const QString &path) const { return m_knownIssues.value(path); }
    // --heads: the earlier per-head rows of a checkpoint (RunAnalysis::headResults), by absolute path.
    QList<MatrixResult> knownHeadResults(const QString &path) const { return m_knownHeadResults.value(path); }
    // Checkpoint i: taken whole, or what its computation lacks. staleDelta: its deltas are against
    // another reference (DeltaPlan); recomputeVectors: --subspace needs its vectors again.
    CheckpointReuse reuseOf(qsizetype i, bool staleDelta, bool recomputeVectors) const;

    // What is done so far, plus the earlier results of the checkpoints not analysed in it, placed
    // at their steps now (nothing is added when the earlier results do not serve whole).
    RunAnalysis withUnvisited(const RunAnalysis &soFar) const;
    // A checkpoint's record and results carry the step decided for it now (a checkpoint without a
    // step moves when later checkpoints arrive).
    static void place(CheckpointRecord &record, QList<MatrixResult> &results, const PlacedCheckpoint &placed);

private:
    const RunAnalysis *m_previous;
    std::optional<AnalysisOptIns> m_missing; // nullopt: nothing earlier serves
    QHash<QString, const CheckpointRecord *> m_known;
    QHash<QString, QList<MatrixResult>> m_knownResults;
    QHash<QString, QList<AnalysisIssue>> m_knownIssues;
    QHash<QString, QList<MatrixResult>> m_knownHeadResults;
    QHash<QString, const PlacedCheckpoint *> m_placement;
    QList<CheckpointRecord> m_identities;
    QList<const CheckpointRecord *> m_reusable;
};

} // namespace rankscope
