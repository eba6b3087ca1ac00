// One typed matrix's spectrum and metrics, computed on a worker of RunAnalyzer's pool: W's own
// decomposition (with its top vectors for --subspace), D = W − W_ref for --delta, the shuffled
// decomposition of rand_distance, and the metrics of each. Given what an earlier analysis computed
// of the matrix, its spectrum is taken from there (unless its own is needed for the vectors) and
// only the opt-in metrics asked for are computed; the rest of what it had is kept.
#pragma once

#include "analysis/execution/MatrixPartSource.h"
#include "analysis/planning/HeadPlan.h"
#include "analysis/results/MatrixResult.h"
#include "spectral/SingularValueSolver.h"

#include <memory>
#include <optional>

namespace rankscope {

class BlasThreadBudget;

struct MatrixSolveTask {
    MatrixResult base; // its identity, checkpoint and shape; the solve adds spectra and metrics
    std::shared_ptr<MatrixPartSource> source;
    // What an earlier analysis of the checkpoint computed of this matrix (same shape, a spectrum).
    std::optional<MatrixResult> known;
    bool ownSpectrum = true;  // W decomposed again (always without `known`)
    bool withChange = false;  // --delta for it: its deltas are set, NaN without a usable reference
    bool withShuffle = false; // rand_distance for it
    bool unscaled = false;    // a LoRA update whose scale s is unknown: its norms are NaN
    bool withAlphaCi = false; // --alpha-ci: alpha's bootstrap interval (from its spectrum, cheap: always set anew)
    std::shared_ptr<MatrixPartSource> reference; // --delta: its namesake in the reference checkpoint
    qint64 referenceStep = 0;
    double energy = kDefaultEnergy;
    std::optional<HeadCut> heads; // --heads: its heads' spectra too (HeadSpectra::ofMatrix)
};

struct MatrixSolveOutcome {
    MatrixResult result; // whole when ok(); else only what names it (checkpoint, tensor)
    QString error;       // why the matrix has no spectrum: it fails, not the run
    QString changeProblem; // why its deltas are NaN, said beside the tensor's other problems
    QList<MatrixResult> headRows; // --heads: one per head, each with its R for the circuits
    double spectrumSeconds = 0, metricsSeconds = 0;
    // Where W's own spectrum was computed (nothing when it was taken from earlier results).
    bool ownSolved = false;
    SolvePlace place;
    bool ok() const { return error.isEmpty(); }
};

class MatrixSolve {
public:
    // The fewest nonzero eigenvalues a LoRA update needs for its power-law fit (WeightWatcher's MIN_NUM_EVALS).
    static constexpr int kMinUpdateEigenvalues = 10;

    // ownSolver decomposes W (with --subspace it also gives the top vectors), solver the rest.
    MatrixSolve(const SingularValueSolver &solver, const SingularValueSolver &ownSolver) : m_solver(solver), m_ownSolver(ownSolver) {}

    // The tensor is let go as soon as nothing needs it any more; budget gives a lone solve the idle
    // cores (BlasThreadBudget). Running out of memory fails this matrix only.
    MatrixSolveOutcome run(MatrixSolveTask task, BlasThreadBudget &budget) const;

private:
    // D's decomposition, from W's entries and the reference's.
    struct Change {
        Spectrum spectrum;
        double referenceNorm = 0;
        bool compared = false;
    };

    Spectrum ownSpectrum(MatrixSolveTask &task, bool keepMatrix, BlasThreadBudget &budget, SolvePlace &place) const;
    Change changeFrom(const RowMajorMatrix &widened, MatrixSolveTask &task, QString &problem) const;
    Change changeOfUpdate(const LowRankFactors &own, const LowRankFactors &reference, MatrixSolveTask &task, QString &problem) const;
    static void setMetrics(MatrixResult &result, Spectrum &spectrum, const MatrixSolveTask &task, double shuffledDistance,
                           const Change &change, const QString &changeProblem);
    static void limitToUpdate(SpectralMetrics &metrics, const Eigen::VectorXd &singularValues, bool unscaled);
    static void keepKnown(MatrixResult &result, const MatrixSolveTask &task);

    SingularValueSolver m_solver;
    SingularValueSolver m_ownSolver;
};

} // namespace rankscope
