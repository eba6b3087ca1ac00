#include "spectral/PowerLawFit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace rankscope {

PowerLawFit fitPowerLaw(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues)
{
    std::vector<double> x;
    x.reserve(static_cast<size_t>(eigenvalues.size()));
    for (double value : eigenvalues)
        if (value > kPowerLawThreshold)
            x.push_back(value);
    std::sort(x.begin(), x.end());
    const int n = static_cast<int>(x.size());
    PowerLawFit fit;
    fit.fitted = n;
    if (n < 2)
        return fit;

    std::vector<double> logX(x.size());
    for (int i = 0; i < n; ++i)
        logX[i] = std::log(x[i]);
    // suffix[i] = Σ_{j≥i} ln xⱼ, so Σ_{j≥i} ln(xⱼ/xᵢ) = suffix[i] − nᵢ·ln xᵢ without an inner loop.
    std::vector<double> suffix(x.size() + 1, 0.0);
    for (int i = n - 1; i >= 0; --i)
        suffix[i] = suffix[i + 1] + logX[i];

    int best = -1;
    double bestD = std::numeric_limits<double>::infinity();
    double bestAlpha = 0;
    for (int i = 0; i + 1 < n; ++i) {
        const int tail = n - i;
        const double logSum = suffix[i] - tail * logX[i];
        const double alpha = 1.0 + tail / logSum;
        double d = 1.0;
        if (alpha > 1.0 && std::isfinite(alpha)) {
            // D is a maximum, so a candidate is out as soon as its running maximum reaches the best
            // D so far (ties keep the first candidate): the result is the same as the full O(N²) scan.
            d = 0.0;
            const double exponent = 1.0 - alpha;
            for (int k = 0; k < tail && d < bestD; ++k) {
                const double cdfModel = 1.0 - std::exp(exponent * (logX[i + k] - logX[i]));
                d = std::max(d, std::abs(cdfModel - static_cast<double>(k) / tail));
            }
        }
        if (d < bestD) {
            bestD = d;
            best = i;
            bestAlpha = alpha;
        }
    }
    // All tail values equal (e.g. an identity matrix) give alpha = ∞: no power law to report.
    fit.ok = std::isfinite(bestAlpha);
    fit.alpha = bestAlpha;
    fit.xmin = x[best];
    fit.ksDistance = bestD;
    fit.tailSize = n - best;
    return fit;
}

} // namespace rankscope
