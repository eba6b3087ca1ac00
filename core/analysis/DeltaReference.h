// The checkpoint that --delta compares every matrix with (the run's first, or the one at a chosen
// step), open for the whole analysis. A matrix's namesake there (same block, layer, type, expert)
// is read when asked for, one stored tensor at a time as the analysis reads its own; the parts of a
// fused tensor, asked for one after another, share one read.
#pragma once

#include "analysis/CheckpointPlan.h"
#include "analysis/CheckpointSteps.h"
#include "analysis/PlannedTensorRead.h"

#include <QHash>
#include <memory>

namespace rankscope {

class DeltaReference {
public:
    // Null with `problem` set when the checkpoint cannot be opened.
    static std::unique_ptr<DeltaReference> open(const PlacedCheckpoint &placed, const TensorNameRules &rules, QString *problem);

    qint64 step() const { return m_step; }
    QString path() const { return m_path; }
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
    // The last tensor read, by (typed tensor, slice).
    std::pair<qsizetype, qint64> m_lastKey{-1, -1};
    PlannedTensorRead m_last;
};

} // namespace rankscope
