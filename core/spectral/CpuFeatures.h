// The vector instruction sets this CPU has and the operating system lets a program use (CPUID and
// XGETBV): what decides which BLAS kernels can run here, whatever the CPU's model number says.
#pragma once

#include <string>

namespace rankscope {

struct CpuFeatures {
    bool avx = false;     // 256-bit AVX, with the OS saving YMM state
    bool avx2 = false;    // AVX2 (needs avx)
    bool fma = false;     // FMA3 (needs avx)
    bool avx512 = false;  // AVX-512 F, DQ, BW and VL, with the OS saving ZMM state
    std::string vendor;   // "GenuineIntel", "AuthenticAMD", …
    std::string model;    // the CPU's brand string, e.g. "AMD EPYC 7B13"
    int family = 0, modelNumber = 0;

    // This CPU, as this process sees it. On a non-x86 machine: nothing.
    static CpuFeatures detect();
};

} // namespace rankscope
