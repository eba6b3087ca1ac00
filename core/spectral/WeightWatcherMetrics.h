// WeightWatcher 0.7.5.5's norm columns and Marchenko–Pastur fit, computed from a spectrum exactly
// as weightwatcher.py and RMT_Util.py compute them (docs/metrics.md names the lines mirrored), so a
// RankScope column and a WeightWatcher column of the same name are the same number.
#pragma once

#include "spectral/SingularValueSolver.h"

#include <Eigen/Core>
#include <cstdint>

namespace rankscope {

struct WeightWatcherNorms {
    double logNorm;         // log10(Σλ)
    double logSpectralNorm; // log10(λ_max)
    double logAlphaNorm;    // log10(Σ λᵢ^α)
};

// lambda: every eigenvalue λᵢ = σᵢ² (any order); alpha: the power-law exponent (NaN: logAlphaNorm NaN).
WeightWatcherNorms weightWatcherNorms(const Eigen::Ref<const Eigen::VectorXd> &lambda, double alpha);

struct MarchenkoPasturFit {
    bool ok = false;
    double sigma = 0;      // σ_mp of the rescaled spectrum
    double q = 1;          // Q = max(m, n) / min(m, n)
    double bulkMin = 0;    // λ₋ = (σ(1 − 1/√Q))², rescaled spectrum
    double bulkMax = 0;    // λ₊ = (σ(1 + 1/√Q))², rescaled spectrum
    double bulkMaxTw = 0;  // λ₊ + √(Q^(-1/2)·λ₊^(2/3)·M^(-2/3)): the Tracy–Widom margin spikes must clear
    double scale = 0;      // W_scale²: rescaled λ = scale·λ (mean eigenvalue 1)
    int numSpikes = 0;     // rescaled λ > bulkMaxTw
    double softRank = 0;   // mp_softrank = λ₊ / λ_max (rescaled)
};

// WeightWatcher's mp_fit with its defaults (rescale on, bandwidth 0.1): λ rescaled to mean 1, σ
// found by a brute-force grid over [0.05, 2)·σ₀ polished by Nelder–Mead (scipy's optimize.brute with
// fmin), matching a linear-kernel density of λ (of σ = √λ for a square matrix, against
// WeightWatcher's quarter-circle law) with the MP law of aspect ratio Q = max(m,n)/min(m,n).
// lambda: the min(m, n) eigenvalues. Not ok for a zero or empty spectrum.
MarchenkoPasturFit fitMarchenkoPastur(const Eigen::Ref<const Eigen::VectorXd> &lambda, Eigen::Index rows,
                                      Eigen::Index cols);

// The Marchenko–Pastur law a fit stands for, on the rescaled axis: ρ(x) = Q/(2πσ²x)·√((λ₊ − x)(x − λ₋))
// on [λ₋, λ₊] and 0 outside, integrating to 1; λ₊ is the fit's bulkMax. (For Q = 1 the fit itself
// matches WeightWatcher's quarter circle on σ, and this is the MP law of σ² with the fitted σ.)
// The density of the original eigenvalues λ is scale·ρ(scale·λ).
double marchenkoPasturDensity(double x, double sigma, double q);

// WeightWatcher's rand_distance (apply_random_esd): the Jensen–Shannon distance between W's
// eigenvalues and those of W with its entries shuffled. The shuffle here is a Fisher–Yates driven
// by std::mt19937_64 seeded with kRandDistanceSeed for every matrix, so a matrix's value depends on
// nothing but the matrix (WeightWatcher leaves numpy's generator unseeded).
inline constexpr std::uint64_t kRandDistanceSeed = 42;

// scipy's jensen_shannon_distance as RMT_Util.py defines it: m = (p + q)/2, each of p, q, m
// normalised to sum 1, distance = √((KL(p‖m) + KL(q‖m))/2) in nats. NaN for a zero p or q.
double jensenShannonDistance(const Eigen::Ref<const Eigen::VectorXd> &p, const Eigen::Ref<const Eigen::VectorXd> &q);

// Shuffles count values in place: Fisher–Yates from the last position down, each index drawn
// without bias from std::mt19937_64(seed) (the same permutation on every platform).
void shuffleEntries(double *values, Eigen::Index count, std::uint64_t seed);

// rand_distance of a matrix whose singular values (descending) are given: its entries are
// shuffled in place, so pass a matrix no longer needed. NaN when the shuffled spectrum fails.
double randDistance(Eigen::Map<Eigen::MatrixXd> matrix, const Eigen::Ref<const Eigen::VectorXd> &singularValues,
                    const SingularValueSolver &solver, std::uint64_t seed = kRandDistanceSeed);

} // namespace rankscope
