#include "spectral/SingularValueSolver.h"

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

// σ = sqrt(eigenvalues of the smaller Gram matrix). Rounding can leave eigenvalues of a
// rank-deficient matrix slightly negative; they are zero singular values.
Spectrum gramSpectrum(const Eigen::Ref<const Eigen::MatrixXd> &w)
{
    const Eigen::Index rows = w.rows();
    const Eigen::Index cols = w.cols();
    const int k = static_cast<int>(std::min(rows, cols));
    const int inner = static_cast<int>(std::max(rows, cols));
    std::vector<double> gram(static_cast<size_t>(k) * k, 0.0);
    // Column-major W (rows×cols, leading dimension = outerStride). If cols ≤ rows the small Gram is
    // WᵀW (cols×cols, trans = T); otherwise WWᵀ (rows×rows, trans = N).
    const bool useTranspose = cols <= rows;
    cblas_dsyrk(CblasColMajor, CblasLower, useTranspose ? CblasTrans : CblasNoTrans, k, inner, 1.0,
                w.data(), static_cast<int>(w.outerStride()), 0.0, gram.data(), k);
    Eigen::VectorXd eigenvalues(k);
    const lapack_int info =
        LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', k, gram.data(), k, eigenvalues.data());
    if (info != 0)
        return {{}, QStringLiteral("eigenvalue solver did not converge (dsyevd info %1)").arg(info)};
    Eigen::VectorXd sigma = eigenvalues.cwiseMax(0.0).cwiseSqrt();
    return {sortedDescending(std::move(sigma)), {}};
}

Spectrum exactSpectrum(const Eigen::Ref<const Eigen::MatrixXd> &w)
{
    Eigen::BDCSVD<Eigen::MatrixXd> svd(w); // singular values only: no U, V requested
    if (svd.info() != Eigen::Success)
        return {{}, QStringLiteral("SVD did not converge")};
    return {sortedDescending(svd.singularValues()), {}};
}

} // namespace

Spectrum SingularValueSolver::compute(const Eigen::Ref<const Eigen::MatrixXd> &matrix) const
{
    if (matrix.size() == 0)
        return {{}, QStringLiteral("matrix is empty (%1×%2)").arg(matrix.rows()).arg(matrix.cols())};
    if (!matrix.allFinite()) {
        const auto nonFinite = (!matrix.array().isFinite()).count();
        return {{},
                QStringLiteral("matrix contains NaN or Inf (%1 of %2 values)")
                    .arg(nonFinite)
                    .arg(matrix.size())};
    }
    return m_method == SvdMethod::FastGram ? gramSpectrum(matrix) : exactSpectrum(matrix);
}

void SingularValueSolver::setBlasThreads(int threads) { openblas_set_num_threads(std::max(1, threads)); }

const char *svdMethodName(SvdMethod method)
{
    return method == SvdMethod::FastGram ? "gram" : "svd";
}

} // namespace rankscope
