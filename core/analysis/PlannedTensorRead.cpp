#include "analysis/PlannedTensorRead.h"

namespace rankscope {

PlannedTensorRead PlannedTensorRead::read(CheckpointReader &reader, const PlannedTensor &tensor, qint64 slice, const QList<qint64> &blockSize)
{
    PlannedTensorRead result;
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
