// --base: beside a LoRA run's updates ΔW, what the fine-tuned model is and what it started from:
// the run's merged weights W₀ + ΔW at every step (MergeBase) and the base model's own W₀ of the
// modules the adapter adapts (those alone: a 70B base is not analysed whole for a LoRA on q and v).
// Three analyses, each through its own cache, joined into one run whose rows say which they are in
// the `weights` column: update, merged, base. The command line and the window join them alike.
#pragma once

#include "analysis/execution/RunLoader.h"

namespace rankscope {

class BaseModelRuns {
public:
    // The merged weights' analysis: the run's settings with the base to merge into and a cache of
    // their own. Without --delta: between two steps W₀ + ΔW changes by the change of ΔW, which the
    // update rows' delta metrics give. Per-head rows (--heads) are the updates' alone.
    static RunLoadOptions mergedOptions(const RunLoadOptions &run, const QString &folder, const QString &base);
    // The base model's analysis: the matrices the run's updates (and modules_to_save copies) change
    // alone, in a cache of their own beside the run's; without --delta and --subspace (one
    // checkpoint: nothing to compare with).
    static RunLoadOptions baseOptions(const RunLoadOptions &run, const QString &folder, const QString &base, const RunAnalysis &updates);
    // The run's update rows, its merged rows and the base's rows of the matrices the adapter
    // changes (its updates' and its modules_to_save copies'; weights "base"), sorted; the issues, notes and timings of all three. The run's checkpoints
    // stay the run's: the merged rows are of the same files.
    static RunAnalysis joined(RunAnalysis updates, const RunAnalysis &merged, const RunAnalysis &base);
    // The base's run cut to the matrices the adapter changes, its rows marked "base" and placed at
    // step 0, where fine-tuning starts (the window shows it as a run of its own beside the updates
    // and the merged weights).
    static RunAnalysis adaptedOnly(RunAnalysis base, const RunAnalysis &updates);
};

} // namespace rankscope
