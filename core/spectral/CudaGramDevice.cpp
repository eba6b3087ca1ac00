#include "spectral/CudaGramDevice.h"

#if RANKSCOPE_HAVE_CUDA
#include "spectral/CudaLibraries.h"

#include <QMutex>
#include <QMutexLocker>
#include <map>
#include <vector>
#endif

namespace rankscope {

#if RANKSCOPE_HAVE_CUDA

namespace {

QString gibibytes(size_t bytes)
{
    return QString::number(double(bytes) / double(1 << 30), 'f', 1);
}

// One CUDA stream with its own cuBLAS and cuSOLVER handles, its two upload events and its pinned
// host blocks: what one matrix uses at a time. Kept between matrices (creating handles and pinning
// memory take milliseconds, a GPT-2-small matrix on the device about as long); the pinned blocks
// grow to the largest asked for.
struct Lane {
    explicit Lane(const CudaLibraries &libraries) : cuda(libraries) {}
    ~Lane()
    {
        for (int slot = 0; slot < GramSession::kSlots; ++slot) {
            if (uploaded[slot])
                cuda.eventDestroy(uploaded[slot]);
            if (pinned[slot])
                cuda.freeHost(pinned[slot]);
        }
        if (probe)
            cuda.deviceFree(probe);
        if (solver)
            cuda.solverDestroy(solver);
        if (blas)
            cuda.blasDestroy(blas);
        if (stream)
            cuda.streamDestroy(stream);
    }
    Lane(const Lane &) = delete;
    Lane &operator=(const Lane &) = delete;

    bool create(QString *error)
    {
        if (const cudaError_t e = cuda.streamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess)
            return (*error = cuda.cudaError("cudaStreamCreateWithFlags", e)), false;
        for (int slot = 0; slot < GramSession::kSlots; ++slot)
            if (const cudaError_t e = cuda.eventCreateWithFlags(&uploaded[slot], cudaEventDisableTiming); e != cudaSuccess)
                return (*error = cuda.cudaError("cudaEventCreateWithFlags", e)), false;
        if (const cublasStatus_t s = cuda.blasCreate(&blas); s != CUBLAS_STATUS_SUCCESS)
            return (*error = cuda.cublasError("cublasCreate", s)), false;
        if (const cublasStatus_t s = cuda.blasSetStream(blas, stream); s != CUBLAS_STATUS_SUCCESS)
            return (*error = cuda.cublasError("cublasSetStream", s)), false;
        if (const cusolverStatus_t s = cuda.solverCreate(&solver); s != CUSOLVER_STATUS_SUCCESS)
            return (*error = CudaLibraries::cusolverError("cusolverDnCreate", s)), false;
        if (const cusolverStatus_t s = cuda.solverSetStream(solver, stream); s != CUSOLVER_STATUS_SUCCESS)
            return (*error = CudaLibraries::cusolverError("cusolverDnSetStream", s)), false;
        if (const cudaError_t e = cuda.deviceAlloc(reinterpret_cast<void **>(&probe), 256); e != cudaSuccess)
            return (*error = cuda.cudaError("cudaMalloc", e)), false;
        return true;
    }

    bool reservePinned(qint64 doubles, QString *error)
    {
        if (doubles <= pinnedDoubles)
            return true;
        for (int slot = 0; slot < GramSession::kSlots; ++slot) {
            if (pinned[slot])
                cuda.freeHost(pinned[slot]);
            pinned[slot] = nullptr;
        }
        pinnedDoubles = 0;
        for (int slot = 0; slot < GramSession::kSlots; ++slot)
            if (const cudaError_t e = cuda.hostAlloc(reinterpret_cast<void **>(&pinned[slot]), size_t(doubles) * sizeof(double), cudaHostAllocDefault);
                e != cudaSuccess)
                return (*error = cuda.cudaError("cudaHostAlloc", e)), false;
        pinnedDoubles = doubles;
        return true;
    }

    const CudaLibraries &cuda;
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    cusolverDnHandle_t solver = nullptr;
    cudaEvent_t uploaded[GramSession::kSlots] = {};
    double *pinned[GramSession::kSlots] = {};
    qint64 pinnedDoubles = 0;
    double *probe = nullptr; // a valid device pointer for the workspace queries, which read only sizes
};

class CudaGramDevice;

// One matrix on the GPU: one device allocation holds G, the two device blocks, the eigenvalues,
// dsyevd's workspace and its info word. Everything is queued on the lane's stream, in order.
class CudaGramSession : public GramSession {
public:
    CudaGramSession(CudaGramDevice &device, std::unique_ptr<Lane> lane, const GramSessionShape &shape, qint64 workDoubles)
        : m_device(device), m_lane(std::move(lane)), m_cuda(m_lane->cuda), m_shape(shape), m_workDoubles(workDoubles)
    {
    }
    ~CudaGramSession() override;
    bool allocate(QString *error);

    double *hostBlock(int slot) override { return m_lane->pinned[slot]; }
    bool waitForSlot(int slot) override { return check("cudaEventSynchronize", m_cuda.eventSynchronize(m_lane->uploaded[slot])); }
    bool accumulate(int slot, qint64 lines, bool transposed, bool first) override;
    bool solve(double *eigenvalues, double *vectors) override;
    QString error() const override { return m_error; }

private:
    bool check(const char *call, cudaError_t status)
    {
        if (status != cudaSuccess && m_error.isEmpty())
            m_error = m_cuda.cudaError(call, status);
        return status == cudaSuccess;
    }

    CudaGramDevice &m_device;
    std::unique_ptr<Lane> m_lane;
    const CudaLibraries &m_cuda;
    GramSessionShape m_shape;
    qint64 m_workDoubles;
    void *m_base = nullptr;
    double *m_gram = nullptr, *m_eigenvalues = nullptr, *m_work = nullptr;
    double *m_blocks[kSlots] = {};
    int *m_info = nullptr;
    QString m_error;
};

class CudaGramDevice : public GramDevice {
public:
    CudaGramDevice(const CudaLibraries &cuda, int ordinal, QString description, qint64 freeBytes)
        : m_cuda(cuda), m_ordinal(ordinal), m_description(std::move(description)), m_freeBytes(freeBytes)
    {
    }
    QString description() const override { return m_description; }
    qint64 freeBytes() const override { return m_freeBytes; }
    qint64 eigensolverWorkspaceBytes(int order, bool vectors, QString *error) override;
    std::unique_ptr<GramSession> begin(const GramSessionShape &shape, QString *error) override;

    // A lane for this thread's work (an idle one, or a new one), and back when done.
    std::unique_ptr<Lane> takeLane(QString *error);
    void giveBack(std::unique_ptr<Lane> lane);

private:
    qint64 workspaceDoubles(Lane &lane, int order, bool vectors, QString *error);

    const CudaLibraries &m_cuda;
    int m_ordinal;
    QString m_description;
    qint64 m_freeBytes;
    QMutex m_mutex;
    std::vector<std::unique_ptr<Lane>> m_idle;
    std::map<std::pair<int, bool>, qint64> m_workspace; // dsyevd's lwork by order and job
};

CudaGramSession::~CudaGramSession()
{
    // The stream may still read the pinned blocks or write G: nothing is freed under it.
    const bool idle = m_cuda.streamSynchronize(m_lane->stream) == cudaSuccess;
    if (m_base)
        m_cuda.deviceFree(m_base);
    if (idle && m_error.isEmpty())
        m_device.giveBack(std::move(m_lane));
}

bool CudaGramSession::allocate(QString *error)
{
    // Each part starts on a 256-byte boundary (what cudaMalloc guarantees for the whole).
    auto rounded = [](qint64 bytes) { return (bytes + 255) / 256 * 256; };
    const qint64 order = m_shape.order;
    const qint64 gramBytes = rounded(order * order * qint64(sizeof(double)));
    const qint64 blockBytes = rounded(m_shape.blockLines * order * qint64(sizeof(double)));
    const qint64 valuesBytes = rounded(order * qint64(sizeof(double)));
    const qint64 workBytes = rounded(m_workDoubles * qint64(sizeof(double)));
    const qint64 total = gramBytes + kSlots * blockBytes + valuesBytes + workBytes + 256;
    if (!check("cudaMalloc", m_cuda.deviceAlloc(&m_base, size_t(total))) ||
        !m_lane->reservePinned(m_shape.blockLines * order, &m_error)) {
        *error = m_error;
        return false;
    }
    char *at = static_cast<char *>(m_base);
    m_gram = reinterpret_cast<double *>(at);
    at += gramBytes;
    for (double *&block : m_blocks) {
        block = reinterpret_cast<double *>(at);
        at += blockBytes;
    }
    m_eigenvalues = reinterpret_cast<double *>(at);
    at += valuesBytes;
    m_work = reinterpret_cast<double *>(at);
    at += workBytes;
    m_info = reinterpret_cast<int *>(at);
    return true;
}

bool CudaGramSession::accumulate(int slot, qint64 lines, bool transposed, bool first)
{
    const size_t bytes = size_t(lines) * size_t(m_shape.order) * sizeof(double);
    if (!check("cudaMemcpyAsync", m_cuda.memcpyAsync(m_blocks[slot], m_lane->pinned[slot], bytes, cudaMemcpyHostToDevice, m_lane->stream)) ||
        !check("cudaEventRecord", m_cuda.eventRecord(m_lane->uploaded[slot], m_lane->stream)))
        return false;
    const double one = 1.0, zero = 0.0;
    const cublasStatus_t status = m_cuda.dsyrk(m_lane->blas, CUBLAS_FILL_MODE_LOWER, transposed ? CUBLAS_OP_T : CUBLAS_OP_N, m_shape.order,
                                               int(lines), &one, m_blocks[slot], transposed ? int(lines) : m_shape.order,
                                               first ? &zero : &one, m_gram, m_shape.order);
    if (status != CUBLAS_STATUS_SUCCESS && m_error.isEmpty())
        m_error = m_cuda.cublasError("cublasDsyrk", status);
    return status == CUBLAS_STATUS_SUCCESS;
}

bool CudaGramSession::solve(double *eigenvalues, double *vectors)
{
    const int order = m_shape.order, k = m_shape.topVectors;
    const cusolverStatus_t status = m_cuda.dsyevd(m_lane->solver, k > 0 ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR,
                                                  CUBLAS_FILL_MODE_LOWER, order, m_gram, order, m_eigenvalues, m_work,
                                                  int(m_workDoubles), m_info);
    if (status != CUSOLVER_STATUS_SUCCESS) {
        m_error = CudaLibraries::cusolverError("cusolverDnDsyevd", status);
        return false;
    }
    int info = 0;
    const size_t valueBytes = size_t(order) * sizeof(double);
    if (!check("cudaMemcpyAsync", m_cuda.memcpyAsync(eigenvalues, m_eigenvalues, valueBytes, cudaMemcpyDeviceToHost, m_lane->stream)) ||
        !check("cudaMemcpyAsync", m_cuda.memcpyAsync(&info, m_info, sizeof(int), cudaMemcpyDeviceToHost, m_lane->stream)))
        return false;
    // The eigenvectors of the k largest are G's last k columns.
    if (k > 0 && !check("cudaMemcpyAsync", m_cuda.memcpyAsync(vectors, m_gram + size_t(order - k) * size_t(order), valueBytes * size_t(k),
                                                               cudaMemcpyDeviceToHost, m_lane->stream)))
        return false;
    if (!check("cudaStreamSynchronize", m_cuda.streamSynchronize(m_lane->stream)))
        return false;
    if (info != 0)
        m_error = QStringLiteral("cusolverDnDsyevd did not converge (info %1)").arg(info);
    return info == 0;
}

std::unique_ptr<Lane> CudaGramDevice::takeLane(QString *error)
{
    if (const cudaError_t e = m_cuda.setDevice(m_ordinal); e != cudaSuccess) {
        *error = m_cuda.cudaError("cudaSetDevice", e);
        return nullptr;
    }
    {
        QMutexLocker lock(&m_mutex);
        if (!m_idle.empty()) {
            std::unique_ptr<Lane> lane = std::move(m_idle.back());
            m_idle.pop_back();
            return lane;
        }
    }
    auto lane = std::make_unique<Lane>(m_cuda);
    return lane->create(error) ? std::move(lane) : nullptr;
}

void CudaGramDevice::giveBack(std::unique_ptr<Lane> lane)
{
    QMutexLocker lock(&m_mutex);
    m_idle.push_back(std::move(lane));
}

qint64 CudaGramDevice::workspaceDoubles(Lane &lane, int order, bool vectors, QString *error)
{
    {
        QMutexLocker lock(&m_mutex);
        if (const auto known = m_workspace.find({order, vectors}); known != m_workspace.end())
            return known->second;
    }
    // dsyevd_bufferSize reads only the sizes: the lane's small probe stands for A and W.
    int lwork = 0;
    const cusolverStatus_t status = m_cuda.dsyevdBufferSize(lane.solver, vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR,
                                                            CUBLAS_FILL_MODE_LOWER, order, lane.probe, order, lane.probe, &lwork);
    if (status != CUSOLVER_STATUS_SUCCESS) {
        *error = CudaLibraries::cusolverError("cusolverDnDsyevd_bufferSize", status);
        return -1;
    }
    QMutexLocker lock(&m_mutex);
    m_workspace[{order, vectors}] = lwork;
    return lwork;
}

qint64 CudaGramDevice::eigensolverWorkspaceBytes(int order, bool vectors, QString *error)
{
    std::unique_ptr<Lane> lane = takeLane(error);
    if (!lane)
        return -1;
    const qint64 doubles = workspaceDoubles(*lane, order, vectors, error);
    giveBack(std::move(lane));
    return doubles < 0 ? -1 : doubles * qint64(sizeof(double));
}

std::unique_ptr<GramSession> CudaGramDevice::begin(const GramSessionShape &shape, QString *error)
{
    std::unique_ptr<Lane> lane = takeLane(error);
    if (!lane)
        return nullptr;
    const qint64 work = workspaceDoubles(*lane, shape.order, shape.topVectors > 0, error);
    if (work < 0)
        return nullptr;
    auto session = std::make_unique<CudaGramSession>(*this, std::move(lane), shape, work);
    return session->allocate(error) ? std::move(session) : nullptr;
}

// The device's name and memory, and the runtime and driver it runs with.
QString deviceDescription(const CudaLibraries &cuda, int ordinal, int count)
{
    cudaDeviceProp properties{};
    const bool known = cuda.getDeviceProperties(&properties, ordinal) == cudaSuccess;
    const QString name = known ? QString::fromLatin1(properties.name) : QStringLiteral("CUDA device");
    int runtime = 0, driver = 0;
    cuda.runtimeGetVersion(&runtime);
    cuda.driverGetVersion(&driver);
    return QStringLiteral("%1 (device %2 of %3, %4 GiB; CUDA runtime %5, driver %6)")
        .arg(name).arg(ordinal).arg(count).arg(known ? gibibytes(properties.totalGlobalMem) : QStringLiteral("?"))
        .arg(CudaLibraries::versionText(runtime), CudaLibraries::versionText(driver));
}

// The devices there are, or why none is usable (no driver: cudaGetDeviceCount says so).
int deviceCount(const CudaLibraries &cuda, QString *why)
{
    int driver = 0;
    if (cuda.driverGetVersion(&driver) != cudaSuccess || driver == 0) {
        *why = QStringLiteral("no CUDA driver (libcuda.so.1 not found)");
        return 0;
    }
    int count = 0;
    if (const cudaError_t e = cuda.getDeviceCount(&count); e != cudaSuccess) {
        *why = cuda.cudaError("cudaGetDeviceCount", e);
        return 0;
    }
    if (count == 0)
        *why = QStringLiteral("no CUDA device");
    return count;
}

} // namespace

bool cudaBuiltIn() { return true; }

std::unique_ptr<GramDevice> openCudaGramDevice(int ordinal, QString *why)
{
    const CudaLibraries *cuda = CudaLibraries::load(why);
    if (!cuda)
        return nullptr;
    const int count = deviceCount(*cuda, why);
    if (count == 0)
        return nullptr;
    const int device = std::max(0, ordinal) % count;
    size_t freeBytes = 0, totalBytes = 0;
    if (const cudaError_t e = cuda->setDevice(device); e != cudaSuccess) {
        *why = cuda->cudaError("cudaSetDevice", e);
        return nullptr;
    }
    if (const cudaError_t e = cuda->memGetInfo(&freeBytes, &totalBytes); e != cudaSuccess) {
        *why = cuda->cudaError("cudaMemGetInfo", e);
        return nullptr;
    }
    auto gramDevice = std::make_unique<CudaGramDevice>(*cuda, device, deviceDescription(*cuda, device, count), qint64(freeBytes));
    // One lane made now: cuBLAS and cuSOLVER that cannot start make the device unusable here
    // (--device cuda ends with the reason), not a fallback note on every matrix.
    std::unique_ptr<Lane> lane = gramDevice->takeLane(why);
    if (!lane)
        return nullptr;
    gramDevice->giveBack(std::move(lane));
    return gramDevice;
}

QString describeCuda()
{
    QString why;
    const CudaLibraries *cuda = CudaLibraries::load(&why);
    if (!cuda)
        return QStringLiteral("built for CUDA %1; no usable GPU: %2").arg(QStringLiteral(RANKSCOPE_CUDA_TOOLKIT_VERSION), why);
    int runtime = 0;
    cuda->runtimeGetVersion(&runtime);
    const int count = deviceCount(*cuda, &why);
    if (count == 0)
        return QStringLiteral("CUDA runtime %1; no usable GPU: %2").arg(CudaLibraries::versionText(runtime), why);
    return deviceDescription(*cuda, 0, count);
}

#else

bool cudaBuiltIn() { return false; }

std::unique_ptr<GramDevice> openCudaGramDevice(int, QString *why)
{
    *why = QStringLiteral("this build has no CUDA support (built without the CUDA toolkit)");
    return nullptr;
}

QString describeCuda() { return QStringLiteral("not built in (the spectra are computed on the CPU)"); }

#endif

} // namespace rankscope
