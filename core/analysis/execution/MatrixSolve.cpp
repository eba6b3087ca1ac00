#include "analysis/execution/MatrixSolve.h"

#include "spectral/AlphaInterval.h"
#include "analysis/execution/HeadSpectra.h"
#include "analysis/results/RunAnalysis.h"
#include "spectral/BlasThreadBudget.h"
#include "spectral/FactoredSpectrum.h"
#include "spectral/WeightWatcherMetrics.h"

#include <QElapsedTimer>
#include <limits>
#include <new>

namespace rankscope {

MatrixSolveOutcome MatrixSolve::run(MatrixSolveTask task, BlasThreadBudget &budget) const
{
    QElapsedTimer clock;
    clock.start();
    MatrixSolveOutcome outcome;
    Spectrum spectrum;
    // The solver's Gram matrix and block can still fail to be allocated: that matrix fails, not the run.
    try {
        task.base.contentHash = task.source->contentHash();
        // Before W's own solve, which may let the tensor go once it is read.
        if (task.heads)
            outcome.headRows = HeadSpectra::ofMatrix(*task.source, *task.heads, task.base, task.energy);
        // Two LoRA updates: their change is a low-rank product too, D = [s·B, −s₀·B₀]·[A; A₀], taken from
        // the factors like their own spectra (never an m × n matrix).
        std::optional<LowRankFactors> factors, referenceFactors;
        if (task.reference && (referenceFactors = task.reference->lowRankFactors()))
            factors = task.source->lowRankFactors();
        const bool keepMatrix = task.withShuffle || (task.reference && !factors);
        outcome.ownSolved = task.ownSpectrum;
        if (task.ownSpectrum)
            spectrum = ownSpectrum(task, keepMatrix, budget, outcome.place);
        else
            spectrum.singularValues = task.known->singularValues;
        // The change and the shuffle need the entries: only then is the matrix widened whole.
        RowMajorMatrix widened;
        if (keepMatrix && spectrum.ok())
            widened = task.source->widened();
        task.source.reset();
        const Change change = !spectrum.ok() ? Change{} : factors ? changeOfUpdate(*factors, *referenceFactors, task, outcome.changeProblem)
                                                                  : changeFrom(widened, task, outcome.changeProblem);
        task.reference.reset();
        // rand_distance shuffles the entries in place: last.
        double shuffledDistance = std::numeric_limits<double>::quiet_NaN();
        if (task.withShuffle && spectrum.ok())
            shuffledDistance = randDistance(Eigen::Map<Eigen::MatrixXd>(widened.data(), widened.cols(), widened.rows()),
                                            spectrum.singularValues, m_solver);
        widened = {};
        outcome.spectrumSeconds = clock.nsecsElapsed() * 1e-9;
        clock.restart();
        if (spectrum.ok())
            setMetrics(task.base, spectrum, task, shuffledDistance, change, outcome.changeProblem);
        outcome.metricsSeconds = clock.nsecsElapsed() * 1e-9;
    } catch (const std::bad_alloc &) {
        task.source.reset();
        spectrum = {{}, QStringLiteral("there was not enough memory to compute its spectrum"), {}};
    }
    outcome.error = spectrum.error;
    outcome.result = std::move(task.base);
    return outcome;
}

Spectrum MatrixSolve::ownSpectrum(MatrixSolveTask &task, bool keepMatrix, BlasThreadBudget &budget, SolvePlace &place) const
{
    const BlasThreadBudget::Claim claim(budget);
    // The tensor is let go once read: while the eigensolver runs, the worker holds only its Gram
    // matrix (rand_distance and --delta still need it).
    return m_ownSolver.compute(*task.source, [&] {
        if (!keepMatrix)
            task.source.reset();
    }, &place);
}

MatrixSolve::Change MatrixSolve::changeFrom(const RowMajorMatrix &widened, MatrixSolveTask &task, QString &problem) const
{
    Change change;
    if (!task.reference)
        return change;
    change.compared = true;
    // D = W − W_ref, decomposed as W is (its transpose, column-major: the same σ).
    RowMajorMatrix difference = task.reference->widened();
    task.reference.reset();
    // A NaN or Inf there makes every σ of D NaN: said as the reference's, not left as an
    // unexplained NaN (W itself was checked by its own solve).
    if (!difference.allFinite()) {
        problem = (QLatin1String(kDeltaIssuePrefix) + QStringLiteral("the reference checkpoint (step %1) holds non-finite values in this tensor: "
                                                                      "its delta metrics are NaN")).arg(task.referenceStep);
        return change;
    }
    change.referenceNorm = difference.norm();
    difference = widened - difference;
    change.spectrum = m_solver.compute(Eigen::Map<const Eigen::MatrixXd>(difference.data(), difference.cols(), difference.rows()));
    if (!change.spectrum.ok())
        problem = (QLatin1String(kDeltaIssuePrefix) + QStringLiteral("its change from the reference checkpoint (step %1) cannot be decomposed (%2): "
                                                                      "its delta metrics are NaN")).arg(task.referenceStep).arg(change.spectrum.error);
    return change;
}

MatrixSolve::Change MatrixSolve::changeOfUpdate(const LowRankFactors &own, const LowRankFactors &reference, MatrixSolveTask &task,
                                                QString &problem) const
{
    Change change;
    change.compared = true;
    task.reference.reset();
    if (!reference.left.allFinite() || !reference.right.allFinite()) {
        problem = (QLatin1String(kDeltaIssuePrefix) + QStringLiteral("the reference checkpoint (step %1) holds non-finite values in this update: "
                                                                      "its delta metrics are NaN")).arg(task.referenceStep);
        return change;
    }
    const Eigen::Index r = own.left.cols(), r0 = reference.left.cols();
    Eigen::MatrixXd left(own.left.rows(), r + r0), right(own.right.rows(), r + r0);
    left << own.scale * own.left, -reference.scale * reference.left;
    right << own.right, reference.right;
    change.referenceNorm = lowRankProductSingularValues(reference.left, reference.right, reference.scale).norm();
    change.spectrum = SingularValueSolver::checkedSpectrum(lowRankProductSingularValues(left, right, 1.0));
    if (!change.spectrum.ok())
        problem = (QLatin1String(kDeltaIssuePrefix) + QStringLiteral("its change from the reference checkpoint (step %1) cannot be decomposed (%2): "
                                                                      "its delta metrics are NaN")).arg(task.referenceStep).arg(change.spectrum.error);
    return change;
}

void MatrixSolve::setMetrics(MatrixResult &result, Spectrum &spectrum, const MatrixSolveTask &task, double shuffledDistance,
                             const Change &change, const QString &changeProblem)
{
    result.singularValues = spectrum.singularValues;
    result.topVectors = task.ownSpectrum ? std::move(spectrum.topRightVectors) : task.known->topVectors;
    if (task.ownSpectrum) {
        result.metrics = computeSpectralMetrics(result.singularValues, result.rows, result.cols, task.energy);
    } else {
        result.metrics = task.known->metrics;
        applyEnergy(result.metrics, result.singularValues, result.rows, result.cols, task.energy);
    }
    if (task.known)
        keepKnown(result, task);
    if (task.withAlphaCi)
        setAlphaInterval(result.metrics, result.singularValues);
    if (task.withShuffle)
        result.metrics.randDistance = shuffledDistance;
    if (task.withChange) {
        result.deltaSingularValues = {};
        clearDeltaMetrics(result.metrics);
        if (change.compared && changeProblem.isEmpty() && change.spectrum.ok()) {
            result.deltaSingularValues = change.spectrum.singularValues;
            setDeltaMetrics(result.metrics, change.spectrum.singularValues, change.referenceNorm);
        }
    }
    if (!result.weights.isEmpty())
        limitToUpdate(result.metrics, result.singularValues, task.unscaled);
}

// A LoRA update's spectrum is r values and zeros: no Marchenko–Pastur bulk to fit, and a power law
// fitted to fewer eigenvalues than WeightWatcher fits (its MIN_NUM_EVALS, 10) says nothing; without
// the scale s only what does not depend on it is given (docs/metrics.md, "LoRA updates").
void MatrixSolve::limitToUpdate(SpectralMetrics &m, const Eigen::VectorXd &sigma, bool unscaled)
{
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    m.numSpikes = m.mpSoftrank = kNaN;
    if ((sigma.array() > 0).count() < kMinUpdateEigenvalues)
        m.alpha = m.weightedAlpha = m.alphaXmin = m.alphaKsDistance = m.alphaTailSize = m.logAlphaNorm = m.alphaCiLow = m.alphaCiHigh = kNaN;
    if (unscaled)
        m.spectralNorm = m.frobeniusNorm = m.logNorm = m.logSpectralNorm = m.logAlphaNorm = m.weightedAlpha = m.deltaSpectralNorm = kNaN;
}

// What the earlier analysis computed and this one does not is kept.
void MatrixSolve::keepKnown(MatrixResult &result, const MatrixSolveTask &task)
{
    const MatrixResult &known = *task.known;
    if (!task.withShuffle)
        result.metrics.randDistance = known.metrics.randDistance;
    if (!task.withAlphaCi) {
        result.metrics.alphaCiLow = known.metrics.alphaCiLow;
        result.metrics.alphaCiHigh = known.metrics.alphaCiHigh;
    }
    if (!task.withChange) {
        result.deltaSingularValues = known.deltaSingularValues;
        result.metrics.deltaRelFrobenius = known.metrics.deltaRelFrobenius;
        result.metrics.deltaSpectralNorm = known.metrics.deltaSpectralNorm;
        result.metrics.deltaStableRank = known.metrics.deltaStableRank;
        result.metrics.deltaEffectiveRank = known.metrics.deltaEffectiveRank;
    }
}

} // namespace rankscope
