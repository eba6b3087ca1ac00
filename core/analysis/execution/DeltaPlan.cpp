#include "analysis/execution/DeltaPlan.h"

#include <QFileInfo>

namespace rankscope {

bool DeltaPlan::open(const QList<PlacedCheckpoint> &checkpoints, std::optional<qint64> step, const TensorNameRules &rules, RunAnalysis &run)
{
    const PlacedCheckpoint *chosen = DeltaReference::choose(checkpoints, step);
    // A --reference that names no checkpoint: the steps there are say what it could have been.
    if (!chosen) {
        run.issues.append({run.folder, {}, DeltaReference::noCheckpointAt(*step, checkpoints), true});
        return false;
    }
    QString problem;
    m_reference = DeltaReference::open(*chosen, rules, &problem);
    if (!m_reference)
        run.notes << QStringLiteral("--delta: the reference checkpoint %1 cannot be read (%2): every delta metric is NaN")
                         .arg(QFileInfo(chosen->file->path).fileName(), problem);
    m_referenceIdentity = m_reference ? m_reference->identity() : DeltaReference::unreadableIdentity();
    return true;
}

bool DeltaPlan::isStale(const CheckpointRecord *cached) const
{
    return m_enabled && cached && cached->deltaReference != m_referenceIdentity;
}

void DeltaPlan::stamp(CheckpointRecord &record, const CheckpointRecord *cached) const
{
    if (m_enabled)
        record.deltaReference = m_referenceIdentity;
    else if (cached)
        record.deltaReference = cached->deltaReference;
}

std::shared_ptr<MatrixPartSource> DeltaPlan::namesakeOf(const MatrixIdentity &id, qint64 rows, qint64 cols, QStringList &notes)
{
    if (!m_reference)
        return nullptr;
    QString problem;
    std::shared_ptr<MatrixPartSource> namesake = m_reference->partFor(id, &problem);
    if (namesake && (namesake->rows() != rows || namesake->cols() != cols)) {
        problem = QStringLiteral("is %1×%2 there").arg(namesake->rows()).arg(namesake->cols());
        namesake.reset();
    }
    if (!problem.isEmpty()) {
        const QString note = QStringLiteral("--delta: %1 (%2×%3) %4 (step %5): its delta metrics are NaN")
                                 .arg(id.text()).arg(rows).arg(cols).arg(problem).arg(m_reference->step());
        if (!notes.contains(note))
            notes << note;
    }
    return namesake;
}

} // namespace rankscope
