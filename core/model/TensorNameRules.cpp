#include "model/TensorNameRules.h"

namespace rankscope {

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
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_attn\.weight$)", T::Q, Fusion::QkvEqualThirds},
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_proj\.weight$)", T::O, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.mlp\.c_fc\.weight$)", T::MlpUp, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.mlp\.c_proj\.weight$)", T::MlpDown, Fusion::None},
        // nanochat: separate projections (K, V may be smaller under GQA).
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_q\.weight$)", T::Q, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_k\.weight$)", T::K, Fusion::None},
        {R"(^(?:transformer\.)?h\.(\d+)\.attn\.c_v\.weight$)", T::V, Fusion::None},
        // LLaMA / Mistral / Qwen2 / Gemma (HF).
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.q_proj\.weight$)", T::Q, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.k_proj\.weight$)", T::K, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.v_proj\.weight$)", T::V, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.self_attn\.o_proj\.weight$)", T::O, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.mlp\.gate_proj\.weight$)", T::MlpGate, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.mlp\.up_proj\.weight$)", T::MlpUp, Fusion::None},
        {R"(^(?:[\w.]*\.)?layers\.(\d+)\.mlp\.down_proj\.weight$)", T::MlpDown, Fusion::None},
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
    };
    TensorNameRules rules;
    for (const auto &row : table)
        rules.m_rules.append({QRegularExpression(QString::fromLatin1(row.pattern)), row.type, row.fusion});
    return rules;
}

TensorAssignment TensorNameRules::assign(const QString &tensorName, const QList<qint64> &shape, int heads) const
{
    const QString name = withoutWrapperPrefixes(tensorName);
    for (const Rule &rule : m_rules) {
        const QRegularExpressionMatch match = rule.pattern.match(name);
        if (!match.hasMatch())
            continue;
        if (shape.size() != 2)
            return {{}, QStringLiteral("named like a matrix but has %1 dimensions").arg(shape.size())};
        const int layer = match.captured(1).toInt();
        auto part = [&](MatrixType type, MatrixPart::Axis axis, qint64 begin, qint64 count, const QString &suffix) {
            MatrixPart p{type, layer, axis, begin, count, 0, tensorName + suffix};
            return p;
        };
        switch (rule.fusion) {
        case Fusion::None:
            return {{part(rule.type, MatrixPart::Axis::Whole, 0, 0, QString())}, {}};
        case Fusion::QkvEqualThirds: {
            const bool byRows = shape[0] == 3 * shape[1];
            const bool byColumns = shape[1] == 3 * shape[0];
            if (!byRows && !byColumns)
                return {{}, QStringLiteral("fused Q|K|V of shape [%1, %2] is not three equal parts").arg(shape[0]).arg(shape[1])};
            const auto axis = byRows ? MatrixPart::Axis::Rows : MatrixPart::Axis::Columns;
            const qint64 third = byRows ? shape[1] : shape[0];
            return {{part(MatrixType::Q, axis, 0, third, "[Q]"), part(MatrixType::K, axis, third, third, "[K]"),
                     part(MatrixType::V, axis, 2 * third, third, "[V]")},
                    {}};
        }
        case Fusion::QkvPerHead: {
            if (heads <= 0 || shape[0] % (3 * heads) != 0)
                return {{}, QStringLiteral("fused per-head Q|K|V needs the head count (config.json num_attention_heads)")};
            const qint64 headDim = shape[0] / (3 * heads);
            TensorAssignment a;
            const MatrixType types[] = {MatrixType::Q, MatrixType::K, MatrixType::V};
            const char *suffixes[] = {"[Q]", "[K]", "[V]"};
            for (int i = 0; i < 3; ++i) {
                MatrixPart p = part(types[i], MatrixPart::Axis::HeadInterleavedRows, i, headDim, suffixes[i]);
                p.heads = heads;
                a.parts.append(p);
            }
            return a;
        }
        }
    }
    return {{}, QStringLiteral("not an attention or MLP matrix")};
}

} // namespace rankscope
