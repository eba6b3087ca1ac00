#include "analysis/planning/SpectrumCostModel.h"

#include <algorithm>
#include <vector>

namespace rankscope {

namespace {
// Seconds per unit, one core, measured with bench_eigensolver (docs/performance.md).
constexpr double kGramPerMnk = 2.6e-11;            // dsyrk of an m×n matrix: m·n·min(m, n)
constexpr double kDivideAndConquerPerCube = 7.0e-11; // dsyevd, eigenvalues only: k³
constexpr double kTwoStagePerCube = 5.0e-11;       // dsyev_2stage, eigenvalues only: k³
constexpr double kWideningPerElement = 1.0e-9;     // reading and widening one stored element
constexpr double kExactSvdPerMnk = 4.5e-10;        // Eigen's BDCSVD, singular values only
constexpr double kSecondThreadGain = 0.6;          // a second BLAS thread adds 60% of a core
} // namespace

double SpectrumCostModel::matrixSeconds(const MatrixShape &shape) const
{
    const double m = double(shape.rows), n = double(shape.cols), k = double(std::min(shape.rows, shape.cols));
    if (m_method == SvdMethod::ExactSvd)
        return kExactSvdPerMnk * m * n * k + kWideningPerElement * m * n;
    const double eigensolver = k >= SingularValueSolver::kTwoStageFromOrder ? kTwoStagePerCube : kDivideAndConquerPerCube;
    return kGramPerMnk * m * n * k + eigensolver * k * k * k + kWideningPerElement * m * n;
}

double SpectrumCostModel::speedupOnThreads(int threads) { return 1.0 + kSecondThreadGain * std::max(0, threads - 1); }

double SpectrumCostModel::wallSeconds(const QList<MatrixShape> &shapes, int jobs) const
{
    jobs = std::max(1, jobs);
    // List scheduling: each matrix to the worker that is free first.
    std::vector<double> freeAt(size_t(jobs), 0.0);
    for (const MatrixShape &shape : shapes) {
        auto first = std::min_element(freeAt.begin(), freeAt.end());
        *first += matrixSeconds(shape);
    }
    std::sort(freeAt.begin(), freeAt.end());
    const double last = freeAt.back();
    if (jobs == 1 || shapes.size() < 1)
        return last;
    // From when the second-to-last worker is done, the last matrix computes alone on every core.
    const double alone = last - freeAt[size_t(jobs) - 2];
    return last - alone + alone / speedupOnThreads(jobs);
}

QList<MatrixShape> SpectrumCostModel::gpt2Layer(qint64 width)
{
    return {{width, width}, {width, width}, {width, width}, {width, width}, {4 * width, width}, {width, 4 * width}};
}

} // namespace rankscope
