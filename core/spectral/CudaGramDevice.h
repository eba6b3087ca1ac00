// The GPU as a GramDevice: float64 Gram matrices accumulated with cuBLAS's dsyrk from blocks
// uploaded out of pinned host buffers on a stream of their own (the host widens the next block
// while the device takes the last), and their eigenvalues from cuSOLVER's dsyevd (eigenvectors
// only when asked for). CUDA is loaded at run time (CudaLibraries): a build without the toolkit,
// and a machine without a driver or a GPU, only say why there is no GPU.
#pragma once

#include "spectral/GramDevice.h"

#include <memory>

namespace rankscope {

// Whether this build has the CUDA backend (RANKSCOPE_WITH_CUDA found a toolkit).
bool cudaBuiltIn();

// CUDA device `ordinal` (modulo the devices there are: ranks on one machine share them in turn);
// null with why when there is no usable GPU.
std::unique_ptr<GramDevice> openCudaGramDevice(int ordinal, QString *why);

// What --version and the About box say of CUDA: the runtime, the driver and the device, or why
// there is none ("not built in", "libcublas.so.13 not found", "no CUDA driver").
QString describeCuda();

} // namespace rankscope
