// Which tensors are attention and MLP matrices, of which layer and type, and how fused tensors
// split into them. Built-in rules cover nanoGPT, nanochat, HF GPT-2, LLaMA-style (HF and Meta),
// GPT-NeoX, BERT, Phi-3 and OLMo names; a user's JSON rules (docs/naming-rules.md) come first.
// Wrapper prefixes (torch.compile, DDP, activation checkpointing, FSDP) are ignored.
#pragma once

#include "model/MatrixType.h"

#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QVariantMap>
#include <optional>

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

// Head counts from the model's config, for fused tensors whose parts differ in size.
struct AttentionHeads {
    int heads = 0;   // query heads (n_head, num_attention_heads)
    int kvHeads = 0; // key/value heads under grouped-query attention (num_key_value_heads); 0 = heads

    // From nanoGPT's model_args, a Hugging Face config.json or nanochat's model_config.
    static AttentionHeads fromConfig(const QVariantMap &config);
};

class TensorNameRules {
public:
    enum class Fusion {
        None,
        QkvThirds,   // [3C, C] rows Q|K|V, or [C, 3C] columns (HF GPT-2 Conv1D): the shape tells
        QkvPerHead,  // rows [head][q|k|v][head_dim] (GPT-NeoX); needs the head count
        QkvGqaRows,  // rows Q|K|V with K and V of kvHeads·head_dim (Phi-3); needs the head counts
        GateUpRows,  // rows [gate; up] (Phi-3 gate_up_proj)
        UpGateRows,  // rows [up; gate] (OLMo ff_proj)
    };

    static TensorNameRules builtIn();
    // Built-ins with the user's rules from a JSON file in front; nullopt and error when it is invalid.
    static std::optional<TensorNameRules> withUserRules(const QString &jsonPath, QString *error);

    TensorAssignment assign(const QString &tensorName, const QList<qint64> &shape, AttentionHeads heads = {}) const;

    // "builtin", or "user-<sha1 of the rules file>": what a cached analysis was typed with.
    QString identity() const { return m_identity; }

    // "_orig_mod.model.module.x" → "model.x": the wrappers' prefixes, per path component.
    static QString withoutWrapperPrefixes(const QString &name);

private:
    struct Rule {
        QRegularExpression pattern; // captures the layer as group 1
        MatrixType type;
        Fusion fusion;
        bool ignore = false;        // a user rule that marks tensors as not a matrix type
    };
    QList<Rule> m_rules;
    QString m_identity = QStringLiteral("builtin");
};

} // namespace rankscope
