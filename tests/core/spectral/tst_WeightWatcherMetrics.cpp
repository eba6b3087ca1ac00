// WeightWatcher's columns on matrices whose answer is known: norms in closed form, and a
// Marchenko–Pastur bulk (a Gaussian matrix) with a known number of planted spikes.
#include "spectral/SingularValueSolver.h"
#include "spectral/SpectralMetrics.h"
#include "spectral/WeightWatcherMetrics.h"
#include "TestMatrices.h"
#include "TestSuite.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <numeric>

namespace tst_weightwatchermetrics {

using namespace rankscope;

namespace {

bool close(double a, double b, double rel = 1e-12) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }

// A Gaussian rows×cols matrix with entries of variance 1/rows (its eigenvalues of WᵀW follow the
// MP law with σ² = 1 and Q = rows/cols, edge (1 + 1/√Q)²) plus spikes θᵢ·uᵢvᵢᵀ along orthonormal
// directions: each θ far above the edge's singular value gives one eigenvalue far outside the bulk.
Eigen::MatrixXd spikedGaussian(int rows, int cols, const QList<double> &spikes, std::mt19937_64 &rng)
{
    Eigen::MatrixXd w = test::gaussianMatrix(rows, cols, rng, 1.0 / std::sqrt(double(rows)));
    const Eigen::MatrixXd u = test::randomOrthogonal(rows, rng), v = test::randomOrthogonal(cols, rng);
    for (qsizetype i = 0; i < spikes.size(); ++i)
        w += spikes[i] * u.col(i) * v.col(i).transpose();
    return w;
}

Eigen::VectorXd eigenvaluesOf(const Eigen::MatrixXd &w)
{
    return test::exactSingularValues(w).array().square();
}

} // namespace

class TestWeightWatcherMetrics : public QObject {
    Q_OBJECT
private slots:
    // λ = 16, 9, 4, 1: Σλ = 30, λ₁ = 16, Σλ² = 354.
    void normsInClosedForm()
    {
        Eigen::VectorXd lambda(4);
        lambda << 16, 9, 4, 1;
        const WeightWatcherNorms n = weightWatcherNorms(lambda, 2.0);
        QVERIFY(close(n.logNorm, std::log10(30.0)));
        QVERIFY(close(n.logSpectralNorm, std::log10(16.0)));
        QVERIFY(close(n.logAlphaNorm, std::log10(354.0)));
        // WeightWatcher's alpha_weighted is α·log_spectral_norm: our weighted_alpha.
        Eigen::VectorXd sigma = lambda.array().sqrt();
        const SpectralMetrics m = computeSpectralMetrics(sigma, 8, 4);
        QVERIFY(close(m.logNorm, std::log10(30.0)));
        QVERIFY(close(m.logSpectralNorm, std::log10(16.0)));
        QVERIFY(close(m.weightedAlpha, m.alpha * m.logSpectralNorm, 1e-9));
        double alphaNorm = 0;
        for (double l : lambda)
            alphaNorm += std::pow(l, m.alpha);
        QVERIFY(close(m.logAlphaNorm, std::log10(alphaNorm), 1e-9));
    }

    void logAlphaNormIsNaNWithoutAlpha()
    {
        Eigen::VectorXd lambda = Eigen::VectorXd::Constant(5, 1.0); // no spread: no power law
        const SpectralMetrics m = computeSpectralMetrics(lambda, 5, 5);
        QVERIFY(std::isnan(m.alpha));
        QVERIFY(std::isnan(m.logAlphaNorm));
        QCOMPARE(m.logNorm, std::log10(5.0));
        QCOMPARE(m.logSpectralNorm, 0.0);
    }

    // λᵢ^α overflows long before λ does (1e40 at α = 9 is 1e360): log_alpha_norm is still
    // log10(Σλᵢ^α), from the sum scaled by λ_max^α, never Inf; a sum that fits is WeightWatcher's own.
    void logAlphaNormOfLargeEigenvalues()
    {
        Eigen::VectorXd lambda(3);
        lambda << 1e40, 1e20, 1;
        const WeightWatcherNorms n = weightWatcherNorms(lambda, 9.0);
        QVERIFY2(close(n.logAlphaNorm, 360.0), qPrintable(QString::number(n.logAlphaNorm))); // 1e360 + 1e180 + 1
        QVERIFY(close(n.logNorm, 40.0));
        QVERIFY(close(n.logSpectralNorm, 40.0));
        QCOMPARE(weightWatcherNorms(lambda, 2.0).logAlphaNorm, std::log10(std::pow(1e40, 2.0) + std::pow(1e20, 2.0) + 1.0));
        // An Inf eigenvalue gives no norm at all (computeSpectralMetrics lets none through).
        lambda[0] = std::numeric_limits<double>::infinity();
        QVERIFY(std::isnan(weightWatcherNorms(lambda, 2.0).logNorm));
        QVERIFY(std::isnan(weightWatcherNorms(lambda, 2.0).logAlphaNorm));
    }

    // Eigenvalues so small that rescaling them to mean 1 overflows (denormals, σ ≈ 1e-160) have no
    // Marchenko–Pastur fit: Inf and NaN (Inf · 0) never reach the density estimate's sort.
    void denormalEigenvaluesHaveNoMarchenkoPasturFit()
    {
        Eigen::VectorXd lambda = Eigen::VectorXd::Zero(40);
        for (int i = 0; i < 20; ++i)
            lambda[i] = 1e-320 * (i + 1);
        const MarchenkoPasturFit fit = fitMarchenkoPastur(lambda, 80, 40);
        QVERIFY(!fit.ok);
        QCOMPARE(fit.numSpikes, 0);
        Eigen::VectorXd sigma = lambda.cwiseSqrt();
        const SpectralMetrics m = computeSpectralMetrics(sigma, 80, 40);
        QVERIFY(std::isnan(m.numSpikes) && std::isnan(m.mpSoftrank));
        QVERIFY(std::isfinite(m.stableRank));
    }

    void zeroMatrixGivesNaN()
    {
        const SpectralMetrics m = computeSpectralMetrics(Eigen::VectorXd::Zero(4), 4, 6);
        QVERIFY(std::isnan(m.logNorm));
        QVERIFY(std::isnan(m.logSpectralNorm));
        QVERIFY(std::isnan(m.logAlphaNorm));
        QVERIFY(std::isnan(m.numSpikes));
        QVERIFY(std::isnan(m.mpSoftrank));
        QVERIFY(!fitMarchenkoPastur(Eigen::VectorXd(), 0, 0).ok);
    }

    void plantedSpikesAreCounted_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<QList<double>>("spikes");
        QTest::newRow("Q=4, no spike") << 1000 << 250 << QList<double>{};
        QTest::newRow("Q=4, 3 spikes") << 1000 << 250 << QList<double>{5, 7, 9};
        QTest::newRow("Q=4, 6 spikes") << 1000 << 250 << QList<double>{4, 5, 6, 7, 8, 10};
        QTest::newRow("Q=2 wide, 4 spikes") << 300 << 600 << QList<double>{5, 6, 7, 8};
        QTest::newRow("Q=1, no spike") << 400 << 400 << QList<double>{};
        QTest::newRow("Q=1, 5 spikes") << 400 << 400 << QList<double>{5, 6, 7, 8, 9};
    }
    void plantedSpikesAreCounted()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(QList<double>, spikes);
        std::mt19937_64 rng(17);
        // A wide matrix: the Gaussian part is made tall and transposed, so its MP law is known.
        const Eigen::MatrixXd w = rows >= cols ? spikedGaussian(rows, cols, spikes, rng)
                                               : Eigen::MatrixXd(spikedGaussian(cols, rows, spikes, rng).transpose());
        const Eigen::VectorXd lambda = eigenvaluesOf(w);
        const MarchenkoPasturFit fit = fitMarchenkoPastur(lambda, rows, cols);
        QVERIFY(fit.ok);
        QCOMPARE(fit.numSpikes, int(spikes.size()));

        // The bulk of the rescaled spectrum (mean eigenvalue 1) has σ² = M / (M + Σθ²) of the
        // unscaled one (σ² = 1): the fitted σ must find it. WeightWatcher's quarter-circle law
        // (Q = 1) keeps its support at [0, 2] whatever σ is, so there only σ = 1 is a known answer.
        const double n = std::max(rows, cols), m = std::min(rows, cols), q = n / m;
        double planted = 0;
        for (double theta : spikes)
            planted += theta * theta;
        const double expectedSigma = std::sqrt(m / (m + planted));
        if (q != 1 || spikes.isEmpty())
            QVERIFY2(std::abs(fit.sigma / expectedSigma - 1) < 0.06,
                     qPrintable(QStringLiteral("σ %1, expected %2").arg(fit.sigma).arg(expectedSigma)));
        QVERIFY(close(fit.bulkMax, std::pow(fit.sigma * (1 + 1 / std::sqrt(q)), 2)));
        QVERIFY(close(fit.scale, m / lambda.sum()));
        QVERIFY(close(fit.softRank, fit.bulkMax / (fit.scale * lambda.maxCoeff())));
        if (spikes.isEmpty()) // the largest eigenvalue sits at the bulk edge
            QVERIFY2(std::abs(fit.softRank - 1) < 0.1, qPrintable(QString::number(fit.softRank)));
        else
            QVERIFY(fit.softRank < 0.2);

        // Through the metrics of a spectrum, as the analysis computes them.
        const SpectralMetrics metrics = computeSpectralMetrics(lambda.array().sqrt(), rows, cols);
        QCOMPARE(metrics.numSpikes, double(spikes.size()));
        QCOMPARE(metrics.mpSoftrank, fit.softRank);
    }

    // The law the spectrum view draws: a density (integral 1, mean σ²), zero outside [λ₋, λ₊], and
    // the law a Gaussian matrix's eigenvalues follow once the fit has found σ.
    void marchenkoPasturDensityIsTheFittedLaw_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::newRow("Q=4") << 1000 << 250;
        QTest::newRow("Q=1") << 400 << 400;
    }
    void marchenkoPasturDensityIsTheFittedLaw()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        for (const double sigma : {0.5, 1.0, 1.7}) {
            const double q = double(rows) / cols;
            const double a = std::pow(sigma * (1 - 1 / std::sqrt(q)), 2), b = std::pow(sigma * (1 + 1 / std::sqrt(q)), 2);
            QCOMPARE(marchenkoPasturDensity(a * 0.999, sigma, q), 0.0);
            QCOMPARE(marchenkoPasturDensity(b * 1.001, sigma, q), 0.0);
            // Midpoint rule on x = a + (b − a)·sin²(t): the square-root edges become smooth.
            double mass = 0, mean = 0;
            const int n = 20000;
            for (int i = 0; i < n; ++i) {
                const double t = (i + 0.5) / n * std::numbers::pi / 2;
                const double x = a + (b - a) * std::sin(t) * std::sin(t);
                const double dx = (b - a) * 2 * std::sin(t) * std::cos(t) * (std::numbers::pi / 2 / n);
                mass += marchenkoPasturDensity(x, sigma, q) * dx;
                mean += x * marchenkoPasturDensity(x, sigma, q) * dx;
            }
            QVERIFY2(std::abs(mass - 1) < 2e-3, qPrintable(QString::number(mass)));
            QVERIFY2(std::abs(mean / (sigma * sigma) - 1) < 2e-3, qPrintable(QString::number(mean)));
        }
        std::mt19937_64 rng(5);
        const Eigen::VectorXd lambda = eigenvaluesOf(spikedGaussian(rows, cols, {}, rng));
        const MarchenkoPasturFit fit = fitMarchenkoPastur(lambda, rows, cols);
        QVERIFY(fit.ok);
        QCOMPARE(fit.q, double(rows) / cols);
        QVERIFY(close(fit.bulkMin, std::pow(fit.sigma * (1 - 1 / std::sqrt(fit.q)), 2)));
        // The share of eigenvalues below the bulk's midpoint is the law's mass there.
        const double mid = (fit.bulkMin + fit.bulkMax) / 2;
        double lawMass = 0;
        for (int i = 0; i < 20000; ++i) {
            const double x = fit.bulkMin + (mid - fit.bulkMin) * (i + 0.5) / 20000;
            lawMass += marchenkoPasturDensity(x, fit.sigma, fit.q) * (mid - fit.bulkMin) / 20000;
        }
        const double share = double((fit.scale * lambda.array() < mid).count()) / double(lambda.size());
        QVERIFY2(std::abs(share - lawMass) < 0.04, qPrintable(QStringLiteral("%1 of the eigenvalues, %2 of the law").arg(share).arg(lawMass)));
    }

    // Rescaling to mean eigenvalue 1 makes the fit blind to W's scale.
    void scaleDoesNotMatter()
    {
        std::mt19937_64 rng(5);
        const Eigen::VectorXd lambda = eigenvaluesOf(spikedGaussian(600, 200, {6, 8}, rng));
        const MarchenkoPasturFit a = fitMarchenkoPastur(lambda, 600, 200);
        const MarchenkoPasturFit b = fitMarchenkoPastur(lambda * 49.0, 200, 600);
        QCOMPARE(a.numSpikes, 2);
        QCOMPARE(b.numSpikes, 2);
        QVERIFY(close(a.softRank, b.softRank, 1e-6));
    }

    // The distance in closed form: equal lists 0; disjoint supports √ln 2; p = (1, 1), q = (1, 3).
    void jensenShannonInClosedForm()
    {
        Eigen::VectorXd p(2), q(2), e1(2), e2(2);
        p << 1, 1;
        q << 1, 3;
        e1 << 1, 0;
        e2 << 0, 1;
        QCOMPARE(jensenShannonDistance(p, p), 0.0);
        QVERIFY(close(jensenShannonDistance(e1, e2), std::sqrt(std::log(2.0))));
        // m = (1, 2): m̂ = (1/3, 2/3), p̂ = (1/2, 1/2), q̂ = (1/4, 3/4).
        const double klP = 0.5 * std::log(0.5 / (1.0 / 3)) + 0.5 * std::log(0.5 / (2.0 / 3));
        const double klQ = 0.25 * std::log(0.25 / (1.0 / 3)) + 0.75 * std::log(0.75 / (2.0 / 3));
        QVERIFY(close(jensenShannonDistance(p, q), std::sqrt((klP + klQ) / 2)));
        QVERIFY(close(jensenShannonDistance(q, p), jensenShannonDistance(p, q)));
        QVERIFY(std::isnan(jensenShannonDistance(Eigen::VectorXd::Zero(2), q)));
    }

    // The same seed, the same permutation; every permutation of four equally likely.
    void shuffleIsAReproducibleUniformPermutation()
    {
        std::vector<double> original(1000);
        std::iota(original.begin(), original.end(), 0.0);
        std::vector<double> a = original, b = original, c = original;
        shuffleEntries(a.data(), Eigen::Index(a.size()), kRandDistanceSeed);
        shuffleEntries(b.data(), Eigen::Index(b.size()), kRandDistanceSeed);
        shuffleEntries(c.data(), Eigen::Index(c.size()), kRandDistanceSeed + 1);
        QVERIFY(a == b);
        QVERIFY(a != original && a != c);
        std::sort(a.begin(), a.end());
        QVERIFY(a == original);

        std::map<std::vector<double>, int> seen;
        constexpr int kTrials = 24000;
        for (int seed = 0; seed < kTrials; ++seed) {
            std::vector<double> v{0, 1, 2, 3};
            shuffleEntries(v.data(), 4, std::uint64_t(seed));
            ++seen[v];
        }
        QCOMPARE(int(seen.size()), 24);
        for (const auto &[permutation, count] : seen) // 1000 expected, σ ≈ 31
            QVERIFY2(std::abs(count - 1000) < 160, qPrintable(QString::number(count)));
    }

    // A rank-one W: its ascending eigenvalues are (0, …, 0, λ), so with t the largest shuffled
    // eigenvalue's share of their sum, JS² = (ln(2/(1+t)) + (1−t)·ln 2 + t·ln(2t/(1+t)))/2.
    // The shuffled spectrum here comes from Eigen's exact SVD, the analysis's from the Gram path.
    void rankOneMatrixInClosedForm()
    {
        std::mt19937_64 rng(3);
        const Eigen::MatrixXd u = test::gaussianMatrix(60, 1, rng), v = test::gaussianMatrix(1, 40, rng);
        const Eigen::MatrixXd w = u * v;
        Eigen::MatrixXd shuffled = w;
        shuffleEntries(shuffled.data(), shuffled.size(), kRandDistanceSeed);
        const Eigen::VectorXd randEvals = eigenvaluesOf(shuffled);
        const double t = randEvals.maxCoeff() / randEvals.sum();
        const double expected =
            std::sqrt((std::log(2 / (1 + t)) + (1 - t) * std::log(2.0) + t * std::log(2 * t / (1 + t))) / 2);

        const SingularValueSolver solver(SvdMethod::FastGram);
        const Spectrum spectrum = solver.compute(w);
        Eigen::MatrixXd copy = w;
        const double d = randDistance(Eigen::Map<Eigen::MatrixXd>(copy.data(), copy.rows(), copy.cols()), spectrum.singularValues, solver);
        QVERIFY2(close(d, expected, 1e-7), qPrintable(QStringLiteral("%1 vs %2").arg(d, 0, 'g', 12).arg(expected, 0, 'g', 12)));
        QVERIFY(d > 0.5); // far from its shuffle
    }

    // A Gaussian matrix is its own shuffle in distribution: its ESD barely moves. Planted spikes
    // are destroyed by the shuffle: the distance grows with them.
    void randomMatrixIsCloseToItsShuffle()
    {
        std::mt19937_64 rng(11);
        const SingularValueSolver solver;
        auto distance = [&](const Eigen::MatrixXd &w) {
            Eigen::MatrixXd copy = w;
            const Spectrum s = solver.compute(w);
            return randDistance(Eigen::Map<Eigen::MatrixXd>(copy.data(), copy.rows(), copy.cols()), s.singularValues, solver);
        };
        const double plain = distance(spikedGaussian(400, 200, {}, rng));
        const double spiked = distance(spikedGaussian(400, 200, {6, 8, 10}, rng));
        QVERIFY2(plain < 0.02, qPrintable(QString::number(plain)));
        QVERIFY2(spiked > 5 * plain, qPrintable(QStringLiteral("%1 vs %2").arg(spiked).arg(plain)));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestWeightWatcherMetrics)
} // namespace tst_weightwatchermetrics

#include "tst_WeightWatcherMetrics.moc"
