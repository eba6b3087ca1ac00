// WeightWatcher's columns on matrices whose answer is known: norms in closed form, and a
// Marchenko–Pastur bulk (a Gaussian matrix) with a known number of planted spikes.
#include "TestMatrices.h"
#include "spectral/SingularValueSolver.h"
#include "spectral/SpectralMetrics.h"
#include "spectral/WeightWatcherMetrics.h"

#include <Eigen/Dense>
#include <QTest>
#include <cmath>

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
    return Eigen::BDCSVD<Eigen::MatrixXd>(w).singularValues().array().square();
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
};

QTEST_GUILESS_MAIN(TestWeightWatcherMetrics)
#include "tst_WeightWatcherMetrics.moc"
