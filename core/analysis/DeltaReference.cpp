#include "analysis/DeltaReference.h"

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
    const QList<PlannedTensor> &typed = reference->m_plan.layout.typed;
    for (qsizetype t = 0; t < typed.size(); ++t)
        for (qsizetype p = 0; p < typed[t].parts.size(); ++p)
            reference->m_where.insert(typed[t].parts[p].id, {t, p});
    return reference;
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
    const bool rowsAxis = part.axis == MatrixPart::Axis::Rows;
    if (!part.fits(rowsAxis ? m_last.tensor->rows() : m_last.tensor->cols())) {
        *problem = QStringLiteral("its namesake %1 in the reference checkpoint is too small for it").arg(part.label);
        return nullptr;
    }
    return std::make_shared<MatrixPartSource>(m_last.tensor, part, m_last.scales);
}

} // namespace rankscope
