// How one checkpoint's tensors become typed matrices. Every tensor is cut into typed parts exactly
// as its family's forward() splits it, or left out with the reason; a split that the names, shapes
// and config cannot prove is not made. Blocks are named here, from all the stacks the checkpoint
// holds (empty for a single-stack model), and no two matrices share an identity.
#pragma once

#include "model/MatrixPart.h"
#include "model/ModelConfig.h"
#include "model/TensorNameRules.h"

#include <QList>
#include <QString>

namespace rankscope {

struct NamedShape {
    QString name;
    QList<qint64> shape;
    QString dtype;
};

struct PlannedTensor {
    QString tensor; // the name as stored
    QList<qint64> shape;
    QString dtype;
    QString family; // which rule typed it, for `rankscope info`
    QList<MatrixPart> parts;
    QString blockScales; // FP8 weights: the "…weight_scale_inv" tensor to multiply by, block-wise
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
    static CheckpointLayout plan(const QList<NamedShape> &tensors, const ModelConfig &config, const TensorNameRules &rules);

    QList<PlannedTensor> typed;   // in the order of the checkpoint
    QList<LeftOutTensor> leftOut; // every other tensor of two or more dimensions
    // What the typing assumed, said once per run: tensors typed by name alone, nanoGPT's c_attn
    // taken without a config.
    QStringList notes;
    qsizetype matrixCount() const;
    QList<LeftOutTensor> reported() const;
};

} // namespace rankscope
