#include "spectral/SpectralMetrics.h"

#include "spectral/MetricCatalog.h"
#include "spectral/WeightWatcherMetrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace rankscope {

namespace {

// Roy & Vetterli: exp of the Shannon entropy of σ normalised to sum 1; zero σ contribute nothing.
double effectiveRankOf(const Eigen::Ref<const Eigen::VectorXd> &sigma)
{
    const double total = sigma.sum();
    if (!(total > 0))
        return kNaN;
    double entropy = 0;
    for (double s : sigma) {
        if (s > 0) {
            const double p = s / total;
            entropy -= p * std::log(p);
        }
    }
    return std::exp(entropy);
}
} // namespace

int energyRank(const Eigen::Ref<const Eigen::VectorXd> &singularValues, double energy)
{
    const Eigen::VectorXd lambda = singularValues.array().square();
    const double total = lambda.sum();
    if (!(total > 0))
        return 0;
    const double target = energy * total * (1.0 - 1e-12);
    double partial = 0;
    for (Eigen::Index k = 0; k < lambda.size(); ++k) {
        partial += lambda[k];
        if (partial >= target)
            return static_cast<int>(k + 1);
    }
    return static_cast<int>(lambda.size());
}

void applyEnergy(SpectralMetrics &m, const Eigen::Ref<const Eigen::VectorXd> &singularValues, Eigen::Index rows,
                 Eigen::Index cols, double energy)
{
    const bool zero = !(singularValues.size() > 0 && singularValues[0] > 0);
    const int k = energyRank(singularValues, energy);
    const double r = static_cast<double>(std::min(rows, cols));
    m.energyRank = zero ? kNaN : k;
    m.compressionPct = zero ? kNaN : 100.0 * (1.0 - k / r);
    m.paramSavingPct =
        zero ? kNaN : 100.0 * (1.0 - k * static_cast<double>(rows + cols) / (double(rows) * double(cols)));
}

QString spectrumProblem(const Eigen::Ref<const Eigen::VectorXd> &singularValues)
{
    const Eigen::Index count = singularValues.size();
    Eigen::Index nonFinite = 0, negative = 0;
    double sumSquares = 0, largest = 0;
    for (const double s : singularValues) {
        if (!std::isfinite(s)) {
            ++nonFinite;
        } else if (s < 0) {
            ++negative;
        } else {
            sumSquares += s * s;
            largest = std::max(largest, s);
        }
    }
    auto some = [count](Eigen::Index n, const char *what) {
        return QStringLiteral("%1 of its %2 singular values %3 %4").arg(n).arg(count).arg(n == 1 ? "is" : "are", QLatin1String(what));
    };
    if (nonFinite > 0)
        return some(nonFinite, "NaN or Inf");
    if (negative > 0)
        return some(negative, "negative");
    if (!(sumSquares <= kLargestEigenvalueSum))
        return QStringLiteral("its singular values are too large for float64 (\u03c3\u2081 = %1, \u2016W\u2016\u00b2_F = \u03a3\u03c3\u00b2 past %2)")
            .arg(largest, 0, 'g', 3).arg(kLargestEigenvalueSum, 0, 'g', 3);
    return {};
}

SpectralMetrics computeSpectralMetrics(const Eigen::Ref<const Eigen::VectorXd> &singularValues,
                                       Eigen::Index rows, Eigen::Index cols, double energy)
{
    // Whoever holds such a spectrum names the matrix; its metrics must not be Inf, or numbers
    // computed from NaN eigenvalues.
    if (!spectrumProblem(singularValues).isEmpty()) {
        SpectralMetrics none{};
        for (const MetricRow &row : kMetricRows)
            none.*row.member = kNaN;
        return none;
    }
    const Eigen::VectorXd lambda = singularValues.array().square();
    const double sumLambda = lambda.sum();
    const double lambdaMax = lambda.size() > 0 ? lambda[0] : 0.0;
    const bool zero = !(lambdaMax > 0);

    SpectralMetrics m{};
    m.spectralNorm = singularValues.size() > 0 ? singularValues[0] : 0.0;
    m.frobeniusNorm = std::sqrt(sumLambda);
    m.stableRank = zero ? kNaN : sumLambda / lambdaMax;

    applyEnergy(m, singularValues, rows, cols, energy);

    const PowerLawFit fit = fitPowerLaw(lambda);
    m.alpha = fit.ok ? fit.alpha : kNaN;
    m.weightedAlpha = fit.ok ? fit.alpha * std::log10(lambdaMax) : kNaN;
    m.alphaXmin = fit.ok ? fit.xmin : kNaN;
    m.alphaKsDistance = fit.ok ? fit.ksDistance : kNaN;
    m.alphaTailSize = fit.ok ? fit.tailSize : kNaN;

    m.effectiveRank = effectiveRankOf(singularValues);

    // The Gram path resolves σ only down to about σ₁·√(max(m,n)·ε); counting above that threshold
    // gives the same numerical rank whichever solver made the spectrum.
    const double tolerance =
        m.spectralNorm * std::sqrt(static_cast<double>(std::max(rows, cols)) * std::numeric_limits<double>::epsilon());
    m.numericalRank = static_cast<double>((singularValues.array() > tolerance).count());

    const WeightWatcherNorms norms = weightWatcherNorms(lambda, m.alpha);
    m.logNorm = norms.logNorm;
    m.logSpectralNorm = norms.logSpectralNorm;
    m.logAlphaNorm = norms.logAlphaNorm;
    const MarchenkoPasturFit mp = fitMarchenkoPastur(lambda, rows, cols);
    m.numSpikes = mp.ok ? mp.numSpikes : kNaN;
    m.mpSoftrank = mp.ok ? mp.softRank : kNaN;
    m.randDistance = kNaN;
    clearDeltaMetrics(m);
    clearSubspaceMetrics(m);
    m.alphaCiLow = m.alphaCiHigh = kNaN; // --alpha-ci: setAlphaInterval
    return m;
}

void setDeltaMetrics(SpectralMetrics &m, const Eigen::Ref<const Eigen::VectorXd> &sigma, double referenceFrobenius)
{
    const double sumLambda = sigma.squaredNorm();
    const double lambdaMax = sigma.size() > 0 ? sigma[0] * sigma[0] : 0.0;
    m.deltaRelFrobenius = referenceFrobenius > 0 ? std::sqrt(sumLambda) / referenceFrobenius : kNaN;
    m.deltaSpectralNorm = sigma.size() > 0 ? sigma[0] : 0.0;
    m.deltaStableRank = lambdaMax > 0 ? sumLambda / lambdaMax : kNaN;
    m.deltaEffectiveRank = effectiveRankOf(sigma);
}

void clearDeltaMetrics(SpectralMetrics &m)
{
    m.deltaRelFrobenius = m.deltaSpectralNorm = m.deltaStableRank = m.deltaEffectiveRank = kNaN;
}

void setSubspaceMetrics(SpectralMetrics &m, const Eigen::Ref<const Eigen::MatrixXf> &current, const Eigen::Ref<const Eigen::MatrixXf> &previous)
{
    const Eigen::Index k = std::min(current.cols(), previous.cols());
    if (k == 0 || current.rows() != previous.rows() || current.rows() == 0) {
        clearSubspaceMetrics(m);
        return;
    }
    // In float64: the k × k products sum n terms each.
    const Eigen::MatrixXd cross = current.leftCols(k).cast<double>().transpose() * previous.leftCols(k).cast<double>();
    m.subspaceOverlap = cross.squaredNorm() / double(k);
    m.topVectorCosine = std::abs(cross(0, 0));
}

void clearSubspaceMetrics(SpectralMetrics &m)
{
    m.subspaceOverlap = m.topVectorCosine = kNaN;
}

} // namespace rankscope
