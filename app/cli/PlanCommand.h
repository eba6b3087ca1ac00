// `rankscope plan SOURCE (--keep F | --energy τ | --max-error E) --out FILE`: a rank per attention
// and MLP matrix of one step, chosen from the spectra the analysis stored (RankPlanner), written as
// CSV or as JSON that PEFT's rank_pattern takes (RankPlanTable).
#pragma once

#include "CommandOptions.h"
#include "analysis/results/RankPlanner.h"

#include <QStringList>
#include <optional>

namespace rankscope {

// What `rankscope plan` was asked, every value read and checked.
struct PlanOptions {
    QString source;
    std::optional<qint64> step; // nullopt: the last
    RankTarget target;
    QString out;
    bool json = true; // else CSV, by --out's suffix
};

// arguments: "plan" and what follows it.
ParsedOptions<PlanOptions> parsePlanOptions(const QStringList &arguments);
int runPlanCommand(const QStringList &arguments);

} // namespace rankscope
