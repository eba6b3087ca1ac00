#include "model/TensorNameRules.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace rankscope {

AttentionHeads AttentionHeads::fromConfig(const QVariantMap &config)
{
    AttentionHeads heads;
    for (const char *key : {"n_head", "num_attention_heads", "n_heads"})
        if (config.contains(QLatin1String(key)))
            heads.heads = config.value(QLatin1String(key)).toInt();
    for (const char *key : {"n_kv_head", "num_key_value_heads", "n_kv_heads"})
        if (config.contains(QLatin1String(key)))
            heads.kvHeads = config.value(QLatin1String(key)).toInt();
    return heads;
}

QString TensorNameRules::withoutWrapperPrefixes(const QString &name)
{
    QStringList kept;
    for (const QString &part : name.split(QLatin1Char('.')))
        if (part != QLatin1String("_orig_mod") && part != QLatin1String("module") &&
            part != QLatin1String("_checkpoint_wrapped_module") && part != QLatin1String("_fsdp_wrapped_module"))
            kept.append(part);
    return kept.join(QLatin1Char('.'));
}

TensorNameRules TensorNameRules::builtIn()
{
    using T = MatrixType;
    const struct {
        const char *pattern;
        T type;
        Fusion fusion;
    } table[] = {
        // nanoGPT ([3C, C], rows Q|K|V) and HF GPT-2 (Conv1D [C, 3C], columns): the shape tells which.
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_attn\.weight$)", T::Q, Fusion::QkvThirds},
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_proj\.weight$)", T::O, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.mlp\.c_fc\.weight$)", T::MlpUp, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.mlp\.c_proj\.weight$)", T::MlpDown, Fusion::None},
        // nanochat: separate projections (K, V may be smaller under GQA).
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_q\.weight$)", T::Q, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_k\.weight$)", T::K, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_v\.weight$)", T::V, Fusion::None},
        // LLaMA / Mistral / Qwen2 / Gemma (HF), also under a multimodal wrapper's prefix.
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.q_proj\.weight$)", T::Q, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.k_proj\.weight$)", T::K, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.v_proj\.weight$)", T::V, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.o_proj\.weight$)", T::O, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.mlp\.gate_proj\.weight$)", T::MlpGate, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.mlp\.up_proj\.weight$)", T::MlpUp, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.mlp\.down_proj\.weight$)", T::MlpDown, Fusion::None},
        // Phi-3: fused qkv_proj (GQA sizes) and gate_up_proj ([gate; up]).
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.qkv_proj\.weight$)", T::Q, Fusion::QkvGqaRows},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.mlp\.gate_up_proj\.weight$)", T::MlpGate, Fusion::GateUpRows},
        // Meta's original LLaMA names.
        {R"(^layers\.(\d+)\.attention\.wq\.weight$)", T::Q, Fusion::None},
        {R"(^layers\.(\d+)\.attention\.wk\.weight$)", T::K, Fusion::None},
        {R"(^layers\.(\d+)\.attention\.wv\.weight$)", T::V, Fusion::None},
        {R"(^layers\.(\d+)\.attention\.wo\.weight$)", T::O, Fusion::None},
        {R"(^layers\.(\d+)\.feed_forward\.w1\.weight$)", T::MlpGate, Fusion::None},
        {R"(^layers\.(\d+)\.feed_forward\.w3\.weight$)", T::MlpUp, Fusion::None},
        {R"(^layers\.(\d+)\.feed_forward\.w2\.weight$)", T::MlpDown, Fusion::None},
        // GPT-NeoX / Pythia: query_key_value rows are [head][q|k|v][head_dim].
        {R"(^(?:gpt_neox\.)?layers\.(\d+)\.attention\.query_key_value\.weight$)", T::Q, Fusion::QkvPerHead},
        {R"(^(?:gpt_neox\.)?layers\.(\d+)\.attention\.dense\.weight$)", T::O, Fusion::None},
        {R"(^(?:gpt_neox\.)?layers\.(\d+)\.mlp\.dense_h_to_4h\.weight$)", T::MlpUp, Fusion::None},
        {R"(^(?:gpt_neox\.)?layers\.(\d+)\.mlp\.dense_4h_to_h\.weight$)", T::MlpDown, Fusion::None},
        // BERT: "layer.N.output.dense" (down) and "layer.N.attention.output.dense" (O) differ only
        // by what follows the layer number, so both are anchored there.
        {R"(^(?:[\w]+\.)?encoder\.layer\.(\d+)\.attention\.self\.query\.weight$)", T::Q, Fusion::None},
        {R"(^(?:[\w]+\.)?encoder\.layer\.(\d+)\.attention\.self\.key\.weight$)", T::K, Fusion::None},
        {R"(^(?:[\w]+\.)?encoder\.layer\.(\d+)\.attention\.self\.value\.weight$)", T::V, Fusion::None},
        {R"(^(?:[\w]+\.)?encoder\.layer\.(\d+)\.attention\.output\.dense\.weight$)", T::O, Fusion::None},
        {R"(^(?:[\w]+\.)?encoder\.layer\.(\d+)\.intermediate\.dense\.weight$)", T::MlpUp, Fusion::None},
        {R"(^(?:[\w]+\.)?encoder\.layer\.(\d+)\.output\.dense\.weight$)", T::MlpDown, Fusion::None},
        // OLMo (v1): att_proj fused Q|K|V rows, attn_out, ff_proj [up; gate], ff_out.
        {R"(^(?:model\.)?transformer\.blocks\.(\d+)\.att_proj\.weight$)", T::Q, Fusion::QkvThirds},
        {R"(^(?:model\.)?transformer\.blocks\.(\d+)\.attn_out\.weight$)", T::O, Fusion::None},
        {R"(^(?:model\.)?transformer\.blocks\.(\d+)\.ff_proj\.weight$)", T::MlpUp, Fusion::UpGateRows},
        {R"(^(?:model\.)?transformer\.blocks\.(\d+)\.ff_out\.weight$)", T::MlpDown, Fusion::None},
    };
    TensorNameRules rules;
    for (const auto &row : table)
        rules.m_rules.append({QRegularExpression(QString::fromLatin1(row.pattern)), row.type, row.fusion});
    return rules;
}

std::optional<TensorNameRules> TensorNameRules::withUserRules(const QString &jsonPath, QString *error)
{
    QFile file(jsonPath);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: %2").arg(jsonPath, file.errorString());
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QByteArray text = file.read(4 << 20);
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1: invalid JSON: %2").arg(jsonPath, parseError.errorString());
        return std::nullopt;
    }
    const QJsonArray list = doc.isArray() ? doc.array() : doc.object().value(QLatin1String("rules")).toArray();
    if (list.isEmpty()) {
        *error = QStringLiteral("%1: no rules (expected {\"rules\": [ … ]})").arg(jsonPath);
        return std::nullopt;
    }
    static const QHash<QString, Fusion> splits = {{"none", Fusion::None},           {"qkv", Fusion::QkvThirds},
                                                  {"qkv_per_head", Fusion::QkvPerHead}, {"qkv_gqa", Fusion::QkvGqaRows},
                                                  {"gate_up", Fusion::GateUpRows},  {"up_gate", Fusion::UpGateRows}};
    TensorNameRules user;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject o = list[i].toObject();
        const QString where = QStringLiteral("%1: rule %2").arg(jsonPath).arg(i + 1);
        QRegularExpression pattern(o.value(QLatin1String("pattern")).toString());
        if (!pattern.isValid() || pattern.pattern().isEmpty()) {
            *error = QStringLiteral("%1: invalid pattern: %2").arg(where, pattern.errorString());
            return std::nullopt;
        }
        const bool ignore = o.value(QLatin1String("ignore")).toBool(false);
        if (!ignore && pattern.captureCount() < 1) {
            *error = QStringLiteral("%1: the pattern needs a group that captures the layer number").arg(where);
            return std::nullopt;
        }
        const QString splitName = o.value(QLatin1String("split")).toString(QStringLiteral("none"));
        if (!splits.contains(splitName)) {
            *error = QStringLiteral("%1: unknown split '%2' (none, qkv, qkv_per_head, qkv_gqa, gate_up, up_gate)").arg(where, splitName);
            return std::nullopt;
        }
        const Fusion fusion = splits.value(splitName);
        const auto type = matrixTypeFromCsvName(o.value(QLatin1String("type")).toString());
        if (!ignore && fusion == Fusion::None && !type) {
            *error = QStringLiteral("%1: type must be one of Q, K, V, O, MLP_GATE, MLP_UP, MLP_DOWN").arg(where);
            return std::nullopt;
        }
        user.m_rules.append({pattern, type.value_or(MatrixType::Q), fusion, ignore});
    }
    user.m_rules.append(builtIn().m_rules);
    user.m_identity = QStringLiteral("user-") + QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha1).toHex());
    return user;
}

TensorAssignment TensorNameRules::assign(const QString &tensorName, const QList<qint64> &shape, AttentionHeads heads) const
{
    const QString name = withoutWrapperPrefixes(tensorName);
    for (const Rule &rule : m_rules) {
        const QRegularExpressionMatch match = rule.pattern.match(name);
        if (!match.hasMatch())
            continue;
        if (rule.ignore)
            return {{}, QStringLiteral("ignored by a user rule")};
        if (shape.size() != 2)
            return {{}, QStringLiteral("named like a matrix but has %1 dimensions").arg(shape.size())};
        const int layer = match.captured(1).toInt();
        using Axis = MatrixPart::Axis;
        auto part = [&](MatrixType type, Axis axis, qint64 begin, qint64 count, const QString &suffix) {
            return MatrixPart{type, layer, axis, begin, count, 0, tensorName + suffix};
        };
        // Consecutive row blocks of the given sizes, one per type.
        auto rowBlocks = [&](std::initializer_list<std::pair<MatrixType, qint64>> blocks) {
            TensorAssignment a;
            qint64 begin = 0;
            for (const auto &[type, rows] : blocks) {
                a.parts.append(part(type, Axis::Rows, begin, rows, QStringLiteral("[%1]").arg(csvName(type))));
                begin += rows;
            }
            return a;
        };
        switch (rule.fusion) {
        case Fusion::None:
            return {{part(rule.type, Axis::Whole, 0, 0, QString())}, {}};
        case Fusion::QkvThirds: {
            if (shape[0] == 3 * shape[1])
                return rowBlocks({{MatrixType::Q, shape[1]}, {MatrixType::K, shape[1]}, {MatrixType::V, shape[1]}});
            if (shape[1] == 3 * shape[0]) {
                const qint64 c = shape[0];
                return {{part(MatrixType::Q, Axis::Columns, 0, c, "[Q]"), part(MatrixType::K, Axis::Columns, c, c, "[K]"),
                         part(MatrixType::V, Axis::Columns, 2 * c, c, "[V]")},
                        {}};
            }
            return {{}, QStringLiteral("fused Q|K|V of shape [%1, %2] is not three equal parts").arg(shape[0]).arg(shape[1])};
        }
        case Fusion::QkvGqaRows: {
            const int q = heads.heads, kv = heads.kvHeads > 0 ? heads.kvHeads : heads.heads;
            if (q <= 0 || shape[1] % q != 0)
                return {{}, QStringLiteral("fused Q|K|V needs the head counts (config.json num_attention_heads, num_key_value_heads)")};
            const qint64 headDim = shape[1] / q;
            if (shape[0] != (q + 2 * kv) * headDim)
                return {{}, QStringLiteral("fused Q|K|V of %1 rows does not fit %2 query and %3 key/value heads").arg(shape[0]).arg(q).arg(kv)};
            return rowBlocks({{MatrixType::Q, q * headDim}, {MatrixType::K, kv * headDim}, {MatrixType::V, kv * headDim}});
        }
        case Fusion::GateUpRows:
        case Fusion::UpGateRows: {
            if (shape[0] % 2 != 0)
                return {{}, QStringLiteral("fused gate/up of %1 rows cannot be halved").arg(shape[0])};
            const qint64 half = shape[0] / 2;
            return rule.fusion == Fusion::GateUpRows ? rowBlocks({{MatrixType::MlpGate, half}, {MatrixType::MlpUp, half}})
                                                     : rowBlocks({{MatrixType::MlpUp, half}, {MatrixType::MlpGate, half}});
        }
        case Fusion::QkvPerHead: {
            if (heads.heads <= 0 || shape[0] % (3 * heads.heads) != 0)
                return {{}, QStringLiteral("fused per-head Q|K|V needs the head count (config.json num_attention_heads)")};
            const qint64 headDim = shape[0] / (3 * heads.heads);
            TensorAssignment a;
            const MatrixType types[] = {MatrixType::Q, MatrixType::K, MatrixType::V};
            for (int i = 0; i < 3; ++i) {
                MatrixPart p = part(types[i], Axis::HeadInterleavedRows, i, headDim, QStringLiteral("[%1]").arg(csvName(types[i])));
                p.heads = heads.heads;
                a.parts.append(p);
            }
            return a;
        }
        }
    }
    return {{}, QStringLiteral("not an attention or MLP matrix")};
}

} // namespace rankscope
