#include "model/ModelConfig.h"

#include <cmath>

namespace rankscope {

namespace {
// Sections whose keys describe the same model (MPT's attention settings, a wrapper's config).
// Sections whose keys size a layout: MPT's and DBRX's attn_config, DBRX's ffn_config (experts),
// mamba_ssm's ssm_cfg (d_ssm, ngroups, d_state), nanochat's model_config, nanoGPT's model_args.
const char *const kNestedSections[] = {"attn_config", "ffn_config", "ssm_cfg", "config", "model_config", "model_args", "quantization_config"};
} // namespace

void ModelConfig::addSource(const QVariantMap &values, const QString &source)
{
    if (values.isEmpty())
        return;
    bool used = false;
    auto take = [&](const QVariantMap &map) {
        for (auto it = map.begin(); it != map.end(); ++it)
            if (!m_values.contains(it.key()) && it.value().typeId() != QMetaType::QVariantMap) {
                m_values.insert(it.key(), it.value());
                used = true;
            }
    };
    take(values);
    for (const char *section : kNestedSections) {
        const QVariant nested = values.value(QLatin1String(section));
        if (nested.typeId() == QMetaType::QVariantMap)
            take(nested.toMap());
    }
    if (used)
        m_sources << source;
}

QString ModelConfig::modelType() const { return m_values.value(QStringLiteral("model_type")).toString(); }

QStringList ModelConfig::architectures() const
{
    QStringList out;
    for (const QVariant &v : m_values.value(QStringLiteral("architectures")).toList())
        out << v.toString();
    return out;
}

QString ModelConfig::describeModel() const
{
    QStringList parts;
    if (!modelType().isEmpty())
        parts << QStringLiteral("model_type %1").arg(modelType());
    if (!architectures().isEmpty())
        parts << QStringLiteral("architectures %1").arg(architectures().join(QLatin1String(", ")));
    return parts.join(QLatin1String(", "));
}

std::optional<qint64> ModelConfig::integer(const QStringList &keys, QString *foundKey) const
{
    for (const QString &key : keys) {
        const QVariant v = m_values.value(key);
        if (!v.isValid() || v.isNull())
            continue;
        bool ok = false;
        const double d = v.toDouble(&ok);
        if (!ok || !std::isfinite(d) || d != std::floor(d) || std::abs(d) > 1e15)
            continue;
        if (foundKey)
            *foundKey = key;
        return qint64(d);
    }
    return std::nullopt;
}

std::optional<bool> ModelConfig::flag(const QString &key) const
{
    const QVariant v = m_values.value(key);
    if (!v.isValid() || v.isNull())
        return std::nullopt;
    if (v.typeId() == QMetaType::Bool)
        return v.toBool();
    bool ok = false;
    const int i = v.toInt(&ok);
    return ok ? std::optional<bool>(i != 0) : std::nullopt;
}

const QStringList &ModelConfig::headKeys()
{
    static const QStringList keys = {"num_attention_heads", "n_head", "num_heads", "n_heads"};
    return keys;
}

const QStringList &ModelConfig::kvHeadKeys()
{
    static const QStringList keys = {"num_key_value_heads", "num_kv_heads", "n_head_kv", "n_kv_head",
                                     "n_kv_heads", "kv_n_heads", "multi_query_group_num"};
    return keys;
}

std::optional<qint64> ModelConfig::kvHeads() const
{
    if (const auto kv = integer(kvHeadKeys()); kv && *kv > 0)
        return kv;
    if (flag(QStringLiteral("multi_query")).value_or(false))
        return 1;
    return std::nullopt;
}

} // namespace rankscope
