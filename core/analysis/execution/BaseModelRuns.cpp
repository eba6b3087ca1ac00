#include "analysis/execution/BaseModelRuns.h"

#include "analysis/results/ResultsCacheLocation.h"

#include <QDir>
#include <QSet>

namespace rankscope {

RunLoadOptions BaseModelRuns::mergedOptions(const RunLoadOptions &run, const QString &folder, const QString &base)
{
    RunLoadOptions options = run;
    options.settings.mergeBase = base;
    options.settings.heads = false; // per-head rows are the updates' (--heads)
    options.settings.delta = false;
    options.settings.referenceStep.reset();
    options.settings.resultsPath = run.useCache ? ResultsCacheLocation::forMergedFolder(folder, base) : QString();
    options.previous = nullptr;
    return options;
}

RunLoadOptions BaseModelRuns::baseOptions(const RunLoadOptions &run, const QString &folder, const QString &base, const RunAnalysis &updates)
{
    RunLoadOptions options = run;
    for (const MatrixResult &r : updates.results)
        options.settings.onlyMatrices.insert(r.identity());
    options.settings.heads = false;
    options.settings.delta = false;
    options.settings.referenceStep.reset();
    options.settings.subspace = false;
    options.settings.settleSeconds = 0; // a base model is not being written
    options.settings.resultsPath = run.useCache ? ResultsCacheLocation::forBaseOfFolder(folder, base) : QString();
    options.previous = nullptr;
    return options;
}

RunAnalysis BaseModelRuns::adaptedOnly(RunAnalysis base, const RunAnalysis &updates)
{
    QSet<MatrixIdentity> adapted;
    for (const MatrixResult &r : updates.results)
        adapted.insert(r.identity());
    base.results.removeIf([&](const MatrixResult &r) { return !adapted.contains(r.identity()); });
    // W₀ is where fine-tuning starts: at step 0, whatever step the base records of its own training.
    for (MatrixResult &r : base.results) {
        r.weights = QStringLiteral("base");
        r.step = 0;
        r.unnumbered = false;
    }
    base.headResults.clear();
    base.notes.clear(); // how the base's own step was found: not what its rows are placed by
    base.notes << QStringLiteral("base rows are W\u2080 of %1, placed at step 0, where fine-tuning starts").arg(QDir::toNativeSeparators(base.folder));
    return base;
}

RunAnalysis BaseModelRuns::joined(RunAnalysis updates, const RunAnalysis &merged, const RunAnalysis &base)
{
    const RunAnalysis own = adaptedOnly(base, updates);
    updates.results += merged.results;
    updates.results += own.results;
    sortResults(updates.results);
    // The merged pass reads the run's own checkpoints again: what it says of them that the updates'
    // pass said already (a reader's warning, a tensor left out) is said once.
    QSet<QString> said;
    for (const AnalysisIssue &issue : std::as_const(updates.issues))
        said.insert(issue.text());
    for (const AnalysisIssue &issue : merged.issues + base.issues)
        if (!said.contains(issue.text())) {
            said.insert(issue.text());
            updates.issues.append(issue);
        }
    for (const QString &note : merged.notes + base.notes)
        if (!updates.notes.contains(note))
            updates.notes << note;
    updates.timings += merged.timings;
    updates.timings += base.timings;
    updates.cancelled = updates.cancelled || merged.cancelled || base.cancelled;
    return updates;
}

} // namespace rankscope
