#include "spectral/EigenvalueDensity.h"

#include "spectral/PowerLawFit.h"

#include <algorithm>
#include <cmath>

namespace rankscope {

QList<QPair<double, double>> logBinnedDensity(const Eigen::Ref<const Eigen::VectorXd> &lambda, int bins)
{
    QList<double> positive;
    for (const double v : lambda)
        if (v > kPowerLawThreshold)
            positive.append(v);
    QList<QPair<double, double>> out;
    if (positive.size() < 2 || bins < 1)
        return out;
    const auto [lo, hi] = std::minmax_element(positive.begin(), positive.end());
    const double a = std::log10(*lo), b = std::log10(*hi) + 1e-9;
    if (!(b > a))
        return out;
    QList<int> counts(bins, 0);
    for (const double v : positive)
        ++counts[std::min(bins - 1, int((std::log10(v) - a) / (b - a) * bins))];
    for (int i = 0; i < bins; ++i) {
        const double left = std::pow(10.0, a + (b - a) * i / bins), right = std::pow(10.0, a + (b - a) * (i + 1) / bins);
        if (counts[i] > 0)
            out.append({std::sqrt(left * right), counts[i] / (double(lambda.size()) * (right - left))});
    }
    return out;
}

int densityBinsFor(Eigen::Index eigenvalues)
{
    return std::clamp(int(std::sqrt(double(eigenvalues)) * 1.5), 8, 60);
}

} // namespace rankscope
