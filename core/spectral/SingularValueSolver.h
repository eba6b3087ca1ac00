// Singular values of a real matrix in float64: the one expensive step of the analysis.
// Everything else RankScope shows is a cheap function of the spectrum this returns.
#pragma once

#include <Eigen/Core>
#include <QString>

namespace rankscope {

enum class SvdMethod {
    // Eigenvalues of the smaller Gram matrix (WᵀW or WWᵀ), formed with dsyrk and solved with
    // dsyevd, all in float64. Meets the contract's accuracy at a fraction of the SVD's cost.
    FastGram,
    // A full bidiagonal SVD (Eigen's BDCSVD): the reference the tests check the fast path against.
    ExactSvd,
};

struct Spectrum {
    Eigen::VectorXd singularValues; // descending, length min(rows, cols); empty when error is set
    QString error;                  // why no spectrum could be computed (e.g. non-finite values)
    bool ok() const { return error.isEmpty(); }
};

class SingularValueSolver {
public:
    explicit SingularValueSolver(SvdMethod method = SvdMethod::FastGram) : m_method(method) {}

    Spectrum compute(const Eigen::Ref<const Eigen::MatrixXd> &matrix) const;

    // OpenBLAS threads inside one call. RankScope runs one matrix per worker instead, so the
    // engine sets this to 1; the benchmark compares both.
    static void setBlasThreads(int threads);

private:
    SvdMethod m_method;
};

const char *svdMethodName(SvdMethod method);

} // namespace rankscope
