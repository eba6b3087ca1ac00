#include "spectral/PowerLawFit.h"
#include "TestSuite.h"

#include <cmath>
#include <limits>
#include <random>

namespace tst_powerlawfit {

using namespace rankscope;

namespace {

// The contract's algorithm written out literally, with no suffix sums and no pruning: the
// reference the optimised fit must match exactly.
PowerLawFit referenceFit(std::vector<double> x)
{
    std::erase_if(x, [](double v) { return !(v > 1e-5); });
    std::sort(x.begin(), x.end());
    const int n = int(x.size());
    PowerLawFit fit;
    if (n < 2)
        return fit;
    double bestD = std::numeric_limits<double>::infinity();
    for (int i = 0; i + 1 < n; ++i) {
        const int ni = n - i;
        double logSum = 0;
        for (int j = i; j < n; ++j)
            logSum += std::log(x[j] / x[i]);
        const double alpha = 1.0 + ni / logSum;
        double d = 1.0;
        if (alpha > 1.0) {
            d = 0;
            for (int k = 0; k < ni; ++k)
                d = std::max(d, std::abs(1.0 - std::pow(x[i + k] / x[i], 1.0 - alpha) - double(k) / ni));
        }
        if (d < bestD) {
            bestD = d;
            fit.alpha = alpha;
            fit.xmin = x[i];
            fit.ksDistance = d;
            fit.tailSize = ni;
        }
    }
    fit.ok = true;
    return fit;
}

Eigen::VectorXd toVector(const std::vector<double> &v) { return Eigen::Map<const Eigen::VectorXd>(v.data(), Eigen::Index(v.size())); }

} // namespace

class TestPowerLawFit : public QObject {
    Q_OBJECT
private slots:
    // x = {1, e}: one candidate; α = 1 + 2/(ln 1 + ln e) = 3; D = max(0, |1 − e^(−2) − 1/2|).
    void twoValuesByHand()
    {
        Eigen::VectorXd x(2);
        x << std::exp(1.0), 1.0;
        const PowerLawFit fit = fitPowerLaw(x);
        QVERIFY(fit.ok);
        QCOMPARE(fit.alpha, 3.0);
        QCOMPARE(fit.xmin, 1.0);
        QCOMPARE(fit.tailSize, 2);
        QVERIFY(std::abs(fit.ksDistance - (0.5 - std::exp(-2.0))) < 1e-15);
    }

    // Eigenvalues at the quantiles of a Pareto law with density exponent 2.5 (the form of
    // a heavy-tailed trained layer): the fit recovers it.
    void paretoQuantilesRecoverAlpha()
    {
        const double alpha = 2.5;
        const int n = 2000;
        Eigen::VectorXd x(n);
        for (int i = 0; i < n; ++i) {
            const double q = (i + 0.5) / n;
            x[i] = 0.01 * std::pow(1.0 - q, -1.0 / (alpha - 1.0));
        }
        const PowerLawFit fit = fitPowerLaw(x);
        QVERIFY(fit.ok);
        QVERIFY2(std::abs(fit.alpha - alpha) < 0.05, qPrintable(QString::number(fit.alpha)));
        QVERIFY(fit.ksDistance < 0.05);
    }

    // Pareto values under a bulk of small ones: the fit finds the tail's start.
    void tailAboveABulk()
    {
        std::mt19937_64 rng(3);
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        std::vector<double> x;
        for (int i = 0; i < 300; ++i)
            x.push_back(0.001 + 0.009 * uniform(rng)); // bulk below 0.01
        for (int i = 0; i < 700; ++i)
            x.push_back(0.01 * std::pow(1.0 - (i + 0.5) / 700.0, -1.0 / 2.0)); // alpha 3 from 0.01
        const PowerLawFit fit = fitPowerLaw(toVector(x));
        QVERIFY(std::abs(fit.alpha - 3.0) < 0.1);
        QVERIFY(fit.xmin >= 0.009 && fit.xmin < 0.0105);
    }

    void matchesTheLiteralAlgorithm()
    {
        std::mt19937_64 rng(11);
        std::lognormal_distribution<double> lognormal(-2.0, 2.0);
        for (int trial = 0; trial < 40; ++trial) {
            std::vector<double> x(2 + trial * 7);
            for (double &v : x)
                v = lognormal(rng);
            if (trial % 5 == 0)
                x.push_back(x[0]); // ties are kept
            const PowerLawFit expected = referenceFit(x);
            const PowerLawFit actual = fitPowerLaw(toVector(x));
            QCOMPARE(actual.tailSize, expected.tailSize);
            QCOMPARE(actual.xmin, expected.xmin);
            QVERIFY(std::abs(actual.alpha - expected.alpha) <= 1e-9 * expected.alpha);
            QVERIFY(std::abs(actual.ksDistance - expected.ksDistance) <= 1e-9);
        }
    }

    // Eigenvalues of random-like matrices (a Marchenko–Pastur bulk), with and without a heavy tail
    // over it: every candidate's deviation peaks late in its tail, where the candidate order and
    // bounds of the fit do their work. The result is still exactly the literal algorithm's.
    void matchesTheLiteralAlgorithmOnABulk_data()
    {
        QTest::addColumn<double>("ratio");
        QTest::addColumn<int>("outliers");
        QTest::newRow("square, pure bulk") << 1.0 << 0;
        QTest::newRow("4:1, pure bulk") << 0.25 << 0;
        QTest::newRow("square, bulk and tail") << 1.0 << 40;
    }
    void matchesTheLiteralAlgorithmOnABulk()
    {
        QFETCH(double, ratio);
        QFETCH(int, outliers);
        const int n = 1500;
        const double a = std::pow(1 - std::sqrt(ratio), 2), b = std::pow(1 + std::sqrt(ratio), 2);
        // Marchenko–Pastur quantiles by integrating the density on a fine grid.
        const int grid = 200000;
        std::vector<double> xs(grid + 1), cdf(grid + 1, 0.0);
        for (int i = 0; i <= grid; ++i)
            xs[i] = a + (b - a) * std::pow(double(i) / grid, 2);
        for (int i = 1; i <= grid; ++i) {
            const double mid = 0.5 * (xs[i] + xs[i - 1]);
            cdf[i] = cdf[i - 1] + std::sqrt(std::max(0.0, (b - mid) * (mid - a))) / (2 * M_PI * ratio * mid) * (xs[i] - xs[i - 1]);
        }
        std::vector<double> x;
        for (int k = 0, j = 0; k < n; ++k) {
            while (j < grid && cdf[j + 1] < (k + 0.5) / n * cdf[grid])
                ++j;
            x.push_back(3.0 * xs[j]);
        }
        std::mt19937_64 rng(17);
        std::uniform_real_distribution<double> uniform(0.0, 1.0);
        for (int i = 0; i < outliers; ++i)
            x.push_back(3.0 * b * std::pow(1.0 - uniform(rng), -1.0 / 2.5)); // Pareto, alpha 3.5
        const PowerLawFit expected = referenceFit(x);
        const PowerLawFit actual = fitPowerLaw(toVector(x));
        QCOMPARE(actual.tailSize, expected.tailSize);
        QCOMPARE(actual.xmin, expected.xmin);
        QVERIFY(std::abs(actual.alpha - expected.alpha) <= 1e-9 * expected.alpha);
        QVERIFY(std::abs(actual.ksDistance - expected.ksDistance) <= 1e-9);
    }

    void tooFewValuesFail()
    {
        Eigen::VectorXd x(4);
        x << 1e-6, 0.0, 2e-6, 5.0; // only one value above 1e-5
        const PowerLawFit fit = fitPowerLaw(x);
        QVERIFY(!fit.ok);
        QCOMPARE(fit.fitted, 1);
        QVERIFY(!fitPowerLaw(Eigen::VectorXd()).ok);
    }

    void equalValuesHaveNoPowerLaw()
    {
        QVERIFY(!fitPowerLaw(Eigen::VectorXd::Constant(10, 2.0)).ok);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestPowerLawFit)
} // namespace tst_powerlawfit

#include "tst_PowerLawFit.moc"
