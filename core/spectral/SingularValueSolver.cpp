#include "spectral/SingularValueSolver.h"

#include "spectral/DenseBlockSource.h"
#include "spectral/DeviceGramSolver.h"
#include "spectral/FactoredSpectrum.h"
#include "spectral/SpectralMetrics.h"

#include <Eigen/SVD>
#include <algorithm>
#include <cblas.h>
#include <cmath>
#include <lapacke.h>
#include <optional>
#include <vector>

namespace rankscope {

namespace {

Eigen::VectorXd sortedDescending(Eigen::VectorXd values)
{
    std::sort(values.data(), values.data() + values.size(), std::greater<double>());
    return values;
}

// The solver's result, or why it is none: a NaN (which std::sort must never see) or singular
// values too large for their squares, the eigenvalues every metric and the density start from.
// A finite matrix reaches this with values past about 1e150 (a 1e155 spike: σ₁ = 1e155, σ₁² = Inf).
Spectrum checkedSpectrum(Eigen::VectorXd sigma)
{
    if (QString problem = spectrumProblem(sigma); !problem.isEmpty())
        return {{}, std::move(problem), {}};
    return {sortedDescending(std::move(sigma)), {}, {}};
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

Spectrum SingularValueSolver::compute(const MatrixBlockSource &matrix, const std::function<void()> &allRead, SolvePlace *place) const
{
    if (matrix.rows() == 0 || matrix.cols() == 0)
        return {{}, QStringLiteral("matrix is empty (%1×%2)").arg(matrix.rows()).arg(matrix.cols()), {}};
    // A low-rank product: exactly, from its factors; --subspace's top vectors too, as many as its rank has.
    if (const std::optional<LowRankFactors> factors = matrix.lowRankFactors()) {
        if (allRead)
            allRead();
        if (place)
            *place = {false, {}};
        Spectrum spectrum = checkedSpectrum(lowRankProductSingularValues(factors->left, factors->right, factors->scale));
        if (spectrum.ok() && m_topVectors > 0)
            spectrum.topRightVectors = lowRankProductTopRightVectors(factors->left, factors->right, m_topVectors);
        return spectrum;
    }
    if (m_device && m_method == SvdMethod::FastGram) {
        QString why;
        if (std::optional<Spectrum> spectrum = m_device->compute(matrix, m_topVectors, m_gramBlockBytes, allRead, &why)) {
            if (place)
                *place = {true, {}};
            return std::move(*spectrum);
        }
        if (place)
            *place = {false, why};
    }
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
    // the eigensolver runs (for a d = 4096 layer the longer half of the time). Right singular
    // vectors from WWᵀ need W once more, after the eigensolver.
    const int k = std::min(m_topVectors, order);
    const bool readsAgain = k > 0 && !byRows;
    if (allRead && !readsAgain)
        allRead();
    if (nonFinite > 0)
        return {{}, nonFiniteError(nonFinite, rows * cols), {}};
    // Its trace is ‖W‖²_F = Σσ²: past kLargestEigenvalueSum (entries beyond about 1e150 square to
    // Inf in dsyrk) the eigenvalues cannot be held, and an Inf must not reach the eigensolver.
    double trace = 0;
    for (int i = 0; i < order; ++i)
        trace += gram[size_t(i) * size_t(order) + size_t(i)];
    if (!(trace <= kLargestEigenvalueSum) || countNonFinite(gram.data(), qint64(gram.size())) > 0)
        return {{}, tooLargeMessage(), {}};

    if (k > 0)
        return gramSpectrumWithVectors(readsAgain ? &matrix : nullptr, rows, cols, std::move(gram), k, allRead);
    Eigen::VectorXd eigenvalues(order);
    const bool twoStage = m_eigensolver == Eigensolver::TwoStage ||
                          (m_eigensolver == Eigensolver::BySize && order >= kTwoStageFromOrder && openblas_get_num_threads() == 1);
    const lapack_int info = twoStage ? LAPACKE_dsyev_2stage(LAPACK_COL_MAJOR, 'N', 'L', order, gram.data(), order, eigenvalues.data())
                                     : LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'L', order, gram.data(), order, eigenvalues.data());
    if (info != 0)
        return {{}, QStringLiteral("eigenvalue solver did not converge (%1 info %2)").arg(twoStage ? "dsyev_2stage" : "dsyevd").arg(info), {}};
    return checkedSpectrum(eigenvalues.cwiseMax(0.0).cwiseSqrt());
}

// Every eigenvalue of the Gram matrix and the eigenvectors of its k largest, from one tridiagonal
// reduction. `gram` holds the lower triangle of WᵀW (cols ≤ rows: its eigenvectors are V, and W
// may be gone already: `matrix` is null) or of WWᵀ (its eigenvectors are U, and V = WᵀUΣ⁻¹ is read
// from `matrix` a block at a time, and `allRead` called after).
Spectrum SingularValueSolver::gramSpectrumWithVectors(const MatrixBlockSource *matrix, qint64 rows, qint64 cols, std::vector<double> gram,
                                                      int k, const std::function<void()> &allRead) const
{
    const bool byRows = cols <= rows;
    const int order = int(std::min(rows, cols));
    auto finished = [&] {
        if (allRead && !byRows)
            allRead();
    };
    // dstemr's eigenvectors come back NaN for a Gram matrix whose entries are far from 1 (one 1e100
    // entry of W: 1e200 in the Gram), though it scales its eigenvalues itself. The Gram matrix is
    // scaled by a power of two (exact) to the order of its largest diagonal entry, and the
    // eigenvalues back; matrices of ordinary size are left exactly as they are.
    double largestDiagonal = 0;
    for (int i = 0; i < order; ++i)
        largestDiagonal = std::max(largestDiagonal, gram[size_t(i) * size_t(order) + size_t(i)]);
    int exponent = 0;
    if (largestDiagonal > 1e150 || (largestDiagonal > 0 && largestDiagonal < 1e-150)) {
        std::frexp(largestDiagonal, &exponent);
        for (double &g : gram)
            g = std::ldexp(g, -exponent);
    }
    std::vector<double> diagonal(static_cast<size_t>(order)), offDiagonal(static_cast<size_t>(order), 0.0), tau(static_cast<size_t>(std::max(1, order - 1)));
    lapack_int info = LAPACKE_dsytrd(LAPACK_COL_MAJOR, 'L', order, gram.data(), order, diagonal.data(), offDiagonal.data(), tau.data());
    std::vector<double> eigenvalues = diagonal, offCopy = offDiagonal;
    if (info == 0)
        info = LAPACKE_dsterf(order, eigenvalues.data(), offCopy.data());
    for (double &lambda : eigenvalues)
        lambda = std::ldexp(lambda, exponent);
    // The k largest eigenpairs of the tridiagonal matrix (ascending), then Q·z: Gram eigenvectors.
    // dstemr uses all of its eigenvalue array (length order) as workspace, whatever k is.
    lapack_int found = 0;
    std::vector<double> topValues(static_cast<size_t>(order)), vectors(static_cast<size_t>(order) * static_cast<size_t>(k));
    std::vector<lapack_int> support(static_cast<size_t>(2 * k));
    lapack_logical tryRelativeAccuracy = 1;
    if (info == 0)
        info = LAPACKE_dstemr(LAPACK_COL_MAJOR, 'V', 'I', order, diagonal.data(), offDiagonal.data(), 0, 0, order - k + 1, order,
                              &found, topValues.data(), vectors.data(), order, k, support.data(), &tryRelativeAccuracy);
    if (info == 0 && found == k)
        info = LAPACKE_dormtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', order, k, gram.data(), order, tau.data(), vectors.data(), order);
    if (info != 0 || found != k) {
        finished();
        return {{}, QStringLiteral("eigenvalue solver did not converge (dsytrd/dsterf/dstemr info %1)").arg(info), {}};
    }
    gram = {};
    Spectrum spectrum = checkedSpectrum(Eigen::Map<const Eigen::VectorXd>(eigenvalues.data(), order).cwiseMax(0.0).cwiseSqrt());
    if (!spectrum.ok()) {
        finished();
        return spectrum;
    }
    // Largest first: dstemr returns them ascending.
    Eigen::MatrixXd gramVectors = Eigen::Map<const Eigen::MatrixXd>(vectors.data(), order, k).rowwise().reverse();
    if (byRows) {
        spectrum.topRightVectors = gramVectors.cast<float>();
        return spectrum;
    }
    spectrum.topRightVectors = rightVectorsFromLeft(*matrix, gramVectors, spectrum.singularValues, m_gramBlockBytes);
    finished();
    return spectrum;
}

// V = WᵀUΣ⁻¹, by column blocks C of W: the rows of V for C's columns are CᵀU. A zero σ has no
// right vector to give: its column is left zero.
Eigen::MatrixXf SingularValueSolver::rightVectorsFromLeft(const MatrixBlockSource &matrix, const Eigen::MatrixXd &left,
                                                          const Eigen::VectorXd &singularValues, qint64 blockBytes)
{
    const qint64 rows = matrix.rows(), cols = matrix.cols();
    const int k = int(left.cols());
    Eigen::MatrixXd right(cols, k);
    if (const double *whole = matrix.rowMajorData()) {
        right.noalias() = Eigen::Map<const Eigen::MatrixXd>(whole, cols, rows) * left;
    } else {
        const qint64 lines = std::clamp<qint64>(blockBytes / (qint64(sizeof(double)) * rows), 1, cols);
        std::vector<double> block(size_t(lines * rows));
        for (qint64 start = 0; start < cols; start += lines) {
            const qint64 count = std::min(lines, cols - start);
            matrix.widenBlock(0, rows, start, count, block.data()); // column-major count × rows: Cᵀ
            right.middleRows(start, count).noalias() = Eigen::Map<const Eigen::MatrixXd>(block.data(), count, rows) * left;
        }
    }
    for (int j = 0; j < k; ++j) {
        const double s = singularValues[j];
        right.col(j) = s > 0 ? Eigen::VectorXd(right.col(j) / s) : Eigen::VectorXd::Zero(cols);
    }
    return right.cast<float>();
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
        return {{}, nonFiniteError(nonFinite, transposed.size()), {}};
    // Wᵀ = U′ΣV′ᵀ makes U′ W's right singular vectors (descending, as Eigen sorts them).
    const int k = int(std::min<qint64>(m_topVectors, std::min(rows, cols)));
    Eigen::BDCSVD<Eigen::MatrixXd> svd(transposed, k > 0 ? Eigen::ComputeThinU : 0);
    if (svd.info() != Eigen::Success)
        return {{}, QStringLiteral("SVD did not converge"), {}};
    // A finite W can still have σ too large to square (a 1e155 entry): BDCSVD scales internally
    // and returns σ₁ = 1e155, whose eigenvalue σ₁² is Inf.
    Spectrum spectrum = checkedSpectrum(svd.singularValues());
    if (!spectrum.ok())
        return spectrum;
    if (k > 0)
        spectrum.topRightVectors = svd.matrixU().leftCols(k).cast<float>();
    return spectrum;
}

QString SingularValueSolver::nonFiniteMessage(qint64 nonFinite, qint64 total) { return nonFiniteError(nonFinite, total); }

QString SingularValueSolver::tooLargeMessage()
{
    return QStringLiteral("its values are too large for float64 (\u2016W\u2016\u00b2_F = \u03a3\u03c3\u00b2 past %1)").arg(kLargestEigenvalueSum, 0, 'g', 3);
}

Spectrum SingularValueSolver::checkedSpectrum(Eigen::VectorXd singularValues) { return rankscope::checkedSpectrum(std::move(singularValues)); }

void SingularValueSolver::setBlasThreads(int threads) { openblas_set_num_threads(std::max(1, threads)); }

const char *svdMethodName(SvdMethod method)
{
    return method == SvdMethod::FastGram ? "gram" : "svd";
}

} // namespace rankscope
