#include "analysis/results/ResultsFile.h"

#include "RankScopeVersion.h"
#include "analysis/results/ResultsSchema.h"
#include "io/FileContent.h"
#include "io/hdf5/Hdf5Support.h"
#include "io/OutputFile.h"
#include "io/RegularFile.h"
#include "spectral/MetricCatalog.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <limits>

namespace rankscope {

namespace {

constexpr const char *kFormat = "rankscope-results";

bool writeAttributes(hid_t file, const RunAnalysis &run)
{
    return Hdf5Attribute::writeText(file, "format", QString::fromLatin1(kFormat)) &&
           Hdf5Attribute::writeNumber<int>(file, "schema_version", ResultsFile::kSchemaVersion, H5T_STD_I32LE, H5T_NATIVE_INT) &&
           Hdf5Attribute::writeText(file, "rankscope_version", QStringLiteral(RANKSCOPE_VERSION)) &&
           Hdf5Attribute::writeText(file, "folder", run.folder) && Hdf5Attribute::writeText(file, "settings_key", run.settingsKey) &&
           Hdf5Attribute::writeNumber<double>(file, "energy", kDefaultEnergy, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) &&
           Hdf5Attribute::writeText(file, "created", QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
}

// /matrices' rows and the flat root datasets they locate: the spectra, the spectra of the changes
// from the reference, the top singular vectors.
struct MatrixValues {
    QList<MatrixRow> rows;
    ColumnValues spectra, deltaSpectra, vectors;
};

MatrixValues gatherMatrices(const QList<MatrixResult> &results)
{
    MatrixValues out;
    std::vector<double> &spectra = out.spectra.float64, &deltaSpectra = out.deltaSpectra.float64;
    std::vector<float> &vectors = out.vectors.float32;
    for (const MatrixResult &r : results) {
        MatrixRow row;
        row.source = &r;
        row.svOffset = qint64(spectra.size());
        row.svCount = r.singularValues.size();
        spectra.insert(spectra.end(), r.singularValues.data(), r.singularValues.data() + r.singularValues.size());
        row.deltaOffset = qint64(deltaSpectra.size());
        row.deltaCount = r.deltaSingularValues.size();
        deltaSpectra.insert(deltaSpectra.end(), r.deltaSingularValues.data(), r.deltaSingularValues.data() + r.deltaSingularValues.size());
        // Held for one checkpoint only (RunAnalyzer): cols × k, column after column.
        const bool hasVectors = r.topVectors.size() > 0 && r.topVectors.rows() == r.cols;
        row.vectorOffset = qint64(vectors.size());
        row.vectorCount = hasVectors ? r.topVectors.cols() : 0;
        if (hasVectors)
            vectors.insert(vectors.end(), r.topVectors.data(), r.topVectors.data() + r.topVectors.size());
        // Stored metrics are at the default τ, whatever τ the run was shown at.
        SpectralMetrics atDefault = r.metrics;
        applyEnergy(atDefault, r.singularValues, r.rows, r.cols, kDefaultEnergy);
        row.metrics = spectralMetricValues(atDefault);
        out.rows.append(std::move(row));
    }
    return out;
}

bool writeRun(hid_t file, const RunAnalysis &run)
{
    const int version = ResultsFile::kSchemaVersion;
    // The rows point into this list: it lives as long as they do.
    const QList<MatrixResult> all = run.results + run.headResults;
    const MatrixValues matrices = gatherMatrices(all);
    const bool ok = writeAttributes(file, run) && writeTable(file, ResultsSchema::checkpoints(), run.checkpoints, version) &&
                    writeTable(file, ResultsSchema::matrices(), matrices.rows, version) &&
                    ResultsDatasets::write(file, ResultsSchema::kSpectra, ColumnType::Float64, matrices.spectra) &&
                    ResultsDatasets::write(file, ResultsSchema::kDeltaSpectra, ColumnType::Float64, matrices.deltaSpectra) &&
                    ResultsDatasets::write(file, ResultsSchema::kTopVectors, ColumnType::Float32, matrices.vectors) &&
                    writeTable(file, ResultsSchema::issues(), run.issues, version) &&
                    writeTable(file, ResultsSchema::skippedFiles(), run.sidecars, version) &&
                    writeTable(file, ResultsSchema::notes(), run.notes, version);
    // Written last: a file without it was never finished.
    return ok && Hdf5Attribute::writeNumber<int>(file, "complete", 1, H5T_STD_I32LE, H5T_NATIVE_INT);
}

// Whether `count` runs of `width` values from `offset` lie inside a flat dataset of `size` values
// (a matrix's spectrum: width 1; its top vectors: width cols). Divided, never multiplied: a
// hostile count × width could wrap to a small number.
bool spanFits(long long offset, long long count, long long width, size_t size)
{
    if (offset < 0 || count < 0 || width < 0 || quint64(offset) > size)
        return false;
    return width == 0 || quint64(count) <= (size - quint64(offset)) / quint64(width);
}

// The seal in HDF5's user block, the file's first kSealBytes, which HDF5 leaves to the application:
// a line naming the file, then the SHA-256 of every byte after the block, in hex. A results file
// whose bytes changed after RankScope wrote it (a disk fault, a cut copy, another program's edit) is
// refused before libhdf5 reads any of it: libhdf5 trusts what it reads, and a damaged
// variable-length string crashed it (H5HG_read). Files written before the seal have a block of
// zeros, or none, and are read as they are.
constexpr qsizetype kSealBytes = 512;
const QByteArray kSealMagic = QByteArray(kResultsFileSeal) + "sha256 ";

QByteArray sealOf(const QByteArray &sha256)
{
    QByteArray seal = QByteArray(kSealMagic) + sha256.toHex() + '\n';
    seal.append(QByteArray(kSealBytes - seal.size(), '\0'));
    return seal;
}

// What is wrong with the file's seal; empty when it matches, or when the file has none.
QString sealProblem(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray block = file.read(kSealBytes);
    // Written before the seal (HDF5 from byte 0), or its seal cleared (a block of zeros).
    if (block.startsWith("\x89HDF\r\n\x1a\n") || block.count('\0') == block.size())
        return {};
    if (!block.startsWith(kSealMagic))
        return QStringLiteral("its first bytes are neither HDF5's signature nor RankScope's seal");
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&file) || block != sealOf(hash.result()))
        return QStringLiteral("its bytes changed after RankScope wrote it (its SHA-256 seal does not match); analyse the run again");
    return {};
}

QString damaged(const QString &what)
{
    return QStringLiteral("damaged results file: %1").arg(what);
}

// The schema of a finished RankScope results file, or nullopt with why it is none.
std::optional<int> readSchema(hid_t file, QString *error)
{
    if (Hdf5Attribute::readText(file, "format") != QString::fromLatin1(kFormat)) {
        *error = QStringLiteral("not a RankScope results file");
        return std::nullopt;
    }
    const auto schema = Hdf5Attribute::readInteger(file, "schema_version");
    if (!schema || *schema < 1 || *schema > ResultsFile::kSchemaVersion) {
        *error = QStringLiteral("results file schema %1 is not the %2 this RankScope reads").arg(schema.value_or(0)).arg(ResultsFile::kSchemaVersion);
        return std::nullopt;
    }
    if (Hdf5Attribute::readInteger(file, "complete") != 1) {
        *error = damaged(QStringLiteral("it was never finished"));
        return std::nullopt;
    }
    return int(*schema);
}

bool readCheckpoints(hid_t file, int schema, RunAnalysis &run, QString *error)
{
    TableProblems problems;
    TableRows<CheckpointRecord> table = readTable(file, ResultsSchema::checkpoints(), schema, problems);
    if (table.failure == TableFailure::NoGroup)
        *error = damaged(QStringLiteral("no checkpoints group"));
    else if (table.failure == TableFailure::NoLength)
        *error = damaged(QStringLiteral("no checkpoint paths"));
    else if (table.failure == TableFailure::Incomplete)
        *error = damaged(QStringLiteral("checkpoint table is incomplete") + problems.suffix());
    if (table.failure != TableFailure::None)
        return false;
    run.checkpoints = std::move(table.rows);
    run.checkpointsFound = int(run.checkpoints.size());
    run.checkpointsAnalysed = int(std::count_if(run.checkpoints.begin(), run.checkpoints.end(), [](const CheckpointRecord &c) { return c.matrices > 0; }));
    return true;
}

// /matrices' flat values as read: the spectra always, the others only where the file has them
// and the columns that locate them.
struct FlatValues {
    std::optional<ColumnValues> spectra, deltaSpectra, vectors;
};

// Gives row i its spectra and vectors from the flat values; false, with why, where they lie
// outside them or do not fit the matrix.
bool attachFlatValues(MatrixRow &row, qint64 i, const FlatValues &flat, QString *error)
{
    MatrixResult &r = row.result;
    const std::vector<double> &spectra = flat.spectra->float64;
    const bool headKnown = r.head >= -1 && r.kvHead >= -1 && (r.isHead() || !isCircuit(r.type));
    if (!row.typeKnown || !headKnown || !spanFits(row.svOffset, row.svCount, 1, spectra.size()) || r.rows < 0 || r.cols < 0) {
        *error = damaged(QStringLiteral("matrix %1 is inconsistent").arg(i));
        return false;
    }
    // The declared shape sizes what the planner and the views allocate: a whole matrix's spectrum
    // holds min(rows, cols) values (a head's or circuit's at most that), and no side reaches 2³¹, so
    // rows × cols fits 64 bits. A shape the stored spectrum does not bear out is not believed.
    constexpr qint64 kLargestSide = qint64(1) << 31;
    const qint64 order = std::min(r.rows, r.cols);
    if (r.rows >= kLargestSide || r.cols >= kLargestSide || (r.isHead() ? row.svCount > order : row.svCount != order)) {
        *error = damaged(QStringLiteral("matrix %1 declares a %2\u00d7%3 shape its %4 stored singular values do not bear out")
                             .arg(i).arg(r.rows).arg(r.cols).arg(row.svCount));
        return false;
    }
    r.singularValues = Eigen::Map<const Eigen::VectorXd>(spectra.data() + row.svOffset, Eigen::Index(row.svCount));
    if (flat.deltaSpectra) {
        const std::vector<double> &deltas = flat.deltaSpectra->float64;
        if (!spanFits(row.deltaOffset, row.deltaCount, 1, deltas.size())) {
            *error = damaged(QStringLiteral("matrix %1's change from the reference is inconsistent").arg(i));
            return false;
        }
        r.deltaSingularValues = Eigen::Map<const Eigen::VectorXd>(deltas.data() + row.deltaOffset, Eigen::Index(row.deltaCount));
    }
    if (flat.vectors) {
        const std::vector<float> &vectors = flat.vectors->float32;
        const qint64 k = row.vectorCount;
        if (k > std::min(r.rows, r.cols) || !spanFits(row.vectorOffset, k, r.cols, vectors.size())) {
            *error = damaged(QStringLiteral("matrix %1's singular vectors are inconsistent").arg(i));
            return false;
        }
        r.topVectors = Eigen::Map<const Eigen::MatrixXf>(vectors.data() + row.vectorOffset, Eigen::Index(r.cols), Eigen::Index(k));
    }
    return true;
}

// Why a stored spectrum (or that of the change from the reference) cannot be used: NaN, Inf,
// negative, or σ whose squares overflow, which no analysis writes. Empty when it can.
QString storedSpectrumProblem(const MatrixResult &r)
{
    if (const QString own = spectrumProblem(r.singularValues); !own.isEmpty())
        return QStringLiteral("its spectrum in the results file cannot be used: ") + own;
    if (const QString change = spectrumProblem(r.deltaSingularValues); !change.isEmpty())
        return QStringLiteral("the spectrum of its change from the reference in the results file cannot be used: ") + change;
    return {};
}

// The stored metrics spare the power-law fits; a file without all of the spectrum's own metrics
// has them recomputed from its spectra. Those that need the matrix (rand_distance and the opt-in
// ones: the last columns) cannot be: a file without them reads NaN.
void completeMetrics(MatrixRow &row, bool spectrumMetricsStored)
{
    MatrixResult &r = row.result;
    QList<double> values = row.metrics;
    if (!spectrumMetricsStored || r.singularValues.size() == 0) {
        values = spectralMetricValues(computeSpectralMetrics(r.singularValues, r.rows, r.cols, kDefaultEnergy));
        const qsizetype matrixMetrics = matrixMetricColumns().size();
        for (qsizetype k = values.size() - matrixMetrics; k < values.size(); ++k)
            values[k] = row.metrics[k];
    }
    r.metrics = spectralMetricsFromValues(values);
}

bool allPresent(const QSet<QByteArray> &present, std::initializer_list<const char *> names)
{
    return std::all_of(names.begin(), names.end(), [&](const char *name) { return present.contains(name); });
}

bool spectrumMetricsPresent(const QSet<QByteArray> &present)
{
    const QStringList needMatrix = matrixMetricColumns();
    for (const QString &column : spectralMetricColumns())
        if (!needMatrix.contains(column) && !present.contains(column.toUtf8()))
            return false;
    return true;
}

bool readMatrices(hid_t file, int schema, RunAnalysis &run, QString *error)
{
    TableProblems problems, optional;
    MatrixRow blank;
    blank.metrics = QList<double>(spectralMetricColumns().size(), std::numeric_limits<double>::quiet_NaN());
    TableRows<MatrixRow> table = readTable(file, ResultsSchema::matrices(), schema, problems, blank);
    FlatValues flat;
    if (table.failure == TableFailure::None)
        flat.spectra = ResultsDatasets::read(file, ResultsSchema::kSpectra, ColumnType::Float64, -1, problems);
    if (table.failure == TableFailure::NoGroup) {
        *error = damaged(QStringLiteral("no matrices group"));
        return false;
    }
    if (table.failure != TableFailure::None || !flat.spectra) {
        *error = damaged(QStringLiteral("matrix table is incomplete") + problems.suffix());
        return false;
    }
    // D = W − W_ref's spectra (--delta) and the newest checkpoint's top right singular vectors
    // (--subspace), in files written since they exist: each with both its columns, or not at all.
    const auto &[deltaOffsets, deltaCounts] = ResultsSchema::kDeltaColumns;
    if (allPresent(table.present, {deltaOffsets, deltaCounts}))
        flat.deltaSpectra = ResultsDatasets::read(file, ResultsSchema::kDeltaSpectra, ColumnType::Float64, -1, optional);
    const auto &[vectorOffsets, vectorCounts] = ResultsSchema::kVectorColumns;
    if (allPresent(table.present, {vectorOffsets, vectorCounts}))
        flat.vectors = ResultsDatasets::read(file, ResultsSchema::kTopVectors, ColumnType::Float32, -1, optional);
    const bool spectrumMetricsStored = spectrumMetricsPresent(table.present);
    for (qsizetype i = 0; i < table.rows.size(); ++i) {
        MatrixRow &row = table.rows[i];
        if (!attachFlatValues(row, i, flat, error))
            return false;
        // A spectrum no analysis writes would reach the metrics and the spectrum view's density as
        // non-finite eigenvalues: that matrix is named and left out, the rest is read, and its
        // checkpoint's fingerprint is forgotten so that analysing the folder again recomputes it
        // instead of serving this file's copy.
        if (const QString issue = storedSpectrumProblem(row.result); !issue.isEmpty()) {
            run.issues.append({row.result.checkpointPath, row.result.tensor, issue + QStringLiteral("; left out until its checkpoint is analysed again"), false});
            for (CheckpointRecord &record : run.checkpoints)
                if (record.path == row.result.checkpointPath)
                    record.fingerprint.clear();
            continue;
        }
        completeMetrics(row, spectrumMetricsStored);
        (row.result.isHead() ? run.headResults : run.results).append(std::move(row.result));
    }
    return true;
}

bool readIssues(hid_t file, int schema, RunAnalysis &run, QString *error)
{
    TableProblems problems;
    TableRows<AnalysisIssue> table = readTable(file, ResultsSchema::issues(), schema, problems);
    if (table.failure != TableFailure::None) {
        *error = damaged(QStringLiteral("issue table is incomplete") + problems.suffix());
        return false;
    }
    run.issues.append(table.rows);
    return true;
}

// Skipped files and notes only tell how the run was read: a file without them (or with them
// unusable) is read without them.
void readSkippedFilesAndNotes(hid_t file, int schema, RunAnalysis &run)
{
    TableProblems ignored;
    TableRows<SkippedFile> skipped = readTable(file, ResultsSchema::skippedFiles(), schema, ignored);
    if (skipped.failure == TableFailure::None)
        run.sidecars = std::move(skipped.rows);
    TableRows<QString> notes = readTable(file, ResultsSchema::notes(), schema, ignored);
    if (notes.failure == TableFailure::None)
        run.notes = std::move(notes.rows);
}

std::optional<RunAnalysis> readRun(hid_t file, QString *error)
{
    const std::optional<int> schema = readSchema(file, error);
    if (!schema)
        return std::nullopt;
    RunAnalysis run;
    run.folder = Hdf5Attribute::readText(file, "folder").value_or(QString());
    run.settingsKey = Hdf5Attribute::readText(file, "settings_key").value_or(QString());
    if (!readCheckpoints(file, *schema, run, error) || !readMatrices(file, *schema, run, error) || !readIssues(file, *schema, run, error))
        return std::nullopt;
    readSkippedFilesAndNotes(file, *schema, run);
    ResultsSchema::upgrade(run, *schema);
    sortResults(run.results);
    sortResults(run.headResults);
    return run;
}

} // namespace

bool ResultsFile::save(const RunAnalysis &run, const QString &path, QString *error)
{
    const QFileInfo target(QFileInfo(path).absoluteFilePath());
    if (!QDir().mkpath(target.absolutePath())) {
        *error = QStringLiteral("%1: cannot create its folder").arg(path);
        return false;
    }
    // The file is built in memory (HDF5's core driver) and reaches the disk in one checked write:
    // a full disk is then a write that fails here, never an HDF5 file that cannot be flushed, which
    // stayed open and crashed the process at exit.
    QByteArray image;
    {
        Hdf5Lock lock;
        const Hdf5Id access(H5Pcreate(H5P_FILE_ACCESS));
        if (!access.ok() || H5Pset_fapl_core(access, 4 << 20, false) < 0) {
            *error = QStringLiteral("%1: HDF5 cannot build a file in memory").arg(path);
            return false;
        }
        const Hdf5Id creation(H5Pcreate(H5P_FILE_CREATE));
        if (!creation.ok() || H5Pset_userblock(creation, kSealBytes) < 0) {
            *error = QStringLiteral("%1: HDF5 cannot build a file in memory").arg(path);
            return false;
        }
        Hdf5Id file(H5Fcreate("rankscope-results.h5", H5F_ACC_TRUNC, creation, access));
        if (!file.ok() || !writeRun(file, run) || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
            *error = QStringLiteral("%1: the results cannot be assembled (out of memory?)").arg(path);
            return false;
        }
        const ssize_t size = H5Fget_file_image(file, nullptr, 0);
        if (size > 0) {
            image.resize(qsizetype(size));
            if (H5Fget_file_image(file, image.data(), size_t(size)) != size)
                image.clear();
        }
        if (!file.close() || image.isEmpty()) {
            *error = QStringLiteral("%1: the results cannot be assembled (out of memory?)").arg(path);
            return false;
        }
    }
    // HDF5 leaves the user block out of the image it hands over (its superblock is at 0 and says
    // the file's addresses start at kSealBytes): the seal goes in front.
    image.prepend(sealOf(QCryptographicHash::hash(image, QCryptographicHash::Sha256)));
    // As every output: a temporary beside it (<name>.tmp-<pid>-XXXXXX, created exclusively, its
    // dead processes' leftovers removed, the name cut to fit where it is long), synced and renamed
    // over it, any failure in the system's words (a full disk is "No space left on device").
    return replaceFile(path, image, error);
}

std::optional<RunAnalysis> ResultsFile::load(const QString &path, QString *error)
{
    Hdf5Lock lock;
    if (!QFileInfo::exists(path)) {
        *error = QStringLiteral("no such file");
        return std::nullopt;
    }
    // H5Fopen would wait forever on a FIFO.
    if (!RegularFile::isRegular(path)) {
        *error = QStringLiteral("not a regular file: not read");
        return std::nullopt;
    }
    if (const QString problem = sealProblem(path); !problem.isEmpty()) {
        *error = damaged(problem);
        return std::nullopt;
    }
    if (H5Fis_hdf5(QFile::encodeName(path).constData()) <= 0) {
        *error = QStringLiteral("damaged results file: not an HDF5 file (truncated?)");
        return std::nullopt;
    }
    Hdf5Id file(H5Fopen(QFile::encodeName(path).constData(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!file.ok()) {
        *error = QStringLiteral("damaged results file: HDF5 cannot open it");
        return std::nullopt;
    }
    return readRun(file, error);
}

bool ResultsFile::isResultsFile(const QString &path)
{
    Hdf5Lock lock;
    if (!RegularFile::isRegular(path))
        return false;
    // Sealed: RankScope's, whole or damaged (load says which), known without libhdf5.
    if (QFile file(path); file.open(QIODevice::ReadOnly) && file.read(kSealMagic.size()) == kSealMagic)
        return true;
    if (H5Fis_hdf5(QFile::encodeName(path).constData()) <= 0)
        return false;
    Hdf5Id file(H5Fopen(QFile::encodeName(path).constData(), H5F_ACC_RDONLY, H5P_DEFAULT));
    return file.ok() && Hdf5Attribute::readText(file, "format") == QString::fromLatin1(kFormat);
}

} // namespace rankscope
