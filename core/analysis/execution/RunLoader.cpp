#include "analysis/execution/RunLoader.h"

#include "analysis/results/ResultsCacheLocation.h"
#include "analysis/results/ResultsFile.h"
#include "base/PrintableText.h"

#include <QFileInfo>

namespace rankscope {

LoadedRun loadRun(const QString &source, const RunLoadOptions &options, const RunAnalyzer::ProgressCallback &onProgress)
{
    LoadedRun loaded;
    const QFileInfo info(source);
    if (info.isFile()) {
        QString error;
        loaded.run = ResultsFile::load(source, &error);
        if (!loaded.run)
            loaded.messages << printableText(source) + QStringLiteral(": ") + printableText(error);
        else
        {
            applyEnergy(loaded.run->results, options.settings.energy);
            applyEnergy(loaded.run->headResults, options.settings.energy);
        }
        return loaded;
    }
    if (!info.isDir()) {
        loaded.messages << printableText(source) + QStringLiteral(": no such folder or results file");
        return loaded;
    }
    AnalysisSettings settings = options.settings;
    if (settings.resultsPath.isEmpty() && options.useCache)
        settings.resultsPath = settings.mergeBase.isEmpty() ? ResultsCacheLocation::forFolder(source)
                                                            : ResultsCacheLocation::forMergedFolder(source, settings.mergeBase);
    std::optional<RunAnalysis> previous;
    if (options.previous) {
        previous = *options.previous;
    } else if (options.useCache && QFileInfo::exists(settings.resultsPath)) {
        QString error;
        previous = ResultsFile::load(settings.resultsPath, &error);
        if (!previous)
            loaded.messages << printableText(settings.resultsPath) + QStringLiteral(": ") + printableText(error) + QStringLiteral("; it will be rebuilt");
    }
    RunAnalyzer analyzer(settings);
    if (options.rules)
        analyzer.setNameRules(*options.rules);
    if (options.cancel)
        analyzer.shareCancelFlag(options.cancel);
    // Earlier results that hold more opt-in metrics serve whole, and the analysis keeps all they hold
    // (it saves them); what is shown is what was asked for.
    const AnalysisOptIns asked = AnalysisOptIns::of(settings);
    RunAnalyzer::ProgressCallback shownProgress;
    if (onProgress)
        shownProgress = [&](const AnalysisProgress &progress, const QList<MatrixResult> &results) {
            if (!holdsUnasked(results, asked))
                return onProgress(progress, results);
            QList<MatrixResult> shown = results;
            dropUnasked(shown, asked);
            onProgress(progress, shown);
        };
    RunAnalysis run = analyzer.analyzeFolder(source, shownProgress, previous ? &*previous : nullptr);
    if (run.holdsUnasked(asked)) {
        loaded.whole = run;
        run.dropUnasked(asked);
    }
    loaded.run = std::move(run);
    return loaded;
}

} // namespace rankscope
