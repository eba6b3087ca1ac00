#include "model/RuleSuggestions.h"

#include "model/TensorNameRules.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

namespace rankscope {

namespace {

// What a module's name says it is: a type, or a split of fused parts; empty when it says nothing.
struct Guess {
    QString type;
    QString split;
};

Guess guessFrom(const QStringList &parts)
{
    const QString leaf = parts.size() >= 2 ? parts[parts.size() - 2].toLower() : QString();
    const bool inMlp = std::any_of(parts.begin(), parts.end(), [](const QString &p) {
        const QString l = p.toLower();
        return l.contains(QLatin1String("mlp")) || l.contains(QLatin1String("ffn")) || l.contains(QLatin1String("feed_forward")) ||
               l.contains(QLatin1String("expert"));
    });
    static const QSet<QString> qkv = {"qkv", "qkv_proj", "wqkv", "query_key_value", "c_attn", "in_proj", "att_proj"};
    static const QSet<QString> gateUp = {"gate_up_proj", "gate_up", "w12", "w13"};
    static const QSet<QString> q = {"q", "q_proj", "query", "wq", "to_q", "c_q"};
    static const QSet<QString> k = {"k", "k_proj", "key", "wk", "to_k", "c_k"};
    static const QSet<QString> v = {"v", "v_proj", "value", "wv", "to_v", "c_v"};
    static const QSet<QString> o = {"o", "o_proj", "out_proj", "to_out", "attn_out", "proj", "dense", "c_proj", "wo"};
    static const QSet<QString> gate = {"gate_proj", "w1", "wi_0", "gate"};
    static const QSet<QString> up = {"up_proj", "fc1", "fc_in", "c_fc", "w3", "wi", "wi_1", "dense_h_to_4h", "linear1", "up"};
    static const QSet<QString> down = {"down_proj", "fc2", "fc_out", "c_proj", "w2", "wo", "dense_4h_to_h", "linear2", "down", "proj", "ff_out"};
    if (qkv.contains(leaf) || leaf.endsWith(QLatin1String("in_proj_weight")))
        return {{}, QStringLiteral("qkv")};
    if (gateUp.contains(leaf))
        return {{}, QStringLiteral("gate_up")};
    if (inMlp) {
        if (gate.contains(leaf))
            return {QStringLiteral("MLP_GATE"), {}};
        if (up.contains(leaf))
            return {QStringLiteral("MLP_UP"), {}};
        if (down.contains(leaf))
            return {QStringLiteral("MLP_DOWN"), {}};
        return {};
    }
    if (q.contains(leaf))
        return {QStringLiteral("Q"), {}};
    if (k.contains(leaf))
        return {QStringLiteral("K"), {}};
    if (v.contains(leaf))
        return {QStringLiteral("V"), {}};
    if (o.contains(leaf))
        return {QStringLiteral("O"), {}};
    return {};
}

} // namespace

QString RuleSuggestions::patternFor(const QString &tensorName)
{
    const QStringList parts = TensorNameRules::withoutWrapperPrefixes(tensorName).split(QLatin1Char('.'));
    QStringList out;
    bool layerSeen = false;
    for (qsizetype i = 0; i < parts.size(); ++i) {
        bool number = false;
        parts[i].toLongLong(&number);
        if (!number) {
            out << QRegularExpression::escape(parts[i]);
        } else if (i > 0 && parts[i - 1].toLower().startsWith(QLatin1String("expert"))) {
            out << QStringLiteral(R"((?<expert>\d+))");
        } else if (!layerSeen) {
            out << QStringLiteral(R"((?<layer>\d+))");
            layerSeen = true;
        } else {
            out << QStringLiteral(R"(\d+)");
        }
    }
    return QLatin1Char('^') + out.join(QLatin1String(R"(\.)")) + QLatin1Char('$');
}

QJsonDocument RuleSuggestions::draft(const QList<LeftOutTensor> &tensors, const ModelConfig &config)
{
    QJsonArray rules;
    QSet<QString> seen;
    bool splits = false;
    for (const LeftOutTensor &t : tensors) {
        const QString pattern = patternFor(t.tensor);
        if (seen.contains(pattern) || !pattern.contains(QLatin1String("(?<layer>")))
            continue;
        seen.insert(pattern);
        QStringList dims;
        for (qint64 d : t.shape)
            dims << QString::number(d);
        const Guess guess = guessFrom(TensorNameRules::withoutWrapperPrefixes(t.tensor).split(QLatin1Char('.')));
        QJsonObject rule{{"pattern", pattern}};
        QString note = QStringLiteral("from %1 [%2]").arg(t.tensor, dims.join(QLatin1String(", ")));
        if (!guess.split.isEmpty()) {
            rule.insert(QStringLiteral("split"), guess.split);
            note += guess.split == QLatin1String("qkv")
                        ? QStringLiteral("; a guess: check how forward() splits it (qkv, qkv_gqa, qkv_per_head or qkv_grouped)")
                        : QStringLiteral("; a guess: check the order (gate_up or up_gate)");
            splits = true;
        } else {
            rule.insert(QStringLiteral("type"), guess.type.isEmpty() ? QStringLiteral("?") : guess.type);
            note += guess.type.isEmpty() ? QStringLiteral("; set the type: Q, K, V, O, MLP_UP, MLP_DOWN or MLP_GATE (or \"ignore\": true)")
                                         : QStringLiteral("; type guessed from the name: check it");
        }
        rule.insert(QStringLiteral("note"), note);
        rules.append(rule);
    }
    QJsonObject doc{{"rules", rules}};
    if (splits && !config.heads())
        doc.insert(QStringLiteral("config"), QJsonObject{{"note", "splits by head need num_attention_heads (and num_key_value_heads): add them here"}});
    return QJsonDocument(doc);
}

} // namespace rankscope
