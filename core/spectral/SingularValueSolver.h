// Singular values of a real matrix in float64: the one expensive step of the analysis.
// Everything else RankScope shows is a cheap function of the spectrum this returns.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "spectral/MatrixBlockSource.h"

#include <Eigen/Core>
#include <QString>

namespace rankscope {

enum class SvdMethod {
    // Eigenvalues of the smaller Gram matrix (WᵀW or WWᵀ), accumulated with dsyrk from blocks of W
    // widened one at a time and solved with LAPACK's symmetric eigensolver, all in float64. Meets
    // the contract's accuracy at a fraction of the SVD's cost.
    FastGram,
    // A full bidiagonal SVD (Eigen's BDCSVD): the reference the tests check the fast path against.
    ExactSvd,
};

// Which LAPACK eigensolver takes the Gram matrix (eigenvalues only).
enum class Eigensolver {
    BySize,             // dsyev_2stage from kTwoStageFromOrder on one BLAS thread, dsyevd otherwise (measured, see docs/performance.md)
    DivideAndConquer,   // dsyevd: one-stage tridiagonal reduction, fastest for small orders
    TwoStage,           // dsyev_2stage: reduction through a band matrix, fastest for large orders
};

struct Spectrum {
    Eigen::VectorXd singularValues; // descending, length min(rows, cols); empty when error is set
    QString error;                  // why no spectrum could be computed (e.g. non-finite values)
    // The right singular vectors of the k largest singular values (cols × k, unit columns, v₁
    // first), when asked for with setTopVectors; float32 is what the subspace metrics keep.
    Eigen::MatrixXf topRightVectors;
    bool ok() const { return error.isEmpty(); }
};

class DeviceGramSolver;

// Where one matrix's spectrum was computed: on the GPU, or on the CPU (with why, when a device was
// set and did not take it: too large for its memory, a CUDA error).
struct SolvePlace {
    bool onDevice = false;
    QString note;
};

class SingularValueSolver {
public:
    explicit SingularValueSolver(SvdMethod method = SvdMethod::FastGram, Eigensolver eigensolver = Eigensolver::BySize)
        : m_method(method), m_eigensolver(eigensolver)
    {
    }

    Spectrum compute(const Eigen::Ref<const Eigen::MatrixXd> &matrix) const;
    // `allRead`, when given, is called once every element of `matrix` has been read (the Gram
    // matrix formed, or the matrix widened for the exact path) and before the eigensolver runs; the
    // solver does not touch `matrix` after it, so the caller may free the tensor there and hold only
    // the Gram matrix through the longest part of the work.
    // `place`, when given, says where the spectrum was computed.
    Spectrum compute(const MatrixBlockSource &matrix, const std::function<void()> &allRead = {}, SolvePlace *place = nullptr) const;

    // OpenBLAS threads inside each call, for the whole process (OpenBLAS has one setting). RankScope
    // runs one matrix per worker with 1 thread; BlasThreadBudget gives spare cores to a lone call.
    static void setBlasThreads(int threads);

    // Gram matrices of this order or more go to dsyev_2stage when the call has one BLAS thread (the
    // crossover bench_eigensolver measures: 0.92× dsyevd's time at 2048, 0.65× at 4096, 1.18× at
    // 1536). With more threads dsyevd is used at every order: its back-transformations run in
    // parallel and the two-stage reduction does not (2.3× dsyevd's time at 2048 on two threads).
    static constexpr int kTwoStageFromOrder = 2048;
    // Rows (or columns) widened per dsyrk call: about this many bytes of float64, so a worker holds
    // the Gram matrix, this block and the stored tensor. 32 MB is 256 lines or more up to an order
    // of 16384: enough for dsyrk's own blocking (its inner dimension is blocked by a few hundred).
    static constexpr qint64 kGramBlockBytes = 32 << 20;
    // Smaller blocks, for tests that want many of them from a small matrix.
    void setGramBlockBytes(qint64 bytes) { m_gramBlockBytes = bytes; }
    // Also return the top k right singular vectors (capped at min(rows, cols); 0: none). On the
    // Gram path they cost little: the Gram matrix is reduced to tridiagonal form once (dsytrd),
    // every eigenvalue comes from it (dsterf, as dsyevd's values-only path), and only the k
    // eigenvectors wanted are computed (dstemr with IL/IU) and transformed back (dormtr). When the
    // Gram matrix is WWᵀ its eigenvectors are W's left vectors U, and V = WᵀUΣ⁻¹ reads W once more:
    // then `allRead` comes after that pass.
    void setTopVectors(int k) { m_topVectors = std::max(0, k); }
    // The Gram path on a GPU (null: the CPU, as always). A matrix the device does not take is
    // solved here on the CPU, as without it.
    void setDevice(std::shared_ptr<DeviceGramSolver> device) { m_device = std::move(device); }

    // V = WᵀUΣ⁻¹ from the left vectors U (rows × k, largest first) of a W with more columns than
    // rows, read a block at a time: what the Gram path on WWᵀ returns as the top right vectors.
    // What the Gram path says of a matrix with NaN or Inf, and of one whose values square past
    // float64; and its check of the spectrum found (sorted descending, or why it is none): shared
    // with the device path, so that both answer alike.
    static QString nonFiniteMessage(qint64 nonFinite, qint64 total);
    static QString tooLargeMessage();
    static Spectrum checkedSpectrum(Eigen::VectorXd singularValues);
    static Eigen::MatrixXf rightVectorsFromLeft(const MatrixBlockSource &matrix, const Eigen::MatrixXd &left,
                                                const Eigen::VectorXd &singularValues, qint64 blockBytes);

private:
    Spectrum gramSpectrum(const MatrixBlockSource &matrix, const std::function<void()> &allRead) const;
    Spectrum gramSpectrumWithVectors(const MatrixBlockSource *matrix, qint64 rows, qint64 cols, std::vector<double> gram, int k,
                                     const std::function<void()> &allRead) const;
    Spectrum exactSpectrum(const MatrixBlockSource &matrix, const std::function<void()> &allRead) const;

    SvdMethod m_method;
    Eigensolver m_eigensolver;
    qint64 m_gramBlockBytes = kGramBlockBytes;
    int m_topVectors = 0;
    std::shared_ptr<DeviceGramSolver> m_device;
};

const char *svdMethodName(SvdMethod method);

} // namespace rankscope
