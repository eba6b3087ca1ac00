// --delta over one analysis: the reference checkpoint, opened once for the run; which checkpoints
// have deltas against another reference (an earlier checkpoint arrived, the reference's file was
// replaced) and must have them computed again; what each record says its deltas are against; and
// each matrix's namesake in the reference, with a note when it cannot be used (its deltas are NaN).
#pragma once

#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/execution/DeltaReference.h"
#include "analysis/results/RunAnalysis.h"

#include <memory>
#include <optional>

namespace rankscope {

class DeltaPlan {
public:
    explicit DeltaPlan(bool enabled = false) : m_enabled(enabled) {}

    bool enabled() const { return m_enabled; }
    // Opens the reference among the run's checkpoints: the one at `step`, or the first. One that
    // cannot be read is a note of the run (every delta NaN). False, with the issue said in run,
    // when `step` names no checkpoint: a mistake, not a run of NaN, so nothing is analysed.
    bool open(const QList<PlacedCheckpoint> &checkpoints, std::optional<qint64> step, const TensorNameRules &rules, RunAnalysis &run);
    // What every delta computed now is against (DeltaReference::identity; "none" unreadable).
    QString referenceIdentity() const { return m_referenceIdentity; }
    // Earlier results of a checkpoint hold deltas against another reference than this one.
    bool isStale(const CheckpointRecord *cached) const;
    // What an analysed checkpoint's deltas are against: the reference in force, or without
    // --delta those it kept.
    void stamp(CheckpointRecord &record, const CheckpointRecord *cached) const;
    // Whether there is a reference to read namesakes from.
    bool hasReference() const { return bool(m_reference); }
    qint64 referenceStep() const { return m_reference ? m_reference->step() : 0; }
    // The namesake of a rows×cols part in the reference, read now; null (with a note once per run
    // in notes) when there is none of that shape or it cannot be read.
    std::shared_ptr<MatrixPartSource> namesakeOf(const MatrixIdentity &id, qint64 rows, qint64 cols, QStringList &notes);

private:
    bool m_enabled;
    std::unique_ptr<DeltaReference> m_reference;
    QString m_referenceIdentity;
};

} // namespace rankscope
