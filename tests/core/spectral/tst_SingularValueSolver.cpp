#include "spectral/DenseBlockSource.h"
#include "spectral/SingularValueSolver.h"
#include "spectral/SpectralMetrics.h"
#include "TestMatrices.h"
#include "TestSuite.h"

#include <cmath>
#include <limits>

Q_DECLARE_METATYPE(rankscope::Eigensolver)

namespace tst_singularvaluesolver {

using namespace rankscope;

namespace {
// A dense matrix the solver may only read a block at a time, as it reads a stored tensor.
class BlocksOnly : public DenseBlockSource {
public:
    using DenseBlockSource::DenseBlockSource;
    const double *rowMajorData() const override { return nullptr; }
};
} // namespace

class TestSingularValueSolver : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { SingularValueSolver::setBlasThreads(1); }

    void diagonalMatrix_data()
    {
        QTest::addColumn<int>("method");
        QTest::newRow("gram") << int(SvdMethod::FastGram);
        QTest::newRow("svd") << int(SvdMethod::ExactSvd);
    }
    void diagonalMatrix()
    {
        QFETCH(int, method);
        Eigen::MatrixXd w = Eigen::MatrixXd::Zero(5, 3);
        w(0, 0) = -2.0; // sign does not matter: σ = |d|
        w(1, 1) = 7.0;
        w(2, 2) = 0.5;
        const Spectrum s = SingularValueSolver(SvdMethod(method)).compute(w);
        QVERIFY2(s.ok(), qPrintable(s.error));
        QCOMPARE(s.singularValues.size(), 3);
        QVERIFY(std::abs(s.singularValues[0] - 7.0) < 1e-12);
        QVERIFY(std::abs(s.singularValues[1] - 2.0) < 1e-12);
        QVERIFY(std::abs(s.singularValues[2] - 0.5) < 1e-12);
    }

    void knownSpectrum_data()
    {
        QTest::addColumn<int>("method");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        for (auto [name, method] : {std::pair{"gram", SvdMethod::FastGram}, std::pair{"svd", SvdMethod::ExactSvd}}) {
            QTest::addRow("%s 40x25", name) << int(method) << 40 << 25;
            QTest::addRow("%s 25x40", name) << int(method) << 25 << 40;
            QTest::addRow("%s 32x32", name) << int(method) << 32 << 32;
        }
    }
    void knownSpectrum()
    {
        QFETCH(int, method);
        QFETCH(int, rows);
        QFETCH(int, cols);
        std::mt19937_64 rng(42);
        const int r = std::min(rows, cols);
        Eigen::VectorXd chosen(r);
        for (int i = 0; i < r; ++i)
            chosen[i] = 10.0 * std::pow(0.8, i) + 0.1; // decaying, well away from zero
        const Eigen::MatrixXd w = test::withSingularValues(rows, cols, chosen, rng);
        const Spectrum s = SingularValueSolver(SvdMethod(method)).compute(w);
        QVERIFY2(s.ok(), qPrintable(s.error));
        QCOMPARE(s.singularValues.size(), r);
        for (int i = 0; i < r; ++i)
            QVERIFY2(std::abs(s.singularValues[i] - chosen[i]) <= 1e-9 * chosen[0],
                     qPrintable(QStringLiteral("σ%1 = %2, expected %3").arg(i).arg(s.singularValues[i]).arg(chosen[i])));
    }

    void nonFiniteValuesAreAnError()
    {
        for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
            Eigen::MatrixXd w = Eigen::MatrixXd::Ones(4, 3);
            w(2, 1) = bad;
            for (SvdMethod method : {SvdMethod::FastGram, SvdMethod::ExactSvd}) {
                const Spectrum s = SingularValueSolver(method).compute(w);
                QVERIFY(!s.ok());
                QVERIFY2(s.error.contains(QLatin1String("NaN or Inf")), qPrintable(s.error));
                QVERIFY(s.error.contains(QLatin1String("1 of 12")));
                QCOMPARE(s.singularValues.size(), 0);
            }
        }
    }

    // A finite float64 matrix whose singular values cannot be squared (one 1e155 entry: σ₁ = 1e155,
    // σ₁² = Inf) gets no spectrum on either path, tall or wide, with top vectors or read a block at
    // a time: its eigenvalues would reach the metrics and the density view as Inf. 1e140 still does.
    void valuesTooLargeToSquareAreAnError_data()
    {
        QTest::addColumn<int>("method");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("topVectors");
        QTest::addColumn<bool>("blocked");
        for (auto [name, method] : {std::pair{"gram", SvdMethod::FastGram}, std::pair{"svd", SvdMethod::ExactSvd}})
            for (auto [r, c] : {std::pair{8, 5}, std::pair{5, 8}}) {
                QTest::addRow("%s %dx%d", name, r, c) << int(method) << r << c << 0 << false;
                QTest::addRow("%s %dx%d top vectors", name, r, c) << int(method) << r << c << 2 << false;
                QTest::addRow("%s %dx%d blocked", name, r, c) << int(method) << r << c << 0 << true;
            }
    }
    void valuesTooLargeToSquareAreAnError()
    {
        QFETCH(int, method);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, topVectors);
        QFETCH(bool, blocked);
        std::mt19937_64 rng(11);
        Eigen::MatrixXd w = test::gaussianMatrix(rows, cols, rng);
        SingularValueSolver solver{SvdMethod(method)};
        solver.setTopVectors(topVectors);
        solver.setGramBlockBytes(2 * sizeof(double) * std::min(rows, cols)); // blocks of 2 lines
        auto spectrumOf = [&](const Eigen::MatrixXd &m) { return blocked ? solver.compute(BlocksOnly(m)) : solver.compute(m); };

        w(1, 2) = 1e155;
        const Spectrum s = spectrumOf(w);
        QVERIFY2(!s.ok(), qPrintable(QStringLiteral("σ₁ = %1").arg(s.singularValues.size() ? s.singularValues[0] : 0.0)));
        QVERIFY2(s.error.contains(QLatin1String("too large for float64")), qPrintable(s.error));
        QCOMPARE(s.singularValues.size(), 0);
        QCOMPARE(s.topRightVectors.size(), 0);

        // σ₁² = 1e280: float64 holds it and every sum the metrics take of it. With top vectors, the
        // Gram matrix is scaled before dstemr, whose eigenvectors came back NaN from entries past 1e150.
        w(1, 2) = 1e140;
        const Spectrum fine = spectrumOf(w);
        QVERIFY2(fine.ok(), qPrintable(fine.error));
        QVERIFY(std::abs(fine.singularValues[0] / 1e140 - 1) < 1e-9);
        if (topVectors > 0)
            QVERIFY(fine.topRightVectors.allFinite());
        QVERIFY(std::isfinite(computeSpectralMetrics(fine.singularValues, rows, cols).frobeniusNorm));
    }

    void emptyMatrixIsAnError()
    {
        const Spectrum s = SingularValueSolver().compute(Eigen::MatrixXd(0, 5));
        QVERIFY(!s.ok());
        QVERIFY(s.error.contains(QLatin1String("empty")));
    }

    void zeroMatrix()
    {
        for (SvdMethod method : {SvdMethod::FastGram, SvdMethod::ExactSvd}) {
            const Spectrum s = SingularValueSolver(method).compute(Eigen::MatrixXd::Zero(6, 4));
            QVERIFY(s.ok());
            QCOMPARE(s.singularValues.size(), 4);
            QCOMPARE(s.singularValues.maxCoeff(), 0.0);
            QCOMPARE(s.singularValues.minCoeff(), 0.0);
        }
    }

    void tinyAndVectorShapes()
    {
        for (SvdMethod method : {SvdMethod::FastGram, SvdMethod::ExactSvd}) {
            const SingularValueSolver solver(method);
            Eigen::MatrixXd one(1, 1);
            one(0, 0) = -3.0;
            Spectrum s = solver.compute(one);
            QVERIFY(s.ok());
            QCOMPARE(s.singularValues.size(), 1);
            QVERIFY(std::abs(s.singularValues[0] - 3.0) < 1e-14);

            Eigen::MatrixXd row(1, 4);
            row << 1, 2, 2, 4; // ‖row‖ = 5
            s = solver.compute(row);
            QCOMPARE(s.singularValues.size(), 1);
            QVERIFY(std::abs(s.singularValues[0] - 5.0) < 1e-13);
            s = solver.compute(row.transpose());
            QCOMPARE(s.singularValues.size(), 1);
            QVERIFY(std::abs(s.singularValues[0] - 5.0) < 1e-13);
        }
    }

    void hugeAspectRatios()
    {
        std::mt19937_64 rng(5);
        const Eigen::MatrixXd wide = test::gaussianMatrix(2, 100000, rng);
        for (SvdMethod method : {SvdMethod::FastGram, SvdMethod::ExactSvd}) {
            const Spectrum s = SingularValueSolver(method).compute(wide);
            QVERIFY(s.ok());
            QCOMPARE(s.singularValues.size(), 2);
            // σ₁² + σ₂² = ‖W‖²_F whatever the shape.
            QVERIFY(std::abs(s.singularValues.squaredNorm() - wide.squaredNorm()) <= 1e-9 * wide.squaredNorm());
            const Spectrum t = SingularValueSolver(method).compute(wide.transpose());
            QVERIFY(std::abs(t.singularValues[0] - s.singularValues[0]) <= 1e-9 * s.singularValues[0]);
        }
    }

    void rankDeficientGramHasNoNegativeOrNaNValues()
    {
        std::mt19937_64 rng(7);
        // rank 3 in 50×20: the Gram eigenvalues of the null space round to ±tiny.
        const Eigen::MatrixXd w = test::gaussianMatrix(50, 3, rng) * test::gaussianMatrix(3, 20, rng);
        const Spectrum s = SingularValueSolver(SvdMethod::FastGram).compute(w);
        QVERIFY(s.ok());
        QVERIFY(s.singularValues.allFinite());
        QVERIFY(s.singularValues.minCoeff() >= 0.0);
        QVERIFY(s.singularValues[2] > 1e-3 * s.singularValues[0]);
        QVERIFY(s.singularValues[3] < 1e-6 * s.singularValues[0]);
    }

    // The contract: the fast path's metrics agree with an exact SVD's within the stated tolerances.
    void fastPathMeetsContract_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<bool>("lowRankPlusNoise");
        QTest::addColumn<Eigensolver>("eigensolver");
        QTest::addColumn<bool>("blocked");
        for (auto [r, c] : {std::pair{64, 64}, {256, 64}, {64, 256}, {300, 97}, {17, 203}, {2, 9}}) {
            QTest::addRow("gaussian %dx%d", r, c) << r << c << false << Eigensolver::BySize << false;
            QTest::addRow("trained-like %dx%d", r, c) << r << c << true << Eigensolver::BySize << false;
            // Both LAPACK eigensolvers, whichever the size picks, and the Gram matrix accumulated from
            // many blocks widened one at a time (7 lines each: a ragged last block).
            QTest::addRow("trained-like %dx%d dsyevd", r, c) << r << c << true << Eigensolver::DivideAndConquer << false;
            QTest::addRow("trained-like %dx%d dsyev_2stage", r, c) << r << c << true << Eigensolver::TwoStage << false;
            QTest::addRow("trained-like %dx%d blocked", r, c) << r << c << true << Eigensolver::BySize << true;
        }
    }
    void fastPathMeetsContract()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(bool, lowRankPlusNoise);
        QFETCH(Eigensolver, eigensolver);
        QFETCH(bool, blocked);
        std::mt19937_64 rng(rows * 1000 + cols);
        Eigen::MatrixXd w = test::gaussianMatrix(rows, cols, rng, 0.02);
        if (lowRankPlusNoise) // a few strong directions over noise, like a trained weight matrix
            w += test::gaussianMatrix(rows, 4, rng) * test::gaussianMatrix(4, cols, rng) * 0.3;
        SingularValueSolver fastSolver(SvdMethod::FastGram, eigensolver);
        if (blocked)
            fastSolver.setGramBlockBytes(7 * sizeof(double) * std::min(rows, cols));
        const Spectrum fast = blocked ? fastSolver.compute(BlocksOnly(w)) : fastSolver.compute(w);
        const Spectrum exact = SingularValueSolver(SvdMethod::ExactSvd).compute(w);
        QVERIFY(fast.ok() && exact.ok());
        const SpectralMetrics f = computeSpectralMetrics(fast.singularValues, rows, cols);
        const SpectralMetrics e = computeSpectralMetrics(exact.singularValues, rows, cols);
        auto relative = [](double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); };
        QVERIFY(relative(f.stableRank, e.stableRank) <= 1e-6);
        QVERIFY(relative(f.effectiveRank, e.effectiveRank) <= 1e-6);
        QVERIFY(relative(f.spectralNorm, e.spectralNorm) <= 1e-6);
        QVERIFY(relative(f.frobeniusNorm, e.frobeniusNorm) <= 1e-6);
        QCOMPARE(f.compressionPct, e.compressionPct);
        if (std::isnan(e.alpha)) {
            QVERIFY(std::isnan(f.alpha));
        } else {
            QVERIFY2(std::abs(f.alpha - e.alpha) <= 1e-3,
                     qPrintable(QStringLiteral("alpha %1 vs %2").arg(f.alpha).arg(e.alpha)));
        }
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestSingularValueSolver)
} // namespace tst_singularvaluesolver

#include "tst_SingularValueSolver.moc"
