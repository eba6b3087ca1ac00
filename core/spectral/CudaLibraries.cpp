#include "spectral/CudaLibraries.h"

#include <QStringList>
#include <dlfcn.h>
#include <mutex>

namespace rankscope {

namespace {

// By soname first (the loader's search path, ldconfig's cache), then in the toolkit's folder the
// build found. Loaded for the life of the process: never closed.
void *openLibrary(const char *soname, QString *why)
{
    if (void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL))
        return handle;
    const QByteArray inToolkit = QByteArrayLiteral(RANKSCOPE_CUDA_LIBRARY_DIR "/") + soname;
    if (void *handle = dlopen(inToolkit.constData(), RTLD_NOW | RTLD_LOCAL))
        return handle;
    *why = QStringLiteral("%1 not found").arg(QString::fromLatin1(soname));
    return nullptr;
}

template <typename Function>
void resolve(void *library, const char *name, Function &function, QStringList &missing)
{
    function = reinterpret_cast<Function>(dlsym(library, name));
    if (!function)
        missing << QString::fromLatin1(name);
}

bool resolveRuntime(void *cudart, CudaLibraries &l, QStringList &missing)
{
    resolve(cudart, "cudaGetErrorString", l.getErrorString, missing);
    resolve(cudart, "cudaRuntimeGetVersion", l.runtimeGetVersion, missing);
    resolve(cudart, "cudaDriverGetVersion", l.driverGetVersion, missing);
    resolve(cudart, "cudaGetDeviceCount", l.getDeviceCount, missing);
    resolve(cudart, "cudaGetDeviceProperties", l.getDeviceProperties, missing);
    resolve(cudart, "cudaSetDevice", l.setDevice, missing);
    resolve(cudart, "cudaMemGetInfo", l.memGetInfo, missing);
    resolve(cudart, "cudaMalloc", l.deviceAlloc, missing);
    resolve(cudart, "cudaFree", l.deviceFree, missing);
    resolve(cudart, "cudaHostAlloc", l.hostAlloc, missing);
    resolve(cudart, "cudaFreeHost", l.freeHost, missing);
    resolve(cudart, "cudaMemcpyAsync", l.memcpyAsync, missing);
    resolve(cudart, "cudaStreamCreateWithFlags", l.streamCreateWithFlags, missing);
    resolve(cudart, "cudaStreamDestroy", l.streamDestroy, missing);
    resolve(cudart, "cudaStreamSynchronize", l.streamSynchronize, missing);
    resolve(cudart, "cudaEventCreateWithFlags", l.eventCreateWithFlags, missing);
    resolve(cudart, "cudaEventDestroy", l.eventDestroy, missing);
    resolve(cudart, "cudaEventRecord", l.eventRecord, missing);
    resolve(cudart, "cudaEventSynchronize", l.eventSynchronize, missing);
    return missing.isEmpty();
}

bool resolveMath(void *cublas, void *cusolver, CudaLibraries &l, QStringList &missing)
{
    resolve(cublas, "cublasCreate_v2", l.blasCreate, missing);
    resolve(cublas, "cublasDestroy_v2", l.blasDestroy, missing);
    resolve(cublas, "cublasSetStream_v2", l.blasSetStream, missing);
    resolve(cublas, "cublasDsyrk_v2", l.dsyrk, missing);
    resolve(cublas, "cublasGetStatusString", l.blasStatusString, missing);
    resolve(cusolver, "cusolverDnCreate", l.solverCreate, missing);
    resolve(cusolver, "cusolverDnDestroy", l.solverDestroy, missing);
    resolve(cusolver, "cusolverDnSetStream", l.solverSetStream, missing);
    resolve(cusolver, "cusolverDnDsyevd_bufferSize", l.dsyevdBufferSize, missing);
    resolve(cusolver, "cusolverDnDsyevd", l.dsyevd, missing);
    return missing.isEmpty();
}

} // namespace

const CudaLibraries *CudaLibraries::load(QString *why)
{
    static CudaLibraries libraries;
    static QString problem;
    static std::once_flag once;
    std::call_once(once, [] {
        // The driver first, by its soname only (the toolkit's stubs/libcuda.so is no driver):
        // without it no GPU is usable, and the math libraries (hundreds of MB) are not loaded.
        if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
            problem = QStringLiteral("no CUDA driver (libcuda.so.1 not found)");
            return;
        }
        void *cudart = openLibrary(RANKSCOPE_CUDART_SONAME, &problem);
        void *cublas = cudart ? openLibrary(RANKSCOPE_CUBLAS_SONAME, &problem) : nullptr;
        void *cusolver = cublas ? openLibrary(RANKSCOPE_CUSOLVER_SONAME, &problem) : nullptr;
        if (!cusolver)
            return;
        QStringList missing;
        if (!resolveRuntime(cudart, libraries, missing) || !resolveMath(cublas, cusolver, libraries, missing))
            problem = QStringLiteral("the CUDA libraries lack %1").arg(missing.join(QStringLiteral(", ")));
    });
    if (!problem.isEmpty()) {
        *why = problem;
        return nullptr;
    }
    return &libraries;
}

QString CudaLibraries::cudaError(const char *call, cudaError_t status) const
{
    return QStringLiteral("%1: %2").arg(QString::fromLatin1(call), QString::fromLatin1(getErrorString(status)));
}

QString CudaLibraries::cublasError(const char *call, cublasStatus_t status) const
{
    return QStringLiteral("%1: %2").arg(QString::fromLatin1(call), QString::fromLatin1(blasStatusString(status)));
}

QString CudaLibraries::cusolverError(const char *call, cusolverStatus_t status)
{
    return QStringLiteral("%1: cuSOLVER status %2").arg(QString::fromLatin1(call)).arg(int(status));
}

QString CudaLibraries::versionText(int version)
{
    return QStringLiteral("%1.%2").arg(version / 1000).arg(version % 1000 / 10);
}

} // namespace rankscope
