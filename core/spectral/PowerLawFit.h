// The WeightWatcher-compatible power-law fit of an eigenvalue tail (metric contract, "alpha"):
// maximum-likelihood alpha for every candidate xmin, the one with the smallest KS distance wins.
#pragma once

#include <Eigen/Core>

namespace rankscope {

struct PowerLawFit {
    bool ok = false;  // false when fewer than 2 eigenvalues exceed the threshold
    double alpha = 0; // fitted exponent of p(λ) ∝ λ^(−alpha) for λ ≥ xmin
    double xmin = 0;  // start of the tail
    double ksDistance = 0; // D, the Kolmogorov–Smirnov distance of the fit
    int tailSize = 0; // eigenvalues in the tail (≥ xmin)
    int fitted = 0;   // eigenvalues above the threshold that took part in the fit
};

inline constexpr double kPowerLawThreshold = 1e-5;

// eigenvalues in any order; only those > kPowerLawThreshold take part.
PowerLawFit fitPowerLaw(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues);

} // namespace rankscope
