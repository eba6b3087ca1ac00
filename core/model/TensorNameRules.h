// Which tensors are attention and MLP matrices: of which stack, layer, type and expert, and how
// a fused tensor holds its parts. Built-in rules cover the families in docs/naming-rules.md, each
// read from the model's own source; they are data (BuiltInNamingRules.json), in the same form as a
// user's JSON rules (docs/naming-rules.md), which come first.
// A rule only names a layout; CheckpointLayout cuts the tensor with the model's config.
#pragma once

#include "model/MatrixType.h"
#include "model/ModelConfig.h"

#include <QList>
#include <QRegularExpression>
#include <QString>
#include <QVariantMap>
#include <functional>
#include <optional>

class QJsonObject;

namespace rankscope {

// How a fused tensor holds its parts, as the family's forward() splits it.
enum class FusedLayout {
    None,          // one matrix
    QkvThirds,     // [Q; K; V] in equal thirds: rows of a [3C, C] Linear, or columns of a [C, 3C] Conv1D
    QkvContiguous, // [Q (heads·d); K (kv·d); V (kv·d)]: multi-query and grouped sizes from the config
    QkvPerHead,    // [head][q | k | v][d]
    QkvGrouped,    // [key/value group][q × heads/kv, k, v][d] (Falcon's new decoder architecture)
    FalconQkv,     // Falcon's and Bloom's query_key_value: one of the above, by the config
    GptCAttn,      // c_attn of GPT-2 (Conv1D), nanoGPT (rows) and GPT-BigCode (per head or multi-query)
    GateUp,        // [gate; up]
    UpGate,        // [up; gate] (also Mamba's in_proj [x; z]: x is the up, z the gate)
    GluGateUp,     // [gate; up] when the down projection (the rule's partner) takes half its rows, else one up
    GluUpGate,     // [up; gate] likewise (OLMo's ff_proj, mamba_ssm's GatedMLP)
    MlaKvA,        // DeepSeek kv_a_proj_with_mqa: [latent (kv_lora_rank); rope key (qk_rope_head_dim)]
    MlaKvB,        // DeepSeek kv_b_proj: [head][k_nope (qk_nope_head_dim) | v (v_head_dim)]
    ExpertsGateUp, // 3-D [experts, 2I, hidden]: per expert [gate; up] (transformers v5 fused experts)
    ExpertsWhole,  // 3-D [experts, rows, cols]: one matrix of the rule's type per expert
    SwinStage,     // one matrix of a Swin stage: the rule's layer is the block in its stage (…layers.S.blocks.B.…),
                   // the stage S becomes the block "stage{S+1}" (HF's backbone stage_names)
    Mamba2InProj,  // Mamba-2 in_proj rows [z (I); x (I); B; C; dt]: z the gate, x the up; B, C, dt untyped (scan)
    ExpertsGateUpColumns,  // 3-D [experts, hidden, 2I] used as x @ W: per expert columns [gate | up] (Llama 4)
    ExpertsGluInterleaved, // 3-D [experts, hidden, 2I], x @ W, columns gate₀ up₀ gate₁ up₁ … (GPT-OSS); taken only
                           // when model_type is gpt_oss, else read as ExpertsGateUp would be without its partner
    ExpertRowBlocks,       // 2-D [experts · F, d]: expert e is rows e·F … (e+1)·F; experts = the partner's (router's) rows (DBRX)
    GlmQueryKeyValue,      // ChatGLM2/3, GLM-4: [Q; K; V] of multi_query_group_num groups, else [head][q | k | v]
                           // (kv_channels per head); only under model_type chatglm
    GlmDenseH4h,           // ChatGLM's dense_h_to_4h [gate; up] (swiglu); only under model_type chatglm
    InternLm2Wqkv,         // InternLM2's wqkv, QkvGrouped; only under model_type internlm2 (gpt-fast's wqkv is [Q; K; V])
    CodeGenQkv,            // CodeGen's qkv_proj: 4 row blocks (mp_num), each [q | v | k] of hidden / 4
    LitGptQkv,             // litgpt attn.qkv [Q; K; V] from n_head, n_query_groups, head_size (litgpt's defaults)
    LitGptAttn,            // litgpt's legacy attn.attn [group][q × n_head/n_query_groups, k, v][head_size]
};

// What the first applicable rule says about one tensor name.
struct RuleMatch {
    QString family;            // "GPT-NeoX", or "rules file rule 3"
    bool ignored = false;      // a known tensor that is not a matrix type (a router, a position bias)
    QString reason;            // why, when ignored
    MatrixType type = MatrixType::Q; // the type of a tensor that is not fused
    FusedLayout layout = FusedLayout::None;
    int layer = 0;
    QString expert;
    QString stack;             // the name before the layer container ("model.decoder"), wrappers removed
    QString unnamedStack;      // the block of a stack whose prefix names none when others are named
    QString subBlock;          // a block of its own inside the stack (MLA's "latent" and "rope")
    bool cross = false;        // cross-attention: kept apart from self-attention of the same layer
    std::optional<QString> fixedBlock; // a user rule's block, taken as it is
    QString partner;           // a sibling tensor whose shape the layout checks (the down projection)
};

class TensorNameRules {
public:
    static TensorNameRules builtIn();
    // Built-ins with the user's rules from a JSON file in front; nullopt and error when it is invalid.
    static std::optional<TensorNameRules> withUserRules(const QString &jsonPath, QString *error);

    // nullopt when no rule knows the name. Rules restricted to some model types are skipped when
    // the config names another.
    // `exists` answers whether the checkpoint holds a tensor (by name without wrapper prefixes):
    // some rules only apply beside a sibling (Mamba's out_proj beside its x_proj).
    std::optional<RuleMatch> match(const QString &tensorName, const ModelConfig &config,
                                   const std::function<bool(const QString &)> &exists) const;
    // The rules file's "config": head counts and the like, before any config.json.
    const QVariantMap &userConfig() const { return m_userConfig; }
    QString userRulesPath() const { return m_userRulesPath; }

    // "builtin-N", or "user-<sha1 of the rules file>-N": what a cached analysis was typed with.
    QString identity() const { return m_identity; }

    // "_orig_mod.model.module.x" → "model.x": the wrappers' prefixes, per path component.
    static QString withoutWrapperPrefixes(const QString &name);

private:
    struct Rule {
        QRegularExpression pattern; // named groups: layer (or group 1), stack, expert, block
        QString family;
        MatrixType type = MatrixType::Q;
        FusedLayout layout = FusedLayout::None;
        QStringList modelTypes;     // empty: any model
        QString expert;             // a fixed expert ("shared")
        QString unnamedStack;
        QString subBlock;
        bool cross = false;
        bool ignore = false;
        QString reason;
        std::optional<QString> fixedBlock;
        QString needsSibling;       // a sibling (in the same layer) the rule needs, e.g. "mixer.x_proj.weight"
        QString partner;            // a sibling whose shape the layout checks
        bool layerless = false;     // a whole module saved on its own (no layer number): layer 0
    };
    // A rules file's text (user: a --rules file, its rules named by number and their blocks never
    // guessed; else the built-in rules, named by family); nullopt and error naming the rule when invalid.
    static std::optional<TensorNameRules> read(const QByteArray &text, const QString &path, bool user, QString *error);
    static std::optional<Rule> ruleFromJson(const QJsonObject &o, const QString &where, bool user, QString *error);
    QList<Rule> m_rules;
    QVariantMap m_userConfig;
    QString m_userRulesPath;
    QString m_identity;
};

} // namespace rankscope
