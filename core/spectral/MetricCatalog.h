// Every metric RankScope stores or shows, one row each (kMetricRows). The CSV's and the results
// file's columns, the views' metric lists and axis labels, --metric's names, what τ changes and
// the views' "not computed" messages are all read from this table. A new metric is a field of
// SpectralMetrics, its computation, and a row here (docs/architecture.md).
#pragma once

#include "spectral/SpectralMetrics.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>
#include <string_view>

namespace rankscope {

// What must be asked for before a metric has a value (AnalysisSettings); None: every analysis
// computes it from the spectrum.
enum class MetricOptIn { None, RandDistance, Delta, Subspace, AlphaInterval };

struct MetricRow {
    const char *column;              // "stable_rank": its column in the CSV, the JSON and the results file
    double SpectralMetrics::*member; // where its value is
    const char *label;               // "Stable rank": its axis label; nullptr: stored, never a view's metric
    bool dependsOnEnergy;            // changes with τ (applyEnergy); its label then shows τ
    MetricOptIn optIn;               // not None: from the matrix itself (a second decomposition) or a bootstrap
                                     // asked for, never recomputed from a stored spectrum, NaN unless asked for
    int since;                       // the results-file schema that added its column (ResultsSchema)

    constexpr bool needsMatrix() const { return optIn != MetricOptIn::None; }
};

// In the order of the CSV's columns: the contract's seven, then the extras, each added after the
// earlier ones so that older readers keep their positions; those that need the matrix come last.
// The views list the labelled rows in this order.
inline constexpr MetricRow kMetricRows[] = {
    // column, member, label, depends on τ, opt-in, schema
    {"stable_rank", &SpectralMetrics::stableRank, "Stable rank", false, MetricOptIn::None, 1},
    {"compression_pct", &SpectralMetrics::compressionPct, "Compression %", true, MetricOptIn::None, 1},
    {"alpha", &SpectralMetrics::alpha, "Power-law \u03b1", false, MetricOptIn::None, 1},
    {"weighted_alpha", &SpectralMetrics::weightedAlpha, "Weighted \u03b1", false, MetricOptIn::None, 1},
    {"effective_rank", &SpectralMetrics::effectiveRank, "Effective rank", false, MetricOptIn::None, 1},
    {"spectral_norm", &SpectralMetrics::spectralNorm, "Spectral norm \u03c3\u2081", false, MetricOptIn::None, 1},
    {"frobenius_norm", &SpectralMetrics::frobeniusNorm, "Frobenius norm", false, MetricOptIn::None, 1},
    {"energy_rank", &SpectralMetrics::energyRank, "Energy rank k\u03c4", true, MetricOptIn::None, 1},
    {"param_saving_pct", &SpectralMetrics::paramSavingPct, "Parameter saving %", true, MetricOptIn::None, 1},
    {"numerical_rank", &SpectralMetrics::numericalRank, "Numerical rank", false, MetricOptIn::None, 1},
    {"alpha_xmin", &SpectralMetrics::alphaXmin, nullptr, false, MetricOptIn::None, 1},
    {"alpha_ks_distance", &SpectralMetrics::alphaKsDistance, nullptr, false, MetricOptIn::None, 1},
    {"alpha_tail_size", &SpectralMetrics::alphaTailSize, nullptr, false, MetricOptIn::None, 1},
    {"log_norm", &SpectralMetrics::logNorm, "Log norm (log\u2081\u2080 \u03a3\u03bb)", false, MetricOptIn::None, 1},
    {"log_spectral_norm", &SpectralMetrics::logSpectralNorm, "Log spectral norm (log\u2081\u2080 \u03bb\u2081)", false, MetricOptIn::None, 1},
    {"log_alpha_norm", &SpectralMetrics::logAlphaNorm, "Log \u03b1-norm (log\u2081\u2080 \u03a3\u03bb^\u03b1)", false, MetricOptIn::None, 1},
    {"num_spikes", &SpectralMetrics::numSpikes, "MP spikes", false, MetricOptIn::None, 1},
    {"mp_softrank", &SpectralMetrics::mpSoftrank, "MP soft rank", false, MetricOptIn::None, 1},
    {"rand_distance", &SpectralMetrics::randDistance, "Distance to shuffled ESD", false, MetricOptIn::RandDistance, 1},
    {"delta_rel_frobenius", &SpectralMetrics::deltaRelFrobenius, "Change \u2016W \u2212 W\u2080\u2016F / \u2016W\u2080\u2016F", false, MetricOptIn::Delta, 1},
    {"delta_spectral_norm", &SpectralMetrics::deltaSpectralNorm, "Change: spectral norm of W \u2212 W\u2080", false, MetricOptIn::Delta, 1},
    {"delta_stable_rank", &SpectralMetrics::deltaStableRank, "Change: stable rank of W \u2212 W\u2080", false, MetricOptIn::Delta, 1},
    {"delta_effective_rank", &SpectralMetrics::deltaEffectiveRank, "Change: effective rank of W \u2212 W\u2080", false, MetricOptIn::Delta, 1},
    {"subspace_overlap", &SpectralMetrics::subspaceOverlap, "Subspace overlap (top k)", false, MetricOptIn::Subspace, 1},
    {"top_vector_cosine", &SpectralMetrics::topVectorCosine, "Top vector |cos|", false, MetricOptIn::Subspace, 1},
    {"alpha_ci_low", &SpectralMetrics::alphaCiLow, nullptr, false, MetricOptIn::AlphaInterval, 6},
    {"alpha_ci_high", &SpectralMetrics::alphaCiHigh, nullptr, false, MetricOptIn::AlphaInterval, 6},
};
inline constexpr int kMetricCount = int(std::size(kMetricRows));

// A metric: its row in kMetricRows. Code that names one metric uses its constant below; a metric
// no code names needs none.
class Metric {
public:
    constexpr Metric() = default; // stable_rank
    static constexpr Metric atRow(int row) { return Metric(row); }
    constexpr int row() const { return m_row; }
    constexpr const MetricRow &info() const { return kMetricRows[m_row]; }
    friend constexpr bool operator==(Metric, Metric) = default;

    static const Metric StableRank, CompressionPct, Alpha, WeightedAlpha, EffectiveRank, SpectralNorm, FrobeniusNorm,
        RandDistance, DeltaRelFrobenius, DeltaSpectralNorm, DeltaStableRank, DeltaEffectiveRank, SubspaceOverlap,
        TopVectorCosine;

private:
    constexpr explicit Metric(int row) : m_row(row) {}
    int m_row = 0;
};

// The metric of a column, at compile time: a column not in the table does not compile.
consteval Metric metricOfColumn(std::string_view column)
{
    for (int i = 0; i < kMetricCount; ++i)
        if (std::string_view(kMetricRows[i].column) == column)
            return Metric::atRow(i);
    throw "no such metric column";
}

inline constexpr Metric Metric::StableRank = metricOfColumn("stable_rank");
inline constexpr Metric Metric::CompressionPct = metricOfColumn("compression_pct");
inline constexpr Metric Metric::Alpha = metricOfColumn("alpha");
inline constexpr Metric Metric::WeightedAlpha = metricOfColumn("weighted_alpha");
inline constexpr Metric Metric::EffectiveRank = metricOfColumn("effective_rank");
inline constexpr Metric Metric::SpectralNorm = metricOfColumn("spectral_norm");
inline constexpr Metric Metric::FrobeniusNorm = metricOfColumn("frobenius_norm");
inline constexpr Metric Metric::RandDistance = metricOfColumn("rand_distance");
inline constexpr Metric Metric::DeltaRelFrobenius = metricOfColumn("delta_rel_frobenius");
inline constexpr Metric Metric::DeltaSpectralNorm = metricOfColumn("delta_spectral_norm");
inline constexpr Metric Metric::DeltaStableRank = metricOfColumn("delta_stable_rank");
inline constexpr Metric Metric::DeltaEffectiveRank = metricOfColumn("delta_effective_rank");
inline constexpr Metric Metric::SubspaceOverlap = metricOfColumn("subspace_overlap");
inline constexpr Metric Metric::TopVectorCosine = metricOfColumn("top_vector_cosine");

// The metrics a view can show (the labelled rows), in the table's order.
const QList<Metric> &viewMetrics();
// How to ask for an opt-in metric a view lacks (FigureNoData); nullptr for those without a view.
const char *howToAskFor(MetricOptIn optIn);
// A view metric by its column name.
std::optional<Metric> metricFromColumn(const QString &column);
inline double metricValue(const SpectralMetrics &m, Metric metric) { return m.*metric.info().member; }
// The label with τ where the metric depends on it: "Compression % (τ = 0.90)".
QString metricAxisLabel(Metric metric, double energy);

// Every stored column in the table's order, and a matrix's values in the same order.
QStringList spectralMetricColumns();
QList<double> spectralMetricValues(const SpectralMetrics &metrics);
// The columns that need the matrix itself: always the last ones, so the spectrum's own metrics
// keep their positions.
QStringList matrixMetricColumns();
// The inverse of spectralMetricValues; columns missing at the end read NaN.
SpectralMetrics spectralMetricsFromValues(const QList<double> &values);

} // namespace rankscope
