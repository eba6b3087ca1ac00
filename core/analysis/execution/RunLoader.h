// Gets a run's results, for the window, its comparisons and every command alike: a results file is
// loaded as it is; a folder is analysed through its cache (only what changed is read) and shows
// only the opt-in metrics its settings ask for, whatever earlier analyses left in the cache. What
// the user should know comes back as messages, for the caller to print or show.
#pragma once

#include "analysis/execution/RunAnalyzer.h"

#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>

namespace rankscope {

struct RunLoadOptions {
    AnalysisSettings settings; // of a folder: its opt-in metrics are what the run shows
    bool useCache = true;
    std::optional<TensorNameRules> rules;              // default: the built-in rules
    const RunAnalysis *previous = nullptr;             // instead of reading the results file (LoadedRun::takeForNextPass)
    // Set from anywhere (another thread, a signal handler) to stop the analysis after the
    // matrices in flight; the checkpoints completed so far are saved.
    std::shared_ptr<std::atomic<bool>> cancel;
};

struct LoadedRun {
    // What was asked for: of a folder, the opt-in metrics its settings ask for and no others (the
    // cache may hold more: RunAnalysis::dropUnasked leaves them out), so that a command says the
    // same whatever ran before it. nullopt: the source could not be opened at all (messages say why).
    std::optional<RunAnalysis> run;
    // The folder's run with all that its results hold, when that is more than `run`: the next pass
    // of a watched folder starts from it (RunLoadOptions::previous), so that the results file keeps
    // it. nullopt when it is `run`.
    std::optional<RunAnalysis> whole;
    QStringList messages; // "file: what is wrong", e.g. a damaged cache that is rebuilt

    // What the next pass starts from: `whole`, or `run` when that is all of it. Leaves this empty.
    std::optional<RunAnalysis> takeForNextPass() { return whole ? std::move(whole) : std::move(run); }
};

// onProgress gets each checkpoint's rows as `run` shows them.
LoadedRun loadRun(const QString &source, const RunLoadOptions &options, const RunAnalyzer::ProgressCallback &onProgress = {});

} // namespace rankscope
