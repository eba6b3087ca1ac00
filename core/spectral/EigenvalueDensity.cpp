#include "spectral/EigenvalueDensity.h"

#include "spectral/PowerLawFit.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace rankscope {

QList<QPair<double, double>> logBinnedDensity(const Eigen::Ref<const Eigen::VectorXd> &lambda, int bins)
{
    // Binned by log10(λ), and only finite λ: an Inf (σ² of a σ past 1.3e154) or NaN has no place
    // on the axis and would make every bin index undefined (a NaN cast to int indexed far outside
    // the counts). The solver and the results file refuse such spectra; this stays safe without them.
    QList<double> logs;
    for (const double v : lambda)
        if (v > kPowerLawThreshold && std::isfinite(v))
            logs.append(std::log10(v));
    QList<QPair<double, double>> out;
    if (logs.size() < 2 || bins < 1)
        return out;
    const auto [lo, hi] = std::minmax_element(logs.begin(), logs.end());
    const double a = *lo, b = *hi + 1e-9;
    if (!(b > a))
        return out;
    QList<int> counts(bins, 0);
    for (const double l : logs) // clamped before the cast: the largest falls in the last bin
        ++counts[int(std::clamp((l - a) / (b - a) * bins, 0.0, double(bins - 1)))];
    for (int i = 0; i < bins; ++i) {
        if (counts[i] == 0)
            continue;
        // Edges, centre and width in logarithms: √(left·right) overflows for λ past 1e154, and
        // N·(right − left) near 1e308; log10(right − left) = high + log10(1 − 10^(low − high)).
        const double low = a + (b - a) * i / bins, high = a + (b - a) * (i + 1) / bins;
        const double centre = std::pow(10.0, (low + high) / 2);
        const double logWidth = high + std::log10(-std::expm1((low - high) * std::numbers::ln10));
        const double density = std::pow(10.0, std::log10(counts[i] / double(lambda.size())) - logWidth);
        // A bin float64 cannot place on a log–log axis (a centre past 1.8e308, a density that
        // underflows to 0) is left out rather than drawn at Inf or 0.
        if (std::isfinite(centre) && std::isfinite(density) && density > 0)
            out.append({centre, density});
    }
    return out;
}

int densityBinsFor(Eigen::Index eigenvalues)
{
    return std::clamp(int(std::sqrt(double(eigenvalues)) * 1.5), 8, 60);
}

} // namespace rankscope
