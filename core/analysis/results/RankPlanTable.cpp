#include "analysis/results/RankPlanTable.h"

#include "analysis/results/MetricsTable.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

namespace rankscope {

namespace {

QJsonValue number(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QJsonValue::Null);
}

// One matrix's fields, in the order of csvColumns().
QList<QVariant> record(const RankPlan &plan, const PlannedRank &r)
{
    return {plan.step, r.id.block, r.id.layer, csvName(r.id.type), r.id.expert, r.tensor,
            RankPlanTable::moduleName(r.tensor), RankPlanTable::partName(r.tensor), r.rows, r.cols, r.rank,
            r.dense, r.energyKept, r.relativeError, r.paramsBefore, r.paramsAfter, r.paramsSaved()};
}

QJsonObject totals(const RankPlan &plan)
{
    QJsonObject o;
    o.insert("matrices", plan.matrices.size());
    o.insert("params_before", plan.paramsBefore);
    o.insert("params_after", plan.paramsAfter);
    o.insert("params_saved", plan.paramsSaved());
    o.insert("kept_fraction", number(plan.keptFraction()));
    o.insert("energy_kept", number(plan.energy > 0 ? 1.0 - plan.energyLost / plan.energy : 1.0));
    o.insert("relative_error", number(plan.totalRelativeError()));
    o.insert("budget", number(plan.budget));
    // As a fraction of the energy, as energy_kept: no plan within the budget keeps more.
    o.insert("optimum_energy_bound", number(plan.energy > 0 ? plan.optimumEnergyBound / plan.energy : plan.optimumEnergyBound));
    return o;
}

} // namespace

QString RankPlanTable::moduleName(const QString &tensor)
{
    QString name = tensor.left(tensor.indexOf(QLatin1Char('[')) < 0 ? tensor.size() : tensor.indexOf(QLatin1Char('[')));
    if (name.endsWith(QLatin1String(".weight")))
        name.chop(7);
    return name;
}

QString RankPlanTable::partName(const QString &tensor)
{
    static const QRegularExpression part(QStringLiteral(R"(\[([^\]]*)\])"));
    const qsizetype start = tensor.indexOf(QLatin1Char('['));
    if (start < 0)
        return {};
    QStringList parts;
    for (auto it = part.globalMatch(tensor.mid(start)); it.hasNext();)
        parts << it.next().captured(1);
    return parts.join(QLatin1Char('.'));
}

QStringList RankPlanTable::csvColumns()
{
    return {"step", "block", "layer", "type", "expert", "tensor", "module", "part", "rows", "cols", "rank", "dense",
            "energy_kept", "relative_error", "params_before", "params_after", "params_saved"};
}

QByteArray RankPlanTable::toCsv(const RankPlan &plan)
{
    QString out = csvColumns().join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const PlannedRank &r : plan.matrices) {
        QStringList fields;
        for (const QVariant &v : record(plan, r)) {
            if (v.typeId() == QMetaType::Double)
                fields << MetricsTable::formatNumber(v.toDouble());
            else if (v.typeId() == QMetaType::Bool)
                fields << (v.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
            else
                fields << MetricsTable::csvField(v.toString());
        }
        out += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out.toUtf8();
}

QMap<QString, int> RankPlanTable::rankPattern(const RankPlan &plan)
{
    QMap<QString, int> pattern;
    for (const PlannedRank &r : plan.matrices) {
        int &rank = pattern[moduleName(r.tensor)];
        rank = std::max(rank, r.rank);
    }
    return pattern;
}

QJsonDocument RankPlanTable::toJson(const RankPlan &plan, const QString &source)
{
    QJsonObject pattern, parts;
    const QMap<QString, int> ranks = rankPattern(plan);
    for (auto it = ranks.begin(); it != ranks.end(); ++it)
        pattern.insert(it.key(), it.value());
    QJsonArray matrices;
    const QStringList names = csvColumns();
    for (const PlannedRank &r : plan.matrices) {
        const QList<QVariant> row = record(plan, r);
        QJsonObject o;
        for (qsizetype i = 0; i < names.size(); ++i)
            o.insert(names[i], row[i].typeId() == QMetaType::Double ? number(row[i].toDouble()) : QJsonValue::fromVariant(row[i]));
        matrices.append(o);
        if (const QString part = partName(r.tensor); !part.isEmpty()) {
            QJsonObject of = parts.value(moduleName(r.tensor)).toObject();
            of.insert(part, r.rank);
            parts.insert(moduleName(r.tensor), of);
        }
    }
    QJsonObject target;
    target.insert("option", RankTarget::optionName(plan.target.kind));
    target.insert("value", plan.target.value);
    QJsonObject root;
    root.insert("source", source);
    root.insert("step", plan.step);
    root.insert("step_label", stepLabel(plan.step, plan.unnumbered));
    root.insert("target", target);
    root.insert("rule", plan.rule);
    root.insert("rank_pattern", pattern);
    root.insert("rank_pattern_parts", parts);
    root.insert("matrices", matrices);
    root.insert("totals", totals(plan));
    root.insert("notes", QJsonArray::fromStringList(plan.notes));
    return QJsonDocument(root);
}

} // namespace rankscope
