// Which OpenBLAS kernels run, and making sure they are the fastest this CPU can run.
//
// Debian's OpenBLAS is built for every x86-64 CPU (DYNAMIC_ARCH) and picks its kernels by the CPU's
// family and model number when the library loads. A CPU it does not know (a newer model, or a cloud
// VM that reports a masked one: an Emerald Rapids VM, family 6 model 207, gets "Prescott") falls
// back to its generic SSE3 kernels, 2.5× slower for RankScope. The instruction sets themselves
// (CPUID) say which kernels can run; OpenBLAS reads OPENBLAS_CORETYPE only when it loads, so the
// choice is made at the start of main() and the program re-executes itself once with it set.
#pragma once

#include "spectral/CpuFeatures.h"

#include <string>
#include <string_view>

namespace rankscope {

// The OpenBLAS core type RankScope would set for this CPU when OpenBLAS detected `detectedCore`, or
// "" to keep OpenBLAS's choice. Only the instruction sets decide, never the model number: a core
// whose kernels lack vector instructions the CPU has (or use ones it lacks) is replaced by the
// fastest kernels measured for this workload among those the CPU can run (docs/performance.md).
std::string chooseOpenBlasCoreType(const CpuFeatures &cpu, std::string_view detectedCore);

// At the start of main(), before anything else: unless the user set OPENBLAS_CORETYPE (the user's
// choice always wins) or this process is already the re-executed one, sets OPENBLAS_CORETYPE to
// chooseOpenBlasCoreType() and re-executes the program with the same arguments (same process id,
// so a launcher such as mpirun sees nothing). Returns only when no re-execution is needed or it failed.
void chooseBlasKernelBeforeStart(char **argv);

// "OpenBLAS 0.3.21, Zen kernels (detected by OpenBLAS)", "… Haswell kernels (chosen by RankScope
// for AVX2+FMA)", "… Prescott kernels (set by OPENBLAS_CORETYPE)".
std::string describeBlasKernel();
// Just the kernel in use: openblas_get_corename().
std::string blasCoreName();

// Environment variables: the marker a re-executed process carries (its value is the core type
// RankScope set), and a test hook that makes the choice act as if OpenBLAS had reported this core
// (e.g. Prescott), to show the choice at work on a CPU OpenBLAS knows. Not for users.
inline constexpr const char *kBlasChoiceMarker = "RANKSCOPE_BLAS_CORETYPE_CHOSEN";
inline constexpr const char *kPretendBlasCoreHook = "RANKSCOPE_TEST_PRETEND_BLAS_CORE";

} // namespace rankscope
