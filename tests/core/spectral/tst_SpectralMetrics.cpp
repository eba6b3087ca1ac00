#include "spectral/EigenvalueDensity.h"
#include "spectral/SingularValueSolver.h"
#include "spectral/MetricCatalog.h"
#include "spectral/SpectralMetrics.h"
#include "TestMatrices.h"
#include "TestSuite.h"

#include <cmath>
#include <limits>

namespace tst_spectralmetrics {

using namespace rankscope;

namespace {
bool close(double a, double b, double rel = 1e-9) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }
// Equal value for value, NaN matching NaN (rand_distance is NaN until the matrix gives it).
bool sameValues(const SpectralMetrics &a, const SpectralMetrics &b)
{
    const QList<double> va = spectralMetricValues(a), vb = spectralMetricValues(b);
    for (qsizetype i = 0; i < va.size(); ++i)
        if (!(va[i] == vb[i] || (std::isnan(va[i]) && std::isnan(vb[i]))))
            return false;
    return va.size() == vb.size();
}
} // namespace

class TestSpectralMetrics : public QObject {
    Q_OBJECT
private slots:
    // The ESD of the spectrum view: one decade per bin here, density = count / (N · width), the
    // eigenvalue at or below the threshold counted in N only.
    void eigenvalueDensityOnLogBins()
    {
        Eigen::VectorXd lambda(6);
        lambda << 1, 3, 30, 300, 1000, 1e-6;
        const QList<QPair<double, double>> density = logBinnedDensity(lambda, 3);
        QCOMPARE(density.size(), 3);
        const double edges[] = {1, 10, 100, 1000};
        const int counts[] = {2, 1, 2}; // the largest falls in the last bin
        for (int i = 0; i < 3; ++i) {
            QVERIFY(std::abs(density[i].first - std::sqrt(edges[i] * edges[i + 1])) < 1e-6 * edges[i + 1]);
            QVERIFY(std::abs(density[i].second - counts[i] / (6.0 * (edges[i + 1] - edges[i]))) < 1e-6 * density[i].second);
        }
        QCOMPARE(logBinnedDensity(Eigen::VectorXd::Constant(4, 2.0), 3).size(), 1); // all equal: one narrow bin
        QVERIFY(logBinnedDensity(Eigen::VectorXd::Constant(1, 2.0), 3).isEmpty());
        QCOMPARE(densityBinsFor(4), 8);
        QCOMPARE(densityBinsFor(768), 41);
        QCOMPARE(densityBinsFor(1 << 20), 60);
    }

    // The density bins only finite eigenvalues, whatever it is given, and returns only points a
    // log–log axis can hold. An Inf made every bin index NaN, cast to an index far outside the
    // counts (SIGSEGV in export --figure spectrum and the window); λ past 1e154 made the bin
    // centre √(left·right) Inf.
    void eigenvalueDensityOfNonFiniteAndHugeValues()
    {
        Eigen::VectorXd lambda(6);
        lambda << 1, 10, 100, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), 1e-6;
        const QList<QPair<double, double>> density = logBinnedDensity(lambda, 2);
        QCOMPARE(density.size(), 2);
        // Bins of log10 λ over [0, 2 + 1e-9]: 1 and 10 in the first, 100 in the second; N counts all 6.
        const double b = 2 + 1e-9;
        QVERIFY(close(density[0].first, std::pow(10.0, b / 4)));
        QVERIFY(close(density[0].second, 2 / (6.0 * (std::pow(10.0, b / 2) - 1))));
        QVERIFY(close(density[1].first, std::pow(10.0, 3 * b / 4)));
        QVERIFY(close(density[1].second, 1 / (6.0 * (std::pow(10.0, b) - std::pow(10.0, b / 2)))));
        QVERIFY(logBinnedDensity(Eigen::VectorXd::Constant(3, std::numeric_limits<double>::infinity()), 8).isEmpty());

        Eigen::VectorXd huge(4);
        huge << 1e300, 1e305, 1.5e308, 1e-3;
        for (int bins : {1, 3, 60}) {
            const QList<QPair<double, double>> points = logBinnedDensity(huge, bins);
            QVERIFY(!points.isEmpty());
            for (const auto &[x, y] : points)
                QVERIFY2(std::isfinite(x) && x > 0 && std::isfinite(y) && y > 0,
                         qPrintable(QStringLiteral("%1 bins: (%2, %3)").arg(bins).arg(x).arg(y)));
        }
    }

    // A spectrum the metrics cannot take is named and gives every metric NaN, never Inf or a
    // number computed from NaN: a 1e155 singular value squares to Inf. 1e149 is still a spectrum.
    void unusableSpectraGiveNaNMetrics_data()
    {
        QTest::addColumn<double>("bad");
        QTest::addColumn<QString>("problem");
        QTest::newRow("inf") << std::numeric_limits<double>::infinity() << "1 of its 3 singular values is NaN or Inf";
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "1 of its 3 singular values is NaN or Inf";
        QTest::newRow("negative") << -1.0 << "1 of its 3 singular values is negative";
        QTest::newRow("1e155") << 1e155 << QStringLiteral("too large for float64 (\u03c3\u2081 = 1e+155, ");
    }
    void unusableSpectraGiveNaNMetrics()
    {
        QFETCH(double, bad);
        QFETCH(QString, problem);
        Eigen::VectorXd sigma(3);
        sigma << bad, 2, 1;
        QVERIFY2(spectrumProblem(sigma).contains(problem), qPrintable(spectrumProblem(sigma)));
        const QList<double> values = spectralMetricValues(computeSpectralMetrics(sigma, 3, 3));
        for (qsizetype i = 0; i < values.size(); ++i)
            QVERIFY2(std::isnan(values[i]), qPrintable(QStringLiteral("%1 = %2").arg(spectralMetricColumns()[i]).arg(values[i])));

        sigma[0] = 1e149; // Σσ² = 1e298
        QVERIFY(spectrumProblem(sigma).isEmpty());
        const SpectralMetrics fine = computeSpectralMetrics(sigma, 3, 3);
        QCOMPARE(fine.spectralNorm, 1e149);
        QVERIFY(std::isfinite(fine.frobeniusNorm) && std::isfinite(fine.stableRank) && std::isfinite(fine.logNorm));
        QVERIFY(spectrumProblem(Eigen::VectorXd()).isEmpty()); // no values: nothing wrong with them
    }

    // σ = 4, 3, 2, 1 in an 8×4 matrix built as U·diag(s)·Vᵀ: every metric in closed form.
    void closedFormThroughTheSolver_data()
    {
        QTest::addColumn<int>("method");
        QTest::newRow("gram") << int(SvdMethod::FastGram);
        QTest::newRow("svd") << int(SvdMethod::ExactSvd);
    }
    void closedFormThroughTheSolver()
    {
        QFETCH(int, method);
        std::mt19937_64 rng(1);
        Eigen::VectorXd s(4);
        s << 4, 3, 2, 1;
        const Eigen::MatrixXd w = test::withSingularValues(8, 4, s, rng);
        const Spectrum spectrum = SingularValueSolver(SvdMethod(method)).compute(w);
        QVERIFY(spectrum.ok());
        const SpectralMetrics m = computeSpectralMetrics(spectrum.singularValues, 8, 4);

        QVERIFY(close(m.stableRank, 30.0 / 16.0));
        QCOMPARE(m.energyRank, 3.0); // 16 + 9 + 4 = 29 ≥ 0.9·30 = 27 > 25
        QCOMPARE(m.compressionPct, 25.0);
        const double entropy = -(0.4 * std::log(0.4) + 0.3 * std::log(0.3) + 0.2 * std::log(0.2) + 0.1 * std::log(0.1));
        QVERIFY(close(m.effectiveRank, std::exp(entropy)));
        QVERIFY(close(m.spectralNorm, 4.0));
        QVERIFY(close(m.frobeniusNorm, std::sqrt(30.0)));
        QVERIFY(close(m.paramSavingPct, 100.0 * (1.0 - 3.0 * 12.0 / 32.0)));
        QCOMPARE(m.numericalRank, 4.0);
        QVERIFY(std::isfinite(m.alpha));
        QVERIFY(close(m.weightedAlpha, m.alpha * std::log10(16.0)));
    }

    void energyThresholdChangesOnlyCompression()
    {
        Eigen::VectorXd s(4);
        s << 4, 3, 2, 1;
        QCOMPARE(computeSpectralMetrics(s, 4, 4, 0.5).compressionPct, 75.0);  // 16 ≥ 15
        QCOMPARE(computeSpectralMetrics(s, 4, 4, 0.99).compressionPct, 0.0); // needs all four
        QCOMPARE(computeSpectralMetrics(s, 4, 4, 0.5).stableRank, computeSpectralMetrics(s, 4, 4, 0.99).stableRank);
        // r is min(m, n), even when the spectrum is shorter than the matrix's larger side.
        QCOMPARE(computeSpectralMetrics(s, 4, 100, 0.5).compressionPct, 75.0);
    }

    // A partial sum exactly at τ·Σλ counts as reaching it (the contract's 1e-12 slack).
    void partialSumAtThresholdCounts()
    {
        Eigen::VectorXd s(2);
        s << 3, 1; // λ = 9, 1: 9 is exactly 0.9 of 10
        QCOMPARE(energyRank(s, 0.9), 1);
        QCOMPARE(computeSpectralMetrics(s, 2, 2, 0.9).compressionPct, 50.0);
    }

    void diagonalMatrixMetrics()
    {
        Eigen::VectorXd d(5);
        d << 1, 1, 1, 1, 1; // an identity: every direction equal
        const SpectralMetrics m = computeSpectralMetrics(d, 5, 5);
        QVERIFY(close(m.stableRank, 5.0));
        QVERIFY(close(m.effectiveRank, 5.0));
        QCOMPARE(m.compressionPct, 0.0); // k = 5 of 5: 4 of 5 keep only 80 %
        QVERIFY(std::isnan(m.alpha));    // no spread, no power law
        QVERIFY(std::isnan(m.weightedAlpha));
    }

    void zeroMatrixGivesNaNNotACrash()
    {
        const SpectralMetrics m = computeSpectralMetrics(Eigen::VectorXd::Zero(3), 3, 7);
        QVERIFY(std::isnan(m.stableRank));
        QVERIFY(std::isnan(m.compressionPct));
        QVERIFY(std::isnan(m.alpha));
        QVERIFY(std::isnan(m.weightedAlpha));
        QVERIFY(std::isnan(m.effectiveRank));
        QCOMPARE(m.spectralNorm, 0.0);
        QCOMPARE(m.frobeniusNorm, 0.0);
        QCOMPARE(m.numericalRank, 0.0);
    }

    void oneByOne()
    {
        Eigen::VectorXd s(1);
        s << 2.5;
        const SpectralMetrics m = computeSpectralMetrics(s, 1, 1);
        QCOMPARE(m.stableRank, 1.0);
        QCOMPARE(m.compressionPct, 0.0);
        QCOMPARE(m.effectiveRank, 1.0);
        QCOMPARE(m.spectralNorm, 2.5);
        QCOMPARE(m.frobeniusNorm, 2.5);
        QVERIFY(std::isnan(m.alpha)); // fewer than two eigenvalues
    }

    void zeroSingularValuesAreLeftOutOfEffectiveRank()
    {
        Eigen::VectorXd s(4);
        s << 2, 2, 0, 0;
        const SpectralMetrics m = computeSpectralMetrics(s, 4, 4);
        QVERIFY(close(m.effectiveRank, 2.0));
        QCOMPARE(m.numericalRank, 2.0);
    }

    void applyEnergyMatchesAFullRecompute()
    {
        Eigen::VectorXd s(6);
        s << 5, 3, 2, 1.5, 0.5, 0.1;
        for (double energy : {0.5, 0.8, 0.95, 0.999}) {
            SpectralMetrics m = computeSpectralMetrics(s, 6, 10, 0.9);
            applyEnergy(m, s, 6, 10, energy);
            const SpectralMetrics full = computeSpectralMetrics(s, 6, 10, energy);
            QVERIFY(sameValues(m, full));
        }
        const SpectralMetrics m = computeSpectralMetrics(s, 6, 10);
        QVERIFY(sameValues(spectralMetricsFromValues(spectralMetricValues(m)), m));
        SpectralMetrics withDistance = m;
        withDistance.randDistance = 0.25;
        QCOMPARE(spectralMetricsFromValues(spectralMetricValues(withDistance)).randDistance, 0.25);
    }

    void columnsAndValuesLineUp()
    {
        Eigen::VectorXd s(3);
        s << 3, 2, 1;
        const SpectralMetrics m = computeSpectralMetrics(s, 3, 3);
        const QStringList columns = spectralMetricColumns();
        const QList<double> values = spectralMetricValues(m);
        QCOMPARE(columns.size(), values.size());
        QCOMPARE(columns.mid(0, 7), (QStringList{"stable_rank", "compression_pct", "alpha", "weighted_alpha",
                                                "effective_rank", "spectral_norm", "frobenius_norm"}));
        QCOMPARE(values[columns.indexOf("stable_rank")], m.stableRank);
        QCOMPARE(values[columns.indexOf("frobenius_norm")], m.frobeniusNorm);
        QCOMPARE(values[columns.indexOf("alpha_tail_size")], m.alphaTailSize);
        // The columns that need the matrix come last, so a reader of the spectrum's own keeps its positions.
        const QStringList needMatrix = matrixMetricColumns();
        QCOMPARE(columns.mid(columns.size() - needMatrix.size()), needMatrix);
        QVERIFY(std::isnan(values[columns.indexOf("rand_distance")])); // computed only with the matrix
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestSpectralMetrics)
} // namespace tst_spectralmetrics

#include "tst_SpectralMetrics.moc"
