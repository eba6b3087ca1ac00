#include "spectral/SingularValueSolver.h"

#include "spectral/DenseBlockSource.h"

#include <Eigen/SVD>
#include <algorithm>
#include <cblas.h>
#include <cmath>
#include <lapacke.h>
#include <vector>

namespace rankscope {

namespace {

Eigen::VectorXd sortedDescending(Eigen::VectorXd values)
{
    std::sort(values.data(), values.data() + values.size(), std::greater<double>());
    return values;
}

qint64 countNonFinite(const double *values, qint64 count)
{
    qint64 nonFinite = 0;
    for (qint64 i = 0; i < count; ++i)
        nonFinite += !std::isfinite(values[i]);
    return nonFinite;
}

QString nonFiniteError(qint64 nonFinite, qint64 total)
{
    return QStringLiteral("matrix contains NaN or Inf (%1 of %2 values)").arg(nonFinite).arg(total);
}

} // namespace

Spectrum SingularValueSolver::compute(const Eigen::Ref<const Eigen::MatrixXd> &matrix) const
{
    return compute(DenseBlockSource(matrix));
}

Spectrum SingularValueSolver::compute(const MatrixBlockSource &matrix, const std::function<void()> &allRead) const
{
    if (matrix.rows() == 0 || matrix.cols() == 0)
        return {{}, QStringLiteral("matrix is empty (%1×%2)").arg(matrix.rows()).arg(matrix.cols())};
    return m_method == SvdMethod::FastGram ? gramSpectrum(matrix, allRead) : exactSpectrum(matrix, allRead);
}

// σ = sqrt(eigenvalues of the smaller Gram matrix). Row-major W (rows × cols): if cols ≤ rows the
// small Gram is WᵀW = Σ BᵀB over row blocks B, else WWᵀ = Σ CCᵀ over column blocks C; each block is
// widened to float64 just before its dsyrk, and every sum is float64 (the contract's accuracy).
// Rounding can leave eigenvalues of a rank-deficient matrix slightly negative: they are zeros.
Spectrum SingularValueSolver::gramSpectrum(const MatrixBlockSource &matrix, const std::function<void()> &allRead) const
{
    const qint64 rows = matrix.rows(), cols = matrix.cols();
    const bool byRows = cols <= rows;
    const int order = int(std::min(rows, cols));
    const qint64 inner = std::max(rows, cols);
    std::vector<double> gram(size_t(order) * size_t(order), 0.0);
    qint64 nonFinite = 0;
    if (const double *whole = matrix.rowMajorData()) {
        // Already float64 in memory: one call. Row-major rows×cols is column-major cols×rows.
        nonFinite = countNonFinite(whole, rows * cols);
        if (nonFinite == 0)
            cblas_dsyrk(CblasColMajor, CblasLower, byRows ? CblasNoTrans : CblasTrans, order, int(inner), 1.0, whole,
                        int(cols), 0.0, gram.data(), order);
    } else {
        const qint64 lines = std::clamp<qint64>(m_gramBlockBytes / (qint64(sizeof(double)) * order), 1, inner);
        std::vector<double> block(size_t(lines * order));
        for (qint64 start = 0; start < inner; start += lines) {
            const qint64 count = std::min(lines, inner - start);
            if (byRows) // count × cols, row-major: column-major cols × count (Bᵀ), so G += Bᵀ·B is NoTrans
                matrix.widenBlock(start, count, 0, cols, block.data());
            else        // rows × count, row-major: column-major count × rows (Cᵀ), so G += C·Cᵀ is Trans
                matrix.widenBlock(0, rows, start, count, block.data());
            nonFinite += countNonFinite(block.data(), count * order);
            if (nonFinite == 0) // past the first NaN only the count goes on, for the message
                cblas_dsyrk(CblasColMajor, CblasLower, byRows ? CblasNoTrans : CblasTrans, order, int(count), 1.0,
                            block.data(), byRows ? order : int(count), 1.0, gram.data(), order);
        }
    }
    // From here on only the Gram matrix is needed: neither the block nor the tensor is held while
    // the eigensolver runs (for a d = 4096 layer the longer half of the time).
    if (allRead)
        allRead();
    if (nonFinite > 0)
        return {{}, nonFiniteError(nonFinite, rows * cols)};

    Eigen::VectorXd eigenvalues(order);
    const bool twoStage = m_eigensolver == Eigensolver::TwoStage ||
                          (m_eigensolver == Eigensolver::BySize && order >= kTwoStageFromOrder && openblas_get_num_threads() == 1);
    const lapack_int info = twoStage ? LAPACKE_dsyev_2stage(LAPACK_COL_MAJOR, 'N', 'L', order, gram.data(), order, eigenvalues.data())
                                     : LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', order, gram.data(), order, eigenvalues.data());
    if (info != 0)
        return {{}, QStringLiteral("eigenvalue solver did not converge (%1 info %2)").arg(twoStage ? "dsyev_2stage" : "dsyevd").arg(info)};
    Eigen::VectorXd sigma = eigenvalues.cwiseMax(0.0).cwiseSqrt();
    return {sortedDescending(std::move(sigma)), {}};
}

// The reference path may widen the whole matrix: BDCSVD needs it all.
Spectrum SingularValueSolver::exactSpectrum(const MatrixBlockSource &matrix, const std::function<void()> &allRead) const
{
    const qint64 rows = matrix.rows(), cols = matrix.cols();
    Eigen::MatrixXd transposed(cols, rows); // column-major cols×rows is row-major W: same singular values
    if (const double *whole = matrix.rowMajorData())
        std::copy(whole, whole + rows * cols, transposed.data());
    else
        matrix.widenBlock(0, rows, 0, cols, transposed.data());
    if (allRead)
        allRead();
    if (const qint64 nonFinite = countNonFinite(transposed.data(), transposed.size()))
        return {{}, nonFiniteError(nonFinite, transposed.size())};
    Eigen::BDCSVD<Eigen::MatrixXd> svd(transposed); // singular values only: no U, V requested
    if (svd.info() != Eigen::Success)
        return {{}, QStringLiteral("SVD did not converge")};
    return {sortedDescending(svd.singularValues()), {}};
}

void SingularValueSolver::setBlasThreads(int threads) { openblas_set_num_threads(std::max(1, threads)); }

const char *svdMethodName(SvdMethod method)
{
    return method == SvdMethod::FastGram ? "gram" : "svd";
}

} // namespace rankscope
