// LoRA adapters as PEFT and torchtune save them: each adapted module's update ΔW = s·B·A is held as
// its two factors, A (lora_A / lora_a: r × in) and B (lora_B / lora_b: out × r), and is analysed as a
// matrix of the base weight's shape, typed by the rules exactly as the module it adapts (an update of
// GPT-2's fused c_attn splits into Q, K and V as the base tensor does). The scale s comes from
// adapter_config.json (peft tuners/lora/layer.py update_layer: lora_alpha / r, or lora_alpha / √r
// under use_rslora, with rank_pattern and alpha_pattern per module); without a config it is unknown.
#pragma once

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <optional>

namespace rankscope {

struct NamedShape;

// adapter_config.json (peft LoraConfig), the parts that decide what the update is.
class AdapterConfig {
public:
    static AdapterConfig fromJson(const QVariantMap &values, const QString &path);
    bool isEmpty() const { return m_path.isEmpty(); }
    QString path() const { return m_path; }
    QString peftType() const { return m_peftType; }       // "LORA", "LOHA", "IA3", …
    QString baseModel() const { return m_baseModel; }     // base_model_name_or_path
    bool fanInFanOut() const { return m_fanInFanOut; }
    bool usesDora() const { return m_useDora; }
    QStringList targetModules() const { return m_targetModules; }
    QStringList modulesToSave() const { return m_modulesToSave; }
    std::optional<qint64> rank() const { return m_rank; }

    struct Scale {
        std::optional<double> value; // s; none when the config cannot give it
        QString problem;             // why not
    };
    // s for the module PEFT names `module` (without base_model.model.), whose factors have rank r.
    Scale scaleOf(const QString &module, qint64 factorRank) const;

private:
    // peft utils/other.py get_pattern_key: the pattern key naming this module, else none.
    static std::optional<QString> patternKeyFor(const QStringList &keys, const QString &module);

    QString m_path;
    QString m_peftType;
    QString m_baseModel;
    std::optional<qint64> m_rank;
    std::optional<double> m_alpha;
    bool m_rslora = false;
    bool m_fanInFanOut = false;
    bool m_useDora = false;
    QStringList m_targetModules;
    QStringList m_modulesToSave;
    QVariantMap m_rankPattern;
    QVariantMap m_alphaPattern;
};

// One adapted module's factors, as stored.
struct LoraFactorPair {
    QString module;   // the module as its model names it: model.layers.0.self_attn.q_proj
    QString factorA;  // the stored names
    QString factorB;
    QString dtype;    // lora_B's
    qint64 rank = 0;
    qint64 outFeatures = 0, inFeatures = 0;
    bool embedding = false; // lora_embedding_A/B: the base weight is num_embeddings × dim, ΔW = (B·A)ᵀ
};

struct LoraFactors {
    QList<LoraFactorPair> pairs;
    QSet<QString> consumed; // stored names the pairs (and the problems) account for
    struct Problem {
        QString tensor;
        QList<qint64> shape;
        QString reason;
    };
    QList<Problem> problems; // adapter tensors that are not analysed, with the reason

    // Pairs PEFT's base_model.model.<module>.lora_A[.<adapter>].weight with its lora_B (and
    // lora_embedding_A/B, torchtune's <module>.lora_a.weight / lora_b.weight); factors whose ranks
    // disagree, a factor without its partner, and the tensors of adapters that are not LoRA (LoHa,
    // LoKr, IA³, prompt embeddings) are problems.
    static LoraFactors find(const QList<NamedShape> &tensors);
    // PEFT saves the model's own names under base_model.model.
    static QString withoutPeftPrefix(const QString &name);
};

} // namespace rankscope
