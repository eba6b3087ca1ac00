#include "RunLoader.h"

#include "analysis/ResultsFile.h"
#include "io/PrintableText.h"

#include <QFileInfo>

namespace rankscope {

std::optional<RunAnalysis> loadRun(const QString &source, RunLoadOptions options, QTextStream &err,
                                   const RunAnalyzer::ProgressCallback &onProgress)
{
    const QFileInfo info(source);
    if (info.isFile()) {
        QString error;
        std::optional<RunAnalysis> run = ResultsFile::load(source, &error);
        if (!run)
            err << printableText(source) << ": " << printableText(error) << '\n';
        else
            applyEnergy(run->results, options.settings.energy);
        return run;
    }
    if (!info.isDir()) {
        err << printableText(source) << ": no such folder or results file\n";
        return std::nullopt;
    }
    AnalysisSettings settings = options.settings;
    if (settings.resultsPath.isEmpty() && options.useCache)
        settings.resultsPath = ResultsFile::cachePathFor(source);
    std::optional<RunAnalysis> previous;
    if (options.previous) {
        previous = *options.previous;
    } else if (options.useCache && QFileInfo::exists(settings.resultsPath)) {
        QString error;
        previous = ResultsFile::load(settings.resultsPath, &error);
        if (!previous)
            err << printableText(settings.resultsPath) << ": " << printableText(error) << "; it will be rebuilt\n";
    }
    RunAnalyzer analyzer(settings);
    if (options.rules)
        analyzer.setNameRules(*options.rules);
    if (options.analyzerCreated)
        options.analyzerCreated(&analyzer);
    return analyzer.analyzeFolder(source, onProgress, previous ? &*previous : nullptr);
}

} // namespace rankscope
