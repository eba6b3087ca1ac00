#include "spectral/MetricCatalog.h"

namespace rankscope {

namespace {

MetricInfo describe(Metric metric, double SpectralMetrics::*member, const char *label, bool dependsOnEnergy)
{
    for (const StoredMetric &stored : storedMetrics())
        if (stored.member == member)
            return {metric, member, label, dependsOnEnergy, stored.column};
    Q_UNREACHABLE();
}

} // namespace

const QList<MetricInfo> &allMetrics()
{
    using M = SpectralMetrics;
    static const QList<MetricInfo> list = {
        describe(Metric::StableRank, &M::stableRank, "Stable rank", false),
        describe(Metric::CompressionPct, &M::compressionPct, "Compression %", true),
        describe(Metric::Alpha, &M::alpha, "Power-law \u03b1", false),
        describe(Metric::WeightedAlpha, &M::weightedAlpha, "Weighted \u03b1", false),
        describe(Metric::EffectiveRank, &M::effectiveRank, "Effective rank", false),
        describe(Metric::SpectralNorm, &M::spectralNorm, "Spectral norm \u03c3\u2081", false),
        describe(Metric::FrobeniusNorm, &M::frobeniusNorm, "Frobenius norm", false),
        describe(Metric::EnergyRank, &M::energyRank, "Energy rank k\u03c4", true),
        describe(Metric::ParamSavingPct, &M::paramSavingPct, "Parameter saving %", true),
        describe(Metric::NumericalRank, &M::numericalRank, "Numerical rank", false),
        describe(Metric::LogNorm, &M::logNorm, "Log norm (log\u2081\u2080 \u03a3\u03bb)", false),
        describe(Metric::LogSpectralNorm, &M::logSpectralNorm, "Log spectral norm (log\u2081\u2080 \u03bb\u2081)", false),
        describe(Metric::LogAlphaNorm, &M::logAlphaNorm, "Log \u03b1-norm (log\u2081\u2080 \u03a3\u03bb^\u03b1)", false),
        describe(Metric::NumSpikes, &M::numSpikes, "MP spikes", false),
        describe(Metric::MpSoftrank, &M::mpSoftrank, "MP soft rank", false),
        describe(Metric::RandDistance, &M::randDistance, "Distance to shuffled ESD", false),
        describe(Metric::DeltaRelFrobenius, &M::deltaRelFrobenius, "Change \u2016W \u2212 W\u2080\u2016F / \u2016W\u2080\u2016F", false),
        describe(Metric::DeltaSpectralNorm, &M::deltaSpectralNorm, "Change: spectral norm of W \u2212 W\u2080", false),
        describe(Metric::DeltaStableRank, &M::deltaStableRank, "Change: stable rank of W \u2212 W\u2080", false),
        describe(Metric::DeltaEffectiveRank, &M::deltaEffectiveRank, "Change: effective rank of W \u2212 W\u2080", false),
        describe(Metric::SubspaceOverlap, &M::subspaceOverlap, "Subspace overlap (top k)", false),
        describe(Metric::TopVectorCosine, &M::topVectorCosine, "Top vector |cos|", false),
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
    return m.*metricInfo(metric).member;
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
