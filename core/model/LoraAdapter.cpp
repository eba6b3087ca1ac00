#include "model/LoraAdapter.h"

#include "base/PrintableText.h"
#include "model/CheckpointLayout.h"

#include <QHash>
#include <QRegularExpression>
#include <cmath>

namespace rankscope {

namespace {

std::optional<double> number(const QVariant &value)
{
    bool ok = false;
    const double v = value.toDouble(&ok);
    return ok && std::isfinite(v) && (value.typeId() == QMetaType::Double || value.typeId() == QMetaType::LongLong ||
                                      value.typeId() == QMetaType::Int || value.typeId() == QMetaType::ULongLong)
               ? std::optional<double>(v)
               : std::nullopt;
}

QStringList names(const QVariant &value)
{
    // target_modules is a list, or one regex string matched against whole module names.
    if (value.typeId() == QMetaType::QString)
        return {value.toString()};
    QStringList out;
    for (const QVariant &v : value.toList())
        if (v.typeId() == QMetaType::QString)
            out << v.toString();
    return out;
}

// Tensors of PEFT adapters that are not LoRA (tuners/loha, lokr, ia3, adalora, prompt tuning).
QString otherAdapterKind(const QStringList &parts)
{
    for (const QString &p : parts) {
        if (p.startsWith(QLatin1String("hada_")))
            return QStringLiteral("a LoHa adapter factor");
        if (p.startsWith(QLatin1String("lokr_")))
            return QStringLiteral("a LoKr adapter factor");
        if (p == QLatin1String("ia3_l"))
            return QStringLiteral("an IA\u00b3 scaling vector");
        if (p == QLatin1String("lora_E"))
            return QStringLiteral("AdaLoRA's singular values (lora_E)");
        if (p == QLatin1String("prompt_embeddings"))
            return QStringLiteral("a prompt-tuning embedding");
    }
    return {};
}

} // namespace

AdapterConfig AdapterConfig::fromJson(const QVariantMap &values, const QString &path)
{
    AdapterConfig c;
    c.m_path = path;
    c.m_peftType = values.value(QStringLiteral("peft_type")).toString();
    c.m_baseModel = values.value(QStringLiteral("base_model_name_or_path")).toString();
    if (const std::optional<double> r = number(values.value(QStringLiteral("r"))); r && *r >= 1 && *r == std::floor(*r) && *r < 1e9)
        c.m_rank = qint64(*r);
    c.m_alpha = number(values.value(QStringLiteral("lora_alpha")));
    c.m_rslora = values.value(QStringLiteral("use_rslora")).toBool();
    c.m_fanInFanOut = values.value(QStringLiteral("fan_in_fan_out")).toBool();
    c.m_useDora = values.value(QStringLiteral("use_dora")).toBool();
    c.m_targetModules = names(values.value(QStringLiteral("target_modules")));
    c.m_modulesToSave = names(values.value(QStringLiteral("modules_to_save")));
    c.m_rankPattern = values.value(QStringLiteral("rank_pattern")).toMap();
    c.m_alphaPattern = values.value(QStringLiteral("alpha_pattern")).toMap();
    return c;
}

std::optional<QString> AdapterConfig::patternKeyFor(const QStringList &keys, const QString &module)
{
    for (const QString &key : keys) {
        // peft: re.match(rf"(.*\.)?({key})$", module_name); a key that is no valid pattern names nothing.
        const QRegularExpression pattern(QRegularExpression::anchoredPattern(QStringLiteral("(.*\\.)?(%1)").arg(key)));
        if (pattern.isValid() && pattern.match(module).hasMatch())
            return key;
    }
    return std::nullopt;
}

AdapterConfig::Scale AdapterConfig::scaleOf(const QString &module, qint64 factorRank) const
{
    if (isEmpty())
        return {std::nullopt, QStringLiteral("no adapter_config.json beside it gives lora_alpha")};
    std::optional<qint64> r = m_rank;
    if (const auto key = patternKeyFor(m_rankPattern.keys(), module)) {
        const std::optional<double> v = number(m_rankPattern.value(*key));
        r = v && *v >= 1 && *v == std::floor(*v) && *v < 1e9 ? std::optional<qint64>(qint64(*v)) : std::nullopt;
    }
    std::optional<double> alpha = m_alpha;
    if (const auto key = patternKeyFor(m_alphaPattern.keys(), module))
        alpha = number(m_alphaPattern.value(*key));
    if (!r || !alpha)
        return {std::nullopt, QStringLiteral("%1 gives no usable %2 for it").arg(m_path, r ? QStringLiteral("lora_alpha") : QStringLiteral("r"))};
    if (*r != factorRank)
        return {std::nullopt, QStringLiteral("%1 gives r = %2 for it, but its factors have rank %3").arg(m_path).arg(*r).arg(factorRank)};
    return {m_rslora ? *alpha / std::sqrt(double(*r)) : *alpha / double(*r), {}};
}

QString LoraFactors::withoutPeftPrefix(const QString &name)
{
    static const QLatin1String prefix("base_model.model.");
    return name.startsWith(prefix) ? name.mid(prefix.size()) : name;
}

LoraFactors LoraFactors::find(const QList<NamedShape> &tensors)
{
    LoraFactors out;
    struct Half {
        const NamedShape *a = nullptr, *b = nullptr;
        bool embedding = false;
    };
    QHash<QString, Half> halves; // by module and adapter name
    QStringList order;
    for (const NamedShape &t : tensors) {
        const QStringList parts = t.name.split(QLatin1Char('.'));
        if (const QString other = otherAdapterKind(parts); !other.isEmpty()) {
            out.consumed.insert(t.name);
            out.problems.append({t.name, t.shape, other + QStringLiteral(": only LoRA adapters are read (LoHa, LoKr, IA\u00b3, AdaLoRA and "
                                                                         "prompt tuning are not)")});
            continue;
        }
        qsizetype at = -1;
        for (qsizetype i = 1; i < parts.size() && at < 0; ++i)
            if (parts[i] == QLatin1String("lora_A") || parts[i] == QLatin1String("lora_B") || parts[i] == QLatin1String("lora_a") ||
                parts[i] == QLatin1String("lora_b") || parts[i] == QLatin1String("lora_embedding_A") || parts[i] == QLatin1String("lora_embedding_B"))
                at = i;
        // After the factor: nothing, "weight", an adapter's name, or both (peft keeps a name other
        // than "default" in some versions).
        const QStringList tail = parts.mid(at + 1);
        if (at < 0 || tail.size() > 2 || (tail.size() == 2 && tail[1] != QLatin1String("weight")))
            continue;
        out.consumed.insert(t.name);
        const QString kind = parts[at];
        const bool isA = kind.endsWith(QLatin1Char('A')) || kind.endsWith(QLatin1Char('a'));
        const bool embedding = kind.startsWith(QLatin1String("lora_embedding"));
        const QString adapter = tail.isEmpty() || tail == QStringList{QStringLiteral("weight")} ? QString() : tail[0];
        if (t.shape.size() != 2) {
            out.problems.append({t.name, t.shape, QStringLiteral("a LoRA factor of shape %1: a factor is a matrix").arg(shapeText(t.shape))});
            continue;
        }
        const QString key = parts.mid(0, at).join(QLatin1Char('.')) + QLatin1Char('\n') + adapter;
        if (!halves.contains(key))
            order << key;
        Half &half = halves[key];
        (isA ? half.a : half.b) = &t;
        half.embedding = half.embedding || embedding;
    }
    for (const QString &key : order) {
        const Half half = halves.value(key);
        const QString module = withoutPeftPrefix(key.section(QLatin1Char('\n'), 0, 0));
        if (!half.a || !half.b) {
            const NamedShape *lone = half.a ? half.a : half.b;
            out.problems.append({lone->name, lone->shape, QStringLiteral("a LoRA factor without its %1: the update needs both")
                                                              .arg(half.a ? QStringLiteral("B factor") : QStringLiteral("A factor"))});
            continue;
        }
        // A: r × in, B: out × r (peft tuners/lora/layer.py, torchtune modules/peft/lora.py).
        const qint64 rank = half.a->shape[0];
        if (half.b->shape[1] != rank || rank < 1) {
            out.problems.append({half.b->name, half.b->shape, QStringLiteral("its A factor %1 is %2, so B should be out\u00d7%3: their ranks disagree")
                                                                  .arg(half.a->name, shapeText(half.a->shape)).arg(rank)});
            continue;
        }
        out.pairs.append({module, half.a->name, half.b->name, half.b->dtype, rank, half.b->shape[0], half.a->shape[1], half.embedding});
    }
    return out;
}

} // namespace rankscope
