#include "spectral/SpectralMetrics.h"

#include "spectral/WeightWatcherMetrics.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace rankscope {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

SpectralMetrics computeSpectralMetrics(const Eigen::Ref<const Eigen::VectorXd> &singularValues,
                                       Eigen::Index rows, Eigen::Index cols, double energy)
{
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
    return m;
}

QStringList spectralMetricColumns()
{
    return {QStringLiteral("stable_rank"),     QStringLiteral("compression_pct"),
            QStringLiteral("alpha"),           QStringLiteral("weighted_alpha"),
            QStringLiteral("effective_rank"),  QStringLiteral("spectral_norm"),
            QStringLiteral("frobenius_norm"),  QStringLiteral("energy_rank"),
            QStringLiteral("param_saving_pct"), QStringLiteral("numerical_rank"),
            QStringLiteral("alpha_xmin"),      QStringLiteral("alpha_ks_distance"),
            QStringLiteral("alpha_tail_size"), QStringLiteral("log_norm"),
            QStringLiteral("log_spectral_norm"), QStringLiteral("log_alpha_norm"),
            QStringLiteral("num_spikes"),      QStringLiteral("mp_softrank"),
            QStringLiteral("rand_distance")};
}

QStringList matrixMetricColumns()
{
    return {QStringLiteral("rand_distance")};
}

QList<double> spectralMetricValues(const SpectralMetrics &m)
{
    return {m.stableRank,    m.compressionPct, m.alpha,         m.weightedAlpha,  m.effectiveRank,
            m.spectralNorm,  m.frobeniusNorm,  m.energyRank,    m.paramSavingPct, m.numericalRank,
            m.alphaXmin,     m.alphaKsDistance, m.alphaTailSize, m.logNorm,      m.logSpectralNorm,
            m.logAlphaNorm,  m.numSpikes,      m.mpSoftrank,    m.randDistance};
}

SpectralMetrics spectralMetricsFromValues(const QList<double> &v)
{
    SpectralMetrics m{};
    if (v.size() < 13)
        return m;
    const auto at = [&](qsizetype i) { return i < v.size() ? v[i] : kNaN; };
    m.stableRank = v[0];
    m.compressionPct = v[1];
    m.alpha = v[2];
    m.weightedAlpha = v[3];
    m.effectiveRank = v[4];
    m.spectralNorm = v[5];
    m.frobeniusNorm = v[6];
    m.energyRank = v[7];
    m.paramSavingPct = v[8];
    m.numericalRank = v[9];
    m.alphaXmin = v[10];
    m.alphaKsDistance = v[11];
    m.alphaTailSize = v[12];
    m.logNorm = at(13);
    m.logSpectralNorm = at(14);
    m.logAlphaNorm = at(15);
    m.numSpikes = at(16);
    m.mpSoftrank = at(17);
    m.randDistance = at(18);
    return m;
}

} // namespace rankscope
