// Turns a folder of checkpoints into every metric of every typed matrix at every step. Tensors
// are read one at a time on the calling thread, as stored, while a pool of workers (one per core)
// computes spectra, each matrix single-threaded (a matrix left alone gets the idle cores) and
// widened a block at a time. A bad file or matrix is reported and the rest goes on.
// Given an earlier analysis of the same folder, checkpoints whose identity (path, size, mtime,
// content fingerprint) and settings are unchanged are taken from it and not read again.
#pragma once

#include "analysis/AnalysisSettings.h"
#include "analysis/planning/AnalysisProgressModel.h"
#include "analysis/execution/MatrixPartSource.h"
#include "analysis/planning/CacheReusePlan.h"
#include "analysis/planning/TeamSchedule.h"
#include "analysis/results/AnalysisSettingsKey.h"
#include "analysis/results/RunAnalysis.h"
#include "model/CheckpointLayout.h"
#include "model/TensorNameRules.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace rankscope {

class MergeBase;

class DeltaPlan;
struct PlannedTensorRead;

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
    struct FolderPass;
    struct CheckpointJob;
    enum class Outcome { Analysed, Pending, Cancelled };

    // The folder's checkpoints that are settled (the others pending in run), with their steps.
    StepPlan settledCheckpoints(const CheckpointListing &listing, RunAnalysis &run) const;
    // Checkpoint i of the pass: taken from the earlier results, or analysed.
    Outcome takeCheckpoint(FolderPass &pass, qsizetype i);
    Outcome computeCheckpoint(FolderPass &pass, qsizetype i, const CheckpointReuse &reuse, CheckpointRecord &record,
                              QList<MatrixResult> &results, QList<MatrixResult> &heads);
    void planHeads(CheckpointJob &job) const;
    static void keepEarlierHeads(QList<MatrixResult> &heads, const QList<MatrixResult> &earlier);
    // `earlier`: this checkpoint's results from an analysis without some opt-in metric asked for
    // now (missing): a matrix found there keeps its spectrum and metrics, and only the missing
    // metrics are computed; its own spectrum is computed again only when ownSpectrum (for the
    // top vectors of --subspace).
    QList<MatrixResult> analyzeCheckpoint(CheckpointJob &job);
    bool openCheckpoint(CheckpointJob &job);
    // The (tensor, slice) reads of the checkpoint that are this member's, after planning its cost.
    QList<std::pair<const PlannedTensor *, qint64>> planWork(CheckpointJob &job);
    // False when the tensor cannot be read (said in the run's issues).
    bool readWorkItem(CheckpointJob &job, const PlannedTensor &tensor, qint64 slice);
    void queueMatrix(CheckpointJob &job, const PlannedTensor &tensor, const MatrixPart &part, const PlannedTensorRead &read);
    QList<MatrixResult> finishCheckpoint(CheckpointJob &job);
    // Progress on the analysing thread, from what the workers finished.
    void reportProgress(CheckpointJob &job);
    // Waits until `done` holds or the analysis is cancelled, reporting progress as matrices
    // complete and every half second meanwhile, so that one long matrix still moves the ETA.
    void waitUntil(CheckpointJob &job, const std::function<bool()> &done);
    bool savesResults() const;
    void saveResults(const RunAnalysis &run, RunAnalysis &report);

    AnalysisSettings m_settings;
    TensorNameRules m_rules = TensorNameRules::builtIn();
    bool cancelled() const { return m_cancelled->load(); }
    std::shared_ptr<std::atomic<bool>> m_cancelled = std::make_shared<std::atomic<bool>>(false);
    TeamSchedule m_team{m_settings.team};
    AnalysisProgressModel m_progressModel{m_settings.method, m_settings.jobs * m_team.size()};
    DeltaPlan *m_delta = nullptr; // --delta: the reference compared with, during analyzeFolder
    MergeBase *m_merge = nullptr; // --base: the model the run's updates are merged into, during analyzeFolder
};

} // namespace rankscope
