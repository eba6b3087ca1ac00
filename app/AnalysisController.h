// Runs an analysis (or loads a results file) off the UI thread and reports back on it: the
// window sees the same engine and events as `rankscope analyze`, as queued signals.
#pragma once

#include "analysis/FolderWatcher.h"
#include "analysis/RunAnalyzer.h"

#include <QFutureWatcher>
#include <QObject>
#include <memory>

namespace rankscope {

class AnalysisController : public QObject {
    Q_OBJECT
public:
    explicit AnalysisController(QObject *parent = nullptr);
    ~AnalysisController() override;

    // A folder: its cached results first (if any), then whatever changed is analysed; then the
    // folder is watched and each new or replaced checkpoint is analysed once it has settled.
    void openFolder(const QString &folder);
    // A results file made here or elsewhere; no checkpoint is read.
    void openResultsFile(const QString &path);
    void cancel();
    bool isRunning() const;
    void setNameRules(const TensorNameRules &rules) { m_rules = rules; }
    // How long a checkpoint must stay unchanged before it is read (default 3 s).
    void setSettleSeconds(double seconds) { m_settleSeconds = seconds; }
    bool isWatching() const { return m_watcher != nullptr; }

signals:
    void started(const QString &source);
    void checkpointArrived(const QList<rankscope::MatrixResult> &results);
    void progressed(const rankscope::AnalysisProgress &progress);
    void finished(const rankscope::RunAnalysis &run);
    // A watched folder changed and was analysed again: the whole run, and the checkpoints that are new.
    void updated(const rankscope::RunAnalysis &run, const QStringList &arrived);
    void problem(const QString &message); // something the user should know; the rest goes on

private:
    void waitForPrevious();
    // Runs an analysis of the folder on a pool thread; `done` gets its result on this thread.
    void startAnalysis(const QString &folder, std::optional<RunAnalysis> previous, bool initial);
    void reanalyze();

    std::shared_ptr<RunAnalyzer> m_analyzer;
    QFuture<void> m_future;
    TensorNameRules m_rules = TensorNameRules::builtIn();
    int m_generation = 0; // events of a superseded run are dropped
    double m_settleSeconds = 3;
    QString m_folder;
    std::optional<RunAnalysis> m_lastRun;
    std::unique_ptr<FolderWatcher> m_watcher;
    bool m_rerunWanted = false;
};

} // namespace rankscope

Q_DECLARE_METATYPE(rankscope::AnalysisProgress)
Q_DECLARE_METATYPE(rankscope::RunAnalysis)
