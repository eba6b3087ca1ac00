// The Gram path of SingularValueSolver on a GramDevice (a GPU): the host widens W a block at a
// time into the device's host buffers, checks each block for NaN and Inf as the CPU path does, and
// the device accumulates G = WᵀW (or WWᵀ) and finds its eigenvalues; the spectrum is checked and
// sorted by the same code as on the CPU. A matrix the device cannot take (too large for its
// memory budget), and any device error, gives no spectrum but the reason: the caller computes it
// on the CPU. After a device error the device is not used again (a CUDA context that failed once
// is not trusted with the next matrix).
#pragma once

#include "spectral/GramDevice.h"
#include "spectral/SingularValueSolver.h"

#include <QMutex>
#include <QWaitCondition>
#include <atomic>
#include <functional>
#include <optional>

namespace rankscope {

// The device memory one matrix needs, and the upload block it gets: the Gram matrix, the
// eigensolver's workspace, the eigenvalues and two upload blocks. The blocks are those of the CPU
// path (SingularValueSolver::kGramBlockBytes) or smaller, down to one line, when that is what fits.
struct DeviceMemoryPlan {
    bool fits = false;
    qint64 blockLines = 0;
    qint64 bytes = 0;       // what the session holds on the device
    qint64 leastBytes = 0;  // with one-line blocks: what would have to fit
    static DeviceMemoryPlan make(qint64 rows, qint64 cols, qint64 workspaceBytes, qint64 blockBytes, qint64 budgetBytes);
};

// Device memory shared by the solves running at once (one per worker): a solve waits until its
// bytes are free, and one that needs more than the whole budget is refused at once.
class DeviceMemoryBudget {
public:
    DeviceMemoryBudget(qint64 totalBytes, int maxSessions) : m_total(totalBytes), m_maxSessions(std::max(1, maxSessions)) {}
    qint64 total() const { return m_total; }
    // Waits until `bytes` and a session are free; false (at once) when bytes exceed the total.
    bool reserve(qint64 bytes);
    void release(qint64 bytes);
    qint64 inUse() const;
    // The share of the free memory the solves may use: the rest is left to cuBLAS's and cuSOLVER's
    // own allocations and to other processes on the device.
    static qint64 fromFreeBytes(qint64 freeBytes);

private:
    mutable QMutex m_mutex;
    QWaitCondition m_freed;
    qint64 m_total;
    qint64 m_used = 0;
    int m_maxSessions;
    int m_sessions = 0;
};

class DeviceGramSolver {
public:
    // maxSessions: matrices on the device at once (their host blocks and device memory each).
    DeviceGramSolver(std::unique_ptr<GramDevice> device, int maxSessions);

    QString description() const { return m_description; }
    const DeviceMemoryBudget &budget() const { return m_budget; }

    // W's spectrum (and its top k right vectors) from the device; nullopt with `why` when W goes
    // to the CPU. A spectrum with an error (NaN in W) is the CPU path's own answer, not a fallback.
    // allRead is called once, after the device has finished with W, and only with a spectrum:
    // when W goes to the CPU it is still there to be read.
    std::optional<Spectrum> compute(const MatrixBlockSource &matrix, int topVectors, qint64 blockBytes,
                                    const std::function<void()> &allRead, QString *why);

private:
    struct Accumulated {
        qint64 nonFinite = 0;
        double sumOfSquares = 0;
    };
    std::optional<Spectrum> solveOnDevice(const MatrixBlockSource &matrix, int k, const DeviceMemoryPlan &plan, qint64 blockBytes,
                                          const std::function<void()> &allRead, QString *why);
    bool accumulate(const MatrixBlockSource &matrix, GramSession &session, qint64 blockLines, Accumulated &sums);
    QString retire(const QString &error);

    std::unique_ptr<GramDevice> m_device;
    QString m_description;
    DeviceMemoryBudget m_budget;
    std::atomic<bool> m_retired{false};
    QMutex m_failureMutex;
    QString m_failure;
};

} // namespace rankscope
