#include "analysis/execution/DeltaReference.h"

#include "analysis/discovery/ContentFingerprint.h"

namespace rankscope {

std::unique_ptr<DeltaReference> DeltaReference::open(const PlacedCheckpoint &placed, const TensorNameRules &rules, QString *problem)
{
    std::unique_ptr<DeltaReference> reference(new DeltaReference);
    reference->m_reader = placed.file->open(problem);
    if (!reference->m_reader)
        return nullptr;
    reference->m_plan = CheckpointPlan::make(*placed.file, *reference->m_reader, rules);
    reference->m_blockSize = PlannedTensorRead::blockSizeOf(reference->m_plan.config);
    reference->m_step = placed.step;
    reference->m_path = placed.file->path;
    reference->m_fingerprint = ContentFingerprint::of(*placed.file);
    const QList<PlannedTensor> &typed = reference->m_plan.layout.typed;
    for (qsizetype t = 0; t < typed.size(); ++t)
        for (qsizetype p = 0; p < typed[t].parts.size(); ++p)
            reference->m_where.insert(typed[t].parts[p].id, {t, p});
    return reference;
}

const PlacedCheckpoint *DeltaReference::choose(const QList<PlacedCheckpoint> &checkpoints, std::optional<qint64> step)
{
    for (const PlacedCheckpoint &placed : checkpoints)
        if (!step || (!placed.unnumbered && placed.step == *step))
            return &placed;
    return nullptr;
}

QString DeltaReference::noCheckpointAt(qint64 step, const QList<PlacedCheckpoint> &checkpoints)
{
    QStringList steps;
    for (const PlacedCheckpoint &placed : checkpoints)
        if (!placed.unnumbered)
            steps << QString::number(placed.step);
    const QString what = QStringLiteral("--reference %1: no checkpoint at step %1; ").arg(step);
    if (steps.isEmpty())
        return what + QStringLiteral("none of the run's checkpoints records a step");
    const qsizetype count = steps.size();
    constexpr qsizetype kEnds = 5;
    if (count > 3 * kEnds)
        steps = steps.mid(0, kEnds) << QStringLiteral("…") << steps.mid(count - kEnds);
    return what + (count == 1 ? QStringLiteral("the run's one step is %1").arg(steps.first())
                              : QStringLiteral("the run's %1 steps are %2").arg(count).arg(steps.join(QLatin1String(", "))));
}

QString DeltaReference::identityOf(qint64 step, const QString &fingerprint)
{
    return QString::number(step) + QLatin1Char('\n') + fingerprint;
}

std::shared_ptr<MatrixPartSource> DeltaReference::partFor(const MatrixIdentity &id, QString *problem)
{
    const auto it = m_where.constFind(id);
    if (it == m_where.constEnd()) {
        *problem = QStringLiteral("has no namesake in the reference checkpoint");
        return nullptr;
    }
    const PlannedTensor &tensor = m_plan.layout.typed[it->first];
    const MatrixPart &part = tensor.parts[it->second];
    const std::pair<qsizetype, qint64> key{it->first, part.slice};
    if (key != m_lastKey) {
        m_last = {}; // the previous tensor is let go before the next is read
        m_last = PlannedTensorRead::read(*m_reader, tensor, part.slice, m_blockSize);
        m_lastKey = key;
    }
    if (!m_last.ok()) {
        *problem = QStringLiteral("its namesake %1 in the reference checkpoint cannot be read: %2").arg(tensor.tensor, m_last.error);
        return nullptr;
    }
    std::shared_ptr<MatrixPartSource> source = m_last.partSource(part);
    if (!source)
        *problem = QStringLiteral("its namesake %1 in the reference checkpoint is too small for it").arg(part.label);
    return source;
}

} // namespace rankscope
