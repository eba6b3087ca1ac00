// Gets a run's results for the headless commands: a results file is loaded; a folder is analysed
// through its cache (only what changed is read), exactly as `rankscope analyze` does.
#pragma once

#include "analysis/RunAnalyzer.h"

#include <QTextStream>
#include <functional>
#include <optional>

namespace rankscope {

struct RunLoadOptions {
    AnalysisSettings settings;
    bool useCache = true;
    std::optional<TensorNameRules> rules;
    const RunAnalysis *previous = nullptr;            // instead of reading the results file
    std::function<void(RunAnalyzer *)> analyzerCreated; // e.g. to cancel it from elsewhere
};

// nullopt when the source cannot be opened at all (the reason is written to err).
std::optional<RunAnalysis> loadRun(const QString &source, RunLoadOptions options, QTextStream &err,
                                   const RunAnalyzer::ProgressCallback &onProgress = {});

} // namespace rankscope
