#include "spectral/CpuFeatures.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace rankscope {

namespace {
#if defined(__x86_64__) || defined(__i386__)
// XCR0: which register states the OS saves on a context switch. An instruction set whose registers
// the OS does not save cannot be used even when CPUID lists it (e.g. AVX-512 masked by a hypervisor).
unsigned long long extendedControlRegister()
{
    unsigned int eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif
} // namespace

CpuFeatures CpuFeatures::detect()
{
    CpuFeatures cpu;
#if defined(__x86_64__) || defined(__i386__)
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
        return cpu;
    const unsigned int maxLeaf = eax;
    char vendor[13] = {};
    std::memcpy(vendor, &ebx, 4);
    std::memcpy(vendor + 4, &edx, 4);
    std::memcpy(vendor + 8, &ecx, 4);
    cpu.vendor = vendor;

    __get_cpuid(1, &eax, &ebx, &ecx, &edx);
    const unsigned int baseFamily = (eax >> 8) & 0xF, baseModel = (eax >> 4) & 0xF;
    cpu.family = int(baseFamily == 0xF ? baseFamily + ((eax >> 20) & 0xFF) : baseFamily);
    cpu.modelNumber = int(baseFamily == 0x6 || baseFamily == 0xF ? (((eax >> 16) & 0xF) << 4) + baseModel : baseModel);
    const bool osxsave = ecx & bit_OSXSAVE;
    const unsigned long long xcr0 = osxsave ? extendedControlRegister() : 0;
    const bool osSavesYmm = (xcr0 & 0x6) == 0x6;          // SSE and AVX state
    const bool osSavesZmm = (xcr0 & 0xE6) == 0xE6;        // plus opmask, ZMM0-15 upper halves, ZMM16-31
    cpu.avx = osSavesYmm && (ecx & bit_AVX);
    cpu.fma = cpu.avx && (ecx & bit_FMA);
    if (maxLeaf >= 7) {
        __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx);
        cpu.avx2 = cpu.avx && (ebx & bit_AVX2);
        cpu.avx512 = cpu.avx2 && osSavesZmm && (ebx & bit_AVX512F) && (ebx & bit_AVX512DQ) && (ebx & bit_AVX512BW) &&
                     (ebx & bit_AVX512VL);
    }
    unsigned int brand[12] = {};
    if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) && eax >= 0x80000004) {
        for (unsigned int leaf = 0; leaf < 3; ++leaf)
            __get_cpuid(0x80000002 + leaf, &brand[4 * leaf], &brand[4 * leaf + 1], &brand[4 * leaf + 2], &brand[4 * leaf + 3]);
        std::string name(reinterpret_cast<const char *>(brand), 48);
        name = name.c_str(); // up to the first NUL
        const auto first = name.find_first_not_of(' '), last = name.find_last_not_of(' ');
        cpu.model = first == std::string::npos ? std::string() : name.substr(first, last - first + 1);
    }
#endif
    return cpu;
}

} // namespace rankscope
