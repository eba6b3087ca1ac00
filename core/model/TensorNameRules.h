// Which tensors are attention and MLP matrices, of which layer and type, and how fused tensors
// split into them. Built-in rules cover nanoGPT, nanochat, HF GPT-2, LLaMA-style (HF and Meta),
// GPT-NeoX and BERT names; wrapper prefixes (torch.compile, DDP, activation checkpointing) are
// ignored.
#pragma once

#include "model/MatrixType.h"

#include <QList>
#include <QRegularExpression>
#include <QString>

namespace rankscope {

// One typed matrix inside a tensor: the whole tensor, or a block of its rows or columns.
struct MatrixPart {
    enum class Axis { Whole, Rows, Columns, HeadInterleavedRows };
    MatrixType type;
    int layer = 0;
    Axis axis = Axis::Whole;
    qint64 begin = 0; // first row/column (Rows, Columns); q/k/v index for HeadInterleavedRows
    qint64 count = 0; // rows/columns taken; per-head size for HeadInterleavedRows
    int heads = 0;    // HeadInterleavedRows only
    QString label;    // the tensor name, with the part: "…c_attn.weight[Q]"
};

struct TensorAssignment {
    QList<MatrixPart> parts; // empty when the tensor is not one of the matrix types
    QString skipReason;      // why, when parts is empty
};

class TensorNameRules {
public:
    static TensorNameRules builtIn();

    // shape as stored; heads is the attention head count when known (for per-head fused tensors).
    TensorAssignment assign(const QString &tensorName, const QList<qint64> &shape, int heads = 0) const;

    // "_orig_mod.model.module.x" → "model.x": the wrappers' prefixes, per path component.
    static QString withoutWrapperPrefixes(const QString &name);

private:
    enum class Fusion { None, QkvEqualThirds, QkvPerHead };
    struct Rule {
        QRegularExpression pattern; // captures the layer as group 1
        MatrixType type;
        Fusion fusion;
    };
    QList<Rule> m_rules;
};

} // namespace rankscope
