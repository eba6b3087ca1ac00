// The CUDA runtime, cuBLAS and cuSOLVER, loaded when first asked for (dlopen), never linked: the
// binary starts, and its package installs, on a machine without CUDA, and a missing library is a
// reason the GPU is not used ("libcublas.so.13 not found"), not a failure to start. Only the
// functions the Gram path calls are resolved, with the types of the toolkit's own declarations
// (the headers it was built against; the sonames are those of that toolkit).
// Built only with RANKSCOPE_HAVE_CUDA.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <QString>

namespace rankscope {

struct CudaLibraries {
    // The libraries, loaded once for the process; null with why when the driver (libcuda.so.1),
    // one of them or one of their functions is missing.
    static const CudaLibraries *load(QString *why);
    // "cudaMalloc: out of memory", "cublasDsyrk: CUBLAS_STATUS_EXECUTION_FAILED", "… status 7".
    QString cudaError(const char *call, cudaError_t status) const;
    QString cublasError(const char *call, cublasStatus_t status) const;
    static QString cusolverError(const char *call, cusolverStatus_t status);
    // 13000 → "13.0".
    static QString versionText(int version);

    decltype(&::cudaGetErrorString) getErrorString = nullptr;
    decltype(&::cudaRuntimeGetVersion) runtimeGetVersion = nullptr;
    decltype(&::cudaDriverGetVersion) driverGetVersion = nullptr;
    decltype(&::cudaGetDeviceCount) getDeviceCount = nullptr;
    decltype(&::cudaGetDeviceProperties) getDeviceProperties = nullptr;
    decltype(&::cudaSetDevice) setDevice = nullptr;
    decltype(&::cudaMemGetInfo) memGetInfo = nullptr;
    decltype(&::cudaMalloc) deviceAlloc = nullptr;
    decltype(&::cudaFree) deviceFree = nullptr;
    decltype(&::cudaHostAlloc) hostAlloc = nullptr;
    decltype(&::cudaFreeHost) freeHost = nullptr;
    decltype(&::cudaMemcpyAsync) memcpyAsync = nullptr;
    decltype(&::cudaStreamCreateWithFlags) streamCreateWithFlags = nullptr;
    decltype(&::cudaStreamDestroy) streamDestroy = nullptr;
    decltype(&::cudaStreamSynchronize) streamSynchronize = nullptr;
    decltype(&::cudaEventCreateWithFlags) eventCreateWithFlags = nullptr;
    decltype(&::cudaEventDestroy) eventDestroy = nullptr;
    decltype(&::cudaEventRecord) eventRecord = nullptr;
    decltype(&::cudaEventSynchronize) eventSynchronize = nullptr;

    decltype(&::cublasCreate_v2) blasCreate = nullptr;
    decltype(&::cublasDestroy_v2) blasDestroy = nullptr;
    decltype(&::cublasSetStream_v2) blasSetStream = nullptr;
    decltype(&::cublasDsyrk_v2) dsyrk = nullptr;
    decltype(&::cublasGetStatusString) blasStatusString = nullptr;

    decltype(&::cusolverDnCreate) solverCreate = nullptr;
    decltype(&::cusolverDnDestroy) solverDestroy = nullptr;
    decltype(&::cusolverDnSetStream) solverSetStream = nullptr;
    decltype(&::cusolverDnDsyevd_bufferSize) dsyevdBufferSize = nullptr;
    decltype(&::cusolverDnDsyevd) dsyevd = nullptr;
};

} // namespace rankscope
