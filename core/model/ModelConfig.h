// The model's own description of itself (config.json, nanoGPT's model_args, nanochat's
// model_config, a rules file's "config"): what the fused layouts need to be split exactly, and
// what to call a model no rule knows. Sources are merged in order; a key is taken from the first
// source that has it, and where it came from is kept for `rankscope info`.
#pragma once

#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <optional>

namespace rankscope {

class ModelConfig {
public:
    // Keys the earlier sources did not set are taken from this one. Nested sections that hold
    // attention settings (MPT's attn_config, a Lightning module's config) are read as well.
    void addSource(const QVariantMap &values, const QString &source);
    bool isEmpty() const { return m_values.isEmpty(); }
    QStringList sources() const { return m_sources; }

    QString modelType() const;     // "llama", "falcon", …; empty when none is given
    QStringList architectures() const;
    // "model_type falcon, architectures FalconForCausalLM": for messages about unknown models.
    QString describeModel() const;

    // The first of the keys that is present, as a whole number (and which key it was).
    std::optional<qint64> integer(const QStringList &keys, QString *foundKey = nullptr) const;
    std::optional<bool> flag(const QString &key) const;
    bool contains(const QString &key) const { return m_values.contains(key); }
    QVariant value(const QString &key) const { return m_values.value(key); }

    // Query heads and key/value heads under the keys every family uses.
    static const QStringList &headKeys();
    static const QStringList &kvHeadKeys();
    std::optional<qint64> heads() const { return integer(headKeys()); }
    // Key/value heads: the explicit count, or 1 under multi_query; nullopt when neither is given.
    std::optional<qint64> kvHeads() const;

private:
    QVariantMap m_values;
    QStringList m_sources;
};

} // namespace rankscope
