#include "analysis/planning/HeadPlan.h"

#include "analysis/results/RunAnalysis.h"

#include <QMap>
#include <algorithm>
#include <array>

namespace rankscope {

namespace {

using T = MatrixType;

// One layer's attention matrices (of one block and expert).
struct LayerParts {
    std::array<const AttentionPart *, 4> byType{}; // Q, K, V, O
    const AttentionPart *of(T type) const { return byType[size_t(type)]; }
};

// The head sizes when the outputs lie along the rows (nn.Linear) or the columns (Conv1D): Q
// (heads·dq × d), K (kv·dq × d), V (kv·dv × d), O (d × heads·dv), or each transposed.
struct Geometry {
    qint64 queryDim = 0, valueDim = 0;
    bool outputsOnRows = true;
};

std::optional<Geometry> fit(const LayerParts &layer, qint64 heads, qint64 kv, bool outputsOnRows)
{
    auto out = [&](T t) { return outputsOnRows ? layer.of(t)->shape.rows : layer.of(t)->shape.cols; };
    auto in = [&](T t) { return outputsOnRows ? layer.of(t)->shape.cols : layer.of(t)->shape.rows; };
    if (out(T::Q) % heads != 0 || out(T::V) % kv != 0)
        return std::nullopt;
    const Geometry g{out(T::Q) / heads, out(T::V) / kv, outputsOnRows};
    const qint64 d = in(T::Q);
    if (g.queryDim <= 0 || g.valueDim <= 0 || in(T::K) != d || in(T::V) != d || out(T::O) != d || out(T::K) != kv * g.queryDim ||
        in(T::O) != heads * g.valueDim)
        return std::nullopt;
    return g;
}

QString shapesText(const LayerParts &layer)
{
    QStringList shapes;
    for (T t : {T::Q, T::K, T::V, T::O})
        shapes << QStringLiteral("%1 %2×%3").arg(csvName(t)).arg(layer.of(t)->shape.rows).arg(layer.of(t)->shape.cols);
    return shapes.join(QLatin1String(", "));
}

// Every problem begins with the words that tell it apart among a run's issues (AnalysisIssue::raisedBy).
QString headsProblem(const QString &text)
{
    return QLatin1String(kHeadsIssuePrefix) + text;
}

} // namespace

HeadPlan HeadPlan::of(const QList<AttentionPart> &parts, const ModelConfig &config)
{
    HeadPlan plan;
    QMap<std::tuple<QString, int, QString>, LayerParts> layers;
    for (const AttentionPart &p : parts)
        if (int(p.id.type) <= int(T::O))
            layers[{p.id.block, p.id.layer, p.id.expert}].byType[size_t(p.id.type)] = &p;
    const auto heads = config.heads();
    const qint64 kv = config.kvHeads().value_or(heads.value_or(0));
    for (const LayerParts &layer : layers) {
        const AttentionPart *any = layer.of(T::Q) ? layer.of(T::Q) : *std::find_if(layer.byType.begin(), layer.byType.end(), [](auto *p) { return p; });
        const QString where = (any->id.block.isEmpty() ? QString() : any->id.block + QLatin1Char(' ')) + QStringLiteral("layer %1").arg(any->id.layer);
        if (!heads || *heads <= 0 || kv <= 0 || *heads % kv != 0) {
            plan.problems.append({any->label, headsProblem(QStringLiteral("need the numbers of attention heads and key/value heads "
                                                                          "(num_attention_heads, num_key_value_heads in config.json or a --rules file's \"config\")"))});
            continue;
        }
        const auto missing = std::find(layer.byType.begin(), layer.byType.end(), nullptr);
        if (missing != layer.byType.end()) {
            plan.problems.append({any->label, headsProblem(QStringLiteral("not computed for %1: its layer has no %2 matrix")
                                                               .arg(where, csvName(T(missing - layer.byType.begin()))))});
            continue;
        }
        // A Q cut from a tensor's columns is GPT-2's Conv1D c_attn: its layer is stored (in, out).
        const bool conv1d = layer.of(T::Q)->axis == MatrixPart::Axis::Columns;
        std::optional<Geometry> g = fit(layer, *heads, kv, !conv1d);
        if (!g)
            g = fit(layer, *heads, kv, conv1d);
        if (!g) {
            plan.problems.append({layer.of(T::Q)->label, headsProblem(QStringLiteral("not computed for %1: %2 do not fit %3 heads and %4 key/value heads")
                                                                          .arg(where, shapesText(layer)).arg(*heads).arg(kv))});
            continue;
        }
        const int group = int(*heads / kv);
        plan.m_cuts.insert(layer.of(T::Q)->id, {int(*heads), g->queryDim, g->outputsOnRows, group, false});
        plan.m_cuts.insert(layer.of(T::K)->id, {int(kv), g->queryDim, g->outputsOnRows, group, true});
        plan.m_cuts.insert(layer.of(T::V)->id, {int(kv), g->valueDim, g->outputsOnRows, group, true});
        plan.m_cuts.insert(layer.of(T::O)->id, {int(*heads), g->valueDim, !g->outputsOnRows, group, false});
    }
    return plan;
}

const HeadCut *HeadPlan::cutOf(const MatrixIdentity &id) const
{
    const auto it = m_cuts.constFind(id);
    return it == m_cuts.constEnd() ? nullptr : &*it;
}

} // namespace rankscope
