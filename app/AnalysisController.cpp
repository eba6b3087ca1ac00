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
    emit started(folder);
    AnalysisSettings settings;
    settings.resultsPath = ResultsFile::cachePathFor(folder);
    m_analyzer = std::make_shared<RunAnalyzer>(settings);
    m_analyzer->setNameRules(m_rules);
    const int generation = m_generation;
    auto analyzer = m_analyzer;
    // Everything below runs on a pool thread; results come back as queued calls on this object.
    m_future = QtConcurrent::run([this, analyzer, folder, settings, generation] {
        auto post = [this, generation](auto function) {
            QMetaObject::invokeMethod(this, [this, generation, function] {
                if (generation == m_generation)
                    function();
            }, Qt::QueuedConnection);
        };
        std::optional<RunAnalysis> previous;
        if (QFileInfo::exists(settings.resultsPath)) {
            QString error;
            previous = ResultsFile::load(settings.resultsPath, &error);
            if (!previous)
                post([this, error] { emit problem(tr("The cached results were damaged (%1); the folder is analysed again.").arg(error)); });
        }
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        const RunAnalysis run = analyzer->analyzeFolder(folder, [&](const AnalysisProgress &p, const QList<MatrixResult> &results) {
            if (!results.isEmpty())
                post([this, results] { emit checkpointArrived(results); });
            // Progress at most 20 times a second: the UI thread is never flooded.
            if (!results.isEmpty() || sinceProgress.elapsed() > 50) {
                sinceProgress.restart();
                post([this, p] { emit progressed(p); });
            }
        }, previous ? &*previous : nullptr);
        post([this, run] { emit finished(run); });
    });
}

void AnalysisController::openResultsFile(const QString &path)
{
    waitForPrevious();
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
