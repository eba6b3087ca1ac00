// A device that forms a Gram matrix from blocks the host widens and finds its eigenvalues: what
// DeviceGramSolver drives, a GPU through CUDA (CudaGramDevice) or, in the tests, a stand-in that
// computes on the CPU. Everything the device does not do (reading and widening the matrix, the
// checks for non-finite values, the metrics) stays on the host and is the same code for both.
#pragma once

#include <QString>
#include <QtGlobal>
#include <memory>

namespace rankscope {

// What one matrix needs of the device: its Gram matrix of this order, upload blocks of up to
// blockLines lines (each order doubles), and the eigenvectors of the topVectors largest
// eigenvalues (0: eigenvalues only).
struct GramSessionShape {
    int order = 0;
    qint64 blockLines = 0;
    int topVectors = 0;
};

// One matrix on the device. Two host blocks (slots 0 and 1) take turns: the host widens into one
// while the device uploads and accumulates the other. A false return means the device failed;
// error() says how, and the session is not used again.
class GramSession {
public:
    static constexpr int kSlots = 2;
    virtual ~GramSession() = default;
    // The slot's host buffer (blockLines × order doubles; pinned memory on a GPU).
    virtual double *hostBlock(int slot) = 0;
    // Waits until the slot's previous upload has finished, so that the host may write it again.
    virtual bool waitForSlot(int slot) = 0;
    // G (lower triangle) += A·Aᵀ for the slot's block A, column-major order × lines (transposed
    // false), or += AᵀA for A column-major lines × order (transposed true): dsyrk's NoTrans and
    // Trans. `first` starts G from zero. Returns at once; the work is queued on the device.
    virtual bool accumulate(int slot, qint64 lines, bool transposed, bool first) = 0;
    // Every eigenvalue of G, ascending, into eigenvalues (order of them), and when the shape asks
    // for top vectors, the eigenvectors of the largest ones into vectors (column-major order × k,
    // ascending as the eigenvalues). Waits for the device.
    virtual bool solve(double *eigenvalues, double *vectors) = 0;
    virtual QString error() const = 0;
};

class GramDevice {
public:
    virtual ~GramDevice() = default;
    // "NVIDIA H200 (device 0, 139.8 GiB; CUDA runtime 13.0, driver 13.0)": what the timing line,
    // --version and the About box name.
    virtual QString description() const = 0;
    // Device memory free for the solves, in bytes (cudaMemGetInfo's free), read when the device
    // is opened.
    virtual qint64 freeBytes() const = 0;
    // Device bytes the eigensolver needs as workspace beyond G itself for a Gram matrix of this
    // order; -1 with error when the device cannot say.
    virtual qint64 eigensolverWorkspaceBytes(int order, bool vectors, QString *error) = 0;
    // A session for one matrix, its device memory allocated; null with error when it fails.
    virtual std::unique_ptr<GramSession> begin(const GramSessionShape &shape, QString *error) = 0;
};

} // namespace rankscope
