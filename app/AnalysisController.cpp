#include "AnalysisController.h"

#include "analysis/ResultsFile.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QtConcurrent>

namespace rankscope {

AnalysisController::AnalysisController(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<rankscope::AnalysisProgress>();
    qRegisterMetaType<rankscope::RunAnalysis>();
}

AnalysisController::~AnalysisController()
{
    cancel();
    m_future.waitForFinished();
}

bool AnalysisController::isRunning() const { return m_future.isRunning(); }

void AnalysisController::cancel()
{
    if (m_analyzer)
        m_analyzer->cancel();
}

void AnalysisController::waitForPrevious()
{
    cancel();
    m_future.waitForFinished(); // cancellation takes effect after the matrices in flight
    ++m_generation;
}

void AnalysisController::openFolder(const QString &folder)
{
    waitForPrevious();
    m_watcher.reset();
    m_lastRun.reset();
    m_folder = folder;
    emit started(folder);
    startAnalysis(folder, std::nullopt, true);
}

void AnalysisController::reanalyze()
{
    if (isRunning()) {
        m_rerunWanted = true; // once the pass under way ends
        return;
    }
    m_rerunWanted = false;
    startAnalysis(m_folder, m_lastRun, false);
}

void AnalysisController::startAnalysis(const QString &folder, std::optional<RunAnalysis> previous, bool initial)
{
    AnalysisSettings settings;
    settings.resultsPath = ResultsFile::cachePathFor(folder);
    settings.settleSeconds = m_settleSeconds;
    m_analyzer = std::make_shared<RunAnalyzer>(settings);
    m_analyzer->setNameRules(m_rules);
    const int generation = m_generation;
    auto analyzer = m_analyzer;
    // Everything below runs on a pool thread; results come back as queued calls on this object.
    m_future = QtConcurrent::run([this, analyzer, folder, settings, generation, initial, previous]() mutable {
        auto post = [this, generation](auto function) {
            QMetaObject::invokeMethod(this, [this, generation, function] {
                if (generation == m_generation)
                    function();
            }, Qt::QueuedConnection);
        };
        if (!previous && QFileInfo::exists(settings.resultsPath)) {
            QString error;
            previous = ResultsFile::load(settings.resultsPath, &error);
            if (!previous)
                post([this, error] { emit problem(tr("The cached results were damaged (%1); the folder is analysed again.").arg(error)); });
        }
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        const RunAnalysis run = analyzer->analyzeFolder(folder, [&](const AnalysisProgress &p, const QList<MatrixResult> &results) {
            // A first pass fills the views as checkpoints complete; a watch pass replaces the run at its end.
            if (initial && !results.isEmpty())
                post([this, results] { emit checkpointArrived(results); });
            // Progress at most 20 times a second: the UI thread is never flooded.
            if (!results.isEmpty() || sinceProgress.elapsed() > 50) {
                sinceProgress.restart();
                post([this, p] { emit progressed(p); });
            }
        }, previous ? &*previous : nullptr);
        post([this, run, initial, folder] {
            QStringList arrived;
            for (const CheckpointRecord &c : run.checkpoints)
                if (!c.fromCache) // new, or replaced since the last pass
                    arrived << c.path;
            m_lastRun = run;
            if (initial)
                emit finished(run);
            else
                emit updated(run, arrived);
            if (run.cancelled)
                return;
            if (!m_watcher) {
                m_watcher = std::make_unique<FolderWatcher>(folder);
                connect(m_watcher.get(), &FolderWatcher::changed, this, &AnalysisController::reanalyze);
            }
            if (!run.pending.isEmpty())
                m_watcher->recheckAfter(m_settleSeconds);
            if (m_rerunWanted)
                reanalyze();
        });
    });
}

void AnalysisController::openResultsFile(const QString &path)
{
    waitForPrevious();
    m_watcher.reset(); // a results file does not change under us
    m_lastRun.reset();
    emit started(path);
    m_analyzer.reset();
    const int generation = m_generation;
    m_future = QtConcurrent::run([this, path, generation] {
        QString error;
        const std::optional<RunAnalysis> run = ResultsFile::load(path, &error);
        QMetaObject::invokeMethod(this, [this, generation, run, error, path] {
            if (generation != m_generation)
                return;
            if (run)
                emit finished(*run);
            else
                emit problem(tr("%1: %2").arg(QFileInfo(path).fileName(), error));
        }, Qt::QueuedConnection);
    });
}

} // namespace rankscope
