// The results of a run in one HDF5 file (schema: docs/results-file.md), readable with h5py or
// pandas. Saved atomically (a temporary file renamed into place) so a kill at any moment leaves
// the previous results intact; a damaged or foreign file is reported, never trusted.
#pragma once

#include "analysis/results/RunAnalysis.h"

#include <optional>

namespace rankscope {

class ResultsFile {
public:
    // The schema written. What each version added, and how files of the older ones are read:
    // ResultsSchema.
    static constexpr int kSchemaVersion = 7;

    static bool save(const RunAnalysis &run, const QString &path, QString *error);
    static std::optional<RunAnalysis> load(const QString &path, QString *error);
    // True for an HDF5 file with RankScope's format attribute (cheap: reads the root only).
    static bool isResultsFile(const QString &path);
};

} // namespace rankscope
