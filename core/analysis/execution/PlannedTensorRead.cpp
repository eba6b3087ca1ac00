#include "analysis/execution/PlannedTensorRead.h"

namespace rankscope {

namespace {

// ΔW = s·B·A as factors: stored = scale · left · rightᵀ, left = B and right = Aᵀ (or, for a base
// weight stored in × out, left = Aᵀ and right = B). Each factor is read whole: r × (in + out)
// values, the size of the file's own tensors.
PlannedTensorRead readUpdate(CheckpointReader &reader, const LowRankUpdate &update, const QList<qint64> &shape)
{
    PlannedTensorRead result;
    const MatrixRead a = reader.readMatrix(update.factorA);
    const MatrixRead b = a.ok() ? reader.readMatrix(update.factorB) : MatrixRead{};
    if (!a.ok() || !b.ok()) {
        result.error = QStringLiteral("its LoRA factor %1 cannot be read: %2").arg(a.ok() ? update.factorB : update.factorA, a.ok() ? b.error : a.error);
        return result;
    }
    if (a.values.rows() != update.rank || b.values.cols() != update.rank) {
        result.error = QStringLiteral("its LoRA factors are %1\u00d7%2 and %3\u00d7%4, not of rank %5")
                           .arg(a.values.rows()).arg(a.values.cols()).arg(b.values.rows()).arg(b.values.cols()).arg(update.rank);
        return result;
    }
    auto factors = std::make_shared<LowRankFactors>();
    factors->left = update.transposed ? Eigen::MatrixXd(a.values.transpose()) : Eigen::MatrixXd(b.values);
    factors->right = update.transposed ? Eigen::MatrixXd(b.values) : Eigen::MatrixXd(a.values.transpose());
    factors->scale = update.scale.value_or(1.0);
    if (shape.size() != 2 || factors->left.rows() != shape[0] || factors->right.rows() != shape[1]) {
        result.error = QStringLiteral("its LoRA factors do not make the %1\u00d7%2 update planned").arg(shape.value(0)).arg(shape.value(1));
        return result;
    }
    result.update = std::move(factors);
    return result;
}

} // namespace

std::shared_ptr<MatrixPartSource> PlannedTensorRead::partSource(const MatrixPart &part) const
{
    const bool rowsAxis = part.axis == MatrixPart::Axis::Rows;
    if (!part.fits(rowsAxis ? rows() : cols()))
        return nullptr;
    return update ? std::make_shared<MatrixPartSource>(update, part) : std::make_shared<MatrixPartSource>(tensor, part, scales);
}

qint64 PlannedTensorRead::rows() const { return update ? update->left.rows() : tensor ? tensor->rows() : 0; }

qint64 PlannedTensorRead::cols() const { return update ? update->right.rows() : tensor ? tensor->cols() : 0; }

PlannedTensorRead PlannedTensorRead::read(CheckpointReader &reader, const PlannedTensor &tensor, qint64 slice, const QList<qint64> &blockSize)
{
    PlannedTensorRead result;
    if (tensor.update)
        return readUpdate(reader, *tensor.update, tensor.shape);
    StoredRead stored = reader.readStoredMatrix(tensor.tensor, slice);
    if (!stored.ok()) {
        result.error = stored.error;
        return result;
    }
    if (!tensor.blockScales.isEmpty()) {
        const MatrixRead scaleRead = reader.readMatrix(tensor.blockScales);
        auto grid = std::make_shared<MatrixPartSource::BlockScales>(MatrixPartSource::BlockScales{scaleRead.values, blockSize[0], blockSize[1]});
        if (!scaleRead.ok() || !grid->fit(stored.matrix.rows(), stored.matrix.cols())) {
            result.error = QStringLiteral("its FP8 block scales %1 do not fit it (%2)")
                               .arg(tensor.blockScales, scaleRead.ok() ? QStringLiteral("weight_block_size %1×%2").arg(blockSize[0]).arg(blockSize[1])
                                                                       : scaleRead.error);
            return result;
        }
        result.scales = std::move(grid);
    }
    result.tensor = std::make_shared<const StoredMatrix>(std::move(stored.matrix));
    return result;
}

QList<qint64> PlannedTensorRead::blockSizeOf(const ModelConfig &config)
{
    QList<qint64> size;
    for (const QVariant &v : config.value(QStringLiteral("weight_block_size")).toList())
        size << v.toLongLong();
    return size.size() == 2 ? size : QList<qint64>{128, 128};
}

} // namespace rankscope
