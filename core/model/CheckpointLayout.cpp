#include "model/CheckpointLayout.h"
#include "base/PrintableText.h"

#include "model/GenericTyping.h"

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
    QString note{}; // what the cut assumed, said once per run
    static Cut failed(const QString &why) { return {{}, why, {}}; }
};

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
        // Without a config a [3C, C] c_attn is nearly always nanoGPT's (an HDF5 or NumPy export, a
        // state_dict saved without model_args); a bare GPT-BigCode state dict with multi_query false
        // is rare. nanoGPT's layout is taken, and said.
        Cut cut = cutQkvThirds(c);
        if (c.config.isEmpty())
            cut.note = QStringLiteral("c_attn [3C, C] read as nanoGPT's [Q; K; V], since no config.json or model_args says otherwise; "
                                      "for GPT-BigCode with multi_query false, add config.json with model_type gpt_bigcode and n_head "
                                      "(or {\"config\": {…}} in a --rules file)");
        return cut;
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

// Every expert of a stacked tensor is planned as its own matrix (parts, work items, rows): a count
// that only a file's header or a router's shape claims must not size that plan. No MoE has come
// near this many experts (DeepSeek-V3: 256); a file claiming more is refused before any is planned,
// whatever its apparent size (a sparse file can claim 100 GB with 4 KB stored).
constexpr qint64 kMaxExperts = 65536;

std::optional<Cut> tooManyExperts(const CutContext &c, qint64 experts)
{
    if (experts <= kMaxExperts)
        return std::nullopt;
    return Cut::failed(QStringLiteral("claims %1 experts (shape %2), more than the %3 any model has: not planned")
                           .arg(experts).arg(shapeText(c.shape)).arg(kMaxExperts));
}

// Experts stacked along the first dimension: [E, 2I, H] of [gate; up] per expert, or [E, rows, cols].
Cut cutExperts(const CutContext &c, bool gateUp)
{
    if (c.shape.size() != 3 || c.shape[0] <= 0)
        return Cut::failed(QStringLiteral("fused experts of shape %1 are not [experts, rows, cols]").arg(shapeText(c.shape)));
    const qint64 experts = c.shape[0], rows = c.shape[1];
    if (const std::optional<Cut> refused = tooManyExperts(c, experts))
        return *refused;
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

// Swin (HF modeling_swin.py: SwinEncoder.layers = SwinStage…, SwinStage.blocks = SwinLayer…): the rule's layer is
// the block B in "…layers.S.blocks.B.…"; the stage S is the block "stage{S+1}", as SwinConfig.stage_names calls it
// (["stem"] + [f"stage{idx}" for idx in range(1, len(depths) + 1)]). Stages differ in width, so they stay apart.
Cut cutSwinStage(const CutContext &c)
{
    static const QRegularExpression stageBlock(QStringLiteral(R"((?:^|\.)layers\.(\d+)\.blocks\.(\d+)\.)"));
    QRegularExpressionMatch last;
    for (auto it = stageBlock.globalMatch(TensorNameRules::withoutWrapperPrefixes(c.tensor)); it.hasNext();)
        last = it.next();
    bool ok = false;
    const int stage = last.captured(1).toInt(&ok);
    if (!last.hasMatch() || !ok || last.captured(2).toInt() != c.match.layer)
        return Cut::failed(QStringLiteral("a Swin stage's matrix whose name has no layers.S.blocks.B"));
    MatrixPart p = c.part(c.match.type, 1, c.rows(), 0, c.rows());
    p.id.block = QStringLiteral("stage%1").arg(stage + 1);
    return {{p}, {}};
}

// Mamba-2's in_proj (HF Mamba2Mixer: "projection_size = self.intermediate_size + self.conv_dim + self.num_heads",
// split [d_mlp, d_mlp, intermediate, conv_dim, heads] with d_mlp 0; mamba_ssm Mamba2: "# Order: [z, x, B, C, dt]"):
// rows [z (I); x (I); B (G·N); C (G·N); dt (heads)]. z gates the output (typed as Mamba's z, the gate) and x feeds the
// scan (as Mamba's x, the up projection); B, C and dt are the scan's parameters and stay untyped. I is out_proj's input.
Cut cutMamba2InProj(const CutContext &c)
{
    if (!c.partnerShape || c.partnerShape->size() != 2)
        return Cut::failed(QStringLiteral("Mamba-2 in_proj is [z; x; B; C; dt] with z and x as wide as out_proj's input, "
                                          "but %1 is missing").arg(c.match.partner));
    const qint64 inner = (*c.partnerShape)[1];
    const qint64 scan = c.rows() - 2 * inner;
    if (inner <= 0 || scan <= 0)
        return Cut::failed(QStringLiteral("Mamba-2 in_proj of %1 rows cannot hold z and x of %2 rows each and B, C, dt")
                               .arg(c.rows()).arg(inner));
    const auto groups = c.config.integer({QStringLiteral("n_groups"), QStringLiteral("ngroups")});
    const auto state = c.config.integer({QStringLiteral("state_size"), QStringLiteral("d_state")});
    const auto heads = c.config.integer({QStringLiteral("num_heads"), QStringLiteral("nheads")});
    if (groups && state && heads && scan != 2 * *groups * *state + *heads)
        return Cut::failed(QStringLiteral("Mamba-2 in_proj of %1 rows is not z, x (2 × %2), B, C (2 × %3 × %4) and dt (%5) "
                                          "(config: %6)")
                               .arg(c.rows()).arg(inner).arg(*groups).arg(*state).arg(*heads)
                               .arg(c.config.sources().join(QLatin1String(", "))));
    // mamba_ssm's d_ssm below the inner size puts a gated MLP's z0, x0 first: another layout.
    if (const auto ssm = c.config.integer({QStringLiteral("d_ssm")}); ssm && *ssm != inner)
        return Cut::failed(QStringLiteral("Mamba-2 in_proj with d_ssm %1 below the inner size %2 starts with a gated MLP "
                                          "(z0, x0): not split").arg(*ssm).arg(inner));
    return c.rowBlocks({{T::MlpGate, inner}, {T::MlpUp, inner}});
}

// #26 decoders-1. Experts stored [E, hidden, 2I] and used as x @ W (Llama 4's Llama4TextExperts: "gate_up =
// torch.bmm(hidden_states, self.gate_up_proj)", "gate, up = gate_up.chunk(2, dim=-1)"; GPT-OSS's GptOssExperts:
// "gate_up = current_state @ self.gate_up_proj[expert_idx] + …", "gate, up = gate_up[..., ::2], gate_up[..., 1::2]"):
// per expert the gate's and the up projection's outputs are columns, as halves or interleaved one by one. The
// orientation is proven by down_proj [E, I, hidden] beside it (the rule's partner), or by the config's sizes; the
// matrices keep the stored orientation ([hidden, I], as GPT-2's Conv1D keeps in × out).
Cut cutExpertsGateUpColumns(const CutContext &c, bool interleaved)
{
    if (c.shape.size() != 3 || c.shape[0] <= 0)
        return Cut::failed(QStringLiteral("fused experts of shape %1 are not [experts, hidden, 2·intermediate]").arg(shapeText(c.shape)));
    const qint64 experts = c.shape[0], in = c.shape[1], out = c.shape[2];
    if (const std::optional<Cut> refused = tooManyExperts(c, experts))
        return *refused;
    // GPT-OSS's and Llama 4's configs name the experts; MXFP4 blocks dequantized by the reader are checked here too.
    if (const auto configured = c.config.integer({QStringLiteral("num_local_experts")}); configured && *configured != experts)
        return Cut::failed(QStringLiteral("fused experts gate_up_proj of shape %1 holds %2 experts, but num_local_experts is %3 (config: %4)")
                               .arg(shapeText(c.shape)).arg(experts).arg(*configured).arg(c.config.sources().join(QLatin1String(", "))));
    std::optional<qint64> hidden = c.config.integer({QStringLiteral("hidden_size")});
    std::optional<qint64> inner = c.config.integer({QStringLiteral("intermediate_size")});
    if (c.partnerShape && c.partnerShape->size() == 3) {
        if ((*c.partnerShape)[0] != experts)
            return Cut::failed(QStringLiteral("fused experts gate_up_proj of shape %1 beside %2 of shape %3: not as many experts")
                                   .arg(shapeText(c.shape), c.match.partner, shapeText(*c.partnerShape)));
        inner = (*c.partnerShape)[1];
        hidden = (*c.partnerShape)[2];
    }
    if (!hidden || *hidden != in || out % 2 != 0 || (inner && 2 * *inner != out))
        return Cut::failed(QStringLiteral("fused experts gate_up_proj of shape %1 is not [experts, hidden%2, 2·intermediate%3] (x @ W): "
                                          "%4 [experts, intermediate, hidden] beside it, or hidden_size in config.json, says so")
                               .arg(shapeText(c.shape))
                               .arg(hidden ? QStringLiteral(" = %1").arg(*hidden) : QString())
                               .arg(inner ? QStringLiteral(" = %1").arg(2 * *inner) : QString())
                               .arg(c.match.partner.isEmpty() ? QStringLiteral("down_proj") : c.match.partner));
    const qint64 half = out / 2;
    using A = MatrixPart::Axis;
    Cut cut;
    for (qint64 e = 0; e < experts; ++e) {
        const QString expert = QString::number(e);
        auto add = [&](T type, qint64 groups, qint64 groupSize, qint64 offset, qint64 count) {
            MatrixPart p = c.part(type, groups, groupSize, offset, count, QStringLiteral("[%1]%2").arg(e).arg(c.label(type)), A::Columns);
            p.id.expert = expert;
            p.slice = e;
            cut.parts << p;
        };
        if (interleaved) {
            add(T::MlpGate, half, 2, 0, 1);
            add(T::MlpUp, half, 2, 1, 1);
        } else {
            add(T::MlpGate, 1, out, 0, half);
            add(T::MlpUp, 1, out, half, half);
        }
    }
    return cut;
}

// GPT-OSS's interleave is told by its model_type alone (Llama 4 stores the same shapes as halves). Without one,
// the tensor is read as the generic stacked-experts row reads mlp.experts.gate_up_proj (its down_proj proving the
// orientation), and a failure says what to add.
Cut cutExpertsGluInterleaved(const CutContext &c)
{
    if (c.config.modelType() == QLatin1String("gpt_oss"))
        return cutExpertsGateUpColumns(c, true);
    Cut generic = cutExperts(c, true); // down_proj beside it proves the orientation, as for the generic row
    if (!generic.error.isEmpty())
        generic.error += QStringLiteral("; GPT-OSS stores [experts, hidden, 2·intermediate] with gate and up interleaved by column: "
                                        "add config.json with model_type gpt_oss (or {\"config\": {\"model_type\": \"gpt_oss\"}} in a --rules file)");
    return generic;
}

// ---- #26, decoders-2: DBRX, ChatGLM / GLM-4, InternLM2, CodeGen, litgpt (tests/core/tst_ArchitectureFamilies.cpp
// quotes the forward() lines each cut follows).

// A layout only one family's forward() has, under names another family uses with another layout: cut only
// when the config names that family.
QString unlessModelType(const CutContext &c, const char *modelType, const QString &ambiguity)
{
    if (c.config.modelType() == QLatin1String(modelType))
        return {};
    return QStringLiteral("%1, and nothing says which: add config.json with model_type %2 (or {\"config\": {\"model_type\": \"%2\"}} "
                          "in a --rules file)")
        .arg(ambiguity, QLatin1String(modelType));
}

// DBRX's experts: one parameter [experts · ffn_hidden_size, d_model] per projection, viewed as
// (experts, ffn_hidden_size, d_model). The router [experts, d_model] beside it tells the experts.
Cut cutExpertRowBlocks(const CutContext &c)
{
    if (!c.partnerShape || c.partnerShape->size() != 2)
        return Cut::failed(QStringLiteral("how many experts it holds cannot be told: the router %1 is missing").arg(c.match.partner));
    const qint64 experts = (*c.partnerShape)[0];
    if (experts <= 0 || (*c.partnerShape)[1] != c.cols() || c.rows() % experts != 0)
        return Cut::failed(QStringLiteral("experts of shape %1 do not fit the router's %2 [experts, d_model]")
                               .arg(shapeText(c.shape), shapeText(*c.partnerShape)));
    if (const std::optional<Cut> refused = tooManyExperts(c, experts))
        return *refused;
    const qint64 rows = c.rows() / experts;
    Cut cut;
    for (qint64 e = 0; e < experts; ++e) {
        MatrixPart p = c.part(c.match.type, 1, c.rows(), e * rows, rows, QStringLiteral("[%1]").arg(e));
        p.id.expert = QString::number(e);
        cut.parts << p;
    }
    return cut;
}

// ChatGLM2/3 and GLM-4 (THUDM's remote code): [Q (heads · kv_channels); K; V (multi_query_group_num ·
// kv_channels each)] under multi_query_attention, else [head][q | k | v][kv_channels].
Cut cutGlmQueryKeyValue(const CutContext &c)
{
    if (const QString no = unlessModelType(c, "chatglm", QStringLiteral("query_key_value under encoder.layers is ChatGLM's (multi-query "
                                                                        "[Q; K; V]) or Megatron-LM's (per group)"));
        !no.isEmpty())
        return Cut::failed(no);
    const auto heads = c.config.heads();
    const auto kvChannels = c.config.integer({QStringLiteral("kv_channels")});
    if (!heads || *heads <= 0 || !kvChannels || *kvChannels <= 0)
        return Cut::failed(QStringLiteral("ChatGLM's query_key_value needs num_attention_heads and kv_channels (config.json, or a "
                                          "--rules file's \"config\")"));
    if (c.config.flag(QStringLiteral("multi_query_attention")).value_or(false)) { // ChatGLMConfig's default: false
        const auto groups = c.config.integer({QStringLiteral("multi_query_group_num")});
        if (!groups || *groups <= 0)
            return Cut::failed(QStringLiteral("ChatGLM's multi-query query_key_value needs multi_query_group_num (config.json)"));
        if (c.rows() != (*heads + 2 * *groups) * *kvChannels)
            return Cut::failed(QStringLiteral("query_key_value of %1 rows does not fit %2 query heads and %3 key/value groups of %4 "
                                              "(kv_channels)").arg(c.rows()).arg(*heads).arg(*groups).arg(*kvChannels));
        return c.rowBlocks({{T::Q, *heads * *kvChannels}, {T::K, *groups * *kvChannels}, {T::V, *groups * *kvChannels}});
    }
    if (c.rows() != 3 * *heads * *kvChannels)
        return Cut::failed(QStringLiteral("query_key_value of %1 rows does not fit %2 heads × 3 × %3 (kv_channels; "
                                          "multi_query_attention is false)").arg(c.rows()).arg(*heads).arg(*kvChannels));
    return c.qkvGroups(*heads, 1, *kvChannels);
}

// ChatGLM's dense_h_to_4h: [gate; up] (swiglu: chunk(2), silu(x[0]) * x[1]); dense_4h_to_h takes half of it.
Cut cutGlmDenseH4h(const CutContext &c)
{
    if (const QString no = unlessModelType(c, "chatglm", QStringLiteral("dense_h_to_4h under encoder.layers is ChatGLM's [gate; up] or "
                                                                        "Megatron-LM's up projection (gated only under swiglu)"));
        !no.isEmpty())
        return Cut::failed(no);
    if (c.partnerShape && c.partnerShape->size() == 2 && 2 * (*c.partnerShape)[1] != c.rows())
        return Cut::failed(QStringLiteral("%1 takes %2 inputs, not half of the %3 rows of [gate; up]")
                               .arg(c.match.partner).arg((*c.partnerShape)[1]).arg(c.rows()));
    return cutHalves(c, true);
}

Cut cutInternLm2Wqkv(const CutContext &c)
{
    if (const QString no = unlessModelType(c, "internlm2", QStringLiteral("attention.wqkv is InternLM2's [kv group][q × heads/kv, k, v] "
                                                                          "or gpt-fast's [Q; K; V]"));
        !no.isEmpty())
        return Cut::failed(no);
    return cutQkvGrouped(c);
}

// CodeGen: qkv_proj [3C, C] in mp_num = 4 row blocks, each [q | v | k] of C / 4 rows.
Cut cutCodeGenQkv(const CutContext &c)
{
    if (const QString no = unlessModelType(c, "codegen", QStringLiteral("qkv_proj under h is CodeGen's [4 blocks][q | v | k]"));
        !no.isEmpty())
        return Cut::failed(no);
    constexpr qint64 mp = 4; // "mp_num = 4" in CodeGenAttention.forward
    const auto heads = c.config.heads();
    if (c.rows() != 3 * c.cols() || c.cols() % mp != 0 || (heads && (*heads <= 0 || *heads % mp != 0)))
        return Cut::failed(QStringLiteral("qkv_proj of shape %1 is not [3C, C] in 4 blocks of whole heads").arg(shapeText(c.shape)));
    const qint64 local = c.cols() / mp;
    return {{c.part(T::Q, mp, 3 * local, 0, local, c.label(T::Q)), c.part(T::V, mp, 3 * local, local, local, c.label(T::V)),
             c.part(T::K, mp, 3 * local, 2 * local, local, c.label(T::K))},
            {}};
}

// litgpt: n_head, n_query_groups (default n_head) and head_size (default n_embd / n_head), as litgpt's Config.
Cut cutLitGpt(const CutContext &c, bool interleaved)
{
    const auto heads = c.config.heads();
    if (!heads || *heads <= 0)
        return Cut::failed(QStringLiteral("litgpt's %1 needs n_head (and n_query_groups, head_size where the model sets them): "
                                          "model_config.yaml is not read, so give them in a --rules file's \"config\"")
                               .arg(interleaved ? QStringLiteral("attn.attn") : QStringLiteral("attn.qkv")));
    const qint64 headSize = c.config.integer({QStringLiteral("head_size")}).value_or(c.cols() / *heads);
    const qint64 groups = c.config.integer({QStringLiteral("n_query_groups")}).value_or(*heads);
    if (headSize <= 0 || groups <= 0 || *heads % groups != 0 || c.rows() != (*heads + 2 * groups) * headSize)
        return Cut::failed(QStringLiteral("%1 of %2 rows does not fit n_head %3, n_query_groups %4 and head_size %5 (litgpt's defaults: "
                                          "n_query_groups = n_head, head_size = n_embd / n_head)")
                               .arg(interleaved ? QStringLiteral("attn.attn") : QStringLiteral("attn.qkv"))
                               .arg(c.rows()).arg(*heads).arg(groups).arg(headSize));
    if (interleaved)
        return c.qkvGroups(groups, *heads / groups, headSize);
    return c.rowBlocks({{T::Q, *heads * headSize}, {T::K, groups * headSize}, {T::V, groups * headSize}});
}

Cut cut(const CutContext &c)
{
    using L = FusedLayout;
    const bool threeD = c.match.layout == L::ExpertsGateUp || c.match.layout == L::ExpertsWhole ||
                        c.match.layout == L::ExpertsGateUpColumns || c.match.layout == L::ExpertsGluInterleaved;
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
    case L::SwinStage: return cutSwinStage(c);
    case L::Mamba2InProj: return cutMamba2InProj(c);
    case L::ExpertsGateUpColumns: return cutExpertsGateUpColumns(c, false);
    case L::ExpertsGluInterleaved: return cutExpertsGluInterleaved(c);
    case L::ExpertRowBlocks: return cutExpertRowBlocks(c);
    case L::GlmQueryKeyValue: return cutGlmQueryKeyValue(c);
    case L::GlmDenseH4h: return cutGlmDenseH4h(c);
    case L::InternLm2Wqkv: return cutInternLm2Wqkv(c);
    case L::CodeGenQkv: return cutCodeGenQkv(c);
    case L::LitGptQkv: return cutLitGpt(c, false);
    case L::LitGptAttn: return cutLitGpt(c, true);
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
    // "encoder" names a block only beside a decoder (T5's encoder and decoder): a vision encoder
    // beside a language model is "vision", as CLIP's two encoders are "text" and "vision".
    for (const char *role : {"encoder", "decoder"}) {
        const QString other = QLatin1String(role) == QLatin1String("encoder") ? QStringLiteral("decoder") : QStringLiteral("encoder");
        if (std::none_of(stacks.begin(), stacks.end(), [&](const QString &s) { return words.value(s).contains(other); }))
            for (const QString &s : stacks)
                if (QStringList &w = words[s]; w.size() > 1)
                    w.removeAll(QLatin1String(role));
    }
    // Words every stack shares are dropped; a stack whose prefix names nothing (a module saved
    // beside the towers without a layer, an unnamed stack) takes no part in deciding which.
    QList<QString> named;
    for (const QString &s : stacks)
        if (!words.value(s).isEmpty())
            named << s;
    QStringList common = named.isEmpty() ? QStringList() : words.value(named.first());
    for (const QString &s : named)
        common.erase(std::remove_if(common.begin(), common.end(), [&](const QString &w) { return !words.value(s).contains(w); }),
                     common.end());
    bool everyKeepsOne = true;
    for (const QString &s : named)
        everyKeepsOne &= words.value(s).size() > common.size();
    for (const QString &s : stacks) {
        QStringList w = words.value(s);
        if (everyKeepsOne && !w.isEmpty())
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

// A typed tensor before its block is named: its parts and the rule that typed it.
struct Pending {
    PlannedTensor planned;
    RuleMatch match;
};

// One checkpoint being planned, step by step (CheckpointLayout::plan): its tensors, LoRA factors
// stood for by their module's weight, looked up by name; each typed or left out; then the blocks
// named and the notes written.
class LayoutPlanning {
public:
    LayoutPlanning(const QList<NamedShape> &stored, const ModelConfig &config, const TensorNameRules &rules, const AdapterConfig &adapter)
        : m_config(config), m_rules(rules), m_adapter(adapter)
    {
        standInForLoraFactors(stored);
        for (const NamedShape &t : m_tensors)
            m_byName.insert(TensorNameRules::withoutWrapperPrefixes(t.name), &t);
        // DeepSeek-V3 stores its multi-token-prediction module as layers past the last one.
        const auto layers = config.integer({QStringLiteral("num_hidden_layers"), QStringLiteral("n_layer"), QStringLiteral("n_layers")});
        if (config.modelType().startsWith(QLatin1String("deepseek")))
            m_mtpFromLayer = layers;
    }

    CheckpointLayout run()
    {
        for (const NamedShape &t : m_tensors)
            if (t.shape.size() >= 2) // not biases, norms, scalars
                planTensor(t);
        nameBlocks();
        addNotes();
        return m_layout;
    }

private:
    // LoRA factors stand for their module's update, typed by the rules as the module's own weight
    // of the base model's shape (out × in, or in × out where the base stores it so).
    void standInForLoraFactors(const QList<NamedShape> &stored)
    {
        const LoraFactors lora = LoraFactors::find(stored);
        for (const LoraFactors::Problem &p : lora.problems)
            m_layout.leftOut.append({p.tensor, p.shape, p.reason, true});
        for (const NamedShape &t : stored)
            if (!lora.consumed.contains(t.name))
                m_tensors.append(t);
        for (const LoraFactorPair &pair : lora.pairs) {
            const bool transposed = pair.embedding || m_adapter.fanInFanOut();
            const QString name = pair.module + QStringLiteral(".weight");
            m_updateOf.insert(name, pair);
            m_tensors.append({name, transposed ? QList<qint64>{pair.inFeatures, pair.outFeatures} : QList<qint64>{pair.outFeatures, pair.inFeatures},
                              pair.dtype});
        }
    }

    bool exists(const QString &name) const { return m_byName.contains(name); }

    // The rule that types the tensor, or what its name alone says (GenericTyping): never "not an
    // attention or MLP matrix" for a weight inside a layer that nothing explains. None: left out.
    std::optional<RuleMatch> matchOf(const NamedShape &t)
    {
        const auto exists = [this](const QString &name) { return this->exists(name); };
        if (std::optional<RuleMatch> match = m_rules.match(t.name, m_config, exists)) {
            if (!match->ignored)
                return match;
            m_layout.leftOut.append({t.name, t.shape, match->reason, false});
            return std::nullopt;
        }
        const GenericVerdict verdict = GenericTyping::classify(t.name, t.shape, t.dtype, exists);
        if (verdict.kind == GenericVerdict::Kind::Typed) {
            m_genericallyTyped << QStringLiteral("%1 as %2").arg(t.name, csvName(verdict.match.type));
            return verdict.match;
        }
        QString reason = verdict.reason;
        if (verdict.kind == GenericVerdict::Kind::Reported) {
            if (const QString model = m_config.describeModel(); !model.isEmpty())
                reason += QStringLiteral(" (%1)").arg(model);
            if (t.shape.size() != 2)
                reason = QStringLiteral("%1 tensor %2: ").arg(t.shape.size()).arg(shapeText(t.shape)) + reason;
        }
        m_layout.leftOut.append({t.name, t.shape, reason, verdict.kind == GenericVerdict::Kind::Reported});
        return std::nullopt;
    }

    void planTensor(const NamedShape &t)
    {
        const std::optional<RuleMatch> match = matchOf(t);
        if (!match)
            return;
        std::optional<QList<qint64>> partnerShape;
        if (const NamedShape *partner = m_byName.value(match->partner))
            partnerShape = partner->shape;
        const Cut result = cut({*match, t.name, t.shape, m_config, partnerShape});
        if (!result.error.isEmpty()) {
            m_layout.leftOut.append({t.name, t.shape, result.error, true});
            return;
        }
        if (!result.note.isEmpty() && !m_layout.notes.contains(result.note))
            m_layout.notes << result.note;
        Pending p{{t.name, t.shape, t.dtype, match->family, result.parts, {}, {}}, *match};
        if (const auto it = m_updateOf.constFind(t.name); it != m_updateOf.constEnd())
            attachUpdate(p.planned, *it);
        if (m_mtpFromLayer && match->layer >= *m_mtpFromLayer)
            p.match.subBlock = joinBlock({QStringLiteral("mtp"), p.match.subBlock});
        const QString scales = TensorNameRules::withoutWrapperPrefixes(t.name) + QStringLiteral("_scale_inv");
        if (exists(scales))
            p.planned.blockScales = m_byName.value(scales)->name;
        m_pending.append(p);
    }

    // The weight standing for a LoRA update is read from its factors, scaled as the adapter says.
    void attachUpdate(PlannedTensor &planned, const LoraFactorPair &pair)
    {
        const AdapterConfig::Scale scale = m_adapter.scaleOf(pair.module, pair.rank);
        if (!scale.value && !m_unscaled.contains(scale.problem))
            m_unscaled << scale.problem;
        planned.update = LowRankUpdate{pair.factorA, pair.factorB, pair.rank, pair.embedding || m_adapter.fanInFanOut(), scale.value};
        planned.family += QStringLiteral(" (LoRA update, r = %1)").arg(pair.rank);
        // Named as stored, B@A: "base_model.model.….q_proj.lora_B@lora_A".
        const auto bare = [](const QString &name) { return name.endsWith(QLatin1String(".weight")) ? name.chopped(7) : name; };
        const QString factors = bare(pair.factorB) + QLatin1Char('@') + bare(pair.factorA).section(QLatin1Char('.'), -1);
        for (MatrixPart &part : planned.parts)
            part.label.replace(0, planned.tensor.size(), factors);
    }

    // Each part's block from its stack's name; a part whose identity another already has is
    // reported, never analysed twice.
    void nameBlocks()
    {
        QList<QString> stacks;
        QHash<QString, QString> unnamedHints;
        for (const Pending &p : m_pending) {
            if (p.match.fixedBlock)
                continue;
            if (!stacks.contains(p.match.stack))
                stacks.append(p.match.stack);
            if (!p.match.unnamedStack.isEmpty())
                unnamedHints.insert(p.match.stack, p.match.unnamedStack);
        }
        const QHash<QString, QString> stackNames = nameStacks(stacks, unnamedHints);
        QHash<MatrixIdentity, QString> taken;
        for (Pending &p : m_pending) {
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
                m_layout.leftOut.append({p.planned.tensor, p.planned.shape,
                                         QStringLiteral("same block, layer, type and expert as another matrix, not analysed twice: ") +
                                             clashes.join(QLatin1String("; ")),
                                         true});
            if (kept.isEmpty())
                continue;
            p.planned.parts = kept;
            m_layout.typed.append(p.planned);
        }
    }

    void addNotes()
    {
        if (!m_unscaled.isEmpty())
            m_layout.notes << QStringLiteral("LoRA updates without a known scale s (%1): their norms are NaN, the scale-free metrics are given")
                                  .arg(m_unscaled.join(QLatin1String("; ")));
        const qsizetype generic = m_genericallyTyped.size();
        if (generic > 0)
            m_layout.notes << QStringLiteral("%1 tensor%2 no family rule knows typed from %3 name%2 alone (%4%5): check them with "
                                             "rankscope info, or give --rules")
                                  .arg(generic).arg(generic == 1 ? "" : "s")
                                  .arg(generic == 1 ? "its" : "their")
                                  .arg(m_genericallyTyped.mid(0, 3).join(QLatin1String(", ")))
                                  .arg(generic > 3 ? QStringLiteral(", …") : QString());
    }

    const ModelConfig &m_config;
    const TensorNameRules &m_rules;
    const AdapterConfig &m_adapter;
    CheckpointLayout m_layout;
    QList<NamedShape> m_tensors;
    QHash<QString, const NamedShape *> m_byName; // by name without wrapper prefixes
    QHash<QString, LoraFactorPair> m_updateOf;   // by the weight name standing for it
    std::optional<qint64> m_mtpFromLayer;        // DeepSeek: the layers from here on are its MTP module
    QList<Pending> m_pending;
    QStringList m_unscaled, m_genericallyTyped;
};

} // namespace

CheckpointLayout CheckpointLayout::plan(const QList<NamedShape> &stored, const ModelConfig &config, const TensorNameRules &rules,
                                        const AdapterConfig &adapter)
{
    return LayoutPlanning(stored, config, rules, adapter).run();
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
