// One matrix's solve: W's own spectrum and metrics, what an earlier analysis knew of it kept, and
// the opt-in decompositions (D = W − W_ref, rand_distance) with their problems said.
#include "analysis/execution/MatrixSolve.h"
#include "spectral/BlasThreadBudget.h"
#include "TestMatrices.h"
#include "TestSuite.h"

#include <cmath>
#include <random>

namespace tst_matrixsolve {

using namespace rankscope;

namespace {

RowMajorMatrix gaussian(qint64 rows, qint64 cols, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> gauss;
    RowMajorMatrix m(rows, cols);
    for (qint64 r = 0; r < rows; ++r)
        for (qint64 c = 0; c < cols; ++c)
            m(r, c) = float(gauss(rng)); // float32-exact, as stored
    return m;
}

std::shared_ptr<MatrixPartSource> sourceOf(const RowMajorMatrix &values)
{
    MatrixIdentity id;
    return std::make_shared<MatrixPartSource>(std::make_shared<const StoredMatrix>(StoredMatrix::fromDouble(values)),
                                              MatrixPart::whole(id, QStringLiteral("h.0.attn.c_proj.weight"), values.rows()));
}

MatrixSolveTask taskOf(const RowMajorMatrix &values)
{
    MatrixSolveTask task;
    task.base.tensor = QStringLiteral("h.0.attn.c_proj.weight");
    task.base.checkpointPath = QStringLiteral("/run/ckpt_100.pt");
    task.base.rows = values.rows();
    task.base.cols = values.cols();
    task.source = sourceOf(values);
    task.energy = 0.9;
    return task;
}

Eigen::VectorXd singularValuesOf(const RowMajorMatrix &values)
{
    return test::exactSingularValues(Eigen::MatrixXd(values));
}

} // namespace

class TestMatrixSolve : public QObject {
    Q_OBJECT

private:
    const SingularValueSolver m_solver;
    MatrixSolveOutcome solve(MatrixSolveTask task, int topVectors = 0) const
    {
        SingularValueSolver own = m_solver;
        own.setTopVectors(topVectors);
        BlasThreadBudget budget(1);
        return MatrixSolve(m_solver, own).run(std::move(task), budget);
    }

private slots:
    void ownSpectrumAndMetrics()
    {
        const RowMajorMatrix w = gaussian(40, 24, 1);
        const MatrixSolveOutcome outcome = solve(taskOf(w), 4);
        QVERIFY2(outcome.ok(), qPrintable(outcome.error));
        QVERIFY(outcome.changeProblem.isEmpty());
        const MatrixResult &r = outcome.result;
        QCOMPARE(r.tensor, QStringLiteral("h.0.attn.c_proj.weight"));
        QCOMPARE(r.singularValues.size(), 24);
        QVERIFY((r.singularValues - singularValuesOf(w)).cwiseAbs().maxCoeff() < 1e-8);
        QCOMPARE(r.topVectors.rows(), 24);
        QCOMPARE(r.topVectors.cols(), 4);
        const SpectralMetrics expected = computeSpectralMetrics(r.singularValues, 40, 24, 0.9);
        QCOMPARE(r.metrics.stableRank, expected.stableRank);
        QCOMPARE(r.metrics.alpha, expected.alpha);
        // Opt-in metrics not asked for are NaN.
        QVERIFY(std::isnan(r.metrics.randDistance));
        QVERIFY(std::isnan(r.metrics.deltaRelFrobenius));
        QCOMPARE(r.deltaSingularValues.size(), 0);
    }

    // With an earlier analysis of the matrix and only rand_distance missing: its spectrum and
    // deltas are the earlier ones, τ's metrics are recomputed at this τ, and rand_distance is new.
    void keepsWhatTheEarlierAnalysisKnew()
    {
        const RowMajorMatrix w = gaussian(30, 30, 2);
        MatrixResult known;
        known.rows = known.cols = 30;
        known.singularValues = singularValuesOf(w);
        known.metrics = computeSpectralMetrics(known.singularValues, 30, 30, 0.5);
        known.metrics.deltaRelFrobenius = 0.25;
        known.metrics.deltaSpectralNorm = 2.5;
        known.deltaSingularValues = Eigen::VectorXd::Constant(30, 0.1);
        known.topVectors = Eigen::MatrixXf::Identity(30, 2);
        MatrixSolveTask task = taskOf(w);
        task.known = known;
        task.ownSpectrum = false;
        task.withShuffle = true;
        const MatrixSolveOutcome outcome = solve(task);
        QVERIFY(outcome.ok());
        const MatrixResult &r = outcome.result;
        QCOMPARE(r.singularValues, known.singularValues);
        QCOMPARE(r.topVectors, known.topVectors);
        QCOMPARE(r.metrics.alpha, known.metrics.alpha);
        QCOMPARE(r.metrics.energyRank, computeSpectralMetrics(known.singularValues, 30, 30, 0.9).energyRank);
        QVERIFY(r.metrics.energyRank != known.metrics.energyRank);
        QCOMPARE(r.metrics.deltaRelFrobenius, 0.25);
        QCOMPARE(r.metrics.deltaSpectralNorm, 2.5);
        QCOMPARE(r.deltaSingularValues, known.deltaSingularValues);
        QVERIFY(std::isfinite(r.metrics.randDistance));
    }

    // W decomposed again for its vectors (--subspace): its own metrics, and the opt-in metrics
    // known and not asked for now kept.
    void ownSpectrumAgainKeepsTheOptInsKnown()
    {
        const RowMajorMatrix w = gaussian(12, 12, 9);
        MatrixResult known;
        known.rows = known.cols = 12;
        known.singularValues = singularValuesOf(w);
        known.metrics = computeSpectralMetrics(known.singularValues, 12, 12, 0.9);
        known.metrics.randDistance = 0.125;
        known.metrics.deltaStableRank = 3.5;
        known.deltaSingularValues = Eigen::VectorXd::Constant(12, 0.2);
        MatrixSolveTask task = taskOf(w);
        task.known = known;
        const MatrixSolveOutcome outcome = solve(task, 3);
        QVERIFY(outcome.ok());
        QCOMPARE(outcome.result.topVectors.cols(), 3);
        QCOMPARE(outcome.result.metrics.randDistance, 0.125);
        QCOMPARE(outcome.result.metrics.deltaStableRank, 3.5);
        QCOMPARE(outcome.result.deltaSingularValues, known.deltaSingularValues);
    }

    // D = W − W_ref: its spectrum and delta metrics.
    void changeFromTheReference()
    {
        const RowMajorMatrix w = gaussian(20, 12, 3), ref = gaussian(20, 12, 4);
        MatrixSolveTask task = taskOf(w);
        task.withChange = true;
        task.reference = sourceOf(ref);
        task.referenceStep = 100;
        const MatrixSolveOutcome outcome = solve(task);
        QVERIFY(outcome.ok());
        QVERIFY(outcome.changeProblem.isEmpty());
        const RowMajorMatrix d = w - ref;
        const MatrixResult &r = outcome.result;
        QVERIFY((r.deltaSingularValues - singularValuesOf(d)).cwiseAbs().maxCoeff() < 1e-8);
        QVERIFY(std::abs(r.metrics.deltaRelFrobenius - d.norm() / ref.norm()) < 1e-8);
        QVERIFY(std::abs(r.metrics.deltaSpectralNorm - singularValuesOf(d)[0]) < 1e-8);
    }

    // A reference with a NaN: W's metrics stand, its deltas are NaN and the problem is said.
    void nonFiniteReferenceIsSaid()
    {
        const RowMajorMatrix w = gaussian(10, 10, 5);
        RowMajorMatrix ref = gaussian(10, 10, 6);
        ref(3, 4) = std::numeric_limits<double>::quiet_NaN();
        MatrixSolveTask task = taskOf(w);
        task.withChange = true;
        task.reference = sourceOf(ref);
        task.referenceStep = 700;
        const MatrixSolveOutcome outcome = solve(task);
        QVERIFY(outcome.ok());
        QCOMPARE(outcome.changeProblem, QStringLiteral("delta: the reference checkpoint (step 700) holds non-finite values in this tensor: "
                                                       "its delta metrics are NaN"));
        QVERIFY(std::isnan(outcome.result.metrics.deltaRelFrobenius));
        QCOMPARE(outcome.result.deltaSingularValues.size(), 0);
        QVERIFY(std::isfinite(outcome.result.metrics.stableRank));
    }

    // --delta asked for without a reference that can be read: deltas NaN, those known dropped.
    void changeWithoutReferenceClearsDeltas()
    {
        const RowMajorMatrix w = gaussian(16, 16, 7);
        MatrixResult known;
        known.rows = known.cols = 16;
        known.singularValues = singularValuesOf(w);
        known.metrics = computeSpectralMetrics(known.singularValues, 16, 16, 0.9);
        known.metrics.deltaRelFrobenius = 0.5;
        known.deltaSingularValues = Eigen::VectorXd::Constant(16, 1.0);
        MatrixSolveTask task = taskOf(w);
        task.known = known;
        task.ownSpectrum = false;
        task.withChange = true;
        const MatrixSolveOutcome outcome = solve(task);
        QVERIFY(outcome.ok());
        QVERIFY(outcome.changeProblem.isEmpty());
        QVERIFY(std::isnan(outcome.result.metrics.deltaRelFrobenius));
        QCOMPARE(outcome.result.deltaSingularValues.size(), 0);
    }

    // A matrix without a spectrum fails alone, named.
    void nonFiniteMatrixFails()
    {
        RowMajorMatrix w = gaussian(8, 8, 8);
        w(0, 0) = std::numeric_limits<double>::infinity();
        const MatrixSolveOutcome outcome = solve(taskOf(w));
        QVERIFY(!outcome.ok());
        QCOMPARE(outcome.result.tensor, QStringLiteral("h.0.attn.c_proj.weight"));
        QCOMPARE(outcome.result.checkpointPath, QStringLiteral("/run/ckpt_100.pt"));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMatrixSolve)
} // namespace tst_matrixsolve

#include "tst_MatrixSolve.moc"
