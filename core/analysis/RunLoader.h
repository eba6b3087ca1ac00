// Gets a run's results, for the window, its comparisons and every command alike: a results file is
// loaded; a folder is analysed through its cache (only what changed is read). What the user should
// know comes back as messages, for the caller to print or show.
#pragma once

#include "analysis/RunAnalyzer.h"

#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>

namespace rankscope {

struct RunLoadOptions {
    AnalysisSettings settings;
    bool useCache = true;
    std::optional<TensorNameRules> rules;              // default: the built-in rules
    const RunAnalysis *previous = nullptr;             // instead of reading the results file
    // Set from anywhere (another thread, a signal handler) to stop the analysis after the
    // matrices in flight; the checkpoints completed so far are saved.
    std::shared_ptr<std::atomic<bool>> cancel;
};

struct LoadedRun {
    std::optional<RunAnalysis> run; // nullopt: the source could not be opened at all (messages say why)
    QStringList messages;           // "file: what is wrong", e.g. a damaged cache that is rebuilt
};

LoadedRun loadRun(const QString &source, const RunLoadOptions &options, const RunAnalyzer::ProgressCallback &onProgress = {});

} // namespace rankscope
