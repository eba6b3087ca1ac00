// The rank planner's target as the command line gives it: --keep F, --energy τ or --max-error E,
// one of them. `rankscope plan` and `rankscope export --figure plan` read it here, so both take
// the same values and refuse the same ones in the same words.
#pragma once

#include "analysis/results/RankPlanner.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <optional>

namespace rankscope {

// --keep and --max-error as both commands declare them (--energy is plan's own, and export's
// every-command --energy).
QCommandLineOption keepOption();
QCommandLineOption maxErrorOption();

// The one target set on the parser (options named keep, energy, max-error), its value in its
// range; nullopt with the refusal's message when none, several or a bad value is given.
std::optional<RankTarget> readRankTarget(const QCommandLineParser &parser, QString *error);

} // namespace rankscope
