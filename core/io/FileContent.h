// What one file holds, judged by its bytes and structure rather than by its name: model weights
// (a torch archive whose pickle holds matrices by name, safetensors, HDF5 with matrix datasets, an
// .npz of named matrices), one NumPy array, something readable that holds no matrices (training
// state, data, metrics), or nothing RankScope reads — and why. Never opens what is not a regular
// file.
#pragma once

#include <QList>
#include <QString>
#include <optional>

namespace rankscope {

// The first line of a RankScope results file, its seal in HDF5's user block
// (analysis/results/ResultsFile.cpp): such a file is known as one without libhdf5 reading it.
inline constexpr char kResultsFileSeal[] = "RankScope results file\n";

struct FileContent {
    enum class Kind {
        Weights,        // readable, and holds matrices by name
        DamagedWeights, // a checkpoint (by its bytes or suffix) that cannot be read; `detail` says why
        NpyArray,       // one .npy array: a folder of named matrices is a checkpoint together
        NoMatrices,     // readable, but no matrices by name: training state, data, metrics
        NotAFormat,     // nothing RankScope reads
        NotRegular,     // a FIFO, device, socket or broken link: never opened
    };
    Kind kind = Kind::NotAFormat;
    QString format; // "pytorch", "safetensors", "hdf5", "numpy-npz", "numpy-npy"
    QString detail; // "12 matrices by name", "a 1-D float32 array of 100 values", an error, …
    int matrices = 0;
    int arrayRank = 0;               // NpyArray: its dimensions (0 when it cannot be read)
    bool namedMatrix = false;        // NpyArray: a matrix whose file name reads as a tensor name
    bool unreadable = false;         // NpyArray: its header cannot be read or is refused (an object array)
    std::optional<qint64> stepInFile; // Weights: the step recorded inside (iter_num, global_step, an HDF5 attribute)

    static FileContent probe(const QString &path);
};

// Whether a name reads as a tensor of a model (a module path such as transformer.h.0.mlp.c_fc.weight,
// or a name ending in weight or kernel) rather than an array a script saved (losses, metrics).
bool looksLikeTensorName(const QString &name);

} // namespace rankscope
