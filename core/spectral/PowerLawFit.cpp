#include "spectral/PowerLawFit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace rankscope {

namespace {

// The eigenvalues the fit takes, ascending: those above kPowerLawThreshold. An Inf would make
// every tail's log-likelihood Inf − Inf: only finite eigenvalues are fitted (the solver and the
// results file let no other through).
std::vector<double> fittedEigenvalues(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues)
{
    std::vector<double> x;
    x.reserve(static_cast<size_t>(eigenvalues.size()));
    for (double value : eigenvalues)
        if (value > kPowerLawThreshold && std::isfinite(value))
            x.push_back(value);
    std::sort(x.begin(), x.end());
    return x;
}

} // namespace

PowerLawFit fitPowerLaw(const Eigen::Ref<const Eigen::VectorXd> &eigenvalues)
{
    const std::vector<double> x = fittedEigenvalues(eigenvalues);
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

    // Candidate xmin = x[i]: alpha by maximum likelihood, D = max over its tail of |model − empirical|.
    struct Candidate {
        int index;
        double alpha;
        double lowerBound; // a lower bound on D from a few points of the tail; D itself when it is 1
    };
    std::vector<Candidate> candidates;
    candidates.reserve(size_t(n - 1));
    auto deviation = [&](const Candidate &c, int k) {
        const double cdfModel = 1.0 - std::exp((1.0 - c.alpha) * (logX[c.index + k] - logX[c.index]));
        return std::abs(cdfModel - static_cast<double>(k) / (n - c.index));
    };
    for (int i = 0; i + 1 < n; ++i) {
        const int tail = n - i;
        const double logSum = suffix[i] - tail * logX[i];
        Candidate c{i, 1.0 + tail / logSum, 1.0};
        if (c.alpha > 1.0 && std::isfinite(c.alpha)) {
            c.lowerBound = 0.0;
            const int stride = std::max(1, tail / 32);
            for (int k = tail - 1; k > 0; k -= stride)
                c.lowerBound = std::max(c.lowerBound, deviation(c, k));
        }
        candidates.push_back(c);
    }
    // D is a maximum, so a candidate whose bound (or any point of its tail) reaches the best D so far
    // is out, and examining the candidates from the smallest bound up finds a small best D first:
    // most candidates are then ruled out by their bound alone. The winner is still the smallest D,
    // ties going to the smallest xmin: exactly the full O(N²) scan's result, which takes 27 s at
    // N = 20000 on a Marchenko–Pastur bulk, whose deviations peak late in every tail.
    std::sort(candidates.begin(), candidates.end(), [](const Candidate &a, const Candidate &b) {
        return a.lowerBound != b.lowerBound ? a.lowerBound < b.lowerBound : a.index < b.index;
    });
    int best = -1;
    double bestD = std::numeric_limits<double>::infinity();
    double bestAlpha = 0;
    auto beats = [&](double d, int index) { return d < bestD || (d == bestD && index < best); };
    for (const Candidate &c : candidates) {
        if (c.lowerBound > bestD)
            break; // sorted: every later bound is larger still
        if (!beats(c.lowerBound, c.index))
            continue;
        double d = 1.0; // no fit: alpha ≤ 1 or infinite
        if (c.alpha > 1.0 && std::isfinite(c.alpha)) {
            d = 0.0;
            const int tail = n - c.index;
            for (int k = 0; k < tail && beats(d, c.index); ++k)
                d = std::max(d, deviation(c, k));
        }
        if (beats(d, c.index)) {
            bestD = d;
            best = c.index;
            bestAlpha = c.alpha;
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
