// The results of a run in one HDF5 file (schema: docs/results-file.md), readable with h5py or
// pandas. Saved atomically (a temporary file renamed into place) so a kill at any moment leaves
// the previous results intact; a damaged or foreign file is reported, never trusted.
#pragma once

#include "analysis/RunAnalysis.h"

#include <optional>

namespace rankscope {

class ResultsFile {
public:
    // 4: checkpoints carry a content fingerprint. 3: a checkpoint that records no step is flagged
    // step_unnumbered and placed after the numbered ones (2 and 1 numbered it by position among
    // them: read as they are, with a note); skipped files say which are duplicates. 2: matrices are
    // identified by block, layer, type and expert (1: layer and type; read with empty blocks and
    // experts, which is all the rules of schema 1 could give). Files before schema 4 are read with
    // empty fingerprints, which match no checkpoint: their checkpoints are analysed again, never
    // taken for unchanged.
    static constexpr int kSchemaVersion = 4;

    static bool save(const RunAnalysis &run, const QString &path, QString *error);
    static std::optional<RunAnalysis> load(const QString &path, QString *error);
    // True for an HDF5 file with RankScope's format attribute (cheap: reads the root only).
    static bool isResultsFile(const QString &path);
    // Where a folder's results are cached: <cache>/runs/<sha1 of the absolute path>.h5.
    static QString cachePathFor(const QString &folder);
};

} // namespace rankscope
