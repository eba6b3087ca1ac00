// Opens runs for the window off the UI thread and reports back on it, as queued signals: the open
// run (analysed, then watched), and runs to compare with it. Every run comes from loadRun, as in
// `rankscope analyze` and `rankscope export`, with the same naming rules.
#pragma once

#include "analysis/discovery/RunWatch.h"
#include "analysis/execution/RunLoader.h"

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
    // The same, not watched: a folder that does not grow (the bundled demo run).
    void openFolderOnce(const QString &folder);
    // A results file made here or elsewhere; no checkpoint is read.
    void openResultsFile(const QString &path);
    // A folder or results file to compare with the open run. Dropped when another run is opened
    // before it is ready (it would join the wrong comparison).
    void openForComparison(const QString &path);
    // --base in the window: beside the open LoRA run, its merged weights W₀ + ΔW and the base
    // model's own W₀ of the matrices `updates` (the open run) adapts (BaseModelRuns), both analysed
    // through their caches and sent as baseRunsReady.
    void openBaseModel(const QString &base, const RunAnalysis &updates);
    // Stops the open run's analysis (not the comparisons).
    void cancel();
    bool isRunning() const; // the open run's analysis
    void setNameRules(const TensorNameRules &rules) { m_rules = rules; }
    // How long a checkpoint must stay unchanged before it is read (default 3 s).
    void setSettleSeconds(double seconds) { m_settleSeconds = seconds; }
    bool isWatching() const { return m_watch != nullptr; }
    // The opt-in metrics of the runs opened from now on (AnalysisSettings): a folder whose cached
    // results were made without them gets only them computed (RunAnalyzer: missing opt-in metrics).
    // A folder's run shows only those asked for (loadRun), whatever its cache holds; one turned off
    // leaves the open folder's run at once (`updated`), and stays in its results file.
    void setRandDistance(bool on) { setOptIn(&AnalysisOptIns::randDistance, on); }
    bool randDistance() const { return m_optIns.randDistance; }
    // --delta: the change of every matrix from the run's first checkpoint.
    void setDelta(bool on) { setOptIn(&AnalysisOptIns::delta, on); }
    bool delta() const { return m_optIns.delta; }
    // --subspace: agreement of every matrix's top right singular vectors with the previous checkpoint's.
    void setSubspace(bool on) { setOptIn(&AnalysisOptIns::subspace, on); }
    bool subspace() const { return m_optIns.subspace; }
    // --alpha-ci: alpha's bootstrap interval, from the spectra (cached results gain it without a read).
    void setAlphaCi(bool on) { setOptIn(&AnalysisOptIns::alphaCi, on); }
    bool alphaCi() const { return m_optIns.alphaCi; }
    // --device: the spectra on the GPU when one is usable (default), or on the CPU.
    void setUseGpu(bool on) { m_useGpu = on; }
    // The GPU the window would use ("NVIDIA H200 (…)"), or empty with why there is none.
    static QString gpuDescription(QString *whyNone);
    // --heads: every attention head's spectrum and its QK and OV circuits.
    void setHeads(bool on) { setOptIn(&AnalysisOptIns::heads, on); }
    bool heads() const { return m_optIns.heads; }

signals:
    void started(const QString &source);
    void checkpointArrived(const QList<rankscope::MatrixResult> &results);
    void progressed(const rankscope::AnalysisProgress &progress);
    void finished(const rankscope::RunAnalysis &run);
    // A watched folder changed and was analysed again: the whole run, and the checkpoints that are
    // new; or an opt-in metric was turned off: the open folder's run without it (none new).
    void updated(const rankscope::RunAnalysis &run, const QStringList &arrived);
    void problem(const QString &message); // something the user should know; the rest goes on
    void comparisonReady(const rankscope::RunAnalysis &run, const QString &path);
    void baseRunsReady(const rankscope::RunAnalysis &merged, const rankscope::RunAnalysis &base, const QString &basePath);

private:
    void waitForPrevious();
    void applyOptInMetrics(AnalysisSettings &settings) const;
    // What a comparison of the open run is loaded with (its opt-in metrics, rules and cancel flag);
    // finished comparisons are let go.
    RunLoadOptions comparisonOptions();
    void setOptIn(bool AnalysisOptIns::*optIn, bool on);
    // The open folder's last pass as the opt-in metrics asked for now show it (RunAnalysis::dropUnasked).
    RunAnalysis lastRunAsAsked() const;
    // Runs an analysis of the folder on a pool thread; `done` gets its result on this thread.
    void startAnalysis(const QString &folder, std::optional<RunAnalysis> previous, bool initial);

    std::shared_ptr<std::atomic<bool>> m_passCancel;        // the open run's pass under way
    std::shared_ptr<std::atomic<bool>> m_comparisonsCancel = std::make_shared<std::atomic<bool>>(false); // every comparison of the open run
    QFuture<void> m_future;
    QList<QFuture<void>> m_comparisons;
    TensorNameRules m_rules = TensorNameRules::builtIn();
    int m_generation = 0; // events of a superseded run are dropped
    double m_settleSeconds = 3;
    AnalysisOptIns m_optIns;
    bool m_useGpu = true;
    QString m_folder;
    // The open folder's last pass, with all its results hold (LoadedRun::takeForNextPass): the next
    // watch pass starts from it.
    std::optional<RunAnalysis> m_lastRun;
    std::unique_ptr<RunWatch> m_watch; // once the first pass is done
    bool m_watchOpened = true;         // false: the open folder is analysed once, never watched
};

} // namespace rankscope

Q_DECLARE_METATYPE(rankscope::AnalysisProgress)
Q_DECLARE_METATYPE(rankscope::RunAnalysis)
