#include "spectral/AlphaInterval.h"

#include <algorithm>
#include <cmath>

namespace rankscope {

namespace {

std::uint64_t splitMix64(std::uint64_t &x)
{
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

} // namespace

AlphaBootstrapRandom::AlphaBootstrapRandom(std::uint64_t seed)
{
    for (std::uint64_t &word : m_state)
        word = splitMix64(seed);
}

std::uint64_t AlphaBootstrapRandom::next()
{
    const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
    const std::uint64_t t = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = rotl(m_state[3], 45);
    return result;
}

std::uint64_t AlphaBootstrapRandom::below(std::uint64_t n)
{
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    std::uint64_t draw;
    do
        draw = next();
    while (draw >= limit);
    return draw % n;
}

std::vector<double> alphaResamples(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues, const PowerLawFit &fit, int resamples,
                                   std::uint64_t seed)
{
    if (!fit.ok || !(fit.xmin > 0) || resamples <= 0)
        return {};
    // The tail as the fit took it: finite eigenvalues above the threshold and ≥ x_min, ascending
    // (so the draws do not depend on the order given), each as ln(λ/x_min).
    std::vector<double> tail;
    for (double value : eigenvalues)
        if (value > kPowerLawThreshold && std::isfinite(value) && value >= fit.xmin)
            tail.push_back(value);
    if (tail.empty())
        return {};
    std::sort(tail.begin(), tail.end());
    for (double &value : tail)
        value = std::log(value / fit.xmin);
    const auto n = std::uint64_t(tail.size());
    AlphaBootstrapRandom random(seed);
    std::vector<double> alphas;
    alphas.reserve(size_t(resamples));
    for (int b = 0; b < resamples; ++b) {
        double logSum = 0;
        for (std::uint64_t k = 0; k < n; ++k)
            logSum += tail[size_t(random.below(n))];
        alphas.push_back(logSum > 0 ? 1.0 + double(n) / logSum : std::numeric_limits<double>::infinity());
    }
    return alphas;
}

double sortedPercentile(const std::vector<double> &sorted, double p)
{
    if (sorted.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const double h = double(sorted.size() - 1) * p;
    const auto below = size_t(std::floor(h));
    if (below + 1 >= sorted.size())
        return sorted.back();
    const double fraction = h - double(below);
    // Exactly on a value, that value: beside a +∞ (a resample of x_min alone) the interpolation
    // would be ∞ − ∞.
    return fraction == 0 ? sorted[below] : sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

AlphaInterval alphaInterval(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues, const PowerLawFit &fit, int resamples,
                            std::uint64_t seed)
{
    std::vector<double> alphas = alphaResamples(eigenvalues, fit, resamples, seed);
    AlphaInterval interval;
    if (alphas.empty())
        return interval;
    std::sort(alphas.begin(), alphas.end());
    const double tail = (1.0 - kAlphaCiLevel) / 2;
    const double low = sortedPercentile(alphas, tail), high = sortedPercentile(alphas, 1.0 - tail);
    if (std::isfinite(low) && std::isfinite(high)) {
        interval.low = low;
        interval.high = high;
    }
    return interval;
}

void setAlphaInterval(SpectralMetrics &metrics, const Eigen::Ref<const Eigen::VectorXd> &singularValues)
{
    metrics.alphaCiLow = metrics.alphaCiHigh = std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(metrics.alpha) || !(metrics.alphaXmin > 0))
        return;
    // The fit the metrics record, not a new one: its x_min and tail are what alpha was fitted on.
    PowerLawFit fit;
    fit.ok = true;
    fit.alpha = metrics.alpha;
    fit.xmin = metrics.alphaXmin;
    fit.tailSize = int(metrics.alphaTailSize);
    const Eigen::VectorXd lambda = singularValues.array().square();
    const AlphaInterval interval = alphaInterval(lambda, fit);
    metrics.alphaCiLow = interval.low;
    metrics.alphaCiHigh = interval.high;
}

} // namespace rankscope
