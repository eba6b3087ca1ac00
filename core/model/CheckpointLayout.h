// How one checkpoint's tensors become typed matrices. Every tensor is cut into typed parts exactly
// as its family's forward() splits it, or left out with the reason; a split that the names, shapes
// and config cannot prove is not made. Blocks are named here, from all the stacks the checkpoint
// holds (empty for a single-stack model), and no two matrices share an identity.
#pragma once

#include "model/LoraAdapter.h"
#include "model/MatrixPart.h"
#include "model/ModelConfig.h"
#include "model/TensorNameRules.h"

#include <QList>
#include <QString>
#include <optional>

namespace rankscope {

struct NamedShape {
    QString name;
    QList<qint64> shape;
    QString dtype;
};

// A LoRA update ΔW = s·B·A (LoraAdapter.h), read as the low-rank product of its stored factors.
struct LowRankUpdate {
    QString factorA; // r × in, as stored
    QString factorB; // out × r
    qint64 rank = 0;
    // ΔW = (s·B·A)ᵀ: a base weight stored in × out (GPT-2's Conv1D under fan_in_fan_out, an embedding).
    bool transposed = false;
    std::optional<double> scale; // s; none when unknown (its norms are then NaN)
};

struct PlannedTensor {
    QString tensor; // the name as stored; for a LoRA update, the weight of the module it adapts
    QList<qint64> shape;
    QString dtype;
    QString family; // which rule typed it, for `rankscope info`
    QList<MatrixPart> parts;
    QString blockScales; // FP8 weights: the "…weight_scale_inv" tensor to multiply by, block-wise
    std::optional<LowRankUpdate> update; // a LoRA update: read from its factors, not from `tensor`
};

struct LeftOutTensor {
    QString tensor;
    QList<qint64> shape;
    QString reason;
    // Named like an attention/MLP weight (or typed by a rule) but not analysed: always reported.
    bool reported = false;
};

class CheckpointLayout {
public:
    // adapter: the adapter_config.json beside an adapter's weights (empty: none), for the scale of
    // the LoRA updates found among the tensors.
    static CheckpointLayout plan(const QList<NamedShape> &tensors, const ModelConfig &config, const TensorNameRules &rules,
                                 const AdapterConfig &adapter = {});

    QList<PlannedTensor> typed;   // in the order of the checkpoint
    QList<LeftOutTensor> leftOut; // every other tensor of two or more dimensions
    // What the typing assumed, said once per run: tensors typed by name alone, nanoGPT's c_attn
    // taken without a config.
    QStringList notes;
    qsizetype matrixCount() const;
    QList<LeftOutTensor> reported() const;
};

} // namespace rankscope
