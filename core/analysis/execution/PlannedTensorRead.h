// One planned tensor (or one slice of a 3-D tensor of experts) read as stored, with its FP8 block
// scales when it has them: what the parts of a fused tensor share. The analysis reads its own
// checkpoint's tensors through it, and --delta the reference checkpoint's.
#pragma once

#include "analysis/execution/MatrixPartSource.h"
#include "io/CheckpointReader.h"
#include "model/CheckpointLayout.h"
#include "model/ModelConfig.h"

#include <memory>

namespace rankscope {

struct PlannedTensorRead {
    std::shared_ptr<const StoredMatrix> tensor;
    std::shared_ptr<const MatrixPartSource::BlockScales> scales; // null without block scales
    std::shared_ptr<const LowRankFactors> update; // a LoRA update's factors (then tensor is null)
    QString error; // why it could not be read
    bool ok() const { return error.isEmpty(); }

    // blockSize: the config's weight_block_size (FP8 scales), see blockSizeOf.
    // A part of what was read (the tensor, or the update's factors) as the solver reads it.
    std::shared_ptr<MatrixPartSource> partSource(const MatrixPart &part) const;
    qint64 rows() const;
    qint64 cols() const;

    static PlannedTensorRead read(CheckpointReader &reader, const PlannedTensor &tensor, qint64 slice, const QList<qint64> &blockSize);
    // quantization_config's weight_block_size, [128, 128] when the config has none.
    static QList<qint64> blockSizeOf(const ModelConfig &config);
};

} // namespace rankscope
