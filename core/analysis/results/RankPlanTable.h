// A rank plan as the files it is exported to: CSV, one row per matrix; and JSON whose
// `rank_pattern` PEFT's LoraConfig takes as it is (module name → rank, the checkpoint's own names),
// with the parts of fused tensors, every matrix's row and the totals beside it.
#pragma once

#include "analysis/results/RankPlanner.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QMap>
#include <QStringList>

namespace rankscope {

class RankPlanTable {
public:
    // The module a tensor belongs to: its name up to the part ("[Q]"), without ".weight".
    // "transformer.h.0.attn.c_attn.weight[Q]" → "transformer.h.0.attn.c_attn".
    static QString moduleName(const QString &tensor);
    // The part of a fused tensor as its name says it, empty for a whole tensor: "Q", "MLP_UP",
    // "latent"; an expert's slice of a stacked tensor "3", and a part of it "3.MLP_UP".
    static QString partName(const QString &tensor);

    static QStringList csvColumns();
    static QByteArray toCsv(const RankPlan &plan);
    // `source`: the folder or results file planned from, as given.
    static QJsonDocument toJson(const RankPlan &plan, const QString &source);
    // A module of several parts gets one rank in PEFT: the largest of its parts'.
    static QMap<QString, int> rankPattern(const RankPlan &plan);
};

} // namespace rankscope
