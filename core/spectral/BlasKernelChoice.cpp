#include "spectral/BlasKernelChoice.h"

#include <cblas.h>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace rankscope {

namespace {

// The widest vector instructions an OpenBLAS core type's kernels use: 0 SSE only, 1 AVX, 2 AVX2 and
// FMA, 3 AVX-512. Names as openblas_get_corename() reports them (0.3.21, x86-64).
int vectorLevelOfCore(std::string_view core)
{
    for (const char *name : {"SkylakeX", "Cooperlake", "SapphireRapids"})
        if (core == name)
            return 3;
    for (const char *name : {"Haswell", "Zen"})
        if (core == name)
            return 2;
    for (const char *name : {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller", "Excavator"})
        if (core == name)
            return 1;
    return 0; // Prescott, Core2, Penryn, Nehalem, Atom, Opteron, Barcelona, … and any unknown name
}

int vectorLevelOfCpu(const CpuFeatures &cpu)
{
    if (cpu.avx512)
        return 3;
    if (cpu.avx2 && cpu.fma)
        return 2;
    return cpu.avx ? 1 : 0;
}

std::string environment(const char *name)
{
    const char *value = std::getenv(name);
    return value ? value : "";
}

} // namespace

std::string chooseOpenBlasCoreType(const CpuFeatures &cpu, std::string_view detectedCore)
{
    const int cpuLevel = vectorLevelOfCpu(cpu);
    const int coreLevel = vectorLevelOfCore(detectedCore);
    // Measured on RankScope's workload (dsyrk + the LAPACK eigensolvers), docs/performance.md: on an
    // AVX-512 CPU the AVX2 Haswell kernels beat SkylakeX (5.4 s against 5.9 s for two GPT-2-small
    // checkpoints), so AVX2 is all that is asked for; a core OpenBLAS detected correctly is kept.
    const int wanted = std::min(cpuLevel, 2);
    if (coreLevel >= wanted && coreLevel <= cpuLevel)
        return {};
    switch (wanted) {
    case 2:
        // On AMD Zen the Zen and Haswell kernels are the same speed here (docs/performance.md); Zen is what
        // OpenBLAS itself picks on a Zen it knows.
        return cpu.vendor == "AuthenticAMD" ? "Zen" : "Haswell";
    case 1: return "Sandybridge";
    default: return "Prescott"; // a core whose kernels this CPU cannot run: the generic ones
    }
}

void chooseBlasKernelBeforeStart(char **argv)
{
    if (std::getenv(kBlasChoiceMarker) || !environment("OPENBLAS_CORETYPE").empty())
        return; // re-executed already (never loop), or the user chose
    const std::string pretended = environment(kPretendBlasCoreHook);
    const std::string detected = pretended.empty() ? blasCoreName() : pretended;
    const std::string chosen = chooseOpenBlasCoreType(CpuFeatures::detect(), detected);
    if (chosen.empty())
        return;
    setenv("OPENBLAS_CORETYPE", chosen.c_str(), 1);
    setenv(kBlasChoiceMarker, chosen.c_str(), 1);
    execv("/proc/self/exe", argv); // returns only on failure: go on with the kernels loaded
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv(kBlasChoiceMarker);
}

std::string blasCoreName()
{
    std::string core = openblas_get_corename();
    while (!core.empty() && core.back() == ' ')
        core.pop_back();
    return core;
}

std::string describeBlasKernel()
{
    // openblas_get_config(): "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH …": the first two words.
    std::string library = openblas_get_config();
    if (const auto space = library.find(' ', library.find(' ') + 1); space != std::string::npos)
        library.resize(space);
    const std::string core = blasCoreName();
    const std::string set = environment("OPENBLAS_CORETYPE");
    std::string how = "detected by OpenBLAS";
    if (!set.empty())
        how = environment(kBlasChoiceMarker) == set ? "chosen by RankScope for this CPU's instruction sets" : "set by OPENBLAS_CORETYPE";
    return library + ", " + core + " kernels (" + how + ")";
}

} // namespace rankscope
