#include "io/megatron/MegatronConfig.h"

namespace rankscope {

namespace {

using Kind = PickleValue::Kind;

QVariant scalar(PickleRef v)
{
    if (!v)
        return {};
    switch (v->kind) {
    case Kind::Bool: return bool(v->integer);
    case Kind::Int: return v->integer;
    case Kind::Float: return v->real;
    case Kind::String: return v->text;
    default: return {};
    }
}

qint64 positive(const QVariantMap &fields, const QString &key)
{
    bool ok = false;
    const qint64 value = fields.value(key).toLongLong(&ok);
    return ok && value > 0 ? value : 0;
}

} // namespace

QVariantMap MegatronConfig::fromArgs(PickleRef args)
{
    // argparse.Namespace pickles as NEWOBJ + BUILD(dict of every field).
    const PickleRef fields = args && args->kind == Kind::Opaque ? args->state : args;
    if (!fields || fields->kind != Kind::Dict)
        return {};
    QVariantMap out;
    for (const auto &[key, value] : fields->entries)
        if (key && key->kind == Kind::String)
            if (const QVariant v = scalar(value); v.isValid())
                out.insert(key->text, v);
    return resolved(out);
}

QVariantMap MegatronConfig::resolved(QVariantMap fields)
{
    const qint64 heads = positive(fields, QStringLiteral("num_attention_heads"));
    const qint64 hidden = positive(fields, QStringLiteral("hidden_size"));
    if (heads > 0) {
        // arguments.py: without group_query_attention there is one query group per head. NeMo's
        // yaml has no such flag: num_query_groups null means multi-head.
        const bool grouped = fields.contains(QStringLiteral("group_query_attention")) ? fields.value(QStringLiteral("group_query_attention")).toBool()
                                                                                       : positive(fields, QStringLiteral("num_query_groups")) > 0;
        const qint64 groups = grouped ? positive(fields, QStringLiteral("num_query_groups")) : 0;
        fields.insert(QStringLiteral("num_query_groups"), groups > 0 ? groups : heads);
        fields.insert(QStringLiteral("num_key_value_heads"), groups > 0 ? groups : heads);
        if (positive(fields, QStringLiteral("kv_channels")) == 0 && hidden > 0 && hidden % heads == 0)
            fields.insert(QStringLiteral("kv_channels"), hidden / heads);
    }
    // fc1 is [gate; up] for every gated unit: --swiglu, NeMo's *glu activations, Core's own flag.
    const QString activation = fields.value(QStringLiteral("activation")).toString();
    static const QStringList gatedActivations{"swiglu", "fast-swiglu", "geglu", "fast-geglu", "reglu", "fast-reglu"};
    const bool gated = fields.value(QStringLiteral("swiglu")).toBool() || fields.value(QStringLiteral("gated_linear_unit")).toBool() ||
                       gatedActivations.contains(activation);
    fields.insert(QStringLiteral("gated_linear_unit"), gated);
    fields.insert(QStringLiteral("model_type"), QStringLiteral("megatron"));
    return fields;
}

} // namespace rankscope
