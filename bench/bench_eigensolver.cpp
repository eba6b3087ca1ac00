// Times the two steps of the Gram path for one matrix, per order n of the Gram matrix: dsyrk of an
// n×n and a 4n×n float64 matrix, and the eigenvalues-only solvers dsyevd and dsyev_2stage, with 1 and
// 2 BLAS threads. Where dsyev_2stage starts to win is SingularValueSolver::kTwoStageFromOrder; the
// per-order times are SpectrumCostModel's constants. Run by hand, once per kernel to compare:
//   [OPENBLAS_CORETYPE=Haswell] build/bin/bench_eigensolver [repeats] [orders…]
#include "spectral/BlasKernelChoice.h"
#include "spectral/CpuFeatures.h"

#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <lapacke.h>
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

template <typename F>
double medianSeconds(int repeats, F &&f)
{
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
        const auto start = Clock::now();
        f();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return median(times);
}

} // namespace

int main(int argc, char **argv)
{
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    std::vector<int> orders;
    for (int i = 2; i < argc; ++i)
        orders.push_back(std::atoi(argv[i]));
    if (orders.empty())
        orders = {512, 768, 1024, 1280, 1536, 2048, 3072, 4096};
    const CpuFeatures cpu = CpuFeatures::detect();
    std::printf("%s; %s; median of %d\n", cpu.model.c_str(), describeBlasKernel().c_str(), repeats);
    std::printf("%6s %7s | %10s %10s | %10s %10s %10s | %10s %10s %10s\n", "n", "threads", "syrk n×n", "syrk 4n×n",
                "dsyevd", "2stage", "2stage/d", "per n³ d", "per n³ 2s", "syrk/mnk");
    std::mt19937_64 rng(7);
    std::normal_distribution<double> gauss(0.0, 0.02);
    for (const int n : orders) {
        std::vector<double> w(size_t(4) * n * n);
        for (double &v : w)
            v = gauss(rng);
        std::vector<double> gram(size_t(n) * n), work(size_t(n) * n), eigenvalues(n);
        for (const int threads : {1, 2}) {
            openblas_set_num_threads(threads);
            const int reps = n >= 3072 ? std::min(repeats, 3) : repeats;
            const double square = medianSeconds(reps, [&] {
                cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, n, 1.0, w.data(), n, 0.0, gram.data(), n);
            });
            const double tall = medianSeconds(reps, [&] {
                cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n, 4 * n, 1.0, w.data(), n, 0.0, gram.data(), n);
            });
            const double divide = medianSeconds(reps, [&] {
                work = gram;
                LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', n, work.data(), n, eigenvalues.data());
            });
            const double twoStage = medianSeconds(reps, [&] {
                work = gram;
                LAPACKE_dsyev_2stage(LAPACK_COL_MAJOR, 'N', 'L', n, work.data(), n, eigenvalues.data());
            });
            const double cube = double(n) * n * n;
            std::printf("%6d %7d | %10.4f %10.4f | %10.4f %10.4f %10.2f | %10.3e %10.3e %10.3e\n", n, threads, square, tall,
                        divide, twoStage, twoStage / divide, divide / cube, twoStage / cube, tall / (4 * cube));
            std::fflush(stdout);
        }
    }
    return 0;
}
