#include "model/GenericTyping.h"

#include "model/MatrixIdentity.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <algorithm>

namespace rankscope {

namespace {

using T = MatrixType;

bool isNumber(const QString &part)
{
    bool ok = false;
    part.toLongLong(&ok);
    return ok && !part.isEmpty() && part.front().isDigit();
}

// Why a component says the tensor is known not to be a matrix type, or empty.
QString notAMatrixReason(const QString &part, qsizetype rank)
{
    if (part.contains(QLatin1String("norm")) || part == QLatin1String("ln") || part.startsWith(QLatin1String("ln_")))
        return QStringLiteral("a normalisation weight");
    if (part.contains(QLatin1String("embed")) || part == QLatin1String("wte") || part == QLatin1String("wpe"))
        return QStringLiteral("an embedding table");
    if (part.contains(QLatin1String("lm_head")) || part == QLatin1String("head") || part == QLatin1String("classifier") ||
        part == QLatin1String("score") || part == QLatin1String("pooler") || part == QLatin1String("qa_outputs"))
        return QStringLiteral("an output head or pooler");
    if (part == QLatin1String("gate") || part.contains(QLatin1String("router")) || part == QLatin1String("gating") ||
        part == QLatin1String("switch") || part.endsWith(QLatin1String("expert_gate")))
        return QStringLiteral("an MoE router (scores experts)");
    if (part.contains(QLatin1String("position")) || part.contains(QLatin1String("pos_emb")) || part.contains(QLatin1String("pos_embed")) ||
        part.contains(QLatin1String("relative_attention_bias")) || part.contains(QLatin1String("rel_pos")) ||
        part.contains(QLatin1String("rotary")) || part == QLatin1String("rope"))
        return QStringLiteral("a position table");
    if (part.contains(QLatin1String("conv")) && rank >= 3)
        return QStringLiteral("a convolution kernel");
    return {};
}

// Module names that some family fuses (Q|K|V, gate|up): never typed or split from the name alone.
const QSet<QString> &fusedWords()
{
    static const QSet<QString> words = {"qkv", "qkv_proj", "query_key_value", "wqkv", "w_pack", "c_attn", "in_proj", "attn",
                                        "gate_up_proj", "gate_up", "w12", "att_proj", "ff_proj", "dense_h_to_4h", "kv", "kv_proj",
                                        "qk", "fused_qkv", "to_qkv", "to_kv", "query_key", "key_value"};
    return words;
}

const QHash<QString, T> &ownTypeWords()
{
    static const QHash<QString, T> words = {
        {"query", T::Q}, {"q", T::Q}, {"q_proj", T::Q}, {"wq", T::Q}, {"q_lin", T::Q}, {"query_proj", T::Q}, {"to_q", T::Q}, {"c_q", T::Q},
        {"key", T::K}, {"k", T::K}, {"k_proj", T::K}, {"wk", T::K}, {"k_lin", T::K}, {"key_proj", T::K}, {"to_k", T::K}, {"c_k", T::K},
        {"value", T::V}, {"v", T::V}, {"v_proj", T::V}, {"wv", T::V}, {"v_lin", T::V}, {"value_proj", T::V}, {"to_v", T::V}, {"c_v", T::V},
        {"o", T::O}, {"o_proj", T::O}, {"out_proj", T::O}, {"out_lin", T::O}, {"o_lin", T::O}, {"to_out", T::O}, {"attn_out", T::O},
        {"up", T::MlpUp}, {"up_proj", T::MlpUp}, {"fc1", T::MlpUp}, {"fc_in", T::MlpUp}, {"wi", T::MlpUp}, {"wi_1", T::MlpUp},
        {"lin1", T::MlpUp}, {"c_fc", T::MlpUp}, {"linear1", T::MlpUp}, {"fc_up", T::MlpUp}, {"w_in", T::MlpUp},
        {"down", T::MlpDown}, {"down_proj", T::MlpDown}, {"fc2", T::MlpDown}, {"fc_out", T::MlpDown}, {"lin2", T::MlpDown},
        {"linear2", T::MlpDown}, {"fc_down", T::MlpDown}, {"w_out", T::MlpDown},
        {"gate_proj", T::MlpGate}, {"wi_0", T::MlpGate}, {"w_gate", T::MlpGate}};
    return words;
}

bool inAttention(const QStringList &context)
{
    for (const QString &c : context)
        if (c.contains(QLatin1String("attn")) || c.contains(QLatin1String("attention")))
            return true;
    return false;
}

bool inMlp(const QStringList &context)
{
    for (const QString &c : context)
        if (c.contains(QLatin1String("mlp")) || c.contains(QLatin1String("ffn")) || c.contains(QLatin1String("feed_forward")) ||
            c.contains(QLatin1String("feedforward")) || c == QLatin1String("ff") || c.contains(QLatin1String("densereludense")) ||
            c == QLatin1String("intermediate") || c == QLatin1String("output"))
            return true;
    return false;
}

GenericVerdict notAMatrix(const QString &why)
{
    return {GenericVerdict::Kind::NotAMatrix, QStringLiteral("not an attention or MLP matrix (%1)").arg(why), {}};
}

GenericVerdict reported(const QString &why)
{
    return {GenericVerdict::Kind::Reported, why, {}};
}

} // namespace

const QString &GenericTyping::familyName()
{
    static const QString name = QStringLiteral("generic (by its name alone)");
    return name;
}

namespace {

// Layer and expert numbers of a name's components: a number after experts/expert is the expert's,
// every other one a layer's (their positions).
struct NameNumbers {
    QList<qsizetype> layerAt;
    QString expert;
};
NameNumbers numbersIn(const QStringList &lower)
{
    NameNumbers numbers;
    for (qsizetype i = 0; i < lower.size(); ++i) {
        if (!isNumber(lower[i]))
            continue;
        if (i > 0 && (lower[i - 1] == QLatin1String("experts") || lower[i - 1] == QLatin1String("expert")))
            numbers.expert = lower[i];
        else
            numbers.layerAt << i;
    }
    return numbers;
}

// The matrix type the weight's module says inside its context (what lies between the layer number
// and the module); none: the names do not say.
std::optional<MatrixType> typeFromName(const QString &module, const QStringList &context, const QString &name,
                                       const std::function<bool(const QString &)> &exists)
{
    const bool attention = inAttention(context), mlp = inMlp(context);
    // A state-space mixer's projections (Mamba's in_proj/out_proj) are not attention's, whatever
    // their names: only a family rule types them.
    const bool mixer = std::any_of(context.begin(), context.end(), [](const QString &c) {
        return c.contains(QLatin1String("mixer")) || c.contains(QLatin1String("mamba")) || c.contains(QLatin1String("ssm"));
    });
    std::optional<T> type;
    if (mixer) {
        // not typed from a name
    } else if (const auto it = ownTypeWords().constFind(module); it != ownTypeWords().constEnd()) {
        type = *it;
    } else if (module == QLatin1String("w1") || module == QLatin1String("w2") || module == QLatin1String("w3")) {
        // LLaMA's and Mixtral's order when all three are there (w1 gate, w3 up, w2 down); w1 up and
        // w2 down when there is no w3.
        const QString sibling = name.section(QLatin1Char('.'), 0, -3) + QStringLiteral(".w3.weight");
        const bool gated = exists && exists(sibling);
        if (module == QLatin1String("w1"))
            type = gated ? T::MlpGate : T::MlpUp;
        else if (module == QLatin1String("w2"))
            type = T::MlpDown;
        else if (gated)
            type = T::MlpUp;
    } else if (module == QLatin1String("wo") || module == QLatin1String("c_proj") || module == QLatin1String("proj") ||
               module == QLatin1String("out") || module == QLatin1String("dense")) {
        const bool intermediate = context.contains(QLatin1String("intermediate"));
        if (attention && !intermediate)
            type = T::O;
        else if (module == QLatin1String("dense") && intermediate)
            type = T::MlpUp;
        else if (mlp)
            type = T::MlpDown;
    }
    return type;
}

// A weight typed from its name alone: its layer, expert and stack (the name's components before
// the layer container), a shared expert and cross-attention as the families' rules name them.
GenericVerdict typedVerdict(MatrixType type, int layer, const QString &expert, const QStringList &stack, const QStringList &context)
{
    GenericVerdict verdict{GenericVerdict::Kind::Typed, {}, {}};
    RuleMatch &m = verdict.match;
    m.family = GenericTyping::familyName();
    m.type = type;
    m.layer = layer;
    m.expert = expert;
    m.stack = stack.join(QLatin1Char('.'));
    // A shared expert beside routed ones is its own expert, as the families' rules name it.
    for (const QString &c : context)
        if (c.startsWith(QLatin1String("shared_expert")) || c == QLatin1String("shared_mlp"))
            m.expert = QLatin1String(kSharedExpert);
    for (const QString &c : context)
        m.cross |= c.contains(QLatin1String("cross")) || c.contains(QLatin1String("encoder_attn")) || c.contains(QLatin1String("encdec")) ||
                   c.contains(QLatin1String("src_attn")) || c.contains(QLatin1String("enc_dec"));
    return verdict;
}

} // namespace

GenericVerdict GenericTyping::classify(const QString &tensorName, const QList<qint64> &shape, const QString &dtype,
                                       const std::function<bool(const QString &)> &exists)
{
    const QString name = TensorNameRules::withoutWrapperPrefixes(tensorName);
    const QStringList parts = name.split(QLatin1Char('.'));
    const QStringList lower = name.toLower().split(QLatin1Char('.'));
    const qsizetype rank = shape.size();
    if (dtype.startsWith(QLatin1String("int")) || dtype.startsWith(QLatin1String("uint")) || dtype == QLatin1String("bool"))
        return notAMatrix(QStringLiteral("an integer or boolean buffer, not a weight"));
    for (const QString &part : lower)
        if (const QString why = notAMatrixReason(part, rank); !why.isEmpty())
            return notAMatrix(why);
    if (rank > 3)
        return notAMatrix(QStringLiteral("a tensor of %1 dimensions").arg(rank));

    const QString &leaf = lower.last();
    const bool weightLeaf = leaf == QLatin1String("weight") || leaf.endsWith(QLatin1String("_weight")) || leaf == QLatin1String("kernel") ||
                            leaf.startsWith(QLatin1String("kernel:"));
    // The module the weight belongs to: "q_proj" of ….q_proj.weight, "in_proj" of ….in_proj_weight.
    const QString module = !weightLeaf ? leaf
                           : leaf.endsWith(QLatin1String("_weight")) ? leaf.chopped(7)
                           : lower.size() >= 2 ? lower[lower.size() - 2]
                                               : QString();
    // Names that say attention or MLP by themselves (q_proj, fc1, qkv), and those that do only inside
    // an attention or MLP module (dense, proj, wo, w1).
    const bool ownWord = ownTypeWords().contains(module) || fusedWords().contains(module);
    const bool typeWord = ownWord || QStringList{"w1", "w2", "w3", "v1", "wo", "c_proj", "dense", "proj", "out"}.contains(module);
    bool numbered = false;
    for (const QString &part : lower)
        numbered |= isNumber(part);
    if (!weightLeaf) {
        // A bare parameter: a stack of experts stored as one (its orientation is the family's
        // business), or a module's own parameter (Mamba's A_log, a quantizer's codevectors).
        const bool inLayer = numbered || name.contains(QLatin1String("expert"), Qt::CaseInsensitive);
        if ((inLayer && (typeWord || rank == 3 || module.contains(QLatin1String("expert")))) || (!inLayer && ownWord))
            return reported(QStringLiteral("a parameter named like an attention/MLP weight, but no rule knows its layout; "
                                           "see rankscope info --suggest-rules and --rules"));
        return notAMatrix(QStringLiteral("a parameter of its module, not a weight"));
    }

    const auto [layerAt, expert] = numbersIn(lower);
    if (layerAt.isEmpty()) {
        if (ownWord)
            return reported(QStringLiteral("named like an attention/MLP weight but outside any numbered layer: no rule says which "
                                           "layer it is; see rankscope info --suggest-rules and --rules"));
        return notAMatrix(QStringLiteral("outside every numbered layer"));
    }
    const qsizetype at = layerAt.first();
    if (layerAt.size() > 1)
        return reported(QStringLiteral("numbered twice (%1 and %2: a stage and a block?), and no rule says how its layers are numbered; "
                                       "see --rules")
                            .arg(lower[layerAt[0]], lower[layerAt[1]]));
    if (rank == 3)
        return reported(QStringLiteral("a 3-D stack no rule knows the layout of; see --rules"));
    if (fusedWords().contains(module))
        return reported(QStringLiteral("a fused tensor (%1) that no family rule splits: its layout is never guessed from a name; "
                                       "rankscope info --suggest-rules drafts a rule")
                            .arg(module));

    // What lies between the layer number and the weight's module says attention or MLP.
    const qsizetype moduleAt = leaf.endsWith(QLatin1String("_weight")) ? lower.size() - 1 : lower.size() - 2;
    if (moduleAt <= at)
        return reported(QStringLiteral("the weight of layer %1 itself (a Sequential's step?), and no rule says which matrix it is; "
                                       "see --rules")
                            .arg(lower[at]));
    const QStringList context = lower.mid(at + 1, moduleAt - at - 1);
    const std::optional<T> type = typeFromName(module, context, name, exists);
    if (!type)
        return reported(QStringLiteral("inside layer %1, but neither a rule nor its name says which matrix it is; "
                                       "see rankscope info --suggest-rules and --rules")
                            .arg(lower[at]));
    // A number past what a layer can be is none, as the family rules refuse it: read as an int it
    // would become layer 0 and meet that layer's own matrix.
    bool layerFits = false;
    const int layer = lower[at].toInt(&layerFits);
    if (!layerFits)
        return reported(QStringLiteral("numbered %1, too large for a layer number; see --rules").arg(lower[at]));
    return typedVerdict(*type, layer, expert, parts.mid(0, std::max<qsizetype>(0, at - 1)), context);
}

} // namespace rankscope
