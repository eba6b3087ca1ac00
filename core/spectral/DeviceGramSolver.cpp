#include "spectral/DeviceGramSolver.h"

#include "spectral/SpectralMetrics.h"

#include <QMutexLocker>
#include <algorithm>
#include <cmath>
#include <vector>

namespace rankscope {

namespace {

QString memorySize(qint64 bytes)
{
    if (bytes < (qint64(1) << 20))
        return QStringLiteral("%1 KiB").arg((bytes + 1023) / 1024);
    return QStringLiteral("%1 MiB").arg(double(bytes) / double(1 << 20), 0, 'f', 0);
}

// The budget's bytes, released however the solve ends (a bad_alloc from a reader included).
class Reservation {
public:
    Reservation(DeviceMemoryBudget &budget, qint64 bytes) : m_budget(budget), m_bytes(bytes) {}
    ~Reservation() { m_budget.release(m_bytes); }
    Reservation(const Reservation &) = delete;
    Reservation &operator=(const Reservation &) = delete;

private:
    DeviceMemoryBudget &m_budget;
    qint64 m_bytes;
};

} // namespace

// The device holds G, the eigensolver's workspace, the eigenvalues and two upload blocks. The two
// blocks together hold no more than the CPU path's one block and its Gram matrix on the host
// (they are pinned host memory as well), so the host never holds more than on the CPU path.
DeviceMemoryPlan DeviceMemoryPlan::make(qint64 rows, qint64 cols, qint64 workspaceBytes, qint64 blockBytes, qint64 budgetBytes)
{
    constexpr qint64 kDouble = qint64(sizeof(double));
    constexpr qint64 kSmallBuffers = 256; // the solver's info word, with room for alignment
    const qint64 order = std::min(rows, cols), inner = std::max(rows, cols);
    const qint64 cpuLines = std::clamp<qint64>(blockBytes / (kDouble * order), 1, inner);
    qint64 lines = std::min(cpuLines, std::max<qint64>(1, (cpuLines + order) / 2));
    const qint64 fixed = kDouble * order * order + workspaceBytes + kDouble * order + kSmallBuffers;
    const qint64 perLine = GramSession::kSlots * kDouble * order;
    DeviceMemoryPlan plan;
    plan.leastBytes = fixed + perLine;
    if (fixed + perLine * lines > budgetBytes)
        lines = budgetBytes > fixed ? (budgetBytes - fixed) / perLine : 0;
    plan.fits = lines >= 1;
    plan.blockLines = std::max<qint64>(lines, 1);
    plan.bytes = fixed + perLine * plan.blockLines;
    return plan;
}

bool DeviceMemoryBudget::reserve(qint64 bytes)
{
    QMutexLocker lock(&m_mutex);
    if (bytes > m_total)
        return false;
    while (m_used + bytes > m_total || m_sessions >= m_maxSessions)
        m_freed.wait(&m_mutex);
    m_used += bytes;
    ++m_sessions;
    return true;
}

void DeviceMemoryBudget::release(qint64 bytes)
{
    QMutexLocker lock(&m_mutex);
    m_used -= bytes;
    --m_sessions;
    m_freed.wakeAll();
}

qint64 DeviceMemoryBudget::inUse() const
{
    QMutexLocker lock(&m_mutex);
    return m_used;
}

qint64 DeviceMemoryBudget::fromFreeBytes(qint64 freeBytes)
{
    constexpr qint64 kLibraryReserve = qint64(512) << 20;
    return std::max<qint64>(0, freeBytes / 10 * 9 - kLibraryReserve);
}

DeviceGramSolver::DeviceGramSolver(std::unique_ptr<GramDevice> device, int maxSessions)
    : m_device(std::move(device))
    , m_description(m_device->description())
    , m_budget(DeviceMemoryBudget::fromFreeBytes(m_device->freeBytes()), maxSessions)
{
}

std::optional<Spectrum> DeviceGramSolver::compute(const MatrixBlockSource &matrix, int topVectors, qint64 blockBytes,
                                                  const std::function<void()> &allRead, QString *why)
{
    if (m_retired) {
        QMutexLocker lock(&m_failureMutex);
        *why = QStringLiteral("the GPU failed on an earlier matrix (%1)").arg(m_failure);
        return std::nullopt;
    }
    const qint64 order = std::min(matrix.rows(), matrix.cols());
    const int k = int(std::min<qint64>(topVectors, order));
    QString error;
    const qint64 workspace = m_device->eigensolverWorkspaceBytes(int(order), k > 0, &error);
    if (workspace < 0) {
        *why = retire(error);
        return std::nullopt;
    }
    const DeviceMemoryPlan plan = DeviceMemoryPlan::make(matrix.rows(), matrix.cols(), workspace, blockBytes, m_budget.total());
    if (!plan.fits || !m_budget.reserve(plan.bytes)) {
        *why = QStringLiteral("it needs %1 of GPU memory and %2 are there for it").arg(memorySize(plan.leastBytes), memorySize(m_budget.total()));
        return std::nullopt;
    }
    const Reservation reservation(m_budget, plan.bytes);
    return solveOnDevice(matrix, k, plan, blockBytes, allRead, why);
}

// The same steps as SingularValueSolver's Gram path, with G on the device: NaN and Inf are counted
// on the host as each block is widened (past the first, blocks are only counted, for the message),
// and ‖W‖²_F = Σσ² is summed there to refuse values whose squares float64 cannot hold.
std::optional<Spectrum> DeviceGramSolver::solveOnDevice(const MatrixBlockSource &matrix, int k, const DeviceMemoryPlan &plan, qint64 blockBytes,
                                                        const std::function<void()> &allRead, QString *why)
{
    const qint64 rows = matrix.rows(), cols = matrix.cols();
    const int order = int(std::min(rows, cols));
    QString error;
    std::unique_ptr<GramSession> session = m_device->begin({order, plan.blockLines, k}, &error);
    if (!session) {
        *why = retire(error);
        return std::nullopt;
    }
    Accumulated sums;
    if (!accumulate(matrix, *session, plan.blockLines, sums)) {
        *why = retire(session->error());
        return std::nullopt;
    }
    auto finished = [&](Spectrum spectrum) {
        if (allRead)
            allRead();
        return std::optional<Spectrum>(std::move(spectrum));
    };
    if (sums.nonFinite > 0)
        return finished({{}, SingularValueSolver::nonFiniteMessage(sums.nonFinite, rows * cols), {}});
    if (!(sums.sumOfSquares <= kLargestEigenvalueSum))
        return finished({{}, SingularValueSolver::tooLargeMessage(), {}});
    std::vector<double> eigenvalues(static_cast<size_t>(order)), vectors(static_cast<size_t>(order) * static_cast<size_t>(k));
    if (!session->solve(eigenvalues.data(), k > 0 ? vectors.data() : nullptr)) {
        *why = retire(session->error());
        return std::nullopt;
    }
    session.reset();
    Spectrum spectrum = SingularValueSolver::checkedSpectrum(Eigen::Map<const Eigen::VectorXd>(eigenvalues.data(), order).cwiseMax(0.0).cwiseSqrt());
    if (spectrum.ok() && k > 0) {
        // Largest first: the eigensolver returns them ascending. From WᵀW they are V; from WWᵀ
        // they are U, and V = WᵀUΣ⁻¹ reads W once more.
        const Eigen::MatrixXd gramVectors = Eigen::Map<const Eigen::MatrixXd>(vectors.data(), order, k).rowwise().reverse();
        spectrum.topRightVectors = cols <= rows ? Eigen::MatrixXf(gramVectors.cast<float>())
                                                : SingularValueSolver::rightVectorsFromLeft(matrix, gramVectors, spectrum.singularValues, blockBytes);
    }
    return finished(std::move(spectrum));
}

// W's blocks in turn into the two host buffers: the host widens one while the device uploads and
// adds the other. Row blocks B (cols ≤ rows) are column-major cols × count: G += BᵀB is A·Aᵀ;
// column blocks C are column-major count × rows: G += CCᵀ is AᵀA.
bool DeviceGramSolver::accumulate(const MatrixBlockSource &matrix, GramSession &session, qint64 blockLines, Accumulated &sums)
{
    const qint64 rows = matrix.rows(), cols = matrix.cols();
    const bool byRows = cols <= rows;
    const qint64 order = std::min(rows, cols), inner = std::max(rows, cols);
    bool first = true;
    int slot = 0;
    for (qint64 start = 0; start < inner; start += blockLines, slot = 1 - slot) {
        const qint64 count = std::min(blockLines, inner - start);
        if (!session.waitForSlot(slot))
            return false;
        double *block = session.hostBlock(slot);
        if (byRows)
            matrix.widenBlock(start, count, 0, cols, block);
        else
            matrix.widenBlock(0, rows, start, count, block);
        for (qint64 i = 0; i < count * order; ++i) {
            if (std::isfinite(block[i]))
                sums.sumOfSquares += block[i] * block[i];
            else
                ++sums.nonFinite;
        }
        if (sums.nonFinite > 0)
            continue;
        if (!session.accumulate(slot, count, !byRows, first))
            return false;
        first = false;
    }
    return true;
}

QString DeviceGramSolver::retire(const QString &error)
{
    QMutexLocker lock(&m_failureMutex);
    if (!m_retired.exchange(true))
        m_failure = error;
    return QStringLiteral("the GPU failed (%1); it is not used for the rest of the run").arg(error);
}

} // namespace rankscope
