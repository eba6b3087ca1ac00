#include "spectral/WeightWatcherMetrics.h"

#include "spectral/SpectralMetrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

namespace rankscope {

namespace {

// numpy.nan_to_num: NaN → 0, ±inf → ±largest finite double.
double nanToNum(double v)
{
    if (std::isnan(v))
        return 0.0;
    if (std::isinf(v))
        return v > 0 ? std::numeric_limits<double>::max() : std::numeric_limits<double>::lowest();
    return v;
}

// What resid_mp needs of the spectrum whatever σ is tried: sklearn's KernelDensity(kernel='linear',
// bandwidth=0.1) of the values on numpy.linspace(0, max + 0.5, 1000), keeping only the grid points
// where the density exceeds THRESH = 0.01 (the others add zero residuals, nothing to the sum).
struct DensityEstimate {
    std::vector<double> x, y;
    double peakX = 0; // the first x where y is largest
    double maxX = 0;
};

DensityEstimate linearKernelDensity(std::vector<double> values, double bandwidth)
{
    std::sort(values.begin(), values.end());
    const double n = double(values.size());
    constexpr int kGrid = 1000;
    const double stop = values.back() + 0.5;
    const double step = stop / (kGrid - 1);
    DensityEstimate d;
    double peakY = -1;
    for (int i = 0; i < kGrid; ++i) {
        const double x = i == kGrid - 1 ? stop : i * step; // linspace sets its last point to stop exactly
        // The linear kernel is 1 − |x − v|/h for |x − v| < h, normalised by 1/(n·h) in one dimension.
        auto it = std::lower_bound(values.begin(), values.end(), x - bandwidth);
        double sum = 0;
        for (; it != values.end() && *it < x + bandwidth; ++it) {
            const double distance = std::abs(x - *it);
            if (distance < bandwidth)
                sum += 1.0 - distance / bandwidth;
        }
        const double density = sum / (n * bandwidth);
        if (density > 0.01) {
            d.x.push_back(x);
            d.y.push_back(density);
            if (density > peakY) {
                peakY = density;
                d.peakX = x;
            }
        }
    }
    d.maxX = d.x.empty() ? 0 : d.x.back();
    return d;
}

// resid_mp(…, allresid=False): the sum of squared differences between the fitted law at σ and the
// density estimate. Q = 1 uses WeightWatcher's quarter_circle_fun, (1/(πσ²))·√(4 − x²), on
// singular values; otherwise marchenko_pastur_fun on eigenvalues, with the penalty of 1000 per
// point when the MP edge b falls below the density's peak or beyond its range, or a above the peak.
double mpResidual(double sigma, const DensityEstimate &d, double q)
{
    double sum = 0;
    if (q == 1.0) {
        for (size_t i = 0; i < d.x.size(); ++i) {
            const double mp = nanToNum((1.0 / (std::numbers::pi * sigma * sigma)) * std::sqrt(4.0 - d.x[i] * d.x[i]));
            sum += (mp - d.y[i]) * (mp - d.y[i]);
        }
        return sum;
    }
    const double y = 1.0 / q;
    const double b = std::pow(sigma * (1.0 + std::sqrt(1.0 / q)), 2);
    const double a = std::pow(sigma * (1.0 - std::sqrt(1.0 / q)), 2);
    if (b < d.peakX || b > d.maxX || a > d.peakX)
        return double(d.x.size()) * 1000.0 * 1000.0;
    for (size_t i = 0; i < d.x.size(); ++i) {
        const double x = d.x[i];
        const double mp = nanToNum((1.0 / (2.0 * std::numbers::pi * sigma * sigma * x * y)) * std::sqrt((b - x) * (x - a)));
        sum += (mp - d.y[i]) * (mp - d.y[i]);
    }
    return sum;
}

// scipy.optimize.fmin in one dimension with its defaults (xtol = ftol = 1e-4, at most 200
// iterations and 200 evaluations, first simplex x0 and 1.05·x0): brute's finishing step.
template <typename F>
double nelderMead1d(F &&f, double x0)
{
    constexpr double rho = 1, chi = 2, psi = 0.5, shrink = 0.5;
    constexpr int maxIterations = 200, maxCalls = 200;
    int calls = 0;
    auto call = [&](double x) {
        ++calls;
        return f(x);
    };
    double sim[2] = {x0, x0 != 0 ? 1.05 * x0 : 0.00025};
    double fsim[2] = {call(sim[0]), call(sim[1])};
    auto order = [&] { // numpy.argsort of two: the first stays first on a tie
        if (fsim[1] < fsim[0]) {
            std::swap(sim[0], sim[1]);
            std::swap(fsim[0], fsim[1]);
        }
    };
    order();
    int iterations = 1;
    while (calls < maxCalls && iterations < maxIterations) {
        if (std::abs(sim[1] - sim[0]) <= 1e-4 && std::abs(fsim[0] - fsim[1]) <= 1e-4)
            break;
        const double xbar = sim[0];
        const double xr = (1 + rho) * xbar - rho * sim[1];
        const double fxr = call(xr);
        bool doShrink = false;
        if (fxr < fsim[0]) {
            const double xe = (1 + rho * chi) * xbar - rho * chi * sim[1];
            const double fxe = call(xe);
            if (fxe < fxr) {
                sim[1] = xe;
                fsim[1] = fxe;
            } else {
                sim[1] = xr;
                fsim[1] = fxr;
            }
        // scipy's next test, fxr < fsim[-2], compares with fsim[0] in one dimension and cannot hold here.
        } else if (fxr < fsim[1]) {
            const double xc = (1 + psi * rho) * xbar - psi * rho * sim[1];
            const double fxc = call(xc);
            if (fxc <= fxr) {
                sim[1] = xc;
                fsim[1] = fxc;
            } else {
                doShrink = true;
            }
        } else {
            const double xcc = (1 - psi) * xbar + psi * sim[1];
            const double fxcc = call(xcc);
            if (fxcc < fsim[1]) {
                sim[1] = xcc;
                fsim[1] = fxcc;
            } else {
                doShrink = true;
            }
        }
        if (doShrink) {
            sim[1] = sim[0] + shrink * (sim[1] - sim[0]);
            fsim[1] = call(sim[1]);
        }
        ++iterations;
        order();
    }
    return sim[0];
}

} // namespace

WeightWatcherNorms weightWatcherNorms(const Eigen::Ref<const Eigen::VectorXd> &lambda, double alpha)
{
    WeightWatcherNorms n{kNaN, kNaN, kNaN};
    const double norm = lambda.sum();
    const double spectral = lambda.size() > 0 ? lambda.maxCoeff() : 0.0;
    // WeightWatcher would take log10(0) = −inf for a zero matrix; NaN keeps it out of every aggregate.
    // So does an Inf or NaN eigenvalue (computeSpectralMetrics lets none through).
    if (!(norm > 0) || !(spectral > 0) || !std::isfinite(norm))
        return n;
    n.logNorm = std::log10(norm);
    n.logSpectralNorm = std::log10(spectral);
    if (std::isfinite(alpha)) {
        double sum = 0;
        for (double ev : lambda)
            sum += std::pow(ev, alpha);
        // λᵢ^α overflows long before λ does (λ = 1e40 at α = 8): then the same sum scaled by
        // λ_max^α, whose logarithm is added back; WeightWatcher's own sum would be Inf.
        if (!std::isfinite(sum)) {
            double scaled = 0;
            for (double ev : lambda)
                scaled += std::pow(ev / spectral, alpha);
            n.logAlphaNorm = alpha * std::log10(spectral) + std::log10(scaled);
        } else {
            n.logAlphaNorm = std::log10(sum);
        }
    }
    return n;
}

MarchenkoPasturFit fitMarchenkoPastur(const Eigen::Ref<const Eigen::VectorXd> &lambda, Eigen::Index rows, Eigen::Index cols)
{
    MarchenkoPasturFit fit;
    const Eigen::Index count = lambda.size();
    const double total = lambda.sum();
    if (count == 0 || !(total > 0) || !std::isfinite(total))
        return fit;
    const double bigN = double(std::max(rows, cols)), smallM = double(std::min(rows, cols));
    const double q = bigN / smallM;

    // Rescaled so that the mean eigenvalue is 1: Wscale = √(len(evals)) / √(Σλ).
    const double wScale = std::sqrt(double(count)) / std::sqrt(total);
    fit.scale = wScale * wScale;
    // Eigenvalues so small that their rescaling overflows (Σλ of denormals) would turn the density
    // estimate's input into Inf and NaN, which its sort must never see: no fit.
    if (!std::isfinite(fit.scale))
        return fit;
    std::vector<double> toPlot(static_cast<size_t>(count));
    for (Eigen::Index i = 0; i < count; ++i)
        toPlot[size_t(i)] = fit.scale * std::max(lambda[i], 0.0);
    const double lambdaMax = *std::max_element(toPlot.begin(), toPlot.end());

    std::vector<double> toFit = toPlot;
    if (q == 1.0)
        for (double &v : toFit)
            v = std::sqrt(v);
    const DensityEstimate density = linearKernelDensity(toFit, 0.1);
    if (density.x.empty())
        return fit; // max() of an empty array: WeightWatcher's fit fails
    auto residual = [&](double sigma) { return mpResidual(sigma, density, q); };

    // fit_density_with_range: brute force over numpy.arange(0.05·σ₀, 2·σ₀, 0.01·σ₀) with σ₀ the σ
    // that puts the MP edge on λ_max, then fmin from the best grid point.
    const double sigma0 = std::sqrt(lambdaMax / std::pow(1.0 + 1.0 / std::sqrt(q), 2));
    const double start = 0.05 * sigma0, stop = 2.0 * sigma0, step = 0.01 * sigma0;
    const auto points = static_cast<long>(std::ceil((stop - start) / step));
    const double delta = (start + step) - start; // numpy's arange fills start + i·(x₁ − x₀)
    double best = start, bestValue = std::numeric_limits<double>::infinity();
    for (long i = 0; i < points; ++i) {
        const double sigma = i == 0 ? start : (i == 1 ? start + step : start + double(i) * delta);
        const double value = residual(sigma);
        if (i == 0 || value < bestValue) { // numpy.argmin: the first of equal minima
            bestValue = value;
            best = sigma;
        }
    }
    fit.sigma = nelderMead1d(residual, best);

    fit.q = q;
    fit.bulkMax = std::pow(fit.sigma * (1.0 + 1.0 / std::sqrt(q)), 2);
    fit.bulkMin = std::pow(fit.sigma * (1.0 - 1.0 / std::sqrt(q)), 2);
    const double tracyWidom = 1.0 / std::sqrt(q) * std::pow(fit.bulkMax, 2.0 / 3.0) * std::pow(smallM, -2.0 / 3.0);
    fit.bulkMaxTw = fit.bulkMax + std::sqrt(tracyWidom);
    fit.numSpikes = int(std::count_if(toPlot.begin(), toPlot.end(), [&](double v) { return v > fit.bulkMaxTw; }));
    fit.softRank = fit.bulkMax / lambdaMax;
    fit.ok = std::isfinite(fit.sigma) && std::isfinite(fit.softRank);
    return fit;
}

double marchenkoPasturDensity(double x, double sigma, double q)
{
    const double a = std::pow(sigma * (1.0 - 1.0 / std::sqrt(q)), 2);
    const double b = std::pow(sigma * (1.0 + 1.0 / std::sqrt(q)), 2);
    if (!(x > a && x < b) || !(x > 0))
        return 0;
    return q / (2.0 * std::numbers::pi * sigma * sigma * x) * std::sqrt((b - x) * (x - a));
}

double jensenShannonDistance(const Eigen::Ref<const Eigen::VectorXd> &p, const Eigen::Ref<const Eigen::VectorXd> &q)
{
    if (p.size() != q.size() || p.size() == 0)
        return kNaN;
    const Eigen::VectorXd m = (p + q) / 2;
    const double sp = p.sum(), sq = q.sum(), sm = m.sum();
    if (!(sp > 0) || !(sq > 0))
        return kNaN;
    // scipy.stats.entropy(x, y): Σ x̂ ln(x̂/ŷ) with rel_entr's conventions (0 where x̂ = 0).
    auto relativeEntropy = [&](const Eigen::VectorXd &x, double sx) {
        double sum = 0;
        for (Eigen::Index i = 0; i < x.size(); ++i) {
            const double a = x[i] / sx, b = m[i] / sm;
            if (a > 0)
                sum += b > 0 ? a * std::log(a / b) : std::numeric_limits<double>::infinity();
        }
        return sum;
    };
    return std::sqrt((relativeEntropy(p, sp) + relativeEntropy(q, sq)) / 2);
}

void shuffleEntries(double *values, Eigen::Index count, std::uint64_t seed)
{
    std::mt19937_64 generator(seed);
    for (Eigen::Index i = count - 1; i > 0; --i) {
        // A uniform index in [0, i]: draws beyond the largest multiple of i + 1 are rejected.
        const std::uint64_t range = std::uint64_t(i) + 1;
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
        std::uint64_t draw;
        do
            draw = generator();
        while (draw >= limit);
        std::swap(values[i], values[Eigen::Index(draw % range)]);
    }
}

double randDistance(Eigen::Map<Eigen::MatrixXd> matrix, const Eigen::Ref<const Eigen::VectorXd> &singularValues,
                    const SingularValueSolver &solver, std::uint64_t seed)
{
    shuffleEntries(matrix.data(), matrix.size(), seed);
    const Spectrum shuffled = solver.compute(matrix);
    if (!shuffled.ok() || shuffled.singularValues.size() != singularValues.size())
        return kNaN;
    // Both lists ascending, as WeightWatcher sorts them (np.sort), eigenvalues σ².
    const Eigen::VectorXd evals = singularValues.reverse().array().square();
    const Eigen::VectorXd randEvals = shuffled.singularValues.reverse().array().square();
    return jensenShannonDistance(evals, randEvals);
}

} // namespace rankscope
