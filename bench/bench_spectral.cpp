// Times the spectral core on the 72 attention/MLP matrices of one GPT-2-small checkpoint
// (12 layers; Q, K, V, O 768×768; MLP↑ 3072×768; MLP↓ 768×3072): spectrum plus every metric.
// Compares one matrix per worker against OpenBLAS threads inside one call, and reports the
// exact SVD path as the baseline, and the floor the issue measures end-to-end times against: dsyrk +
// dsyevd alone on the same matrices. Run by hand: build/bin/bench_spectral [repeats]
#include "spectral/BlasKernelChoice.h"
#include "spectral/CpuFeatures.h"
#include "spectral/PowerLawFit.h"
#include "spectral/SingularValueSolver.h"
#include "spectral/SpectralMetrics.h"
#include "spectral/WeightWatcherMetrics.h"

#include <QThreadPool>
#include <cblas.h>
#include <lapacke.h>
#include <QtConcurrent>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

using namespace rankscope;
using Clock = std::chrono::steady_clock;

namespace {

// Gaussian columns scaled by a decaying profile: a spectrum that falls off like a trained layer's.
Eigen::MatrixXd trainedLike(int rows, int cols, std::mt19937_64 &rng)
{
    std::normal_distribution<double> gauss(0.0, 0.02);
    Eigen::MatrixXd w(rows, cols);
    for (Eigen::Index i = 0; i < w.size(); ++i)
        w.data()[i] = gauss(rng);
    for (int c = 0; c < cols; ++c)
        w.col(c) *= 1.0 + 20.0 * std::pow(c + 1.0, -0.7);
    return w;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

double analyse(const Eigen::MatrixXd &w, SvdMethod method)
{
    const Spectrum s = SingularValueSolver(method).compute(w);
    return computeSpectralMetrics(s.singularValues, w.rows(), w.cols()).stableRank;
}

template <typename F>
double seconds(F &&f)
{
    const auto start = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

int main(int argc, char **argv)
{
    chooseBlasKernelBeforeStart(argv); // the kernels rankscope itself would run (OPENBLAS_CORETYPE wins)
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    std::mt19937_64 rng(2024);
    std::vector<Eigen::MatrixXd> matrices;
    for (int layer = 0; layer < 12; ++layer) {
        for (int i = 0; i < 4; ++i)
            matrices.push_back(trainedLike(768, 768, rng));
        matrices.push_back(trainedLike(3072, 768, rng));
        matrices.push_back(trainedLike(768, 3072, rng));
    }
    std::printf("%s; %s\n", CpuFeatures::detect().model.c_str(), describeBlasKernel().c_str());
    std::printf("72 matrices of a GPT-2-small checkpoint, spectrum + all metrics, median of %d\n", repeats);

    // The floor: nothing but dsyrk and dsyevd on each matrix, one thread, one after the other.
    {
        SingularValueSolver::setBlasThreads(1);
        std::vector<double> gram(3072 * 3072), eigenvalues(3072);
        std::vector<double> times;
        for (int r = 0; r < repeats; ++r)
            times.push_back(seconds([&] {
                for (const Eigen::MatrixXd &w : matrices) {
                    const int k = int(std::min(w.rows(), w.cols())), inner = int(std::max(w.rows(), w.cols()));
                    const bool byCols = w.cols() <= w.rows();
                    cblas_dsyrk(CblasColMajor, CblasLower, byCols ? CblasTrans : CblasNoTrans, k, inner, 1.0, w.data(),
                                int(w.rows()), 0.0, gram.data(), k);
                    LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', k, gram.data(), k, eigenvalues.data());
                }
            }));
        std::printf("  dsyrk + dsyevd alone, 1 thread, 72 matrices  %.3f s  (x2 checkpoints: %.3f s of one core, %.3f s on two)\n",
                    median(times), 2 * median(times), median(times));
    }

    struct Mode {
        const char *name;
        int workers;
        int blasThreads;
    };
    for (const Mode mode : {Mode{"sequential, 1 BLAS thread", 1, 1}, Mode{"1 worker, 2 BLAS threads", 1, 2},
                            Mode{"2 workers, 1 BLAS thread each", 2, 1}}) {
        SingularValueSolver::setBlasThreads(mode.blasThreads);
        QThreadPool pool;
        pool.setMaxThreadCount(mode.workers);
        std::vector<double> times;
        for (int r = 0; r < repeats; ++r)
            times.push_back(seconds([&] {
                QtConcurrent::blockingMap(&pool, matrices, [](const Eigen::MatrixXd &w) { analyse(w, SvdMethod::FastGram); });
            }));
        std::printf("  gram  %-32s %.3f s  (min %.3f, max %.3f)\n", mode.name, median(times),
                    *std::min_element(times.begin(), times.end()), *std::max_element(times.begin(), times.end()));
    }

    // Baseline in the same run: the exact SVD on one layer's six matrices, scaled to twelve layers.
    SingularValueSolver::setBlasThreads(1);
    std::vector<double> exactTimes;
    for (int r = 0; r < std::min(repeats, 3); ++r)
        exactTimes.push_back(seconds([&] {
            for (int i = 0; i < 6; ++i)
                analyse(matrices[i], SvdMethod::ExactSvd);
        }));
    std::printf("  svd   sequential (BDCSVD, 1 layer x 12)    %.3f s\n", 12 * median(exactTimes));

    std::vector<double> perShape[2];
    for (int r = 0; r < repeats; ++r) {
        perShape[0].push_back(seconds([&] { analyse(matrices[0], SvdMethod::FastGram); }));
        perShape[1].push_back(seconds([&] { analyse(matrices[4], SvdMethod::FastGram); }));
    }
    std::printf("  one matrix, gram, 1 thread: 768x768 %.4f s, 3072x768 %.4f s\n", median(perShape[0]), median(perShape[1]));

    // The power-law fit on a Marchenko–Pastur bulk (a random-like square matrix), where a plain O(N²)
    // scan takes 27 s at N = 20000.
    for (const int n : {4096, 20000}) {
        const int grid = 1000000;
        std::vector<double> xs(grid + 1), cdf(grid + 1, 0.0);
        for (int i = 0; i <= grid; ++i)
            xs[i] = 4.0 * std::pow(double(i) / grid, 2);
        for (int i = 1; i <= grid; ++i) {
            const double mid = 0.5 * (xs[i] + xs[i - 1]);
            cdf[i] = cdf[i - 1] + std::sqrt(std::max(0.0, (4.0 - mid) * mid)) / (2 * M_PI * mid) * (xs[i] - xs[i - 1]);
        }
        Eigen::VectorXd bulk(n);
        for (int k = 0, j = 0; k < n; ++k) {
            while (j < grid && cdf[j + 1] < (k + 0.5) / n * cdf[grid])
                ++j;
            bulk[k] = 20.0 * xs[j];
        }
        std::vector<double> bulkTimes;
        for (int r = 0; r < repeats; ++r)
            bulkTimes.push_back(seconds([&] { fitPowerLaw(bulk); }));
        std::printf("  power-law fit, Marchenko-Pastur bulk, N = %d: %.4f s\n", n, median(bulkTimes));
    }

    // The O(N²) power-law fit at N = 4096 (eigenvalues of a 4096-wide layer).
    Eigen::VectorXd eigenvalues(4096);
    std::lognormal_distribution<double> lognormal(-3.0, 1.5);
    for (double &v : eigenvalues)
        v = lognormal(rng);
    std::vector<double> fitTimes;
    double alpha = 0;
    for (int r = 0; r < repeats; ++r)
        fitTimes.push_back(seconds([&] { alpha = fitPowerLaw(eigenvalues).alpha; }));
    std::printf("  power-law fit, N = 4096: %.4f s (alpha %.3f)\n", median(fitTimes), alpha);
    // WeightWatcher's Marchenko–Pastur fit on the same eigenvalues, as a 11008×4096 layer.
    std::vector<double> mpTimes;
    int spikes = 0;
    for (int r = 0; r < repeats; ++r)
        mpTimes.push_back(seconds([&] { spikes = fitMarchenkoPastur(eigenvalues, 11008, 4096).numSpikes; }));
    std::printf("  Marchenko-Pastur fit, M = 4096: %.4f s (%d spikes)\n", median(mpTimes), spikes);
    return 0;
}
