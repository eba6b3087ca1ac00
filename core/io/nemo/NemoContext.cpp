#include "io/nemo/NemoContext.h"

#include "base/PrintableText.h"
#include "io/megatron/MegatronConfig.h"
#include "io/nemo/NemoCheckpointReader.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace rankscope {

namespace {

// model.yaml is a model's config, tokenizer and optimizer settings: a few kilobytes.
constexpr qint64 kMaxModelYamlBytes = qint64(1) << 20;

// The TransformerConfig fields (megatron/core/transformer/transformer_config.py, as NeMo's GPTConfig
// subclasses keep them) that give the model's shape and how its fused tensors split.
const QStringList &shapeKeys()
{
    static const QStringList keys = {"num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "num_query_groups",
                                     "kv_channels", "gated_linear_unit", "normalization", "position_embedding_type",
                                     "tensor_model_parallel_size", "pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size",
                                     "expert_model_parallel_size", "num_moe_experts"};
    return keys;
}

} // namespace

NemoContextConfig NemoContext::parse(const QByteArray &yaml)
{
    static const QRegularExpression topLevel(QStringLiteral(R"(^([A-Za-z_][A-Za-z0-9_]*):[ \t]*(.*?)[ \t]*$)"));
    static const QRegularExpression inConfig(QStringLiteral(R"(^  ([A-Za-z_][A-Za-z0-9_]*):[ \t]*(.*?)[ \t]*$)"));
    NemoContextConfig out;
    QVariantMap fields;
    bool inside = false, sawConfig = false;
    for (const QByteArray &raw : yaml.split('\n')) {
        const QString line = QString::fromUtf8(raw).remove(QLatin1Char('\r'));
        if (const QRegularExpressionMatch top = topLevel.match(line); top.hasMatch()) {
            inside = top.captured(1) == QLatin1String("config") && top.captured(2).isEmpty();
            sawConfig |= inside;
            if (top.captured(1) == QLatin1String("_target_"))
                out.modelClass = NemoCheckpointReader::yamlValue(top.captured(2)).toString();
            continue;
        }
        const QRegularExpressionMatch field = inside ? inConfig.match(line) : QRegularExpressionMatch();
        if (!field.hasMatch() || !shapeKeys().contains(field.captured(1)) || fields.contains(field.captured(1)))
            continue;
        if (const QVariant value = NemoCheckpointReader::yamlValue(field.captured(2)); value.isValid())
            fields.insert(field.captured(1), value);
    }
    if (!sawConfig)
        out.problem = QStringLiteral("model.yaml has no config section");
    else if (!fields.contains(QStringLiteral("num_attention_heads")))
        out.problem = QStringLiteral("model.yaml's config gives no num_attention_heads");
    else
        out.fields = MegatronConfig::resolved(fields);
    return out;
}

NemoContextConfig NemoContext::read(const QString &contextFolder)
{
    const QString path = QDir(contextFolder).filePath(QStringLiteral("model.yaml"));
    if (!QFileInfo::exists(path)) {
        NemoContextConfig none;
        none.problem = QStringLiteral("context/ holds no model.yaml (io.json, fiddle's serialization, is not read)");
        return none;
    }
    QString error;
    const std::optional<QByteArray> bytes = readSmallRegularFile(path, kMaxModelYamlBytes, &error);
    if (!bytes) {
        NemoContextConfig none;
        none.problem = QStringLiteral("context/model.yaml: %1").arg(error);
        return none;
    }
    return parse(*bytes);
}

QString NemoContext::describe(const NemoContextConfig &config)
{
    if (config.fields.isEmpty())
        return config.problem;
    const QVariantMap &f = config.fields;
    const QString model = config.modelClass.isEmpty() ? QStringLiteral("the model") : printableText(config.modelClass.section(QLatin1Char('.'), -1).left(80));
    return QStringLiteral("%1: %2 heads in %3 query group(s), kv_channels %4, fc1 %5")
        .arg(model)
        .arg(f.value(QStringLiteral("num_attention_heads")).toLongLong())
        .arg(f.value(QStringLiteral("num_query_groups")).toLongLong())
        .arg(f.value(QStringLiteral("kv_channels")).toLongLong())
        .arg(f.value(QStringLiteral("gated_linear_unit")).toBool() ? QStringLiteral("gated [gate; up]") : QStringLiteral("not gated"));
}

} // namespace rankscope
