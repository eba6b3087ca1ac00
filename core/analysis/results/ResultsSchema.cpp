#include "analysis/results/ResultsSchema.h"

#include "spectral/MetricCatalog.h"

#include <limits>

namespace rankscope {

namespace {

Cell toCell(const QString &v) { return v; }
Cell toCell(qint64 v) { return v; }
Cell toCell(int v) { return qint64(v); }
Cell toCell(bool v) { return qint64(v); }
void fromCell(const Cell &c, QString &v) { v = cellText(c); }
void fromCell(const Cell &c, qint64 &v) { v = cellInteger(c); }
void fromCell(const Cell &c, int &v) { v = int(cellInteger(c)); }
void fromCell(const Cell &c, bool &v) { v = cellInteger(c) != 0; }

// A column that is one field of the row.
template <typename Row, typename T>
Column<Row> field(const char *name, ColumnType type, T Row::*member, Presence presence = Presence::Required, int since = 1, int until = 0)
{
    return {name, type, presence, since, until, [member](const Row &r) { return toCell(r.*member); },
            [member](Row &r, const Cell &c) { fromCell(c, r.*member); }};
}

// A column of /matrices that is one field of its result.
template <typename T>
Column<MatrixRow> resultField(const char *name, ColumnType type, T MatrixResult::*member, int since = 1)
{
    return {name, type, Presence::Required, since, 0, [member](const MatrixRow &r) { return toCell(r.matrix().*member); },
            [member](MatrixRow &r, const Cell &c) { fromCell(c, r.result.*member); }};
}

TableSpec<CheckpointRecord> checkpointTable()
{
    using C = CheckpointRecord;
    return {"checkpoints",
            "path",
            {
                field("path", ColumnType::Text, &C::path),
                field("format", ColumnType::Text, &C::format),
                field("error", ColumnType::Text, &C::error),
                field("fingerprint", ColumnType::Text, &C::fingerprint, Presence::Required, 4),
                // Kept since --subspace and --delta: what their metrics were computed against. A
                // file without them reads empty and 0, which match nothing: computed again.
                field("subspace_previous", ColumnType::Text, &C::subspacePrevious, Presence::Optional, 4),
                field("subspace_k", ColumnType::Int32, &C::subspaceK, Presence::Optional, 4),
                field("delta_reference", ColumnType::Text, &C::deltaReference, Presence::Optional, 4),
                field("step", ColumnType::Int64, &C::step),
                field("size", ColumnType::Int64, &C::size),
                field("mtime_ms", ColumnType::Int64, &C::mtimeMs),
                field("matrices", ColumnType::Int32, &C::matrices),
                field("step_unnumbered", ColumnType::Int32, &C::unnumbered, Presence::Required, 3),
                // Schemas 1 and 2, where a file has it: ResultsSchema::upgrade says what it meant.
                field("step_from_order", ColumnType::Int32, &C::unnumbered, Presence::IfPresent, 1, 3),
            }};
}

// The stored metrics at the default τ, one float64 column each. All are optional: the spectrum's
// own are recomputed where a file lacks any, those that need the matrix read NaN.
void addMetricColumns(std::vector<Column<MatrixRow>> &columns)
{
    for (int k = 0; k < kMetricCount; ++k)
        columns.push_back({QByteArray(kMetricRows[k].column), ColumnType::Float64, Presence::Optional, kMetricRows[k].since, 0,
                           [k](const MatrixRow &r) { return Cell(r.metrics[k]); },
                           [k](MatrixRow &r, const Cell &c) { r.metrics[k] = cellNumber(c); }});
}

TableSpec<MatrixRow> matrixTable()
{
    using M = MatrixResult;
    using R = MatrixRow;
    TableSpec<MatrixRow> spec{
        "matrices",
        "type",
        {
            {"type", ColumnType::Text, Presence::Required, 1, 0, [](const R &r) { return Cell(csvName(r.matrix().type)); },
             [](R &r, const Cell &c) {
                 const auto type = anyTypeFromCsvName(cellText(c));
                 r.typeKnown = type.has_value();
                 r.result.type = type.value_or(MatrixType::Q);
             }},
            resultField("block", ColumnType::Text, &M::block, 2),
            resultField("expert", ColumnType::Text, &M::expert, 2),
            resultField("tensor", ColumnType::Text, &M::tensor),
            resultField("dtype", ColumnType::Text, &M::dtype),
            resultField("checkpoint_path", ColumnType::Text, &M::checkpointPath),
            resultField("step", ColumnType::Int64, &M::step),
            resultField("layer", ColumnType::Int32, &M::layer),
            resultField("step_unnumbered", ColumnType::Int32, &M::unnumbered, 3),
            resultField("rows", ColumnType::Int64, &M::rows),
            resultField("cols", ColumnType::Int64, &M::cols),
            // --heads: the head a row is (-1: the whole matrix; older files read so) and its
            // key/value head. The type QK or OV is a circuit, always of a head.
            {"head", ColumnType::Int32, Presence::Optional, 6, 0, [](const R &r) { return Cell(qint64(r.matrix().head)); },
             [](R &r, const Cell &c) { r.result.head = int(cellInteger(c)); }},
            {"kv_head", ColumnType::Int32, Presence::Optional, 6, 0, [](const R &r) { return Cell(qint64(r.matrix().kvHead)); },
             [](R &r, const Cell &c) { r.result.kvHead = int(cellInteger(c)); }},
            // A LoRA update ("update") and its adapter's r; empty and 0 for a model's own weights.
            {"weights", ColumnType::Text, Presence::Optional, 7, 0, [](const R &r) { return Cell(r.matrix().weights); },
             [](R &r, const Cell &c) { r.result.weights = cellText(c); }},
            {"update_rank", ColumnType::Int64, Presence::Optional, 7, 0, [](const R &r) { return Cell(r.matrix().updateRank); },
             [](R &r, const Cell &c) { r.result.updateRank = cellInteger(c); }},
            // The fingerprint of the matrix's stored bytes, 16 hex digits; empty (older files: 0,
            // unknown) when not known.
            {"content_hash", ColumnType::Text, Presence::Optional, 5, 0,
             [](const R &r) { return Cell(r.matrix().contentHash ? QString::number(r.matrix().contentHash, 16).rightJustified(16, QLatin1Char('0')) : QString()); },
             [](R &r, const Cell &c) { r.result.contentHash = cellText(c).toULongLong(nullptr, 16); }},
            field("sv_offset", ColumnType::Int64, &R::svOffset),
            field("sv_count", ColumnType::Int64, &R::svCount),
            // --delta's and --subspace's flat values: all three datasets or none.
            field(ResultsSchema::kDeltaColumns[0], ColumnType::Int64, &R::deltaOffset, Presence::Optional, 4),
            field(ResultsSchema::kDeltaColumns[1], ColumnType::Int64, &R::deltaCount, Presence::Optional, 4),
            field(ResultsSchema::kVectorColumns[0], ColumnType::Int64, &R::vectorOffset, Presence::Optional, 4),
            field(ResultsSchema::kVectorColumns[1], ColumnType::Int64, &R::vectorCount, Presence::Optional, 4),
        }};
    addMetricColumns(spec.columns);
    return spec;
}

TableSpec<AnalysisIssue> issueTable()
{
    using I = AnalysisIssue;
    return {"issues",
            "path",
            {
                field("path", ColumnType::Text, &I::path),
                // No tensor: the whole checkpoint could not be read.
                {"tensor", ColumnType::Text, Presence::Required, 1, 0, [](const I &i) { return Cell(i.tensor); },
                 [](I &i, const Cell &c) {
                     i.tensor = cellText(c);
                     i.wholeFile = i.tensor.isEmpty();
                 }},
                field("message", ColumnType::Text, &I::message),
            }};
}

TableSpec<SkippedFile> skippedTable()
{
    using S = SkippedFile;
    return {"skipped_files",
            "path",
            {
                field("path", ColumnType::Text, &S::path),
                field("reason", ColumnType::Text, &S::reason),
                field("duplicate", ColumnType::Int32, &S::duplicate, Presence::Optional, 3),
            }};
}

TableSpec<QString> noteTable()
{
    return {"/", "notes", {{"notes", ColumnType::Text, Presence::Required, 1, 0, [](const QString &n) { return Cell(n); },
                            [](QString &n, const Cell &c) { n = cellText(c); }}}};
}

} // namespace

const TableSpec<CheckpointRecord> &ResultsSchema::checkpoints()
{
    static const TableSpec<CheckpointRecord> spec = checkpointTable();
    return spec;
}

const TableSpec<MatrixRow> &ResultsSchema::matrices()
{
    static const TableSpec<MatrixRow> spec = matrixTable();
    return spec;
}

const TableSpec<AnalysisIssue> &ResultsSchema::issues()
{
    static const TableSpec<AnalysisIssue> spec = issueTable();
    return spec;
}

const TableSpec<SkippedFile> &ResultsSchema::skippedFiles()
{
    static const TableSpec<SkippedFile> spec = skippedTable();
    return spec;
}

const TableSpec<QString> &ResultsSchema::notes()
{
    static const TableSpec<QString> spec = noteTable();
    return spec;
}

void ResultsSchema::upgrade(RunAnalysis &run, int version)
{
    if (version >= 3)
        return;
    int numberedByPosition = 0;
    for (CheckpointRecord &c : run.checkpoints) {
        numberedByPosition += c.unnumbered;
        c.unnumbered = false;
    }
    if (numberedByPosition > 0)
        run.notes << QStringLiteral("%1 checkpoint(s) record no step and were numbered by their position among the others by an older "
                                    "RankScope (results schema %2); analyse the folder again to place them after the numbered steps as final")
                         .arg(numberedByPosition).arg(version);
}

} // namespace rankscope
