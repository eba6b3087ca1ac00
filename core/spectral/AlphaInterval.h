// A bootstrap interval for the power-law exponent alpha (--alpha-ci; docs/metrics.md, "alpha_ci_low,
// alpha_ci_high"). The fitted tail's eigenvalues (λ ≥ x_min, as fitPowerLaw chose them) are drawn
// with replacement kAlphaCiResamples times; each resample's alpha is the same maximum-likelihood
// estimate, 1 + n / Σ ln(λ/x_min), with x_min held fixed; the interval is the 2.5th and 97.5th
// percentiles of those alphas. x_min is not fitted again per resample: resampling only the tail
// could move it only upwards, inside the tail, and a refit costs a full KS scan per resample; so
// the interval is the sampling uncertainty of alpha given its tail, not that of the choice of x_min.
#pragma once

#include "spectral/PowerLawFit.h"
#include "spectral/SpectralMetrics.h"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace rankscope {

// 1000 resamples: each endpoint of a 95 % percentile interval then rests on the 25 resamples beyond
// it, and its Monte-Carlo error is about 0.09 standard errors of alpha (3 % of the interval's
// width; 7 % with 200). One resample is n draws and n additions: 1000 of them cost less than the
// power-law fit itself for the tails of real spectra.
inline constexpr int kAlphaCiResamples = 1000;
// The same seed for every matrix, so that a matrix's interval depends on its spectrum alone: the
// same on every run, rank and platform (AlphaBootstrapRandom draws the same numbers everywhere).
inline constexpr std::uint64_t kAlphaCiSeed = 0x9E3779B97F4A7C15ULL;
inline constexpr double kAlphaCiLevel = 0.95;

// xoshiro256** (Blackman and Vigna), its state filled by splitmix64 from the seed: integer
// arithmetic only, so unlike std::uniform_int_distribution its draws do not depend on the standard
// library.
class AlphaBootstrapRandom {
public:
    explicit AlphaBootstrapRandom(std::uint64_t seed);
    std::uint64_t next();
    // Uniform in [0, n), n > 0: draws at or past the largest multiple of n are rejected.
    std::uint64_t below(std::uint64_t n);

private:
    std::uint64_t m_state[4];
};

struct AlphaInterval {
    double low = std::numeric_limits<double>::quiet_NaN();
    double high = std::numeric_limits<double>::quiet_NaN();
    bool ok() const { return !std::isnan(low) && !std::isnan(high); }
};

// Each resample's alpha (in the order drawn); +∞ for a resample whose draws all equal x_min. Empty
// when the fit is not ok. eigenvalues: those the fit was given, in any order.
std::vector<double> alphaResamples(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues, const PowerLawFit &fit,
                                   int resamples = kAlphaCiResamples, std::uint64_t seed = kAlphaCiSeed);

// numpy.percentile's default (linear) of sorted values, p in [0, 1]: x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋])
// with h = (N − 1)·p. NaN for no values.
double sortedPercentile(const std::vector<double> &sorted, double p);

// The percentile interval at kAlphaCiLevel; NaN (not ok) when the fit is not ok or an endpoint is
// not finite (a tail so small that too many resamples draw x_min alone).
AlphaInterval alphaInterval(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues, const PowerLawFit &fit,
                            int resamples = kAlphaCiResamples, std::uint64_t seed = kAlphaCiSeed);

// alpha_ci_low and alpha_ci_high of a matrix from its singular values (descending) and the fit its
// metrics record (alpha, alpha_xmin, alpha_tail_size); NaN when its alpha is.
void setAlphaInterval(SpectralMetrics &metrics, const Eigen::Ref<const Eigen::VectorXd> &singularValues);

} // namespace rankscope
