#include "spectral/MetricCatalog.h"

#include <algorithm>

namespace rankscope {

namespace {

consteval bool contractColumnsFirst()
{
    constexpr std::string_view contract[] = {"stable_rank", "compression_pct", "alpha", "weighted_alpha",
                                             "effective_rank", "spectral_norm", "frobenius_norm"};
    for (size_t i = 0; i < std::size(contract); ++i)
        if (std::string_view(kMetricRows[i].column) != contract[i])
            return false;
    return true;
}

consteval bool matrixMetricsLast()
{
    bool matrix = false;
    for (const MetricRow &row : kMetricRows) {
        if (matrix && !row.needsMatrix())
            return false;
        matrix = matrix || row.needsMatrix();
    }
    return true;
}

// Readers of older files (ResultsFile's completeMetrics) rely on both.
static_assert(contractColumnsFirst(), "the contract's seven columns come first, in docs/metrics.md's order");
static_assert(matrixMetricsLast(), "the metrics that need the matrix come last");

} // namespace

const QList<Metric> &viewMetrics()
{
    static const QList<Metric> list = [] {
        QList<Metric> metrics;
        for (int i = 0; i < kMetricCount; ++i)
            if (kMetricRows[i].label)
                metrics << Metric::atRow(i);
        return metrics;
    }();
    return list;
}

const char *howToAskFor(MetricOptIn optIn)
{
    switch (optIn) {
    case MetricOptIn::RandDistance:
        return "rand_distance was not computed: Analysis \u25b8 Also compute rand_distance (a second decomposition of every matrix), "
               "or rankscope analyze --rand-distance";
    case MetricOptIn::Delta:
        return "W \u2212 W\u2080 was not computed: Analysis \u25b8 Also compute the change from the first checkpoint "
               "(W \u2212 W\u2080, a second decomposition), or rankscope analyze --delta";
    case MetricOptIn::Subspace:
        return "The subspace agreement was not computed: Analysis \u25b8 Also compute the subspace agreement with the previous "
               "checkpoint, or rankscope analyze --subspace";
    case MetricOptIn::None:
    case MetricOptIn::AlphaInterval:
        break;
    }
    return nullptr;
}

std::optional<Metric> metricFromColumn(const QString &column)
{
    for (const Metric metric : viewMetrics())
        if (column == QLatin1String(metric.info().column))
            return metric;
    return std::nullopt;
}

QString metricAxisLabel(Metric metric, double energy)
{
    const MetricRow &info = metric.info();
    QString label = QString::fromUtf8(info.label);
    if (info.dependsOnEnergy)
        label += QStringLiteral(" (\u03c4 = %1)").arg(energy, 0, 'f', 2);
    return label;
}

QStringList spectralMetricColumns()
{
    QStringList columns;
    for (const MetricRow &row : kMetricRows)
        columns << QLatin1String(row.column);
    return columns;
}

QStringList matrixMetricColumns()
{
    QStringList columns;
    for (const MetricRow &row : kMetricRows)
        if (row.needsMatrix())
            columns << QLatin1String(row.column);
    return columns;
}

QList<double> spectralMetricValues(const SpectralMetrics &m)
{
    QList<double> values;
    values.reserve(kMetricCount);
    for (const MetricRow &row : kMetricRows)
        values << m.*row.member;
    return values;
}

SpectralMetrics spectralMetricsFromValues(const QList<double> &values)
{
    SpectralMetrics m{};
    for (int i = 0; i < kMetricCount; ++i)
        m.*kMetricRows[i].member = i < values.size() ? values[i] : kNaN;
    return m;
}

} // namespace rankscope
