// alpha's bootstrap interval (spectral/AlphaInterval) against its closed-form limit: for the
// maximum-likelihood alpha of n points of a power law above a known x_min, α̂ = 1 + n/Σ ln(x/x_min)
// has standard error (α − 1)/√n, so the 95 % interval is about 2·1.96·(α − 1)/√n wide; and its
// generator, percentile and seed pinned against an independent Python computation.
#include "spectral/AlphaInterval.h"
#include "TestSuite.h"

#include <algorithm>
#include <cmath>

namespace tst_alphainterval {

using namespace rankscope;

namespace {

// n draws of p(x) = (α − 1)/x_min·(x/x_min)^(−α), x ≥ x_min, by inverting its CDF on uniforms
// from a generator of its own (not the one under test, so that a wrong generator cannot hide).
Eigen::VectorXd paretoSample(int n, double alpha, double xmin, std::uint64_t seed)
{
    Eigen::VectorXd x(n);
    std::uint64_t state = seed;
    for (int i = 0; i < n; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL; // Knuth's MMIX LCG
        const double u = double(state >> 11) * 0x1.0p-53;                 // in [0, 1)
        x[i] = xmin * std::pow(1.0 - u, -1.0 / (alpha - 1.0));
    }
    return x;
}

PowerLawFit fixedTail(const Eigen::VectorXd &x, double xmin)
{
    PowerLawFit fit;
    fit.ok = true;
    fit.xmin = xmin;
    fit.tailSize = int((x.array() >= xmin).count());
    double logSum = 0;
    for (double v : x)
        if (v >= xmin)
            logSum += std::log(v / xmin);
    fit.alpha = 1.0 + fit.tailSize / logSum;
    return fit;
}

} // namespace

class TestAlphaInterval : public QObject {
    Q_OBJECT
private slots:
    // The closed-form limit, x_min fixed at the law's own. The tolerance: the width estimated from
    // 1000 resamples has a Monte-Carlo error of about 3 %, the sample's own spread of ln x adds
    // √(8/n)/2 ≈ 2 % at n = 5000 (ln(x/x_min) is exponential, kurtosis 9), and the MLE's
    // skewness O(1/√n) under 1 %: 12 % is over three of those standard deviations together, and
    // a width off by a factor (√2 from resampling half the tail, or a percentile at 5 %) is far
    // outside it. The seeds are fixed, so the test is as deterministic as what it tests.
    void widthApproachesTheClosedFormLimit_data()
    {
        QTest::addColumn<double>("alpha");
        QTest::addColumn<int>("n");
        QTest::newRow("alpha 2.5, n 5000") << 2.5 << 5000;
        QTest::newRow("alpha 4, n 5000") << 4.0 << 5000;
        QTest::newRow("alpha 3, n 20000") << 3.0 << 20000;
    }
    void widthApproachesTheClosedFormLimit()
    {
        QFETCH(double, alpha);
        QFETCH(int, n);
        const Eigen::VectorXd x = paretoSample(n, alpha, 0.5, 7);
        const PowerLawFit fit = fixedTail(x, 0.5);
        QCOMPARE(fit.tailSize, n);
        const AlphaInterval interval = alphaInterval(x, fit);
        QVERIFY(interval.ok());
        const double expected = 2 * 1.959963984540054 * (fit.alpha - 1) / std::sqrt(double(n));
        const double width = interval.high - interval.low;
        QVERIFY2(std::abs(width / expected - 1) < 0.12, qPrintable(QStringLiteral("width %1, closed form %2").arg(width).arg(expected)));
        // It holds the estimate, and the true alpha (within the 95 %: true for these seeds).
        QVERIFY(interval.low < fit.alpha && fit.alpha < interval.high);
        QVERIFY(interval.low < alpha && alpha < interval.high);
    }

    // The same through the fit the analysis makes: x_min chosen by the KS distance, the tail its
    // n points, the width that of n.
    void widthOfTheFittedTail()
    {
        Eigen::VectorXd x = paretoSample(4000, 3.0, 1.0, 11);
        const PowerLawFit fit = fitPowerLaw(x);
        QVERIFY(fit.ok && fit.tailSize > 1000);
        const AlphaInterval interval = alphaInterval(x, fit);
        const double expected = 2 * 1.959963984540054 * (fit.alpha - 1) / std::sqrt(double(fit.tailSize));
        QVERIFY2(std::abs((interval.high - interval.low) / expected - 1) < 0.12,
                 qPrintable(QStringLiteral("width %1, closed form %2 (n %3)").arg(interval.high - interval.low).arg(expected).arg(fit.tailSize)));
        // Only the tail is drawn: the points below x_min change nothing.
        Eigen::VectorXd withBulk(x.size() + 3);
        withBulk << x, 0.5 * fit.xmin, 0.25 * fit.xmin, 0.0;
        const AlphaInterval same = alphaInterval(withBulk, fit);
        QCOMPARE(same.low, interval.low);
        QCOMPARE(same.high, interval.high);
    }

    // Same seed, same numbers, whatever order the eigenvalues come in; another seed, others.
    void deterministic()
    {
        const Eigen::VectorXd x = paretoSample(300, 2.5, 1.0, 3);
        const PowerLawFit fit = fitPowerLaw(x);
        const std::vector<double> first = alphaResamples(x, fit);
        QCOMPARE(int(first.size()), kAlphaCiResamples);
        QVERIFY(first == alphaResamples(x, fit));
        const Eigen::VectorXd reversed = x.reverse();
        QVERIFY(first == alphaResamples(reversed, fit));
        QVERIFY(first != alphaResamples(x, fit, kAlphaCiResamples, kAlphaCiSeed + 1));
        const AlphaInterval a = alphaInterval(x, fit), b = alphaInterval(reversed, fit);
        QCOMPARE(a.low, b.low);
        QCOMPARE(a.high, b.high);
    }

    // xoshiro256** seeded by splitmix64, as a Python implementation of both (arbitrary-precision
    // integers, masked to 64 bits) gives them: the same draws on every platform and library.
    void generatorMatchesItsDefinition()
    {
        AlphaBootstrapRandom zero(0);
        QCOMPARE(zero.next(), 0x99ec5f36cb75f2b4ULL);
        QCOMPARE(zero.next(), 0xbf6e1f784956452aULL);
        QCOMPARE(zero.next(), 0x1a5f849d4933e6e0ULL);
        AlphaBootstrapRandom seeded(kAlphaCiSeed);
        QCOMPARE(seeded.next(), 0x422ea740d0977210ULL);
        QCOMPARE(seeded.next(), 0xe062b061b42e2928ULL);
        AlphaBootstrapRandom bounded(1);
        for (int i = 0; i < 1000; ++i)
            QVERIFY(bounded.below(7) < 7);
    }

    // numpy.percentile's default: [1, 2, 3, 4, 5, 7, 10] at 2.5 % and 97.5 % is 1.15 and 9.55.
    void percentileIsNumpysLinear()
    {
        const std::vector<double> sorted{1, 2, 3, 4, 5, 7, 10};
        QVERIFY(std::abs(sortedPercentile(sorted, 0.025) - 1.15) < 1e-12);
        QVERIFY(std::abs(sortedPercentile(sorted, 0.975) - 9.55) < 1e-12);
        QCOMPARE(sortedPercentile(sorted, 0.0), 1.0);
        QCOMPARE(sortedPercentile(sorted, 1.0), 10.0);
        QVERIFY(std::isnan(sortedPercentile({}, 0.5)));
    }

    // No fit, no interval; a tail of two points draws x_min alone in a quarter of its resamples
    // (alpha unbounded there), so its upper endpoint is not finite: NaN, not a number made up.
    void noIntervalWithoutAFitOrABoundedTail()
    {
        Eigen::VectorXd none(1);
        none << 1.0;
        QVERIFY(!alphaInterval(none, fitPowerLaw(none)).ok());
        Eigen::VectorXd two(2);
        two << 1.0, 2.0;
        const PowerLawFit fit = fitPowerLaw(two);
        QVERIFY(fit.ok);
        QVERIFY(!alphaInterval(two, fit).ok());
        SpectralMetrics m = computeSpectralMetrics(Eigen::VectorXd::Zero(4), 4, 4);
        setAlphaInterval(m, Eigen::VectorXd::Zero(4));
        QVERIFY(std::isnan(m.alphaCiLow) && std::isnan(m.alphaCiHigh));
    }

    // From a spectrum: the tail its metrics recorded (λ = σ² ≥ alpha_xmin).
    void fromSingularValues()
    {
        const Eigen::VectorXd lambda = paretoSample(500, 3.0, 1.0, 5);
        Eigen::VectorXd sigma = lambda.array().sqrt();
        std::sort(sigma.data(), sigma.data() + sigma.size(), std::greater<>());
        SpectralMetrics m = computeSpectralMetrics(sigma, 500, 800);
        QVERIFY(std::isnan(m.alphaCiLow) && std::isnan(m.alphaCiHigh)); // opt-in: not computed unasked
        setAlphaInterval(m, sigma);
        const Eigen::VectorXd squared = sigma.array().square();
        const AlphaInterval expected = alphaInterval(squared, fitPowerLaw(squared));
        QCOMPARE(m.alphaCiLow, expected.low);
        QCOMPARE(m.alphaCiHigh, expected.high);
        QVERIFY(m.alphaCiLow < m.alpha && m.alpha < m.alphaCiHigh);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestAlphaInterval)
} // namespace tst_alphainterval

#include "tst_AlphaInterval.moc"
