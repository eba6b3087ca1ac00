// Every metric a view can show: its axis label and where it is in a matrix's metrics; its column
// name comes from storedMetrics(). The views and exports name metrics only through this list.
#pragma once

#include "spectral/SpectralMetrics.h"

#include <QList>
#include <QString>
#include <optional>

namespace rankscope {

enum class Metric {
    StableRank,
    CompressionPct,
    Alpha,
    WeightedAlpha,
    EffectiveRank,
    SpectralNorm,
    FrobeniusNorm,
    EnergyRank,
    ParamSavingPct,
    NumericalRank,
    LogNorm,
    LogSpectralNorm,
    LogAlphaNorm,
    NumSpikes,
    MpSoftrank,
    RandDistance,
    DeltaRelFrobenius,
    DeltaSpectralNorm,
    DeltaStableRank,
    DeltaEffectiveRank,
    SubspaceOverlap,
    TopVectorCosine,
};

struct MetricInfo {
    Metric metric;
    double SpectralMetrics::*member; // where its value is
    const char *label;               // "Stable rank"
    bool dependsOnEnergy;
    const char *column;              // "stable_rank": storedMetrics()' name for member
};

const QList<MetricInfo> &allMetrics();
const MetricInfo &metricInfo(Metric metric);
std::optional<Metric> metricFromColumn(const QString &column);
double metricValue(const SpectralMetrics &metrics, Metric metric);
// The label with τ where the metric depends on it: "Compression % (τ = 0.90)".
QString metricAxisLabel(Metric metric, double energy);

} // namespace rankscope
