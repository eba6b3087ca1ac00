// The checkpoint that --delta compares every matrix with (the run's first, or the one at a chosen
// step), open for the whole analysis. A matrix's namesake there (same block, layer, type, expert)
// is read when asked for, one stored tensor at a time as the analysis reads its own; the parts of a
// fused tensor, asked for one after another, share one read.
#pragma once

#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/execution/PlannedTensorRead.h"
#include "analysis/planning/CheckpointPlan.h"

#include <QHash>
#include <memory>
#include <optional>

namespace rankscope {

class DeltaReference {
public:
    // Null with `problem` set when the checkpoint cannot be opened.
    static std::unique_ptr<DeltaReference> open(const PlacedCheckpoint &placed, const TensorNameRules &rules, QString *problem);
    // The checkpoint compared with among a run's (by step): the first, or the one at `step`, which
    // names a recorded step, never the placement of one that records none; null when none is there.
    static const PlacedCheckpoint *choose(const QList<PlacedCheckpoint> &checkpoints, std::optional<qint64> step);
    // Why --reference `step` cannot be used, with the steps the run has (its ends only, for a long
    // run: the message stays one line).
    static QString noCheckpointAt(qint64 step, const QList<PlacedCheckpoint> &checkpoints);
    // What results record of the reference their delta metrics were computed against
    // (CheckpointRecord::deltaReference): its step and content fingerprint, on two lines. The
    // deltas of a checkpoint unchanged itself are computed again when this is not what they record.
    static QString identityOf(qint64 step, const QString &fingerprint);
    // Recorded when the reference could not be read, and every delta is NaN.
    static QString unreadableIdentity() { return QStringLiteral("none"); }

    qint64 step() const { return m_step; }
    QString path() const { return m_path; }
    QString identity() const { return identityOf(m_step, m_fingerprint); }
    // The namesake of `id` as a part source, or null with `problem` set (there is none, or it
    // cannot be read).
    std::shared_ptr<MatrixPartSource> partFor(const MatrixIdentity &id, QString *problem);

private:
    DeltaReference() = default;

    std::unique_ptr<CheckpointReader> m_reader;
    CheckpointPlan m_plan;
    QList<qint64> m_blockSize;
    QHash<MatrixIdentity, std::pair<qsizetype, qsizetype>> m_where; // typed tensor, part
    qint64 m_step = 0;
    QString m_path;
    QString m_fingerprint; // ContentFingerprint, taken as it is opened
    // The last tensor read, by (typed tensor, slice).
    std::pair<qsizetype, qint64> m_lastKey{-1, -1};
    PlannedTensorRead m_last;
};

} // namespace rankscope
