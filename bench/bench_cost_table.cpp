// The cost model's prediction of the time per checkpoint against model width and --jobs, for a
// GPT-2-like model (Q, K, V, O d×d; MLP 4d×d and d×4d per layer), from the same SpectrumCostModel
// that gives `rankscope analyze` its ETA. docs/performance.md's table is this output. Run by hand:
//   build/bin/bench_cost_table
#include "analysis/planning/SpectrumCostModel.h"
#include "spectral/BlasKernelChoice.h"
#include "spectral/CpuFeatures.h"

#include <cstdio>

using namespace rankscope;

int main()
{
    std::printf("cost model (constants measured on: AMD EPYC, 2 cores, OpenBLAS Zen kernels); this machine: %s; %s\n",
                CpuFeatures::detect().model.c_str(), describeBlasKernel().c_str());
    struct Model {
        const char *name;
        qint64 width;
        int layers;
    };
    const Model models[] = {{"GPT-2 small", 768, 12}, {"GPT-2 medium", 1024, 24}, {"d = 2048 (GPT-Neo 1.3B-like)", 2048, 24},
                            {"d = 4096 (7B-like, MLP 4d)", 4096, 32}};
    const int jobs[] = {1, 2, 4, 8};
    std::printf("| model | d | layers | one layer, 1 core |");
    for (int j : jobs)
        std::printf(" checkpoint, --jobs %d |", j);
    std::printf("\n|---|---|---|---|");
    for (int j = 0; j < 4; ++j)
        std::printf("---|");
    std::printf("\n");
    const SpectrumCostModel model;
    for (const Model &m : models) {
        const QList<MatrixShape> layer = SpectrumCostModel::gpt2Layer(m.width);
        QList<MatrixShape> checkpoint;
        for (int l = 0; l < m.layers; ++l)
            checkpoint += layer;
        std::printf("| %s | %lld | %d | %.2f s |", m.name, static_cast<long long>(m.width), m.layers, model.wallSeconds(layer, 1));
        for (int j : jobs) {
            const double seconds = model.wallSeconds(checkpoint, j);
            if (seconds < 120)
                std::printf(" %.1f s |", seconds);
            else
                std::printf(" %.1f min |", seconds / 60);
        }
        std::printf("\n");
    }
    std::printf("(spectra only, one worker per core; reading adds about 1 s per GB of float32 on this machine's disk cache)\n");
    return 0;
}
