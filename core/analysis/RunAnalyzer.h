// Turns a folder of checkpoints into every metric of every typed matrix at every step. Tensors
// are read one at a time on the calling thread while a pool of workers (one per core) computes
// spectra, each matrix single-threaded. A bad file or matrix is reported and the rest goes on.
#pragma once

#include "analysis/CheckpointDiscovery.h"
#include "analysis/MatrixResult.h"
#include "model/TensorNameRules.h"
#include "spectral/SingularValueSolver.h"

#include <QList>
#include <QString>
#include <atomic>
#include <functional>

namespace rankscope {

struct AnalysisSettings {
    double energy = kDefaultEnergy;
    int jobs = 0; // 0: one worker per core
    SvdMethod method = SvdMethod::FastGram;
};

// "file: what is wrong", for a whole checkpoint (tensor empty) or one tensor in it.
struct AnalysisIssue {
    QString path;
    QString tensor;
    QString message;
    bool wholeFile = true;
    QString text() const;
};

struct RunAnalysis {
    QString folder;
    QList<MatrixResult> results; // sorted by step, layer, type
    QList<AnalysisIssue> issues;
    QList<SkippedFile> sidecars;
    QStringList notes; // what the user should know about how the run was read (e.g. steps by order)
    int checkpointsFound = 0;
    int checkpointsAnalysed = 0;
    bool cancelled = false;
};

struct AnalysisProgress {
    int checkpointsDone = 0;
    int checkpointsTotal = 0;
    QString currentFile;
};

class RunAnalyzer {
public:
    explicit RunAnalyzer(AnalysisSettings settings = {});

    // Called on the analysing thread after each checkpoint with that checkpoint's results.
    using ProgressCallback = std::function<void(const AnalysisProgress &, const QList<MatrixResult> &)>;

    // Replaces the built-in naming rules (e.g. with a user's rules in front).
    void setNameRules(TensorNameRules rules) { m_rules = std::move(rules); }

    RunAnalysis analyzeFolder(const QString &folder, const ProgressCallback &onProgress = {});
    // Safe from any thread; the analysis stops after the matrices in flight.
    void cancel() { m_cancelled = true; }

private:
    QList<MatrixResult> analyzeCheckpoint(const CheckpointFile &file, int position, QList<AnalysisIssue> &issues,
                                          bool &fileOk, bool &stepFromOrder);

    AnalysisSettings m_settings;
    TensorNameRules m_rules = TensorNameRules::builtIn();
    std::atomic<bool> m_cancelled{false};
};

} // namespace rankscope
