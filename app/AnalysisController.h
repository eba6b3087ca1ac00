// Runs an analysis (or loads a results file) off the UI thread and reports back on it: the
// window sees the same engine and events as `rankscope analyze`, as queued signals.
#pragma once

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

    // A folder: its cached results first (if any), then whatever changed is analysed.
    void openFolder(const QString &folder);
    // A results file made here or elsewhere; no checkpoint is read.
    void openResultsFile(const QString &path);
    void cancel();
    bool isRunning() const;
    void setNameRules(const TensorNameRules &rules) { m_rules = rules; }

signals:
    void started(const QString &source);
    void checkpointArrived(const QList<rankscope::MatrixResult> &results);
    void progressed(const rankscope::AnalysisProgress &progress);
    void finished(const rankscope::RunAnalysis &run);
    void problem(const QString &message); // something the user should know; the rest goes on

private:
    void waitForPrevious();

    std::shared_ptr<RunAnalyzer> m_analyzer;
    QFuture<void> m_future;
    TensorNameRules m_rules = TensorNameRules::builtIn();
    int m_generation = 0; // events of a superseded run are dropped
};

} // namespace rankscope

Q_DECLARE_METATYPE(rankscope::AnalysisProgress)
Q_DECLARE_METATYPE(rankscope::RunAnalysis)
