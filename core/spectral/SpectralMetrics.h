// The metrics of the contract (docs/metrics.md) as pure functions of a
// spectrum. They are cheap, so changing τ never needs the matrix again.
#pragma once

#include "spectral/PowerLawFit.h"

#include <Eigen/Core>
#include <QString>
#include <limits>

namespace rankscope {

// What a metric reads where it is not defined.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline constexpr double kDefaultEnergy = 0.90;

struct SpectralMetrics {
    double stableRank;
    double compressionPct;
    double alpha;
    double weightedAlpha;
    double effectiveRank;
    double spectralNorm;
    double frobeniusNorm;
    // Extras beyond the seven contract columns (defined in docs/metrics.md).
    double energyRank;       // k_τ
    double paramSavingPct;   // 100·(1 − k_τ(m+n)/(mn))
    double numericalRank;    // σᵢ > σ₁·√(max(m,n)·ε)
    double alphaXmin;
    double alphaKsDistance;
    double alphaTailSize;
    // WeightWatcher 0.7.5.5's columns of the same names (WeightWatcherMetrics, docs/metrics.md).
    double logNorm;          // log10(Σλ)
    double logSpectralNorm;  // log10(λ₁)
    double logAlphaNorm;     // log10(Σλᵢ^α)
    double numSpikes;        // eigenvalues beyond the MP bulk edge plus its Tracy–Widom margin
    double mpSoftrank;       // λ₊ / λ₁ of WeightWatcher's MP fit
    // Opt-in: needs the matrix, not only its spectrum (RunAnalyzer sets it; NaN otherwise).
    double randDistance;     // JS distance between the ESDs of W and of W shuffled
    // Opt-in (--delta): D = W − W_ref, the change from the reference checkpoint (setDeltaMetrics).
    double deltaRelFrobenius;   // ‖D‖_F / ‖W_ref‖_F
    double deltaSpectralNorm;   // σ₁(D)
    double deltaStableRank;     // stable_rank of D
    double deltaEffectiveRank;  // effective_rank of D
    // Opt-in (--subspace): agreement of the top-k right singular vectors with the previous
    // checkpoint's (setSubspaceMetrics).
    double subspaceOverlap;     // ‖V_k(t)ᵀV_k(t_prev)‖²_F / k ∈ [0, 1]
    double topVectorCosine;     // |v₁(t)·v₁(t_prev)|
    // Opt-in (--alpha-ci): alpha's 95 % bootstrap interval (spectral/AlphaInterval), NaN otherwise.
    double alphaCiLow;
    double alphaCiHigh;
};

// The largest ‖W‖²_F = Σσ² a spectrum may have: every metric, the power-law fit, the Marchenko–Pastur
// fit and the spectrum view's density start from the eigenvalues λ = σ² and sums of them, and a
// margin below float64's 1.8e308 keeps all of those (and the density's bin edges) finite.
inline constexpr double kLargestEigenvalueSum = 1e300;

// Why a spectrum is not one the metrics and views can take, or empty: a NaN or Inf singular value,
// a negative one, or singular values whose squares sum past kLargestEigenvalueSum (σ₁ ≳ 1e150,
// whose σ² would overflow or nearly). SingularValueSolver returns no such spectrum, and the
// results file refuses to serve one.
QString spectrumProblem(const Eigen::Ref<const Eigen::VectorXd> &singularValues);

// singularValues descending (as SingularValueSolver returns them); rows/cols of the matrix. A
// spectrum with a spectrumProblem gets every metric NaN: nothing is computed from it.
SpectralMetrics computeSpectralMetrics(const Eigen::Ref<const Eigen::VectorXd> &singularValues,
                                       Eigen::Index rows, Eigen::Index cols,
                                       double energy = kDefaultEnergy);

// The change from the reference, D = W − W_ref, from D's singular values (descending) and
// ‖W_ref‖_F: delta_rel_frobenius = ‖D‖_F / ‖W_ref‖_F (NaN for a zero W_ref), delta_spectral_norm
// = σ₁(D), and D's stable and effective rank as W's are defined (NaN for D = 0).
void setDeltaMetrics(SpectralMetrics &metrics, const Eigen::Ref<const Eigen::VectorXd> &deltaSingularValues,
                     double referenceFrobenius);
// No change computed (not asked for, or no reference to compare with): every delta metric NaN.
void clearDeltaMetrics(SpectralMetrics &metrics);

// The agreement of two sets of top right singular vectors (n × k each, unit columns, largest
// first): subspace_overlap = ‖V_curᵀV_prev‖²_F / k and top_vector_cosine = |v₁·v₁′|, with k the
// columns both have. NaN when either has none or they are of different lengths.
void setSubspaceMetrics(SpectralMetrics &metrics, const Eigen::Ref<const Eigen::MatrixXf> &current,
                        const Eigen::Ref<const Eigen::MatrixXf> &previous);
void clearSubspaceMetrics(SpectralMetrics &metrics);

// Recomputes only what depends on τ (compression, energy rank, parameter saving): changing τ
// costs no power-law fit.
void applyEnergy(SpectralMetrics &metrics, const Eigen::Ref<const Eigen::VectorXd> &singularValues, Eigen::Index rows,
                 Eigen::Index cols, double energy);

// k_τ = min{k : Σ_{i≤k} λᵢ ≥ τ·Σλ·(1 − 1e-12)}; 0 for a zero spectrum.
int energyRank(const Eigen::Ref<const Eigen::VectorXd> &singularValues, double energy);

} // namespace rankscope
