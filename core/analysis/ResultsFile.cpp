#include "analysis/ResultsFile.h"

#include "RankScopeVersion.h"
#include "io/Hdf5Support.h"
#include "io/Hdf5DatasetStorage.h"
#include "io/MemoryBudget.h"
#include "io/OutputFile.h"
#include "io/RegularFile.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unistd.h>
#include <vector>

namespace rankscope {

namespace {

constexpr const char *kFormat = "rankscope-results";

bool writeStrings(hid_t group, const char *name, const QStringList &values)
{
    std::vector<QByteArray> utf8;
    std::vector<const char *> pointers;
    utf8.reserve(size_t(values.size()));
    for (const QString &v : values)
        utf8.push_back(v.toUtf8());
    for (const QByteArray &b : utf8)
        pointers.push_back(b.constData());
    const hsize_t n = hsize_t(values.size());
    Hdf5Id space(H5Screate_simple(1, &n, nullptr));
    Hdf5Id type(Hdf5Attribute::utf8StringType());
    Hdf5Id data(H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    return data.ok() && (n == 0 || H5Dwrite(data, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) >= 0);
}

template <typename T>
bool writeNumbers(hid_t group, const char *name, const std::vector<T> &values, hid_t fileType, hid_t memType)
{
    const hsize_t n = hsize_t(values.size());
    Hdf5Id space(H5Screate_simple(1, &n, nullptr));
    Hdf5Id data(H5Dcreate2(group, name, fileType, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    return data.ok() && (n == 0 || H5Dwrite(data, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
}

// Singular vectors (--subspace) compress: chunked, byte-shuffled and deflated where this HDF5 has
// zlib, stored plain where it has not.
bool writeCompressedFloats(hid_t group, const char *name, const std::vector<float> &values)
{
    const hsize_t n = hsize_t(values.size());
    Hdf5Id space(H5Screate_simple(1, &n, nullptr));
    Hdf5Id properties(H5Pcreate(H5P_DATASET_CREATE));
    if (n > 0 && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Zfilter_avail(H5Z_FILTER_SHUFFLE) > 0) {
        const hsize_t chunk = std::min<hsize_t>(n, 1 << 18); // 1 MB of float32
        H5Pset_chunk(properties, 1, &chunk);
        H5Pset_shuffle(properties);
        H5Pset_deflate(properties, 4);
    }
    Hdf5Id data(H5Dcreate2(group, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, properties, H5P_DEFAULT));
    return data.ok() && (n == 0 || H5Dwrite(data, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
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

// The first dataset of a results file found unusable and why: what the user is told it is damaged by.
struct TableProblems {
    QString first;
    void note(const char *name, const QString &what)
    {
        if (first.isEmpty())
            first = QStringLiteral("%1 %2").arg(QLatin1String(name), what);
    }
    QString suffix() const { return first.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(first); }
};

// The length of a 1-D dataset, or -1 when it is missing or not 1-D.
qint64 datasetLength(hid_t data)
{
    Hdf5Id space(H5Dget_space(data));
    if (!space.ok() || H5Sget_simple_extent_ndims(space) != 1)
        return -1;
    hsize_t n = 0;
    H5Sget_simple_extent_dims(space, &n, nullptr);
    return qint64(n);
}

// A 1-D dataset's length when it holds `expected` elements (any number when expected < 0) of the
// given class, stored in the file itself and fitting in memory at memoryBytes each: a file that
// declares 2³³ singular values is refused before anything is allocated for them.
std::optional<qint64> checkedLength(hid_t data, const char *name, qint64 expected, H5T_class_t kind, size_t memoryBytes,
                                    TableProblems &problems)
{
    const qint64 n = datasetLength(data);
    if (n < 0 || (expected >= 0 && n != expected)) {
        problems.note(name, n < 0 ? QStringLiteral("is not a 1-D dataset") : QStringLiteral("has %1 entries, not %2").arg(n).arg(expected));
        return std::nullopt;
    }
    const Hdf5Id type(H5Dget_type(data));
    if (!type.ok() || H5Tget_class(type) != kind || (kind == H5T_STRING && H5Tis_variable_str(type) <= 0)) {
        problems.note(name, QStringLiteral("holds values of another type"));
        return std::nullopt;
    }
    if (const QString problem = Hdf5DatasetStorage::problem(data); !problem.isEmpty()) {
        problems.note(name, problem);
        return std::nullopt;
    }
    if (quint64(n) > quint64(MemoryBudget::availableBytes() / 2) / memoryBytes) {
        problems.note(name, QStringLiteral("holds %1 entries, more than the memory available").arg(n));
        return std::nullopt;
    }
    return n;
}

std::optional<QStringList> readStrings(hid_t group, const char *name, qint64 expected, TableProblems &problems)
{
    Hdf5Id data(H5Dopen2(group, name, H5P_DEFAULT));
    if (!data.ok()) {
        problems.note(name, QStringLiteral("is missing"));
        return std::nullopt;
    }
    // The length the dataset has, not the one asked for: "any length" (-1) is no size.
    const auto n = checkedLength(data, name, expected, H5T_STRING, sizeof(char *) + sizeof(QString), problems);
    if (!n)
        return std::nullopt;
    QStringList out;
    if (*n == 0)
        return out;
    std::vector<char *> pointers(size_t(*n), nullptr);
    Hdf5Id type(Hdf5Attribute::utf8StringType());
    // A read that fails part way has allocated some strings already: they are freed either way.
    const bool read = H5Dread(data, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) >= 0;
    if (read)
        for (char *p : pointers)
            out << QString::fromUtf8(p ? p : "");
    Hdf5Id space(H5Dget_space(data));
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, pointers.data());
    if (!read) {
        problems.note(name, QStringLiteral("cannot be read"));
        return std::nullopt;
    }
    return out;
}

template <typename T>
std::optional<std::vector<T>> readNumbers(hid_t group, const char *name, qint64 expected, hid_t memType, TableProblems &problems)
{
    Hdf5Id data(H5Dopen2(group, name, H5P_DEFAULT));
    if (!data.ok()) {
        problems.note(name, QStringLiteral("is missing"));
        return std::nullopt;
    }
    const auto n = checkedLength(data, name, expected, H5Tget_class(memType), sizeof(T), problems);
    if (!n)
        return std::nullopt;
    std::vector<T> out(static_cast<size_t>(*n));
    if (*n > 0 && H5Dread(data, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0) {
        problems.note(name, QStringLiteral("cannot be read"));
        return std::nullopt;
    }
    return out;
}

bool writeRun(hid_t file, const RunAnalysis &run)
{
    bool ok = Hdf5Attribute::writeText(file, "format", QString::fromLatin1(kFormat)) &&
              Hdf5Attribute::writeNumber<int>(file, "schema_version", ResultsFile::kSchemaVersion, H5T_STD_I32LE, H5T_NATIVE_INT) &&
              Hdf5Attribute::writeText(file, "rankscope_version", QStringLiteral(RANKSCOPE_VERSION)) &&
              Hdf5Attribute::writeText(file, "folder", run.folder) &&
              Hdf5Attribute::writeText(file, "settings_key", run.settingsKey) &&
              Hdf5Attribute::writeNumber<double>(file, "energy", kDefaultEnergy, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) &&
              Hdf5Attribute::writeText(file, "created", QDateTime::currentDateTimeUtc().toString(Qt::ISODate));

    Hdf5Id checkpoints(H5Gcreate2(file, "checkpoints", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    QStringList paths, formats, errors, fingerprints, subspacePrevious, deltaReferences;
    std::vector<long long> steps, sizes, mtimes;
    std::vector<int> matrices, unnumbered, subspaceK;
    for (const CheckpointRecord &c : run.checkpoints) {
        paths << c.path;
        formats << c.format;
        errors << c.error;
        fingerprints << c.fingerprint;
        subspacePrevious << c.subspacePrevious;
        subspaceK.push_back(c.subspaceK);
        deltaReferences << c.deltaReference;
        steps.push_back(c.step);
        sizes.push_back(c.size);
        mtimes.push_back(c.mtimeMs);
        matrices.push_back(c.matrices);
        unnumbered.push_back(c.unnumbered);
    }
    ok = ok && checkpoints.ok() && writeStrings(checkpoints, "path", paths) && writeStrings(checkpoints, "format", formats) &&
         writeStrings(checkpoints, "error", errors) && writeStrings(checkpoints, "fingerprint", fingerprints) &&
         writeStrings(checkpoints, "subspace_previous", subspacePrevious) &&
         writeNumbers(checkpoints, "subspace_k", subspaceK, H5T_STD_I32LE, H5T_NATIVE_INT) &&
         writeStrings(checkpoints, "delta_reference", deltaReferences) &&
         writeNumbers(checkpoints, "step", steps, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(checkpoints, "size", sizes, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(checkpoints, "mtime_ms", mtimes, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(checkpoints, "matrices", matrices, H5T_STD_I32LE, H5T_NATIVE_INT) &&
         writeNumbers(checkpoints, "step_unnumbered", unnumbered, H5T_STD_I32LE, H5T_NATIVE_INT);

    Hdf5Id group(H5Gcreate2(file, "matrices", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    QStringList blocks, types, experts, tensors, dtypes, sources;
    std::vector<long long> mSteps, rows, cols, svOffset, svCount, deltaOffset, deltaCount, vectorOffset, vectorCount;
    std::vector<int> layers, mUnnumbered;
    std::vector<double> spectra, deltaSpectra;
    std::vector<float> vectors;
    const QStringList columns = spectralMetricColumns();
    std::vector<std::vector<double>> metricColumns(size_t(columns.size()));
    for (const MatrixResult &r : run.results) {
        blocks << r.block;
        experts << r.expert;
        types << csvName(r.type);
        tensors << r.tensor;
        dtypes << r.dtype;
        sources << r.checkpointPath;
        mSteps.push_back(r.step);
        layers.push_back(r.layer);
        mUnnumbered.push_back(r.unnumbered);
        rows.push_back(r.rows);
        cols.push_back(r.cols);
        svOffset.push_back(qint64(spectra.size()));
        svCount.push_back(r.singularValues.size());
        spectra.insert(spectra.end(), r.singularValues.data(), r.singularValues.data() + r.singularValues.size());
        deltaOffset.push_back(qint64(deltaSpectra.size()));
        deltaCount.push_back(r.deltaSingularValues.size());
        deltaSpectra.insert(deltaSpectra.end(), r.deltaSingularValues.data(), r.deltaSingularValues.data() + r.deltaSingularValues.size());
        // Held for one checkpoint only (RunAnalyzer): cols × k, column after column.
        const bool hasVectors = r.topVectors.size() > 0 && r.topVectors.rows() == r.cols;
        vectorOffset.push_back(qint64(vectors.size()));
        vectorCount.push_back(hasVectors ? r.topVectors.cols() : 0);
        if (hasVectors)
            vectors.insert(vectors.end(), r.topVectors.data(), r.topVectors.data() + r.topVectors.size());
        // Stored metrics are at the default τ, whatever τ the run was shown at.
        SpectralMetrics atDefault = r.metrics;
        applyEnergy(atDefault, r.singularValues, r.rows, r.cols, kDefaultEnergy);
        const QList<double> values = spectralMetricValues(atDefault);
        for (qsizetype i = 0; i < columns.size(); ++i)
            metricColumns[size_t(i)].push_back(values[i]);
    }
    ok = ok && group.ok() && writeStrings(group, "block", blocks) && writeStrings(group, "type", types) &&
         writeStrings(group, "expert", experts) && writeStrings(group, "tensor", tensors) &&
         writeStrings(group, "dtype", dtypes) && writeStrings(group, "checkpoint_path", sources) &&
         writeNumbers(group, "step", mSteps, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(group, "layer", layers, H5T_STD_I32LE, H5T_NATIVE_INT) &&
         writeNumbers(group, "step_unnumbered", mUnnumbered, H5T_STD_I32LE, H5T_NATIVE_INT) &&
         writeNumbers(group, "rows", rows, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(group, "cols", cols, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(group, "sv_offset", svOffset, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(group, "sv_count", svCount, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(file, "singular_values", spectra, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) &&
         writeNumbers(group, "delta_sv_offset", deltaOffset, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(group, "delta_sv_count", deltaCount, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(file, "delta_singular_values", deltaSpectra, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) &&
         writeNumbers(group, "top_vectors_offset", vectorOffset, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeNumbers(group, "top_vectors_count", vectorCount, H5T_STD_I64LE, H5T_NATIVE_LLONG) &&
         writeCompressedFloats(file, "top_vectors", vectors);
    for (qsizetype i = 0; ok && i < columns.size(); ++i)
        ok = writeNumbers(group, columns[i].toUtf8().constData(), metricColumns[size_t(i)], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE);

    Hdf5Id issues(H5Gcreate2(file, "issues", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    QStringList issuePaths, issueTensors, issueMessages;
    for (const AnalysisIssue &i : run.issues) {
        issuePaths << i.path;
        issueTensors << i.tensor;
        issueMessages << i.message;
    }
    ok = ok && issues.ok() && writeStrings(issues, "path", issuePaths) && writeStrings(issues, "tensor", issueTensors) &&
         writeStrings(issues, "message", issueMessages);
    QStringList sidecarPaths, sidecarReasons;
    std::vector<int> duplicates;
    for (const SkippedFile &s : run.sidecars) {
        sidecarPaths << s.path;
        sidecarReasons << s.reason;
        duplicates.push_back(s.duplicate);
    }
    Hdf5Id skipped(H5Gcreate2(file, "skipped_files", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    ok = ok && skipped.ok() && writeStrings(skipped, "path", sidecarPaths) && writeStrings(skipped, "reason", sidecarReasons) &&
         writeNumbers(skipped, "duplicate", duplicates, H5T_STD_I32LE, H5T_NATIVE_INT) &&
         writeStrings(file, "notes", run.notes);
    // Written last: a file without it was never finished.
    return ok && Hdf5Attribute::writeNumber<int>(file, "complete", 1, H5T_STD_I32LE, H5T_NATIVE_INT);
}

std::optional<RunAnalysis> readRun(hid_t file, QString *error)
{
    auto damaged = [&](const QString &what) {
        *error = QStringLiteral("damaged results file: %1").arg(what);
        return std::nullopt;
    };
    if (Hdf5Attribute::readText(file, "format") != QString::fromLatin1(kFormat)) {
        *error = QStringLiteral("not a RankScope results file");
        return std::nullopt;
    }
    const auto schema = Hdf5Attribute::readInteger(file, "schema_version");
    if (!schema || *schema < 1 || *schema > ResultsFile::kSchemaVersion) {
        *error = QStringLiteral("results file schema %1 is not the %2 this RankScope reads").arg(schema.value_or(0)).arg(ResultsFile::kSchemaVersion);
        return std::nullopt;
    }
    if (Hdf5Attribute::readInteger(file, "complete") != 1)
        return damaged(QStringLiteral("it was never finished"));

    // The first problem of a required table is what the file is called damaged for; those of the
    // optional ones (stored metrics, skipped files, notes) only make them missing.
    TableProblems problems, optional;
    RunAnalysis run;
    run.folder = Hdf5Attribute::readText(file, "folder").value_or(QString());
    run.settingsKey = Hdf5Attribute::readText(file, "settings_key").value_or(QString());

    Hdf5Id checkpoints(H5Gopen2(file, "checkpoints", H5P_DEFAULT));
    if (!checkpoints.ok())
        return damaged(QStringLiteral("no checkpoints group"));
    Hdf5Id pathData(H5Dopen2(checkpoints, "path", H5P_DEFAULT));
    const qint64 c = pathData.ok() ? datasetLength(pathData) : -1;
    if (c < 0)
        return damaged(QStringLiteral("no checkpoint paths"));
    const auto paths = readStrings(checkpoints, "path", c, problems);
    const auto formats = readStrings(checkpoints, "format", c, problems);
    const auto errors = readStrings(checkpoints, "error", c, problems);
    // Before schema 4 no fingerprint was kept: empty ones match no checkpoint, which is analysed again.
    const auto fingerprints = *schema < 4 ? (paths ? std::optional<QStringList>(QStringList(paths->size(), QString())) : std::nullopt)
                                          : readStrings(checkpoints, "fingerprint", c, problems);
    // Since --subspace: what each checkpoint's subspace metrics compared with (none: compare again).
    const auto subspacePrevious = readStrings(checkpoints, "subspace_previous", c, optional);
    // Since they are kept: the k of those metrics (none: 0, no k, so compared again), and the
    // reference the delta metrics were computed against (none: empty, no reference, so computed again).
    const auto subspaceK = readNumbers<int>(checkpoints, "subspace_k", c, H5T_NATIVE_INT, optional);
    const auto deltaReferences = readStrings(checkpoints, "delta_reference", c, optional);
    const auto steps = readNumbers<long long>(checkpoints, "step", c, H5T_NATIVE_LLONG, problems);
    const auto sizes = readNumbers<long long>(checkpoints, "size", c, H5T_NATIVE_LLONG, problems);
    const auto mtimes = readNumbers<long long>(checkpoints, "mtime_ms", c, H5T_NATIVE_LLONG, problems);
    const auto counts = readNumbers<int>(checkpoints, "matrices", c, H5T_NATIVE_INT, problems);
    // Before schema 3 a checkpoint without a step was numbered by its position among the others
    // (step_from_order); such steps are kept as they are and said to be positions, never taken for
    // a "final" placement.
    const bool placesUnnumbered = *schema >= 3;
    const auto unnumbered = placesUnnumbered || H5Lexists(checkpoints, "step_from_order", H5P_DEFAULT) > 0
                                ? readNumbers<int>(checkpoints, placesUnnumbered ? "step_unnumbered" : "step_from_order", c, H5T_NATIVE_INT, problems)
                                : std::optional<std::vector<int>>(std::vector<int>(size_t(std::max<qint64>(c, 0)), 0));
    if (!paths || !formats || !errors || !fingerprints || !steps || !sizes || !mtimes || !counts || !unnumbered)
        return damaged(QStringLiteral("checkpoint table is incomplete") + problems.suffix());
    int numberedByPosition = 0;
    for (qint64 i = 0; i < c; ++i) {
        CheckpointRecord r;
        r.path = (*paths)[i];
        r.format = (*formats)[i];
        r.error = (*errors)[i];
        r.fingerprint = (*fingerprints)[i];
        r.subspacePrevious = subspacePrevious ? (*subspacePrevious)[i] : QString();
        r.subspaceK = subspaceK ? (*subspaceK)[size_t(i)] : 0;
        r.deltaReference = deltaReferences ? (*deltaReferences)[i] : QString();
        r.step = (*steps)[size_t(i)];
        r.size = (*sizes)[size_t(i)];
        r.mtimeMs = (*mtimes)[size_t(i)];
        r.matrices = (*counts)[size_t(i)];
        r.unnumbered = placesUnnumbered && (*unnumbered)[size_t(i)] != 0;
        numberedByPosition += !placesUnnumbered && (*unnumbered)[size_t(i)] != 0;
        run.checkpoints.append(r);
        if (r.matrices > 0)
            ++run.checkpointsAnalysed;
    }
    run.checkpointsFound = int(c);

    Hdf5Id group(H5Gopen2(file, "matrices", H5P_DEFAULT));
    if (!group.ok())
        return damaged(QStringLiteral("no matrices group"));
    Hdf5Id typeData(H5Dopen2(group, "type", H5P_DEFAULT));
    const qint64 m = typeData.ok() ? datasetLength(typeData) : -1;
    const auto types = readStrings(group, "type", m, problems);
    // Schema 1 knew no blocks or experts: every matrix has neither, as many as the types say.
    auto empty = [](const std::optional<QStringList> &read) {
        return read ? std::optional<QStringList>(QStringList(read->size(), QString())) : std::nullopt;
    };
    const auto blocks = schema == 1 ? empty(types) : readStrings(group, "block", m, problems);
    const auto experts = schema == 1 ? empty(types) : readStrings(group, "expert", m, problems);
    const auto tensors = readStrings(group, "tensor", m, problems);
    const auto dtypes = readStrings(group, "dtype", m, problems);
    const auto sources = readStrings(group, "checkpoint_path", m, problems);
    const auto mSteps = readNumbers<long long>(group, "step", m, H5T_NATIVE_LLONG, problems);
    const auto layers = readNumbers<int>(group, "layer", m, H5T_NATIVE_INT, problems);
    const auto mUnnumbered = placesUnnumbered ? readNumbers<int>(group, "step_unnumbered", m, H5T_NATIVE_INT, problems)
                                              : std::optional<std::vector<int>>(std::vector<int>(size_t(std::max<qint64>(m, 0)), 0));
    const auto rows = readNumbers<long long>(group, "rows", m, H5T_NATIVE_LLONG, problems);
    const auto cols = readNumbers<long long>(group, "cols", m, H5T_NATIVE_LLONG, problems);
    const auto offsets = readNumbers<long long>(group, "sv_offset", m, H5T_NATIVE_LLONG, problems);
    const auto lengths = readNumbers<long long>(group, "sv_count", m, H5T_NATIVE_LLONG, problems);
    const auto spectra = readNumbers<double>(file, "singular_values", -1, H5T_NATIVE_DOUBLE, problems);
    // D = W − W_ref's spectra (--delta), in files written since they exist: all three or none.
    const auto deltaOffsets = readNumbers<long long>(group, "delta_sv_offset", m, H5T_NATIVE_LLONG, optional);
    const auto deltaLengths = readNumbers<long long>(group, "delta_sv_count", m, H5T_NATIVE_LLONG, optional);
    const auto deltaSpectra = readNumbers<double>(file, "delta_singular_values", -1, H5T_NATIVE_DOUBLE, optional);
    const bool hasDelta = deltaOffsets && deltaLengths && deltaSpectra;
    // The newest checkpoint's top right singular vectors (--subspace): all three or none.
    const auto vectorOffsets = readNumbers<long long>(group, "top_vectors_offset", m, H5T_NATIVE_LLONG, optional);
    const auto vectorCounts = readNumbers<long long>(group, "top_vectors_count", m, H5T_NATIVE_LLONG, optional);
    const auto vectors = readNumbers<float>(file, "top_vectors", -1, H5T_NATIVE_FLOAT, optional);
    const bool hasVectors = vectorOffsets && vectorCounts && vectors;
    if (m < 0 || !types || !blocks || !experts || !tensors || !dtypes || !sources || !mSteps || !layers || !mUnnumbered || !rows || !cols || !offsets || !lengths || !spectra)
        return damaged(QStringLiteral("matrix table is incomplete") + problems.suffix());
    // The stored metrics spare the power-law fits; a file without all of the spectrum's own metrics
    // has them recomputed from its spectra. Those that need the matrix (rand_distance: the last
    // columns) cannot be: a file without them reads NaN.
    const QStringList columns = spectralMetricColumns();
    const QStringList needMatrix = matrixMetricColumns();
    std::vector<std::vector<double>> stored, storedMatrixMetrics;
    for (const QString &column : needMatrix)
        storedMatrixMetrics.push_back(readNumbers<double>(group, column.toUtf8().constData(), m, H5T_NATIVE_DOUBLE, optional)
                                          .value_or(std::vector<double>(size_t(std::max<qint64>(m, 0)), std::numeric_limits<double>::quiet_NaN())));
    for (const QString &column : columns) {
        if (needMatrix.contains(column))
            continue;
        auto values = readNumbers<double>(group, column.toUtf8().constData(), m, H5T_NATIVE_DOUBLE, optional);
        if (!values) {
            stored.clear();
            break;
        }
        stored.push_back(std::move(*values));
    }
    for (qint64 i = 0; i < m; ++i) {
        const auto type = matrixTypeFromCsvName((*types)[i]);
        const long long offset = (*offsets)[size_t(i)], length = (*lengths)[size_t(i)];
        if (!type || !spanFits(offset, length, 1, spectra->size()) || (*rows)[size_t(i)] < 0 || (*cols)[size_t(i)] < 0)
            return damaged(QStringLiteral("matrix %1 is inconsistent").arg(i));
        MatrixResult r;
        r.type = *type;
        r.block = (*blocks)[i];
        r.expert = (*experts)[i];
        r.tensor = (*tensors)[i];
        r.dtype = (*dtypes)[i];
        r.checkpointPath = (*sources)[i];
        r.step = (*mSteps)[size_t(i)];
        r.layer = (*layers)[size_t(i)];
        r.unnumbered = (*mUnnumbered)[size_t(i)] != 0;
        r.rows = (*rows)[size_t(i)];
        r.cols = (*cols)[size_t(i)];
        r.singularValues = Eigen::Map<const Eigen::VectorXd>(spectra->data() + offset, Eigen::Index(length));
        if (hasDelta) {
            const long long deltaOffset = (*deltaOffsets)[size_t(i)], deltaLength = (*deltaLengths)[size_t(i)];
            if (!spanFits(deltaOffset, deltaLength, 1, deltaSpectra->size()))
                return damaged(QStringLiteral("matrix %1's change from the reference is inconsistent").arg(i));
            r.deltaSingularValues = Eigen::Map<const Eigen::VectorXd>(deltaSpectra->data() + deltaOffset, Eigen::Index(deltaLength));
        }
        if (hasVectors) {
            const long long vectorOffset = (*vectorOffsets)[size_t(i)], k = (*vectorCounts)[size_t(i)];
            if (k > std::min(r.rows, r.cols) || !spanFits(vectorOffset, k, r.cols, vectors->size()))
                return damaged(QStringLiteral("matrix %1's singular vectors are inconsistent").arg(i));
            r.topVectors = Eigen::Map<const Eigen::MatrixXf>(vectors->data() + vectorOffset, Eigen::Index(r.cols), Eigen::Index(k));
        }
        // A spectrum no analysis writes (NaN, Inf, negative, or σ whose squares overflow) would
        // reach the metrics and the spectrum view's density as non-finite eigenvalues: that matrix
        // is named and left out, the rest is read, and its checkpoint's fingerprint is forgotten so
        // that analysing the folder again recomputes it instead of serving this file's copy.
        QString spectrumIssue;
        if (const QString own = spectrumProblem(r.singularValues); !own.isEmpty())
            spectrumIssue = QStringLiteral("its spectrum in the results file cannot be used: ") + own;
        else if (const QString change = spectrumProblem(r.deltaSingularValues); !change.isEmpty())
            spectrumIssue = QStringLiteral("the spectrum of its change from the reference in the results file cannot be used: ") + change;
        if (!spectrumIssue.isEmpty()) {
            run.issues.append({r.checkpointPath, r.tensor, spectrumIssue + QStringLiteral("; left out until its checkpoint is analysed again"), false});
            for (CheckpointRecord &record : run.checkpoints)
                if (record.path == r.checkpointPath)
                    record.fingerprint.clear();
            continue;
        }
        if (stored.empty() || r.singularValues.size() == 0) {
            r.metrics = computeSpectralMetrics(r.singularValues, r.rows, r.cols, kDefaultEnergy);
        } else {
            QList<double> values;
            for (const auto &column : stored)
                values.append(column[size_t(i)]);
            r.metrics = spectralMetricsFromValues(values);
        }
        QList<double> all = spectralMetricValues(r.metrics);
        for (size_t k = 0; k < storedMatrixMetrics.size(); ++k)
            all[columns.size() - qsizetype(needMatrix.size()) + qsizetype(k)] = storedMatrixMetrics[k][size_t(i)];
        r.metrics = spectralMetricsFromValues(all);
        run.results.append(std::move(r));
    }

    Hdf5Id issues(H5Gopen2(file, "issues", H5P_DEFAULT));
    Hdf5Id issuePathData(issues.ok() ? H5Dopen2(issues, "path", H5P_DEFAULT) : -1);
    const qint64 n = issuePathData.ok() ? datasetLength(issuePathData) : -1;
    const auto issuePaths = readStrings(issues, "path", n, problems);
    const auto issueTensors = readStrings(issues, "tensor", n, problems);
    const auto issueMessages = readStrings(issues, "message", n, problems);
    if (!issuePaths || !issueTensors || !issueMessages)
        return damaged(QStringLiteral("issue table is incomplete") + problems.suffix());
    for (qint64 i = 0; i < n; ++i)
        run.issues.append({(*issuePaths)[i], (*issueTensors)[i], (*issueMessages)[i], (*issueTensors)[i].isEmpty()});

    Hdf5Id skipped(H5Gopen2(file, "skipped_files", H5P_DEFAULT));
    Hdf5Id skippedPathData(skipped.ok() ? H5Dopen2(skipped, "path", H5P_DEFAULT) : -1);
    const qint64 s = skippedPathData.ok() ? datasetLength(skippedPathData) : -1;
    const auto skippedPaths = readStrings(skipped, "path", s, optional);
    const auto skippedReasons = readStrings(skipped, "reason", s, optional);
    const auto skippedDuplicates = placesUnnumbered ? readNumbers<int>(skipped, "duplicate", s, H5T_NATIVE_INT, optional) : std::nullopt;
    if (skippedPaths && skippedReasons)
        for (qint64 i = 0; i < s; ++i)
            run.sidecars.append({(*skippedPaths)[i], (*skippedReasons)[i], skippedDuplicates && (*skippedDuplicates)[size_t(i)] != 0});
    Hdf5Id notesData(H5Dopen2(file, "notes", H5P_DEFAULT));
    if (notesData.ok())
        run.notes = readStrings(file, "notes", datasetLength(notesData), optional).value_or(QStringList());
    if (numberedByPosition > 0)
        run.notes << QStringLiteral("%1 checkpoint(s) record no step and were numbered by their position among the others by an older "
                                    "RankScope (results schema %2); analyse the folder again to place them after the numbered steps as final")
                         .arg(numberedByPosition).arg(*schema);
    sortResults(run.results);
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
        Hdf5Id file(H5Fcreate("rankscope-results.h5", H5F_ACC_TRUNC, H5P_DEFAULT, access));
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
    if (!RegularFile::isRegular(path) || H5Fis_hdf5(QFile::encodeName(path).constData()) <= 0)
        return false;
    Hdf5Id file(H5Fopen(QFile::encodeName(path).constData(), H5F_ACC_RDONLY, H5P_DEFAULT));
    return file.ok() && Hdf5Attribute::readText(file, "format") == QString::fromLatin1(kFormat);
}

QString ResultsFile::cachePathFor(const QString &folder)
{
    const QByteArray key = QDir::cleanPath(QFileInfo(folder).absoluteFilePath()).toUtf8();
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha1).toHex().left(20));
    QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    // The XDG spec makes a relative XDG_CACHE_HOME invalid, to be ignored; Qt 6.4 would use it,
    // relative to whatever the working folder is.
    const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
    if (!xdg.isEmpty() && QDir::isRelativePath(xdg) && cache.startsWith(xdg))
        cache = QDir::homePath() + QStringLiteral("/.cache") + cache.mid(xdg.size());
    return cache + QStringLiteral("/runs/") + hash + QStringLiteral(".h5");
}

} // namespace rankscope
