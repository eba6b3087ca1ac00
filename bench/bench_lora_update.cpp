// The spectrum of a LoRA update ΔW = s·B·A (B: m × r, A: r × n) two ways, for issue #45's note:
// from its factors (lowRankProductSingularValues: two thin QRs and an r × r SVD, what the analysis
// does) and by forming the m × n product and solving it as any dense matrix (SingularValueSolver's
// Gram path). Both on one BLAS thread, as a worker runs; median of the repeats, the largest
// difference of σ between them, and the memory each holds. Run by hand:
//   build/bin/bench_lora_update [repeats] [m n r]    (default 5, 4096 4096 16)
#include "spectral/BlasKernelChoice.h"
#include "spectral/CpuFeatures.h"
#include "spectral/FactoredSpectrum.h"
#include "spectral/SingularValueSolver.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace rankscope;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

} // namespace

int main(int argc, char **argv)
{
    chooseBlasKernelBeforeStart(argv); // the kernels rankscope itself would run (OPENBLAS_CORETYPE wins)
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const int m = argc > 4 ? std::atoi(argv[2]) : 4096, n = argc > 4 ? std::atoi(argv[3]) : 4096, r = argc > 4 ? std::atoi(argv[4]) : 16;
    SingularValueSolver::setBlasThreads(1);
    const CpuFeatures cpu = CpuFeatures::detect();
    std::printf("%s; %s; 1 BLAS thread; median of %d; m = %d, n = %d, r = %d\n", cpu.model.c_str(), describeBlasKernel().c_str(), repeats, m, n, r);
    std::mt19937_64 rng(11);
    std::normal_distribution<double> gauss(0.0, 0.02);
    Eigen::MatrixXd b(m, r), a(r, n);
    for (Eigen::Index i = 0; i < b.size(); ++i)
        b.data()[i] = gauss(rng);
    for (Eigen::Index i = 0; i < a.size(); ++i)
        a.data()[i] = gauss(rng);
    const double scale = 2.0;
    const Eigen::MatrixXd aT = a.transpose();

    std::vector<double> factored, dense;
    Eigen::VectorXd fromFactors, fromProduct;
    for (int k = 0; k < repeats; ++k) {
        auto start = Clock::now();
        fromFactors = lowRankProductSingularValues(b, aT, scale);
        factored.push_back(std::chrono::duration<double>(Clock::now() - start).count());
        start = Clock::now();
        const Eigen::MatrixXd product = scale * b * a; // column-major m × n: its transpose's σ are the same
        fromProduct = SingularValueSolver().compute(product).singularValues;
        dense.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    double largest = 0;
    for (int i = 0; i < r; ++i)
        largest = std::max(largest, std::abs(fromFactors[i] - fromProduct[i]) / fromFactors[0]);
    const double factorMb = double(m + n) * r * 8 / 1e6, denseMb = (double(m) * n + double(std::min(m, n)) * std::min(m, n)) * 8 / 1e6;
    std::printf("from the factors:  %10.4f s  (holds %.1f MB: the factors, their R, the r x r core)\n", median(factored), factorMb);
    std::printf("dense product:     %10.4f s  (holds %.1f MB: the product and its Gram matrix)\n", median(dense), denseMb);
    std::printf("speed-up %.0fx; largest |sigma_i difference| / sigma_1 over the r nonzero values: %.2e; sigma_1 = %.6g\n",
                median(dense) / median(factored), largest, fromFactors[0]);
    return 0;
}
