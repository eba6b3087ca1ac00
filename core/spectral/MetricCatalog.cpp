#include "spectral/MetricCatalog.h"

namespace rankscope {

const QList<MetricInfo> &allMetrics()
{
    static const QList<MetricInfo> list = {
        {Metric::StableRank, "stable_rank", "Stable rank", false},
        {Metric::CompressionPct, "compression_pct", "Compression %", true},
        {Metric::Alpha, "alpha", "Power-law \u03b1", false},
        {Metric::WeightedAlpha, "weighted_alpha", "Weighted \u03b1", false},
        {Metric::EffectiveRank, "effective_rank", "Effective rank", false},
        {Metric::SpectralNorm, "spectral_norm", "Spectral norm \u03c3\u2081", false},
        {Metric::FrobeniusNorm, "frobenius_norm", "Frobenius norm", false},
        {Metric::EnergyRank, "energy_rank", "Energy rank k\u03c4", true},
        {Metric::ParamSavingPct, "param_saving_pct", "Parameter saving %", true},
        {Metric::NumericalRank, "numerical_rank", "Numerical rank", false},
        {Metric::LogNorm, "log_norm", "Log norm (log\u2081\u2080 \u03a3\u03bb)", false},
        {Metric::LogSpectralNorm, "log_spectral_norm", "Log spectral norm (log\u2081\u2080 \u03bb\u2081)", false},
        {Metric::LogAlphaNorm, "log_alpha_norm", "Log \u03b1-norm (log\u2081\u2080 \u03a3\u03bb^\u03b1)", false},
        {Metric::NumSpikes, "num_spikes", "MP spikes", false},
        {Metric::MpSoftrank, "mp_softrank", "MP soft rank", false},
        {Metric::RandDistance, "rand_distance", "Distance to shuffled ESD", false},
    };
    return list;
}

const MetricInfo &metricInfo(Metric metric)
{
    for (const MetricInfo &info : allMetrics())
        if (info.metric == metric)
            return info;
    return allMetrics().first();
}

std::optional<Metric> metricFromColumn(const QString &column)
{
    for (const MetricInfo &info : allMetrics())
        if (column == QLatin1String(info.column))
            return info.metric;
    return std::nullopt;
}

double metricValue(const SpectralMetrics &m, Metric metric)
{
    switch (metric) {
    case Metric::StableRank: return m.stableRank;
    case Metric::CompressionPct: return m.compressionPct;
    case Metric::Alpha: return m.alpha;
    case Metric::WeightedAlpha: return m.weightedAlpha;
    case Metric::EffectiveRank: return m.effectiveRank;
    case Metric::SpectralNorm: return m.spectralNorm;
    case Metric::FrobeniusNorm: return m.frobeniusNorm;
    case Metric::EnergyRank: return m.energyRank;
    case Metric::ParamSavingPct: return m.paramSavingPct;
    case Metric::NumericalRank: return m.numericalRank;
    case Metric::LogNorm: return m.logNorm;
    case Metric::LogSpectralNorm: return m.logSpectralNorm;
    case Metric::LogAlphaNorm: return m.logAlphaNorm;
    case Metric::NumSpikes: return m.numSpikes;
    case Metric::MpSoftrank: return m.mpSoftrank;
    case Metric::RandDistance: return m.randDistance;
    }
    return 0;
}

QString metricAxisLabel(Metric metric, double energy)
{
    const MetricInfo &info = metricInfo(metric);
    QString label = QString::fromUtf8(info.label);
    if (info.dependsOnEnergy)
        label += QStringLiteral(" (\u03c4 = %1)").arg(energy, 0, 'f', 2);
    return label;
}

} // namespace rankscope
