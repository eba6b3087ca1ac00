#include "model/CheckpointLayout.h"

#include <QHash>
#include <QSet>
#include <algorithm>

namespace rankscope {

namespace {

using T = MatrixType;

// A cut in progress: the parts of one tensor, or why it cannot be cut.
struct Cut {
    QList<MatrixPart> parts;
    QString error;
    static Cut failed(const QString &why) { return {{}, why}; }
};

QString shapeText(const QList<qint64> &shape)
{
    QStringList dims;
    for (qint64 d : shape)
        dims << QString::number(d);
    return QLatin1Char('[') + dims.join(QLatin1String(", ")) + QLatin1Char(']');
}

// What a cut needs to know besides the shape.
struct CutContext {
    const RuleMatch &match;
    const QString &tensor;
    const QList<qint64> &shape;
    const ModelConfig &config;
    std::optional<QList<qint64>> partnerShape;

    qint64 rows() const { return shape[shape.size() - 2]; }
    qint64 cols() const { return shape[shape.size() - 1]; }

    MatrixPart part(T type, qint64 groups, qint64 groupSize, qint64 offset, qint64 count, const QString &suffix = {},
                    MatrixPart::Axis axis = MatrixPart::Axis::Rows) const
    {
        MatrixPart p;
        p.id = {QString(), match.layer, type, match.expert};
        p.label = tensor + suffix;
        p.axis = axis;
        p.groups = groups;
        p.groupSize = groupSize;
        p.offset = offset;
        p.count = count;
        return p;
    }
    QString label(T type) const { return QStringLiteral("[%1]").arg(csvName(type)); }

    // Consecutive row blocks of the given sizes.
    Cut rowBlocks(std::initializer_list<std::pair<T, qint64>> blocks) const
    {
        Cut cut;
        qint64 begin = 0;
        for (const auto &[type, n] : blocks) {
            cut.parts << part(type, 1, rows(), begin, n, label(type));
            begin += n;
        }
        return cut;
    }
    // Q, K and V repeated per group: [group][q × qPerGroup, k, v][headDim].
    Cut qkvGroups(qint64 groups, qint64 qPerGroup, qint64 headDim) const
    {
        const qint64 size = (qPerGroup + 2) * headDim;
        return {{part(T::Q, groups, size, 0, qPerGroup * headDim, label(T::Q)),
                 part(T::K, groups, size, qPerGroup * headDim, headDim, label(T::K)),
                 part(T::V, groups, size, (qPerGroup + 1) * headDim, headDim, label(T::V))},
                {}};
    }
};

QString headsNeeded(const QString &what)
{
    return QStringLiteral("%1 needs the number of attention heads: add num_attention_heads (or n_head) to the "
                          "checkpoint's config.json, or {\"config\": {\"num_attention_heads\": N}} to a --rules file")
        .arg(what);
}

Cut cutQkvThirds(const CutContext &c)
{
    if (c.cols() == 3 * c.rows()) { // a Conv1D [C, 3C]: Q|K|V are columns
        const qint64 n = c.rows();
        using A = MatrixPart::Axis;
        return {{c.part(T::Q, 1, c.cols(), 0, n, c.label(T::Q), A::Columns), c.part(T::K, 1, c.cols(), n, n, c.label(T::K), A::Columns),
                 c.part(T::V, 1, c.cols(), 2 * n, n, c.label(T::V), A::Columns)},
                {}};
    }
    if (c.rows() % 3 != 0)
        return Cut::failed(QStringLiteral("fused Q|K|V of shape %1 is not three equal parts").arg(shapeText(c.shape)));
    const qint64 n = c.rows() / 3;
    return c.rowBlocks({{T::Q, n}, {T::K, n}, {T::V, n}});
}

// [Q; K; V] with K and V of equal size. Q is as wide as the hidden size (the input) in every family
// using this layout (Phi-3, MPT, OLMo, Phi-2's Wqkv, Falcon-7B and GPT-BigCode's multi-query c_attn),
// unless the config sets a head_dim.
Cut cutQkvContiguous(const CutContext &c)
{
    const auto heads = c.config.heads();
    const auto headDim = c.config.integer({QStringLiteral("head_dim")});
    const qint64 qRows = heads && headDim ? *heads * *headDim : c.cols();
    const qint64 rest = c.rows() - qRows;
    if (rest <= 0 || rest % 2 != 0)
        return Cut::failed(QStringLiteral("fused Q|K|V of shape %1 does not hold Q (%2 rows) and two equal K, V blocks")
                               .arg(shapeText(c.shape)).arg(qRows));
    const qint64 kvRows = rest / 2;
    if (heads && *heads > 0) {
        const qint64 dim = headDim.value_or(c.cols() / *heads);
        const auto kv = c.config.kvHeads();
        if (dim <= 0 || qRows % *heads != 0 || kvRows % dim != 0 || (kv && *kv * dim != kvRows))
            return Cut::failed(QStringLiteral("fused Q|K|V of shape %1 does not fit %2 query heads and %3 key/value heads "
                                              "(config: %4)")
                                   .arg(shapeText(c.shape)).arg(*heads).arg(kv ? QString::number(*kv) : QStringLiteral("?"))
                                   .arg(c.config.sources().join(QLatin1String(", "))));
    }
    return c.rowBlocks({{T::Q, qRows}, {T::K, kvRows}, {T::V, kvRows}});
}

Cut cutQkvPerHead(const CutContext &c)
{
    const auto heads = c.config.heads();
    if (!heads || *heads <= 0)
        return Cut::failed(headsNeeded(QStringLiteral("fused per-head Q|K|V")));
    if (c.rows() % (3 * *heads) != 0)
        return Cut::failed(QStringLiteral("fused per-head Q|K|V of %1 rows does not split into %2 heads × 3").arg(c.rows()).arg(*heads));
    return c.qkvGroups(*heads, 1, c.rows() / (3 * *heads));
}

Cut cutQkvGrouped(const CutContext &c)
{
    const auto heads = c.config.heads();
    const auto kv = c.config.kvHeads();
    if (!heads || *heads <= 0 || !kv || *kv <= 0)
        return Cut::failed(QStringLiteral("grouped Q|K|V needs the head counts: num_attention_heads and num_kv_heads "
                                          "(config.json or a --rules file's \"config\")"));
    if (*heads % *kv != 0 || c.rows() % (*heads + 2 * *kv) != 0)
        return Cut::failed(QStringLiteral("grouped Q|K|V of %1 rows does not fit %2 query and %3 key/value heads")
                               .arg(c.rows()).arg(*heads).arg(*kv));
    return c.qkvGroups(*kv, *heads / *kv, c.rows() / (*heads + 2 * *kv));
}

// Falcon's query_key_value is [kv][heads/kv + 2][head_dim] in all three of its forms (multi-query:
// kv = 1; per head as Bloom: kv = heads; new_decoder_architecture: kv groups), so with the head
// count the rows tell kv; the config's flags must agree.
Cut cutFalconQkv(const CutContext &c)
{
    const QString modelType = c.config.modelType();
    QString headKey;
    const auto heads = c.config.integer(ModelConfig::headKeys(), &headKey);
    if (!heads || *heads <= 0)
        return Cut::failed(headsNeeded(QStringLiteral("Falcon/Bloom query_key_value")));
    if (c.cols() % *heads != 0)
        return Cut::failed(QStringLiteral("query_key_value of %1 columns does not split into %2 heads").arg(c.cols()).arg(*heads));
    const qint64 headDim = c.cols() / *heads;
    const qint64 units = c.rows() / headDim;
    if (c.rows() % headDim != 0 || units <= *heads || (units - *heads) % 2 != 0)
        return Cut::failed(QStringLiteral("query_key_value of shape %1 does not fit %2 heads of %3").arg(shapeText(c.shape)).arg(*heads).arg(headDim));
    const qint64 kv = (units - *heads) / 2;
    if (*heads % kv != 0)
        return Cut::failed(QStringLiteral("query_key_value of shape %1 gives %2 key/value heads, which do not divide %3 heads")
                               .arg(shapeText(c.shape)).arg(kv).arg(*heads));
    // What the config says the layout is, where it says anything.
    std::optional<qint64> expected;
    if (modelType == QLatin1String("bloom")) {
        expected = *heads;
    } else if (c.config.flag(QStringLiteral("new_decoder_architecture")).value_or(false) || modelType == QLatin1String("RefinedWeb")) {
        expected = c.config.integer({QStringLiteral("num_kv_heads"), QStringLiteral("n_head_kv")}).value_or(*heads);
    } else if (const auto multiQuery = c.config.flag(QStringLiteral("multi_query"))) {
        expected = *multiQuery ? 1 : *heads;
    }
    if (expected && *expected != kv)
        return Cut::failed(QStringLiteral("query_key_value of shape %1 holds %2 key/value heads, but the config says %3")
                               .arg(shapeText(c.shape)).arg(kv).arg(*expected));
    return c.qkvGroups(kv, *heads / kv, headDim);
}

// c_attn: GPT-2's Conv1D [C, 3C] (columns Q|K|V), nanoGPT's Linear [3C, C] (rows Q|K|V), GPT-BigCode's
// Linear: multi-query [C + 2·head_dim, C] or, with multi_query false, [head][q|k|v] rows.
Cut cutGptCAttn(const CutContext &c)
{
    const bool bigCode = c.config.modelType() == QLatin1String("gpt_bigcode") || c.config.contains(QStringLiteral("multi_query"));
    if (c.cols() == 3 * c.rows() && !bigCode)
        return cutQkvThirds(c);
    if (bigCode && !c.config.flag(QStringLiteral("multi_query")).value_or(true)) // GPT-BigCode's default is multi-query
        return cutQkvPerHead(c);
    if (c.rows() == 3 * c.cols() && !bigCode) {
        if (c.config.isEmpty())
            return Cut::failed(QStringLiteral("c_attn [3C, C] is nanoGPT's [Q; K; V] or GPT-BigCode's [head][q|k|v], and nothing says which "
                                              "(no config.json, no model_args): add config.json with model_type, or a --rules file "
                                              "with {\"config\": {\"model_type\": \"gpt2\"}} (or \"gpt_bigcode\" and n_head)"));
        return cutQkvThirds(c);
    }
    // Multi-query: one key and one value head after the C query rows.
    const qint64 rest = c.rows() - c.cols();
    if (rest > 0 && rest % 2 == 0 && c.cols() % (rest / 2) == 0) {
        const qint64 headDim = rest / 2;
        if (const auto heads = c.config.heads(); heads && *heads > 0 && *heads * headDim != c.cols())
            return Cut::failed(QStringLiteral("multi-query c_attn of shape %1 has head_dim %2, which does not fit %3 heads")
                                   .arg(shapeText(c.shape)).arg(headDim).arg(*heads));
        return c.rowBlocks({{T::Q, c.cols()}, {T::K, headDim}, {T::V, headDim}});
    }
    return Cut::failed(QStringLiteral("c_attn of shape %1 is none of [3C, C], [C, 3C] or multi-query [C + 2·head_dim, C]").arg(shapeText(c.shape)));
}

Cut cutHalves(const CutContext &c, bool gateFirst)
{
    if (c.rows() % 2 != 0)
        return Cut::failed(QStringLiteral("fused gate/up of %1 rows cannot be halved").arg(c.rows()));
    const qint64 half = c.rows() / 2;
    return gateFirst ? c.rowBlocks({{T::MlpGate, half}, {T::MlpUp, half}}) : c.rowBlocks({{T::MlpUp, half}, {T::MlpGate, half}});
}

// A gated MLP's fused input projection when the down projection takes half of its rows; one up
// projection when it takes all of them.
Cut cutGlu(const CutContext &c, bool gateFirst)
{
    if (!c.partnerShape || c.partnerShape->size() != 2)
        return Cut::failed(QStringLiteral("whether it holds a gate cannot be told: %1 is missing").arg(c.match.partner));
    const qint64 downInputs = (*c.partnerShape)[1];
    if (downInputs == c.rows())
        return {{c.part(c.match.type, 1, c.rows(), 0, c.rows())}, {}};
    if (2 * downInputs == c.rows())
        return cutHalves(c, gateFirst);
    return Cut::failed(QStringLiteral("%1 takes %2 inputs, neither all nor half of its %3 rows")
                           .arg(c.match.partner).arg(downInputs).arg(c.rows()));
}

Cut cutMlaKvA(const CutContext &c)
{
    std::optional<qint64> latent = c.config.integer({QStringLiteral("kv_lora_rank")});
    if (!latent && c.partnerShape && c.partnerShape->size() == 2)
        latent = (*c.partnerShape)[1]; // kv_b_proj takes the latent as its input
    if (!latent)
        return Cut::failed(QStringLiteral("kv_a_proj_with_mqa needs kv_lora_rank (config.json) or kv_b_proj beside it"));
    const qint64 rope = c.rows() - *latent;
    const auto ropeDim = c.config.integer({QStringLiteral("qk_rope_head_dim")});
    if (*latent <= 0 || rope <= 0 || (ropeDim && *ropeDim != rope))
        return Cut::failed(QStringLiteral("kv_a_proj_with_mqa of %1 rows does not hold a latent of %2 and a rope key of %3")
                               .arg(c.rows()).arg(*latent).arg(ropeDim ? QString::number(*ropeDim) : QStringLiteral("?")));
    MatrixPart latentPart = c.part(T::K, 1, c.rows(), 0, *latent, QStringLiteral("[latent]"));
    MatrixPart ropePart = c.part(T::K, 1, c.rows(), *latent, rope, QStringLiteral("[rope]"));
    latentPart.id.block = QStringLiteral("latent");
    ropePart.id.block = QStringLiteral("rope");
    return {{latentPart, ropePart}, {}};
}

Cut cutMlaKvB(const CutContext &c)
{
    const auto heads = c.config.heads();
    const auto nope = c.config.integer({QStringLiteral("qk_nope_head_dim")});
    const auto v = c.config.integer({QStringLiteral("v_head_dim")});
    if (!heads || !nope || !v || *heads <= 0 || *nope <= 0 || *v <= 0)
        return Cut::failed(QStringLiteral("kv_b_proj needs num_attention_heads, qk_nope_head_dim and v_head_dim (config.json)"));
    if (c.rows() != *heads * (*nope + *v))
        return Cut::failed(QStringLiteral("kv_b_proj of %1 rows does not fit %2 heads of %3 + %4").arg(c.rows()).arg(*heads).arg(*nope).arg(*v));
    return {{c.part(T::K, *heads, *nope + *v, 0, *nope, c.label(T::K)), c.part(T::V, *heads, *nope + *v, *nope, *v, c.label(T::V))}, {}};
}

// Experts stacked along the first dimension: [E, 2I, H] of [gate; up] per expert, or [E, rows, cols].
Cut cutExperts(const CutContext &c, bool gateUp)
{
    if (c.shape.size() != 3 || c.shape[0] <= 0)
        return Cut::failed(QStringLiteral("fused experts of shape %1 are not [experts, rows, cols]").arg(shapeText(c.shape)));
    const qint64 experts = c.shape[0], rows = c.shape[1];
    if (gateUp) {
        // Prove the orientation: down_proj [E, H, I] beside it, or the config's hidden size.
        std::optional<qint64> hidden = c.config.integer({QStringLiteral("hidden_size"), QStringLiteral("d_model"), QStringLiteral("n_embd")});
        std::optional<qint64> inner;
        if (c.partnerShape && c.partnerShape->size() == 3) {
            hidden = (*c.partnerShape)[1];
            inner = (*c.partnerShape)[2];
        }
        if (!hidden || c.shape[2] != *hidden || rows % 2 != 0 || (inner && rows != 2 * *inner))
            return Cut::failed(QStringLiteral("fused experts gate_up_proj of shape %1 is not [experts, 2·intermediate, hidden%2]")
                                   .arg(shapeText(c.shape)).arg(hidden ? QStringLiteral(" = %1").arg(*hidden) : QString()));
    }
    Cut cut;
    for (qint64 e = 0; e < experts; ++e) {
        const QString expert = QString::number(e);
        auto add = [&](T type, qint64 offset, qint64 count, const QString &suffix) {
            MatrixPart p = c.part(type, 1, rows, offset, count, QStringLiteral("[%1]%2").arg(e).arg(suffix));
            p.id.expert = expert;
            p.slice = e;
            cut.parts << p;
        };
        if (gateUp) {
            add(T::MlpGate, 0, rows / 2, c.label(T::MlpGate));
            add(T::MlpUp, rows / 2, rows / 2, c.label(T::MlpUp));
        } else {
            add(c.match.type, 0, rows, QString());
        }
    }
    return cut;
}

Cut cut(const CutContext &c)
{
    using L = FusedLayout;
    const bool threeD = c.match.layout == L::ExpertsGateUp || c.match.layout == L::ExpertsWhole;
    if (c.shape.size() != (threeD ? 3 : 2))
        return Cut::failed(QStringLiteral("named like a matrix but has %1 dimensions %2").arg(c.shape.size()).arg(shapeText(c.shape)));
    if (std::any_of(c.shape.begin(), c.shape.end(), [](qint64 d) { return d <= 0; }))
        return Cut::failed(QStringLiteral("has an empty shape %1").arg(shapeText(c.shape)));
    switch (c.match.layout) {
    case L::None: return {{c.part(c.match.type, 1, c.rows(), 0, c.rows())}, {}};
    case L::QkvThirds: return cutQkvThirds(c);
    case L::QkvContiguous: return cutQkvContiguous(c);
    case L::QkvPerHead: return cutQkvPerHead(c);
    case L::QkvGrouped: return cutQkvGrouped(c);
    case L::FalconQkv: return cutFalconQkv(c);
    case L::GptCAttn: return cutGptCAttn(c);
    case L::GateUp: return cutHalves(c, true);
    case L::UpGate: return cutHalves(c, false);
    case L::GluGateUp: return cutGlu(c, true);
    case L::GluUpGate: return cutGlu(c, false);
    case L::MlaKvA: return cutMlaKvA(c);
    case L::MlaKvB: return cutMlaKvB(c);
    case L::ExpertsGateUp: return cutExperts(c, true);
    case L::ExpertsWhole: return cutExperts(c, false);
    }
    return Cut::failed(QStringLiteral("unknown layout"));
}

// The words of a stack's prefix that say which stack it is: "text_model.encoder" → text, encoder.
QStringList stackWords(const QString &stack)
{
    static const QHash<QString, QString> words = {
        {"encoder", "encoder"}, {"decoder", "decoder"}, {"text", "text"},     {"language", "text"}, {"llm", "text"},
        {"vision", "vision"},   {"visual", "vision"},   {"image", "vision"},  {"audio", "audio"},   {"speech", "audio"}};
    QStringList out;
    for (const QString &component : stack.split(QLatin1Char('.'), Qt::SkipEmptyParts))
        for (const QString &piece : component.toLower().split(QLatin1Char('_'), Qt::SkipEmptyParts))
            if (const QString w = words.value(piece); !w.isEmpty() && !out.contains(w))
                out << w;
    return out;
}

// Block names for the stacks of one checkpoint: none for a single stack; otherwise what their prefixes
// say (words all of them share dropped), the rule's name for an unnamed one, and the prefix itself
// when two would still be called alike.
QHash<QString, QString> nameStacks(const QList<QString> &stacks, const QHash<QString, QString> &unnamedHints)
{
    QHash<QString, QString> names;
    if (stacks.size() <= 1) {
        for (const QString &s : stacks)
            names.insert(s, QString());
        return names;
    }
    QHash<QString, QStringList> words;
    for (const QString &s : stacks)
        words.insert(s, stackWords(s));
    QStringList common = words.value(stacks.first());
    for (const QString &s : stacks)
        common.erase(std::remove_if(common.begin(), common.end(), [&](const QString &w) { return !words.value(s).contains(w); }),
                     common.end());
    bool everyKeepsOne = true;
    for (const QString &s : stacks)
        everyKeepsOne &= words.value(s).size() > common.size();
    for (const QString &s : stacks) {
        QStringList w = words.value(s);
        if (everyKeepsOne)
            w.erase(std::remove_if(w.begin(), w.end(), [&](const QString &x) { return common.contains(x); }), w.end());
        QString name = w.join(QLatin1Char('-'));
        if (name.isEmpty())
            name = unnamedHints.value(s);
        names.insert(s, name);
    }
    QHash<QString, int> uses;
    for (const QString &s : stacks)
        ++uses[names.value(s)];
    for (const QString &s : stacks)
        if (names.value(s).isEmpty() || uses.value(names.value(s)) > 1)
            names.insert(s, s.isEmpty() ? QStringLiteral("main") : QString(s).replace(QLatin1Char('.'), QLatin1Char('-')));
    return names;
}

QString joinBlock(std::initializer_list<QString> pieces)
{
    QStringList kept;
    for (const QString &p : pieces)
        if (!p.isEmpty())
            kept << p;
    return kept.join(QLatin1Char('-'));
}

} // namespace

CheckpointLayout CheckpointLayout::plan(const QList<NamedShape> &tensors, const ModelConfig &config, const TensorNameRules &rules)
{
    CheckpointLayout layout;
    QHash<QString, const NamedShape *> byName; // by name without wrapper prefixes
    for (const NamedShape &t : tensors)
        byName.insert(TensorNameRules::withoutWrapperPrefixes(t.name), &t);
    const auto exists = [&](const QString &name) { return byName.contains(name); };

    // DeepSeek-V3 stores its multi-token-prediction module as layers past the last one.
    const auto layerCount = config.integer({QStringLiteral("num_hidden_layers"), QStringLiteral("n_layer"), QStringLiteral("n_layers")});
    const bool hasMtp = config.modelType().startsWith(QLatin1String("deepseek")) && layerCount;

    struct Pending {
        PlannedTensor planned;
        RuleMatch match;
    };
    QList<Pending> pending;
    for (const NamedShape &t : tensors) {
        if (t.shape.size() < 2)
            continue; // biases, norms, scalars
        const std::optional<RuleMatch> match = rules.match(t.name, config, exists);
        if (!match) {
            const bool looksLike = TensorNameRules::looksLikeAttentionOrMlp(t.name);
            QString reason = QStringLiteral("not an attention or MLP matrix");
            if (looksLike) {
                const QString model = config.describeModel();
                reason = QStringLiteral("looks like an attention/MLP weight, but no rule types it%1; "
                                        "see rankscope info --suggest-rules and --rules")
                             .arg(model.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(model));
                if (t.shape.size() != 2)
                    reason = QStringLiteral("%1 tensor %2: ").arg(t.shape.size()).arg(shapeText(t.shape)) + reason;
            }
            layout.leftOut.append({t.name, t.shape, reason, looksLike});
            continue;
        }
        if (match->ignored) {
            layout.leftOut.append({t.name, t.shape, match->reason, false});
            continue;
        }
        std::optional<QList<qint64>> partnerShape;
        if (const NamedShape *partner = byName.value(match->partner))
            partnerShape = partner->shape;
        const Cut result = cut({*match, t.name, t.shape, config, partnerShape});
        if (!result.error.isEmpty()) {
            layout.leftOut.append({t.name, t.shape, result.error, true});
            continue;
        }
        Pending p{{t.name, t.shape, t.dtype, match->family, result.parts, {}}, *match};
        if (hasMtp && match->layer >= *layerCount)
            p.match.subBlock = joinBlock({QStringLiteral("mtp"), p.match.subBlock});
        const QString scales = TensorNameRules::withoutWrapperPrefixes(t.name) + QStringLiteral("_scale_inv");
        if (byName.contains(scales))
            p.planned.blockScales = byName.value(scales)->name;
        pending.append(p);
    }

    QList<QString> stacks;
    QHash<QString, QString> unnamedHints;
    for (const Pending &p : pending) {
        if (p.match.fixedBlock)
            continue;
        if (!stacks.contains(p.match.stack))
            stacks.append(p.match.stack);
        if (!p.match.unnamedStack.isEmpty())
            unnamedHints.insert(p.match.stack, p.match.unnamedStack);
    }
    const QHash<QString, QString> stackNames = nameStacks(stacks, unnamedHints);

    QHash<MatrixIdentity, QString> taken;
    for (Pending &p : pending) {
        const QString stack = p.match.fixedBlock ? *p.match.fixedBlock : stackNames.value(p.match.stack);
        QList<MatrixPart> kept;
        QStringList clashes;
        for (MatrixPart part : p.planned.parts) {
            // A part may carry a block of its own inside the stack (MLA's latent and rope).
            part.id.block = joinBlock({stack, p.match.subBlock, part.id.block, p.match.cross ? QStringLiteral("cross") : QString()});
            if (const auto it = taken.constFind(part.id); it != taken.constEnd()) {
                clashes << QStringLiteral("%1 is already %2").arg(part.id.text(), *it);
                continue;
            }
            taken.insert(part.id, part.label);
            kept << part;
        }
        if (!clashes.isEmpty())
            layout.leftOut.append({p.planned.tensor, p.planned.shape, QStringLiteral("same block, layer, type and expert as another "
                                                                                      "matrix, not analysed twice: ") + clashes.join(QLatin1String("; ")),
                                   true});
        if (kept.isEmpty())
            continue;
        p.planned.parts = kept;
        layout.typed.append(p.planned);
    }
    return layout;
}

qsizetype CheckpointLayout::matrixCount() const
{
    qsizetype n = 0;
    for (const PlannedTensor &t : typed)
        n += t.parts.size();
    return n;
}

QList<LeftOutTensor> CheckpointLayout::reported() const
{
    QList<LeftOutTensor> out;
    for (const LeftOutTensor &t : leftOut)
        if (t.reported)
            out << t;
    return out;
}

} // namespace rankscope
