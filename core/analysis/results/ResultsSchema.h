// What the results file holds, table by table (docs/results-file.md), and how a file of an older
// schema is read as one of this schema. Each table is one descriptor list (ResultsTable); the
// flat spectra and vectors of /matrices lie in root datasets its offset and count columns locate.
//
// The schemas: 4: checkpoints carry a content fingerprint (older files read it empty, which
// matches no checkpoint: their checkpoints are analysed again, never taken for unchanged); the
// opt-in columns of --delta and --subspace came later within 4, optional. 3: a checkpoint that
// records no step is flagged step_unnumbered and placed after the numbered ones; skipped files say
// which are duplicates (2 and 1 numbered such a checkpoint by its position, step_from_order: read
// as they are, with a note). 2: matrices are identified by block, layer, type and expert (1: layer
// and type; read with empty blocks and experts, which is all the rules of schema 1 could give).
#pragma once

#include "analysis/results/ResultsTable.h"
#include "analysis/results/RunAnalysis.h"

namespace rankscope {

// One row of /matrices. Written from a result (source) with where its spectra lie in the flat
// datasets and its metrics at the default τ; read into `result` with the same, before the spectra
// are attached and the metrics completed.
struct MatrixRow {
    const MatrixResult *source = nullptr; // writing: the result stored
    MatrixResult result;                  // reading: the result read
    qint64 svOffset = 0, svCount = 0;
    qint64 deltaOffset = 0, deltaCount = 0;
    qint64 vectorOffset = 0, vectorCount = 0;
    bool typeKnown = true;   // the type read names a matrix type
    QList<double> metrics;   // spectralMetricColumns() order; reading: NaN where the file has none

    const MatrixResult &matrix() const { return source ? *source : result; }
};

class ResultsSchema {
public:
    static const TableSpec<CheckpointRecord> &checkpoints();
    static const TableSpec<MatrixRow> &matrices();
    static const TableSpec<AnalysisIssue> &issues();
    static const TableSpec<SkippedFile> &skippedFiles();
    static const TableSpec<QString> &notes();

    // The root datasets of /matrices' flat values: its spectra (required), the spectra of their
    // change from the reference and the top singular vectors (optional, with their columns).
    static constexpr const char *kSpectra = "singular_values";
    static constexpr const char *kDeltaSpectra = "delta_singular_values";
    static constexpr const char *kTopVectors = "top_vectors";
    static constexpr const char *kDeltaColumns[] = {"delta_sv_offset", "delta_sv_count"};
    static constexpr const char *kVectorColumns[] = {"top_vectors_offset", "top_vectors_count"};

    // What a file of an older schema needs once its tables are read, beyond the columns it lacks
    // reading as their defaults: schemas 1 and 2 numbered a checkpoint without a step by its
    // position (step_from_order, read into `unnumbered`): it is kept as a step, never taken for a
    // "final" placement, and a note says how many there are.
    static void upgrade(RunAnalysis &run, int version);
};

} // namespace rankscope
