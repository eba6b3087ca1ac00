// Turns a folder of checkpoints into every metric of every typed matrix at every step. Tensors
// are read one at a time on the calling thread, as stored, while a pool of workers (one per core)
// computes spectra, each matrix single-threaded (a matrix left alone gets the idle cores) and
// widened a block at a time. A bad file or matrix is reported and the rest goes on.
// Given an earlier analysis of the same folder, checkpoints whose identity (path, size, mtime,
// content fingerprint) and settings are unchanged are taken from it and not read again.
#pragma once

#include "analysis/RunAnalysis.h"
#include "analysis/SpectrumCostModel.h"
#include "model/TensorNameRules.h"
#include "spectral/SingularValueSolver.h"

#include <QElapsedTimer>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace rankscope {

class AnalysisTeam;
class DeltaReference;

inline constexpr int kDefaultSubspaceK = 16;

struct AnalysisSettings {
    double energy = kDefaultEnergy;
    int jobs = 0; // 0: one worker per core
    SvdMethod method = SvdMethod::FastGram;
    // The Gram path's LAPACK eigensolver: by size (what RankScope uses), or one forced for tests
    // that check both give the contract's results.
    Eigensolver eigensolver = Eigensolver::BySize;
    // Where the results are kept (empty: nowhere). Saved when the analysis ends and, while it runs,
    // after a checkpoint once autosaveSeconds have passed since the last save.
    QString resultsPath;
    double autosaveSeconds = 10;
    // Watching a training run: a checkpoint modified less than this long ago may still be being
    // written, so it is left for a later pass, neither analysed nor cached (0: take everything).
    double settleSeconds = 0;
    // WeightWatcher's rand_distance: a second decomposition of every matrix, its entries shuffled.
    bool randDistance = false;
    // The change from a reference checkpoint, D = W − W_ref (delta_* metrics and D's spectrum): a
    // second decomposition of every matrix. The reference is the checkpoint at referenceStep, or
    // the run's first.
    bool delta = false;
    std::optional<qint64> referenceStep;
    // Subspace agreement with the previous checkpoint (subspace_overlap, top_vector_cosine) from
    // each matrix's top subspaceK right singular vectors. Those of the newest checkpoint are kept
    // in the results file, so that a checkpoint added later costs only itself.
    bool subspace = false;
    int subspaceK = kDefaultSubspaceK;
    // Processes sharing this analysis (MPI ranks; null: this process alone). Each computes the
    // matrices AnalysisTeam::assignByCost hands it; only the leader's RunAnalysis is whole, and only
    // the leader saves the results file.
    AnalysisTeam *team = nullptr;
};

struct AnalysisProgress {
    int checkpointsDone = 0;
    int checkpointsTotal = 0;
    int matricesDone = 0;
    int matricesTotal = 0; // an estimate until the last checkpoint is open
    QString currentFile;
    double elapsedSeconds = 0;
    double etaSeconds = -1; // unknown until some work is done
};

class RunAnalyzer {
public:
    explicit RunAnalyzer(AnalysisSettings settings = {});

    // Replaces the built-in naming rules (e.g. with a user's rules in front).
    void setNameRules(TensorNameRules rules) { m_rules = std::move(rules); }
    QString settingsKey() const;

    // Called on the analysing thread: after each checkpoint with its results, and after each
    // tensor with none (for progress).
    using ProgressCallback = std::function<void(const AnalysisProgress &, const QList<MatrixResult> &)>;

    RunAnalysis analyzeFolder(const QString &folder, const ProgressCallback &onProgress = {},
                              const RunAnalysis *previous = nullptr);
    // Safe from any thread and from a signal handler; the analysis stops after the matrices in flight.
    void cancel() { *m_cancelled = true; }
    // Cancelled when this flag is set too (e.g. one the caller keeps after the analyzer is gone).
    void shareCancelFlag(std::shared_ptr<std::atomic<bool>> flag) { m_cancelled = std::move(flag); }

private:
    // `earlier`: this checkpoint's results from an analysis without some opt-in metric asked for
    // now (m_missing): a matrix found there keeps its spectrum and metrics, and only the missing
    // metrics are computed; its own spectrum is computed again only when ownSpectrum (for the
    // top vectors of --subspace).
    QList<MatrixResult> analyzeCheckpoint(const CheckpointFile &file, CheckpointRecord &record, RunAnalysis &run,
                                          AnalysisProgress &progress, const ProgressCallback &onProgress,
                                          const QList<MatrixResult> *earlier = nullptr, bool ownSpectrum = true);
    // In a team, after this member's part of a checkpoint: the leader adds every other member's
    // share to results, run and progress; another member sends its own (its issues from ownIssuesFrom).
    void gatherShares(QList<MatrixResult> &results, RunAnalysis &run, qsizetype ownIssuesFrom, int ownDone,
                      double ownCost, const RunAnalysis::Timings &timingsBefore, AnalysisProgress &progress);
    bool savesResults() const;
    // From the cost model of the shapes (SpectrumCostModel), scaled by the pace measured so far.
    void updateEta(AnalysisProgress &progress, double doneSeconds) const;
    void saveResults(const RunAnalysis &run, RunAnalysis &report);

    AnalysisSettings m_settings;
    TensorNameRules m_rules = TensorNameRules::builtIn();
    bool cancelled() const { return m_cancelled->load(); }
    std::shared_ptr<std::atomic<bool>> m_cancelled = std::make_shared<std::atomic<bool>>(false);
    QElapsedTimer m_clock;
    SpectrumCostModel m_costModel{m_settings.method};
    // In the cost model's core-seconds: the whole run as planned so far (the checkpoints opened, and
    // as much again for each one not yet opened), and what is done. m_doneSeconds is written by the
    // workers under the checkpoint's mutex.
    double m_plannedSeconds = 0;
    double m_doneSeconds = 0;
    double m_modelPace = 1; // core-seconds per wall second the model expects for the open checkpoint
    int m_checkpointsComputed = 0;
    // The opt-in metrics the earlier results of this analysis lack (analyzeFolder's `previous`).
    struct OptIns {
        bool randDistance = false, delta = false, subspace = false;
    } m_missing;
    DeltaReference *m_reference = nullptr; // --delta: the checkpoint compared with, during analyzeFolder
    QList<double> m_teamLoad; // in a team: each member's work so far (AnalysisTeam::assignByCost)
};

} // namespace rankscope
