#include "model/TensorNameRules.h"

#include "base/PrintableText.h"
#include "model/MatrixIdentity.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace rankscope {

namespace {

// Bumped whenever the built-in rules change what a tensor becomes, so cached analyses typed by an
// older table are analysed again rather than shown under the old typing.
constexpr int kBuiltInRulesVersion = 7;

// A rule's "split": every FusedLayout by its name in a rules file.
struct SplitName {
    const char *name;
    FusedLayout layout;
};
constexpr SplitName kSplits[] = {
    {"none", FusedLayout::None},
    {"qkv", FusedLayout::QkvThirds},
    {"qkv_gqa", FusedLayout::QkvContiguous},
    {"qkv_per_head", FusedLayout::QkvPerHead},
    {"qkv_grouped", FusedLayout::QkvGrouped},
    {"gate_up", FusedLayout::GateUp},
    {"up_gate", FusedLayout::UpGate},
    {"mla_kv_a", FusedLayout::MlaKvA},
    {"mla_kv_b", FusedLayout::MlaKvB},
    {"glu_gate_up", FusedLayout::GluGateUp},
    {"glu_up_gate", FusedLayout::GluUpGate},
    {"falcon_qkv", FusedLayout::FalconQkv},
    {"gpt_c_attn", FusedLayout::GptCAttn},
    {"experts_gate_up", FusedLayout::ExpertsGateUp},
    {"experts_whole", FusedLayout::ExpertsWhole},
    {"experts_gate_up_columns", FusedLayout::ExpertsGateUpColumns},
    {"experts_glu_interleaved", FusedLayout::ExpertsGluInterleaved},
    {"expert_row_blocks", FusedLayout::ExpertRowBlocks},
    {"swin_stage", FusedLayout::SwinStage},
    {"mamba2_in_proj", FusedLayout::Mamba2InProj},
    {"glm_query_key_value", FusedLayout::GlmQueryKeyValue},
    {"glm_dense_h4h", FusedLayout::GlmDenseH4h},
    {"internlm2_wqkv", FusedLayout::InternLm2Wqkv},
    {"codegen_qkv", FusedLayout::CodeGenQkv},
    {"litgpt_qkv", FusedLayout::LitGptQkv},
    {"litgpt_attn", FusedLayout::LitGptAttn},
};

QRegularExpression layerPattern(const QString &container, const QString &suffix)
{
    // The stack is everything before the container, the layer the number after it; siblings of the
    // tensor in the same layer are found from the base.
    return QRegularExpression(QStringLiteral(R"(^(?<base>(?:(?<stack>.+?)\.)?(?:%1)\.(?<layer>\d+))\.%2$)")
                                  .arg(container, suffix));
}

// needsSibling names one tensor of the layer, or alternatives split by '|' (RWKV-6's att.time_decay,
// RWKV-7's att.w0): any of them will do.
bool hasSibling(const QString &base, const QString &needed, const std::function<bool(const QString &)> &exists)
{
    if (!exists)
        return false;
    for (const QString &sibling : needed.split(QLatin1Char('|')))
        if (exists(base.isEmpty() ? sibling : base + QLatin1Char('.') + sibling))
            return true;
    return false;
}

} // namespace

QString TensorNameRules::withoutWrapperPrefixes(const QString &name)
{
    QStringList kept;
    for (const QString &part : name.split(QLatin1Char('.')))
        if (part != QLatin1String("_orig_mod") && part != QLatin1String("module") &&
            part != QLatin1String("_checkpoint_wrapped_module") && part != QLatin1String("_fsdp_wrapped_module") &&
            part != QLatin1String("_forward_module"))
            kept.append(part);
    return kept.join(QLatin1Char('.'));
}

std::optional<TensorNameRules::Rule> TensorNameRules::ruleFromJson(const QJsonObject &o, const QString &where, bool user,
                                                                   QString *error)
{
    Rule rule;
    const QString suffix = o.value(QLatin1String("suffix")).toString();
    rule.layerless = o.value(QLatin1String("layerless")).toBool(false);
    if (suffix.isEmpty())
        rule.pattern = QRegularExpression(o.value(QLatin1String("pattern")).toString());
    else if (rule.layerless) // a module saved on its own, not in a numbered layer: the suffix is the whole name, layer 0
        rule.pattern = QRegularExpression(QStringLiteral(R"(^(?<base>)(?:%1)$)").arg(suffix));
    else
        rule.pattern = layerPattern(o.value(QLatin1String("container")).toString(), suffix);
    if (!rule.pattern.isValid() || rule.pattern.pattern().isEmpty()) {
        *error = QStringLiteral("%1: invalid pattern: %2").arg(where, rule.pattern.errorString());
        return std::nullopt;
    }
    rule.ignore = o.value(QLatin1String("ignore")).toBool(false);
    rule.reason = o.value(QLatin1String("reason")).toString(user ? QStringLiteral("ignored by a user rule") : QString());
    if (!rule.ignore && rule.pattern.captureCount() < 1) {
        *error = QStringLiteral("%1: the pattern needs a group that captures the layer number").arg(where);
        return std::nullopt;
    }
    const QString splitName = o.value(QLatin1String("split")).toString(QStringLiteral("none"));
    const auto split = std::find_if(std::begin(kSplits), std::end(kSplits), [&](const SplitName &s) { return splitName == QLatin1String(s.name); });
    if (split == std::end(kSplits)) {
        QStringList names;
        for (const SplitName &s : kSplits)
            names << QLatin1String(s.name);
        *error = QStringLiteral("%1: unknown split '%2' (%3)").arg(where, splitName, names.join(QLatin1String(", ")));
        return std::nullopt;
    }
    rule.layout = split->layout;
    const auto type = matrixTypeFromCsvName(o.value(QLatin1String("type")).toString());
    if (!rule.ignore && rule.layout == FusedLayout::None && !type) {
        *error = QStringLiteral("%1: type must be one of Q, K, V, O, MLP_UP, MLP_DOWN, MLP_GATE").arg(where);
        return std::nullopt;
    }
    rule.type = type.value_or(MatrixType::Q);
    // A user's rule names its block (or captures it); it is never guessed from the name.
    if (!rule.pattern.namedCaptureGroups().contains(QLatin1String("block")) && (user || o.contains(QLatin1String("block"))))
        rule.fixedBlock = o.value(QLatin1String("block")).toString();
    for (const QJsonValue &modelType : o.value(QLatin1String("model_types")).toArray())
        rule.modelTypes << modelType.toString();
    rule.expert = o.value(QLatin1String("expert")).toVariant().toString();
    rule.cross = o.value(QLatin1String("cross")).toBool(false);
    rule.subBlock = o.value(QLatin1String("sub_block")).toString();
    rule.unnamedStack = o.value(QLatin1String("unnamed_stack")).toString();
    rule.needsSibling = o.value(QLatin1String("needs_sibling")).toString();
    rule.partner = o.value(QLatin1String("partner")).toString();
    return rule;
}

std::optional<TensorNameRules> TensorNameRules::read(const QByteArray &text, const QString &path, bool user, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1: invalid JSON: %2").arg(path, parseError.errorString());
        return std::nullopt;
    }
    const QJsonArray list = doc.isArray() ? doc.array() : doc.object().value(QLatin1String("rules")).toArray();
    const QJsonValue config = doc.object().value(QLatin1String("config"));
    if (!config.isUndefined() && !config.isObject()) {
        *error = QStringLiteral("%1: \"config\" must be an object, e.g. {\"num_attention_heads\": 12}").arg(path);
        return std::nullopt;
    }
    if (list.isEmpty() && config.toObject().isEmpty()) {
        *error = QStringLiteral("%1: no rules (expected {\"rules\": [ … ]} and/or {\"config\": { … }})").arg(path);
        return std::nullopt;
    }
    TensorNameRules rules;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject o = list[i].toObject();
        std::optional<Rule> rule = ruleFromJson(o, QStringLiteral("%1: rule %2").arg(path).arg(i + 1), user, error);
        if (!rule)
            return std::nullopt;
        rule->family = user ? QStringLiteral("rules file rule %1").arg(i + 1) : o.value(QLatin1String("family")).toString();
        rules.m_rules.append(*rule);
    }
    rules.m_userConfig = config.toObject().toVariantMap();
    return rules;
}

TensorNameRules TensorNameRules::builtIn()
{
    // Read once: the rules are data (BuiltInNamingRules.json, in the form of a user's rules file),
    // compiled in as a resource.
    static const TensorNameRules rules = [] {
        QFile file(QStringLiteral(":/rankscope/BuiltInNamingRules.json"));
        QString error;
        std::optional<TensorNameRules> read;
        if (file.open(QIODevice::ReadOnly))
            read = TensorNameRules::read(file.readAll(), file.fileName(), false, &error);
        else
            error = file.fileName() + QStringLiteral(": ") + file.errorString();
        if (!read)
            qFatal("RankScope's built-in naming rules: %s", qPrintable(error));
        read->m_identity = QStringLiteral("builtin-%1").arg(kBuiltInRulesVersion);
        return *read;
    }();
    return rules;
}

std::optional<TensorNameRules> TensorNameRules::withUserRules(const QString &jsonPath, QString *error)
{
    QFile file(jsonPath);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: %2").arg(jsonPath, file.errorString());
        return std::nullopt;
    }
    const QByteArray text = file.read(4 << 20);
    std::optional<TensorNameRules> user = read(text, jsonPath, true, error);
    if (!user)
        return std::nullopt;
    user->m_userRulesPath = jsonPath;
    user->m_rules.append(builtIn().m_rules);
    user->m_identity = QStringLiteral("user-%1-%2")
                           .arg(QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha1).toHex()))
                           .arg(kBuiltInRulesVersion);
    return user;
}

std::optional<RuleMatch> TensorNameRules::match(const QString &tensorName, const ModelConfig &config,
                                                const std::function<bool(const QString &)> &exists) const
{
    // No model names a tensor with a control character, and a pattern's $ matches before a final
    // "\n": such a name ("….q_proj.weight\n") is never typed.
    if (printableText(tensorName) != tensorName)
        return std::nullopt;
    const QString name = withoutWrapperPrefixes(tensorName);
    const QString modelType = config.modelType();
    for (const Rule &rule : m_rules) {
        if (!modelType.isEmpty() && !rule.modelTypes.isEmpty() && !rule.modelTypes.contains(modelType))
            continue;
        const QRegularExpressionMatch m = rule.pattern.match(name);
        if (!m.hasMatch())
            continue;
        const QString base = m.captured(QStringLiteral("base"));
        if (!rule.needsSibling.isEmpty() && !hasSibling(base, rule.needsSibling, exists))
            continue;
        RuleMatch out;
        out.family = rule.family;
        out.ignored = rule.ignore;
        out.reason = rule.reason;
        if (rule.ignore)
            return out;
        out.type = rule.type;
        out.layout = rule.layout;
        const QString layer = rule.pattern.namedCaptureGroups().contains(QLatin1String("layer"))
                                  ? m.captured(QStringLiteral("layer"))
                                  : m.captured(1);
        bool ok = rule.layerless;
        out.layer = rule.layerless ? 0 : layer.toInt(&ok);
        if (!ok || out.layer < 0)
            continue; // not a layer number after all (a user's group captured something else)
        const QString expert = m.captured(QStringLiteral("expert"));
        out.expert = expert.isEmpty() ? rule.expert : expert;
        out.stack = m.captured(QStringLiteral("stack"));
        out.unnamedStack = rule.unnamedStack;
        out.subBlock = rule.subBlock;
        out.cross = rule.cross;
        out.fixedBlock = rule.fixedBlock;
        if (const QString block = m.captured(QStringLiteral("block")); !block.isEmpty())
            out.fixedBlock = block;
        if (!rule.partner.isEmpty())
            out.partner = base + QLatin1Char('.') + rule.partner;
        return out;
    }
    return std::nullopt;
}

} // namespace rankscope
