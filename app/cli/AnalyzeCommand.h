// `rankscope analyze FOLDER`: every metric of every typed matrix, as CSV or JSON.
#pragma once

#include "CommandOptions.h"
#include "analysis/execution/RunAnalyzer.h"
#include "spectral/GramDeviceChoice.h"

#include <QStringList>
#include <optional>

namespace rankscope {

// What `rankscope analyze` was asked, every value read and checked.
struct AnalyzeOptions {
    QString folder;
    // Energy, workers, solver and the opt-in metrics; where results go is the run's to decide.
    AnalysisSettings settings;
    DeviceRequest device = DeviceRequest::Auto; // --device: where the spectra are computed
    double settleSeconds = 3; // --watch: how long a checkpoint must stay unchanged
    QString jobsNote;         // --jobs beyond the cores: said, and clamped to them
    std::optional<QString> csv, json, results, rules;
    bool useCache = true;
    bool quiet = false;
    bool watch = false;
    bool eachRun = false; // --runs
    QStringList scalars;  // --scalar: tags training logged, a column each in --csv/--json
    std::optional<QString> base; // --base: the model a LoRA run adapts (BaseModelRuns)
};

// arguments: "analyze" and what follows it.
ParsedOptions<AnalyzeOptions> parseAnalyzeOptions(const QStringList &arguments);
int runAnalyzeCommand(const QStringList &arguments);

} // namespace rankscope
