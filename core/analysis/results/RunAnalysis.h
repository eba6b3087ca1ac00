// The outcome of analysing a run: every typed matrix's spectrum and metrics, what happened to
// each checkpoint, and everything that could not be read, with the reason.
#pragma once

#include "analysis/AnalysisSettings.h"
#include "analysis/results/MatrixResult.h"
#include "analysis/results/SkippedFile.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

// The words that begin every issue only an opt-in metric raises (HeadPlan's layers that cannot be
// cut into heads, MatrixSolve's changes that cannot be computed): kept with a checkpoint's stored
// results, they are told apart by them where that metric is not asked for (AnalysisIssue::raisedBy).
inline constexpr char kHeadsIssuePrefix[] = "per-head spectra ";
inline constexpr char kDeltaIssuePrefix[] = "delta: ";

// "file: what is wrong", for a whole checkpoint (tensor empty) or one tensor in it.
struct AnalysisIssue {
    QString path;
    QString tensor;
    QString message;
    bool wholeFile = true;
    QString text() const;
    // The opt-in metric whose computation alone raised it (none for every other issue).
    AnalysisOptIns raisedBy() const;
};

// What was read from one checkpoint, and the identity (size, mtime, content fingerprint) that
// decides whether it must be read again.
struct CheckpointRecord {
    QString path;
    qint64 step = 0;
    // No step recorded anywhere: `step` only places it after the numbered checkpoints (by
    // modification time), and the views label it "final" (stepLabel).
    bool unnumbered = false;
    qint64 size = 0;            // bytes (several files: the sum of its weights files)
    qint64 mtimeMs = 0;         // last modification (several files: the newest)
    QString fingerprint;        // ContentFingerprint: what it holds, whatever its size and mtime say
    QString format;
    QString error;              // why the checkpoint could not be read at all; empty when it was
    int matrices = 0;
    bool fromCache = false;
    // --subspace: the checkpoint its subspace metrics compare with (subspaceKey of it; empty for
    // the run's first). When that is no longer the one before it, they are computed again.
    QString subspacePrevious;
    QString subspaceKey() const { return path + QLatin1Char('\n') + fingerprint; }
    // --subspace: the k its subspace metrics (and the top vectors it keeps) were computed with; 0
    // when never. Another k now is another comparison: they are computed again.
    int subspaceK = 0;
    // --delta: the reference its delta metrics were computed against (DeltaReference::identity:
    // its step and content fingerprint; "none" when it could not be read; empty when they were
    // never computed). When the reference now is another (an earlier checkpoint arrived, or its
    // file was replaced), they are computed again.
    QString deltaReference;
};

struct RunAnalysis {
    QString folder;
    QString settingsKey;              // what besides the files decides the spectra (AnalysisSettingsKey::toString)
    QList<MatrixResult> results;      // sorted by step, layer, type
    // --heads: every head of Q, K, V, O and every QK and OV circuit (MatrixResult::head ≥ 0), sorted
    // as results; kept apart so that no whole-matrix view, count or aggregate ever takes them.
    QList<MatrixResult> headResults;
    QList<AnalysisIssue> issues;      // unreadable checkpoints and tensors
    QList<CheckpointRecord> checkpoints;
    QList<SkippedFile> sidecars;      // files not analysed, and why: sidecars, other files, duplicates
    QStringList notes;                // how the run was read (e.g. checkpoints without a step, cache rebuilt)
    QStringList runs;                 // subfolders holding runs of their own (the folder itself is a set of runs when it has no checkpoints)
    QStringList pending;              // checkpoints still being written, left for a later pass
    QString resultsError;             // why the results file could not be saved; empty when it was (or none was asked for)
    int checkpointsFound = 0;
    int checkpointsAnalysed = 0;      // checkpoints with at least one analysed matrix
    bool cancelled = false;
    // Where the time went, for the checkpoints read in this run: reading and widening tensors
    // (wall, on the reading thread), and spectra and metrics (CPU seconds summed over workers).
    struct Timings {
        double readSeconds = 0;
        double spectraSeconds = 0;
        double metricsSeconds = 0;
        // Spectra computed on the GPU and on the CPU (with a GPU set: those it did not take).
        int matricesOnDevice = 0, matricesOnCpu = 0;
        // What a span of the analysis added, and adding another process's share (MPI).
        Timings operator-(const Timings &o) const
        {
            return {readSeconds - o.readSeconds, spectraSeconds - o.spectraSeconds, metricsSeconds - o.metricsSeconds,
                    matricesOnDevice - o.matricesOnDevice, matricesOnCpu - o.matricesOnCpu};
        }
        Timings &operator+=(const Timings &o)
        {
            readSeconds += o.readSeconds;
            spectraSeconds += o.spectraSeconds;
            metricsSeconds += o.metricsSeconds;
            matricesOnDevice += o.matricesOnDevice;
            matricesOnCpu += o.matricesOnCpu;
            return *this;
        }
    } timings;

    // The checkpoint's identity on disk now: size and modification time of the files its weights
    // are read from (of record.path itself when none are given).
    static void identify(CheckpointRecord &record, const QStringList &files = {});
    // Stored results serve whole: the same settings, and every opt-in metric wanted (or more)
    // (AnalysisSettingsKey::coveredBy).
    static bool settingsCover(const QString &storedKey, const QString &wantedKey);
    // One line per issue ("file: tensor: what is wrong"); the same tensor failing the same way in
    // several checkpoints (an untyped tensor of every checkpoint) is one line that says how many.
    QStringList issueLines() const;

    // An analysis keeps what its earlier results hold beyond the opt-in metrics it asks for (they
    // serve it whole, and the results file keeps them for a later one that asks). What a command or
    // the window shows holds only what it asked for (RunLoader), whatever ran before: these say
    // whether the run holds more, and leave that out — the values of the opt-in metrics not asked
    // for (NaN; D's spectrum empty), the per-head rows without heads, and the issues only those
    // metrics raise.
    bool holdsUnasked(const AnalysisOptIns &asked) const;
    void dropUnasked(const AnalysisOptIns &asked);
};

// The same for the rows of one checkpoint as they arrive (RunAnalyzer::ProgressCallback), per-head
// rows among them.
bool holdsUnasked(const QList<MatrixResult> &rows, const AnalysisOptIns &asked);
void dropUnasked(QList<MatrixResult> &rows, const AnalysisOptIns &asked);

} // namespace rankscope
