// The HDF5 results file: a faithful round trip, atomic replacement, damage detected and never
// trusted, and the incremental analysis it enables.
#include "analysis/results/ResultsFile.h"
#include "analysis/results/ResultsSchema.h"
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/execution/RunLoader.h"
#include "spectral/MetricCatalog.h"
#include "FormatWriters.h"
#include "spectral/EigenvalueDensity.h"
#include "TestMatrices.h"
#include "Hdf5TestFiles.h"
#include "TestSuite.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QTemporaryDir>
#include <cmath>
#include <type_traits>
#include <hdf5.h>
#include <limits>
#include <random>
#include <vector>

namespace tst_resultsfile {

using namespace rankscope;

namespace {

void copyDemo(const QString &to)
{
    const QDir demo(RANKSCOPE_DEMO_RUN);
    for (const QString &name : demo.entryList(QDir::Files))
        QVERIFY(QFile::copy(demo.filePath(name), QDir(to).filePath(name)));
}

int fromCache(const RunAnalysis &run)
{
    return int(std::count_if(run.checkpoints.begin(), run.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }));
}

// Three matrices, t0 and t1 of ckpt.pt and t2 of other.pt, each with σ = 3, 2, 1 and D's σ = 0.3,
// 0.2, 0.1, as an analysis saves them: the spectra are stored in this order, 3 values each.
RunAnalysis threeMatrices(const QString &folder)
{
    RunAnalysis run;
    run.folder = folder;
    for (const char *name : {"ckpt.pt", "other.pt"}) {
        CheckpointRecord c;
        c.path = QDir(folder).filePath(QLatin1String(name));
        c.fingerprint = QStringLiteral("00");
        run.checkpoints << c;
    }
    run.checkpoints[0].matrices = 2;
    run.checkpoints[1].matrices = 1;
    for (int i = 0; i < 3; ++i) {
        MatrixResult r;
        r.layer = i;
        r.tensor = QStringLiteral("t%1").arg(i);
        r.checkpointPath = run.checkpoints[i < 2 ? 0 : 1].path;
        r.rows = r.cols = 3;
        r.singularValues = Eigen::VectorXd::LinSpaced(3, 3, 1);
        r.deltaSingularValues = r.singularValues / 10;
        r.metrics = computeSpectralMetrics(r.singularValues, 3, 3);
        setDeltaMetrics(r.metrics, r.deltaSingularValues, 1.0);
        run.results << r;
    }
    return run;
}

// One value of a stored dataset (float64 or int64) replaced, as a hand-edited or hostile results
// file holds it.
template <typename T>
void overwrite(const QString &path, const char *dataset, qsizetype index, T value)
{
    const hid_t memoryType = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
    const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
    QVERIFY(file >= 0);
    const hid_t data = H5Dopen2(file, dataset, H5P_DEFAULT);
    QVERIFY(data >= 0);
    const hid_t space = H5Dget_space(data);
    std::vector<T> values(size_t(H5Sget_simple_extent_npoints(space)));
    H5Sclose(space);
    QVERIFY(qsizetype(values.size()) > index);
    QVERIFY(H5Dread(data, memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    values[size_t(index)] = value;
    QVERIFY(H5Dwrite(data, memoryType, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    H5Dclose(data);
    H5Fclose(file);
    test::clearResultsSeal(path);
}
void overwriteValue(const QString &path, const char *dataset, qsizetype index, double value) { overwrite(path, dataset, index, value); }
void overwriteInteger(const QString &path, const char *dataset, qsizetype index, qint64 value) { overwrite(path, dataset, index, value); }

// A run that fills every column of every table: spectra and the change from a reference, top
// vectors for one matrix, what the opt-in metrics were computed against, an issue, skipped files
// and a note.
RunAnalysis everyTableFilled(const QString &folder)
{
    RunAnalysis run = threeMatrices(folder);
    for (CheckpointRecord &c : run.checkpoints) {
        c.format = QStringLiteral("pytorch");
        c.size = 1234;
        c.mtimeMs = 5678;
        c.subspacePrevious = QStringLiteral("previous\n00");
        c.subspaceK = 2;
        c.deltaReference = QStringLiteral("0\n00");
    }
    run.results[2].topVectors = Eigen::MatrixXf::Identity(3, 2);
    run.issues << AnalysisIssue{run.checkpoints[0].path, QStringLiteral("t9"), QStringLiteral("not a matrix"), false};
    run.sidecars << SkippedFile{QDir(folder).filePath("optimizer.pt"), QStringLiteral("sidecar: optimizer state"), false};
    run.notes << QStringLiteral("a note");
    return run;
}

void deleteDataset(const QString &path, const QByteArray &dataset)
{
    const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
    QVERIFY(file >= 0);
    QVERIFY2(H5Ldelete(file, dataset.constData(), H5P_DEFAULT) >= 0, dataset.constData());
    H5Fclose(file);
    test::clearResultsSeal(path);
}

void setSchemaVersion(const QString &path, int version)
{
    const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
    QVERIFY(file >= 0);
    const hid_t attribute = H5Aopen(file, "schema_version", H5P_DEFAULT);
    QVERIFY(H5Awrite(attribute, H5T_NATIVE_INT, &version) >= 0);
    H5Aclose(attribute);
    H5Fclose(file);
    test::clearResultsSeal(path);
}

// A dataset's HDF5 class and element size, as the column's type says it is stored.
std::pair<H5T_class_t, size_t> storedType(const QString &path, const QByteArray &dataset)
{
    const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t data = file >= 0 ? H5Dopen2(file, dataset.constData(), H5P_DEFAULT) : -1;
    const hid_t type = data >= 0 ? H5Dget_type(data) : -1;
    const std::pair<H5T_class_t, size_t> stored{type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS, type >= 0 ? H5Tget_size(type) : 0};
    if (type >= 0)
        H5Tclose(type);
    if (data >= 0)
        H5Dclose(data);
    if (file >= 0)
        H5Fclose(file);
    return stored;
}

std::pair<H5T_class_t, size_t> expectedType(ColumnType type)
{
    switch (type) {
    case ColumnType::Text: return {H5T_STRING, sizeof(char *)};
    case ColumnType::Int32: return {H5T_INTEGER, 4};
    case ColumnType::Int64: return {H5T_INTEGER, 8};
    case ColumnType::Float64: return {H5T_FLOAT, 8};
    case ColumnType::Float32: return {H5T_FLOAT, 4};
    }
    return {};
}

QByteArray datasetPath(const char *group, const QByteArray &column)
{
    return qstrcmp(group, "/") == 0 ? column : QByteArray(group) + '/' + column;
}

// Every column of the schema written, "group/name" with its presence and type, table by table.
struct ListedColumn {
    QByteArray dataset;
    Presence presence;
    ColumnType type;
};

template <typename Row>
void listColumns(const TableSpec<Row> &spec, QList<ListedColumn> &out)
{
    for (const Column<Row> &column : spec.columns)
        if (column.inSchema(ResultsFile::kSchemaVersion))
            out.append({datasetPath(spec.group, column.name), column.presence, column.type});
}

QList<ListedColumn> schemaColumns()
{
    QList<ListedColumn> columns;
    listColumns(ResultsSchema::checkpoints(), columns);
    listColumns(ResultsSchema::matrices(), columns);
    listColumns(ResultsSchema::issues(), columns);
    listColumns(ResultsSchema::skippedFiles(), columns);
    listColumns(ResultsSchema::notes(), columns);
    return columns;
}

} // namespace

class TestResultsFile : public QObject {
    Q_OBJECT
private slots:
    // Blocks and experts survive the file; a schema-1 file (no blocks, no experts) is read as such,
    // and a file of an unknown schema is refused.
    void blocksExpertsAndSchemaVersions()
    {
        QTemporaryDir dir;
        RunAnalysis run;
        run.folder = dir.path();
        for (const auto &[block, expert] : {std::pair{"decoder-cross", ""}, {"", "7"}, {"", "shared"}}) {
            MatrixResult r;
            r.block = block;
            r.expert = expert;
            r.singularValues = Eigen::VectorXd::Ones(3);
            r.rows = r.cols = 3;
            r.metrics = computeSpectralMetrics(r.singularValues, 3, 3);
            run.results << r;
        }
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(run, path, &error), qPrintable(error));
        auto loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->results.size(), 3);
        QCOMPARE(loaded->results[0].expert, QStringLiteral("7")); // sorted: the empty block first, experts by number
        QCOMPARE(loaded->results[1].expert, QStringLiteral("shared"));
        QCOMPARE(loaded->results[2].block, QStringLiteral("decoder-cross"));

        auto setSchema = [&](int version, bool dropIdentity) {
            const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
            const hid_t attribute = H5Aopen(file, "schema_version", H5P_DEFAULT);
            H5Awrite(attribute, H5T_NATIVE_INT, &version);
            H5Aclose(attribute);
            if (dropIdentity) {
                H5Ldelete(file, "matrices/block", H5P_DEFAULT);
                H5Ldelete(file, "matrices/expert", H5P_DEFAULT);
            }
            H5Fclose(file);
            test::clearResultsSeal(path);
        };
        setSchema(1, true);
        loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        for (const MatrixResult &r : loaded->results) {
            QVERIFY(r.block.isEmpty());
            QVERIFY(r.expert.isEmpty());
        }
        setSchema(2, false); // schema 2 without its identity columns is damaged
        QVERIFY(!ResultsFile::load(path, &error));
        QVERIFY(error.contains("damaged"));
        setSchema(99, false);
        QVERIFY(!ResultsFile::load(path, &error));
        QVERIFY2(error.contains("schema 99"), qPrintable(error));
    }

    // Schema 3 keeps which checkpoints record no step and which skipped files are duplicates; a
    // schema-2 file's position numbers are read as they are, with a note, never taken for "final".
    void unnumberedStepsAndDuplicatesAcrossSchemas()
    {
        QTemporaryDir dir;
        RunAnalysis run;
        run.folder = dir.path();
        CheckpointRecord numbered, last;
        numbered.path = dir.filePath("ckpt_000100.pt");
        numbered.step = 100;
        last.path = dir.filePath("final.pt");
        last.step = 101;
        last.unnumbered = true;
        run.checkpoints << numbered << last;
        for (const CheckpointRecord &c : run.checkpoints) {
            MatrixResult r;
            r.step = c.step;
            r.unnumbered = c.unnumbered;
            r.checkpointPath = c.path;
            r.singularValues = Eigen::VectorXd::Ones(3);
            r.rows = r.cols = 3;
            r.metrics = computeSpectralMetrics(r.singularValues, 3, 3);
            run.results << r;
        }
        run.sidecars << SkippedFile{dir.filePath("ckpt_100.pt"), "claims step 100 like ckpt_000100.pt, which is newer", true}
                     << SkippedFile{dir.filePath("optimizer.pt"), "sidecar: optimizer state"};
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(run, path, &error), qPrintable(error));
        auto loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QVERIFY(!loaded->checkpoints[0].unnumbered);
        QVERIFY(loaded->checkpoints[1].unnumbered);
        QVERIFY(!loaded->results[0].unnumbered);
        QVERIFY(loaded->results[1].unnumbered);
        QVERIFY(loaded->sidecars[0].duplicate);
        QVERIFY(!loaded->sidecars[1].duplicate);
        QVERIFY(loaded->notes.isEmpty());

        // The same file as schema 2 wrote it: step_from_order, no flags on matrices or skipped files.
        const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
        const int two = 2;
        const hid_t attribute = H5Aopen(file, "schema_version", H5P_DEFAULT);
        H5Awrite(attribute, H5T_NATIVE_INT, &two);
        H5Aclose(attribute);
        H5Lmove(file, "checkpoints/step_unnumbered", file, "checkpoints/step_from_order", H5P_DEFAULT, H5P_DEFAULT);
        H5Ldelete(file, "matrices/step_unnumbered", H5P_DEFAULT);
        H5Ldelete(file, "skipped_files/duplicate", H5P_DEFAULT);
        H5Fclose(file);
        test::clearResultsSeal(path);
        loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->checkpoints[1].step, 101);
        QVERIFY(!loaded->checkpoints[1].unnumbered);
        QVERIFY(!loaded->results[1].unnumbered);
        QVERIFY(!loaded->sidecars[0].duplicate);
        QCOMPARE(loaded->notes.size(), 1);
        QVERIFY2(loaded->notes[0].contains("1 checkpoint(s) record no step and were numbered by their position"), qPrintable(loaded->notes[0]));
    }

    void roundTripKeepsSpectraMetricsAndIssues()
    {
        QTemporaryDir dir;
        copyDemo(dir.path());
        QFile bad(dir.filePath("ckpt_000200.pt"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("garbage");
        bad.close();
        const RunAnalysis run = RunAnalyzer().analyzeFolder(dir.path());
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(run, path, &error), qPrintable(error));
        QVERIFY(ResultsFile::isResultsFile(path));
        QVERIFY(!ResultsFile::isResultsFile(dir.filePath("ckpt_000000.pt")));
        QCOMPARE(QDir(dir.path()).entryList({"*.tmp-*"}, QDir::Files).size(), 0); // no temporary left behind

        const auto loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->settingsKey, run.settingsKey);
        QCOMPARE(loaded->folder, run.folder);
        QCOMPARE(loaded->checkpoints.size(), 7);
        QCOMPARE(loaded->checkpointsAnalysed, 6);
        QCOMPARE(loaded->results.size(), run.results.size());
        for (qsizetype i = 0; i < run.results.size(); ++i) {
            const MatrixResult &a = run.results[i], &b = loaded->results[i];
            QCOMPARE(b.step, a.step);
            QCOMPARE(b.layer, a.layer);
            QCOMPARE(b.type, a.type);
            QCOMPARE(b.tensor, a.tensor);
            QCOMPARE(b.checkpointPath, a.checkpointPath);
            QCOMPARE(b.dtype, a.dtype);
            QCOMPARE(b.rows, a.rows);
            QCOMPARE(b.cols, a.cols);
            QCOMPARE(b.block, a.block);
            QCOMPARE(b.expert, a.expert);
            QVERIFY(b.singularValues == a.singularValues); // bit for bit
            // Every metric, NaN for NaN.
            const QList<double> va = spectralMetricValues(a.metrics), vb = spectralMetricValues(b.metrics);
            QCOMPARE(vb.size(), spectralMetricColumns().size());
            for (qsizetype m = 0; m < va.size(); ++m)
                QVERIFY2(vb[m] == va[m] || (std::isnan(vb[m]) && std::isnan(va[m])), qPrintable(spectralMetricColumns()[m]));
        }
        QCOMPARE(loaded->issues.size(), 1);
        QVERIFY(loaded->issues[0].text().startsWith("ckpt_000200.pt: not a recognised"));
        const auto record = std::find_if(loaded->checkpoints.begin(), loaded->checkpoints.end(),
                                         [](const CheckpointRecord &c) { return c.path.endsWith("ckpt_001500.pt"); });
        QCOMPARE(record->step, 1500);
        QCOMPARE(record->format, QStringLiteral("pytorch"));
        QCOMPARE(record->size, QFileInfo(dir.filePath("ckpt_001500.pt")).size());
        QCOMPARE(record->matrices, 24);
        QCOMPARE(record->fingerprint.size(), 64); // SHA-256, kept to tell a replaced file from the one analysed
        QCOMPARE(record->fingerprint, std::find_if(run.checkpoints.begin(), run.checkpoints.end(), [](const CheckpointRecord &c) {
                                          return c.path.endsWith("ckpt_001500.pt");
                                      })->fingerprint);
    }

    void damagedFilesAreReportedNotTrusted()
    {
        QTemporaryDir dir;
        const RunAnalysis run = RunAnalyzer().analyzeFolder(RANKSCOPE_DEMO_RUN);
        const QString path = dir.filePath("r.h5");
        QString error;
        QVERIFY(ResultsFile::save(run, path, &error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray whole = f.readAll();
        f.close();
        for (const qsizetype keep : {qsizetype(0), qsizetype(100), whole.size() / 2, whole.size() - 100}) {
            QFile cut(path);
            QVERIFY(cut.open(QIODevice::WriteOnly | QIODevice::Truncate));
            cut.write(whole.left(keep));
            cut.close();
            QVERIFY(!ResultsFile::load(path, &error));
            QVERIFY2(error.contains("damaged"), qPrintable(error));
        }
        std::mt19937 rng(1);
        QByteArray noise = whole;
        for (int i = 0; i < 2000; ++i)
            noise[int(rng() % noise.size())] = char(rng());
        QFile flipped(path);
        QVERIFY(flipped.open(QIODevice::WriteOnly | QIODevice::Truncate));
        flipped.write(noise);
        flipped.close();
        // Refused by the seal before libhdf5 reads it (which crashed in H5HG_read on such noise).
        QVERIFY(!ResultsFile::load(path, &error));
        QVERIFY2(error.contains("damaged") && error.contains("seal"), qPrintable(error));
    }

    // A results file carries a seal in HDF5's user block: the SHA-256 of the bytes after it. One
    // byte changed anywhere is refused, still known as a results file; a file without a seal (as
    // written before it) is read as it is.
    void theSealRefusesAnyChangedByte()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("r.h5");
        QString error;
        QVERIFY(ResultsFile::save(threeMatrices(dir.path()), path, &error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray whole = f.readAll();
        f.close();
        QVERIFY(whole.startsWith("RankScope results file\nsha256 "));
        QCOMPARE(whole.mid(30, 64), QCryptographicHash::hash(whole.mid(512), QCryptographicHash::Sha256).toHex());
        for (const qsizetype at : {qsizetype(40), qsizetype(600), whole.size() / 2, whole.size() - 1}) {
            QByteArray changed = whole;
            changed[at] = char(changed[at] ^ 0x01);
            test::saveBytes(path, changed);
            QVERIFY(!ResultsFile::load(path, &error));
            QVERIFY2(error.contains("seal does not match"), qPrintable(error));
            QVERIFY(ResultsFile::isResultsFile(path));
        }
        test::saveBytes(path, whole);
        test::clearResultsSeal(path);
        QVERIFY2(ResultsFile::load(path, &error), qPrintable(error));
    }

    // A declared shape drives what the planner and the views allocate (min(rows, cols) values, rows ×
    // cols parameters): one the stored spectrum does not bear out is a damaged file, never an
    // allocation of 1.5·10⁹ values.
    void declaredShapesAreCheckedAgainstTheSpectrum_data()
    {
        QTest::addColumn<qint64>("rows"); // −1: as written (3)
        QTest::addColumn<qint64>("cols");
        QTest::newRow("1.5e9 x 1.5e9") << qint64(1500000000) << qint64(1500000000);
        QTest::newRow("rows past 2^31") << (qint64(1) << 40) << qint64(-1);
        QTest::newRow("cols below the spectrum") << qint64(-1) << qint64(2);
        QTest::newRow("both larger than the spectrum") << qint64(4) << qint64(5);
    }
    void declaredShapesAreCheckedAgainstTheSpectrum()
    {
        QFETCH(qint64, rows);
        QFETCH(qint64, cols);
        QTemporaryDir dir;
        const QString path = dir.filePath("r.h5");
        QString error;
        QVERIFY(ResultsFile::save(threeMatrices(dir.path()), path, &error));
        QVERIFY2(ResultsFile::load(path, &error), qPrintable(error));
        if (rows >= 0)
            overwriteInteger(path, "/matrices/rows", 1, rows);
        if (cols >= 0)
            overwriteInteger(path, "/matrices/cols", 1, cols);
        QVERIFY(!ResultsFile::load(path, &error));
        QVERIFY2(error.contains("damaged") && error.contains("do not bear out"), qPrintable(error));
    }

    // A file written before WeightWatcher's columns existed (the same file without them) is read
    // with them recomputed from its spectra, every other stored metric unchanged.
    void olderFileWithoutWeightWatcherColumnsIsCompleted()
    {
        QTemporaryDir dir;
        const RunAnalysis run = RunAnalyzer().analyzeFolder(RANKSCOPE_DEMO_RUN);
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(run, path, &error), qPrintable(error));
        const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
        QVERIFY(file >= 0);
        for (const char *column : {"log_norm", "log_spectral_norm", "log_alpha_norm", "num_spikes", "mp_softrank"}) {
            const QByteArray name = QByteArray("matrices/") + column;
            QVERIFY(H5Ldelete(file, name.constData(), H5P_DEFAULT) >= 0);
        }
        H5Fclose(file);
        test::clearResultsSeal(path);
        const auto loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->results.size(), run.results.size());
        for (qsizetype i = 0; i < run.results.size(); ++i) {
            const SpectralMetrics &a = run.results[i].metrics, &b = loaded->results[i].metrics;
            QVERIFY(std::isfinite(b.logNorm) && std::isfinite(b.numSpikes) && std::isfinite(b.mpSoftrank));
            QCOMPARE(b.logNorm, a.logNorm);
            QCOMPARE(b.logSpectralNorm, a.logSpectralNorm);
            QCOMPARE(b.logAlphaNorm, a.logAlphaNorm);
            QCOMPARE(b.numSpikes, a.numSpikes);
            QCOMPARE(b.mpSoftrank, a.mpSoftrank);
            QCOMPARE(b.stableRank, a.stableRank);
        }
    }

    // rand_distance is opt-in and reproducible (the same numbers with any number of workers and
    // with the exact solver); turning it on analyses the cached checkpoints again, turning it off
    // reuses them; a file without its column reads NaN, never a number it does not hold.
    void randDistanceIsOptInReproducibleAndCached()
    {
        QTemporaryDir dir;
        copyDemo(dir.path());
        AnalysisSettings plain;
        plain.resultsPath = dir.filePath("cache/run.h5");
        const RunAnalysis without = RunAnalyzer(plain).analyzeFolder(dir.path());
        QCOMPARE(without.results.size(), 144);
        for (const MatrixResult &r : without.results)
            QVERIFY(std::isnan(r.metrics.randDistance));

        QString error;
        auto previous = ResultsFile::load(plain.resultsPath, &error);
        QVERIFY2(previous, qPrintable(error));
        AnalysisSettings on = plain;
        on.randDistance = true;
        on.jobs = 1;
        const RunAnalysis with = RunAnalyzer(on).analyzeFolder(dir.path(), {}, &*previous);
        QCOMPARE(fromCache(with), 0); // turned on later: every checkpoint analysed for it
        QVERIFY(with.settingsKey != without.settingsKey);
        AnalysisSettings again = on;
        again.jobs = 2;
        again.resultsPath.clear();
        const RunAnalysis repeat = RunAnalyzer(again).analyzeFolder(dir.path());
        AnalysisSettings exact = again;
        exact.method = SvdMethod::ExactSvd;
        const RunAnalysis reference = RunAnalyzer(exact).analyzeFolder(dir.path());
        QCOMPARE(repeat.results.size(), with.results.size());
        for (qsizetype i = 0; i < with.results.size(); ++i) {
            const double d = with.results[i].metrics.randDistance;
            QVERIFY2(d > 0 && d <= std::sqrt(std::log(2.0)), qPrintable(with.results[i].tensor));
            // Reproducible to rounding: with 2 workers a lone last matrix gets 2 BLAS threads.
            QVERIFY2(std::abs(repeat.results[i].metrics.randDistance - d) <= 1e-9 * d, qPrintable(with.results[i].tensor));
            QVERIFY2(std::abs(reference.results[i].metrics.randDistance - d) <= 1e-6 * d, qPrintable(with.results[i].tensor));
            QCOMPARE(with.results[i].metrics.stableRank, without.results[i].metrics.stableRank);
        }

        // Saved and read back; then turned off: the cached checkpoints serve, values kept.
        previous = ResultsFile::load(on.resultsPath, &error);
        QVERIFY2(previous, qPrintable(error));
        QCOMPARE(previous->results.size(), 144);
        QCOMPARE(previous->results.last().metrics.randDistance, with.results.last().metrics.randDistance);
        const RunAnalysis off = RunAnalyzer(plain).analyzeFolder(dir.path(), {}, &*previous);
        QCOMPARE(fromCache(off), 6);
        QCOMPARE(off.results.last().metrics.randDistance, with.results.last().metrics.randDistance);

        // A file written before rand_distance existed.
        const QString path = dir.filePath("old.h5");
        QVERIFY2(ResultsFile::save(with, path, &error), qPrintable(error));
        const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
        QVERIFY(file >= 0);
        QVERIFY(H5Ldelete(file, "matrices/rand_distance", H5P_DEFAULT) >= 0);
        H5Fclose(file);
        test::clearResultsSeal(path);
        const auto old = ResultsFile::load(path, &error);
        QVERIFY2(old, qPrintable(error));
        for (qsizetype i = 0; i < old->results.size(); ++i) {
            QVERIFY(std::isnan(old->results[i].metrics.randDistance));
            QCOMPARE(old->results[i].metrics.mpSoftrank, with.results[i].metrics.mpSoftrank); // the rest as stored
        }
    }

    void incrementalAnalysisReadsOnlyWhatChanged()
    {
        QTemporaryDir dir;
        copyDemo(dir.path());
        AnalysisSettings settings;
        settings.resultsPath = dir.filePath("cache/run.h5");
        const RunAnalysis first = RunAnalyzer(settings).analyzeFolder(dir.path());
        QCOMPARE(fromCache(first), 0);
        QString error;
        auto previous = ResultsFile::load(settings.resultsPath, &error);
        QVERIFY2(previous, qPrintable(error));

        // Unchanged: nothing is read, and a different τ is computed from the stored spectra.
        settings.energy = 0.5;
        const RunAnalysis second = RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*previous);
        QCOMPARE(fromCache(second), 6);
        QCOMPARE(second.results.size(), 144);
        QVERIFY(second.results.last().metrics.compressionPct > first.results.last().metrics.compressionPct);
        settings.energy = 0.9;

        // One checkpoint replaced (new mtime and size) and one new: only those two are read. Both
        // hold the weights of steps already there (iter_num 1500 and 1000), so each is the newer
        // of two identical checkpoints at its step: analysed once, the older one named, no step pooled.
        QFile::remove(dir.filePath("ckpt_000300.pt"));
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_001500.pt"), dir.filePath("ckpt_000300.pt")));
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_001000.pt"), dir.filePath("ckpt_002000.pt")));
        previous = ResultsFile::load(settings.resultsPath, &error);
        const RunAnalysis third = RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*previous);
        QCOMPARE(third.checkpointsFound, 5);
        QCOMPARE(fromCache(third), 3);
        QCOMPARE(third.results.size(), 120);
        QCOMPARE(std::count_if(third.sidecars.begin(), third.sidecars.end(), [](const SkippedFile &s) { return s.duplicate; }), 2);

        // Other settings (the exact solver) make every cached checkpoint stale.
        previous = ResultsFile::load(settings.resultsPath, &error);
        settings.method = SvdMethod::ExactSvd;
        const RunAnalysis fourth = RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*previous);
        QCOMPARE(fromCache(fourth), 0);
    }

    // Cancelling keeps what was analysed before, in this run and in earlier ones.
    void cancelledRunLosesNothing()
    {
        QTemporaryDir dir;
        copyDemo(dir.path());
        AnalysisSettings settings;
        settings.resultsPath = dir.filePath("run.h5");
        RunAnalyzer analyzer(settings);
        const RunAnalysis cut = analyzer.analyzeFolder(dir.path(), [&](const AnalysisProgress &p, const QList<MatrixResult> &results) {
            if (!results.isEmpty() && p.checkpointsDone == 2)
                analyzer.cancel();
        });
        QVERIFY(cut.cancelled);
        QString error;
        const auto saved = ResultsFile::load(settings.resultsPath, &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->checkpoints.size(), 2);
        QCOMPARE(saved->results.size(), 48);
        const RunAnalysis resumed = RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*saved);
        QCOMPARE(fromCache(resumed), 2);
        QCOMPARE(resumed.results.size(), 144);
    }

    // Results that hold more opt-in metrics serve an analysis that asks for fewer, and keep them
    // for the results file; what a run shows is what was asked for (RunAnalysis::dropUnasked, as
    // loadRun shows a folder): of a metric not asked for, its values are NaN, D's spectrum empty,
    // its per-head rows and the issues only it raises gone, and nothing else changes.
    void onlyTheOptInsAskedForAreShown_data()
    {
        QTest::addColumn<QString>("unasked");
        for (const char *name : {"randDistance", "delta", "subspace", "alphaCi", "heads"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void onlyTheOptInsAskedForAreShown()
    {
        QFETCH(QString, unasked);
        QTemporaryDir dir;
        RunAnalysis run = threeMatrices(dir.path());
        for (MatrixResult &r : run.results) {
            r.metrics.randDistance = 0.5;
            r.metrics.subspaceOverlap = 0.9;
            r.metrics.topVectorCosine = 0.8;
            r.metrics.alphaCiLow = 1.5;
            r.metrics.alphaCiHigh = 2.5;
        }
        MatrixResult circuit = run.results.first();
        circuit.type = MatrixType::QK;
        circuit.head = circuit.kvHead = 0;
        run.headResults << circuit;
        const QString ckpt = run.checkpoints[0].path;
        const AnalysisIssue plain{ckpt, QStringLiteral("t9"), QStringLiteral("not a matrix"), false},
            heads{ckpt, QStringLiteral("t0"), QLatin1String(kHeadsIssuePrefix) + QStringLiteral("need the numbers of attention heads"), false},
            delta{ckpt, QStringLiteral("t1"), QLatin1String(kDeltaIssuePrefix) + QStringLiteral("its change cannot be decomposed"), false};
        run.issues << plain << heads << delta;
        QVERIFY(!plain.raisedBy().any());
        QVERIFY(heads.raisedBy().heads && !heads.raisedBy().delta);
        QVERIFY(delta.raisedBy().delta && !delta.raisedBy().heads);

        const QHash<QString, bool AnalysisOptIns::*> optIns{{"randDistance", &AnalysisOptIns::randDistance}, {"delta", &AnalysisOptIns::delta},
                                                            {"subspace", &AnalysisOptIns::subspace}, {"alphaCi", &AnalysisOptIns::alphaCi},
                                                            {"heads", &AnalysisOptIns::heads}};
        const AnalysisOptIns all{true, true, true, true, true};
        QVERIFY(!run.holdsUnasked(all));
        RunAnalysis shown = run;
        shown.dropUnasked(all);
        QCOMPARE(shown.results.size(), run.results.size());
        QCOMPARE(shown.headResults.size(), qsizetype(1));
        QCOMPARE(shown.issues.size(), qsizetype(3));

        AnalysisOptIns asked = all;
        asked.*optIns.value(unasked) = false;
        QVERIFY(run.holdsUnasked(asked));
        shown = run;
        shown.dropUnasked(asked);
        QVERIFY(!shown.holdsUnasked(asked));
        // Each opt-in column: NaN when its metric is not asked for, else as it was.
        const QList<std::pair<double SpectralMetrics::*, QString>> columns{
            {&SpectralMetrics::randDistance, "randDistance"},       {&SpectralMetrics::deltaRelFrobenius, "delta"},
            {&SpectralMetrics::deltaSpectralNorm, "delta"},         {&SpectralMetrics::deltaStableRank, "delta"},
            {&SpectralMetrics::deltaEffectiveRank, "delta"},        {&SpectralMetrics::subspaceOverlap, "subspace"},
            {&SpectralMetrics::topVectorCosine, "subspace"},        {&SpectralMetrics::alphaCiLow, "alphaCi"},
            {&SpectralMetrics::alphaCiHigh, "alphaCi"}};
        QCOMPARE(shown.results.size(), run.results.size());
        for (qsizetype i = 0; i < run.results.size(); ++i) {
            const MatrixResult &was = run.results[i], &is = shown.results[i];
            QCOMPARE(is.tensor, was.tensor);
            QCOMPARE(is.singularValues, was.singularValues);
            QCOMPARE(is.metrics.stableRank, was.metrics.stableRank);
            QCOMPARE(is.metrics.alpha, was.metrics.alpha);
            for (const auto &[member, optIn] : columns) {
                QVERIFY(std::isfinite(was.metrics.*member));
                if (optIn == unasked)
                    QVERIFY2(std::isnan(is.metrics.*member), qPrintable(optIn));
                else
                    QCOMPARE(is.metrics.*member, was.metrics.*member);
            }
            QCOMPARE(is.deltaSingularValues.size(), unasked == "delta" ? Eigen::Index(0) : was.deltaSingularValues.size());
        }
        QCOMPARE(shown.headResults.size(), qsizetype(unasked == "heads" ? 0 : 1));
        QStringList messages;
        for (const AnalysisIssue &issue : shown.issues)
            messages << issue.message;
        QStringList expected{plain.message};
        if (unasked != "heads")
            expected << heads.message;
        if (unasked != "delta")
            expected << delta.message;
        QCOMPARE(messages, expected);
        QCOMPARE(shown.checkpoints.size(), run.checkpoints.size());

        // The rows of a checkpoint as they arrive: the same.
        QList<MatrixResult> rows = run.results + run.headResults;
        QVERIFY(holdsUnasked(rows, asked));
        dropUnasked(rows, asked);
        QCOMPARE(rows.size(), shown.results.size() + shown.headResults.size());
        QVERIFY(!holdsUnasked(rows, asked));

        // Nothing asked for: the whole matrices and the other issues alone.
        shown = run;
        shown.dropUnasked({});
        QVERIFY(shown.headResults.isEmpty());
        QCOMPARE(shown.issues.size(), qsizetype(1));
        for (const MatrixResult &r : shown.results)
            for (const auto &[member, optIn] : columns)
                QVERIFY(std::isnan(r.metrics.*member));
    }

    // A stored spectrum no analysis writes (NaN, Inf, a negative value, or σ whose squares
    // overflow) is named as a problem of its matrix and left out; the rest of the file is shown,
    // and that checkpoint is analysed again rather than served. An Inf made the spectrum view's
    // density index outside its bins: export --figure spectrum and the window died with SIGSEGV.
    void unusableStoredSpectrumIsNamedAndLeftOut_data()
    {
        QTest::addColumn<QByteArray>("dataset");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("expected");
        const QString own = QStringLiteral("ckpt.pt: t1: its spectrum in the results file cannot be used: ");
        const QString after = QStringLiteral("; left out until its checkpoint is analysed again");
        QTest::newRow("inf") << QByteArray("singular_values") << std::numeric_limits<double>::infinity()
                             << own + "1 of its 3 singular values is NaN or Inf" + after;
        QTest::newRow("nan") << QByteArray("singular_values") << std::numeric_limits<double>::quiet_NaN()
                             << own + "1 of its 3 singular values is NaN or Inf" + after;
        QTest::newRow("negative") << QByteArray("singular_values") << -1.0 << own + "1 of its 3 singular values is negative" + after;
        QTest::newRow("1e155") << QByteArray("singular_values") << 1e155
                               << own + QStringLiteral("its singular values are too large for float64 (\u03c3\u2081 = 1e+155, "
                                                       "\u2016W\u2016\u00b2_F = \u03a3\u03c3\u00b2 past 1e+300)") + after;
        QTest::newRow("change inf") << QByteArray("delta_singular_values") << std::numeric_limits<double>::infinity()
                                    << "ckpt.pt: t1: the spectrum of its change from the reference in the results file cannot be used: "
                                       "1 of its 3 singular values is NaN or Inf" + after;
    }
    void unusableStoredSpectrumIsNamedAndLeftOut()
    {
        QFETCH(QByteArray, dataset);
        QFETCH(double, value);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(threeMatrices(dir.path()), path, &error), qPrintable(error));
        overwriteValue(path, dataset.constData(), 3, value); // t1's first value
        // Opened as export and the window open a results file.
        const LoadedRun loaded = loadRun(path, RunLoadOptions());
        QVERIFY2(loaded.run, qPrintable(loaded.messages.join('\n')));
        const RunAnalysis &run = *loaded.run;
        QCOMPARE(run.issueLines(), QStringList{expected});
        QCOMPARE(run.results.size(), 2);
        for (const MatrixResult &r : run.results) {
            QVERIFY(r.tensor != QLatin1String("t1"));
            QVERIFY(std::isfinite(r.metrics.stableRank) && std::isfinite(r.metrics.deltaSpectralNorm));
            const Eigen::VectorXd lambda = r.singularValues.array().square();
            const QList<QPair<double, double>> density = logBinnedDensity(lambda, densityBinsFor(lambda.size()));
            QVERIFY(!density.isEmpty());
            for (const auto &[x, y] : density)
                QVERIFY(std::isfinite(x) && std::isfinite(y));
        }
        // An empty fingerprint matches no file: analysing the folder again reads ckpt.pt afresh,
        // while other.pt is still served from the file.
        QCOMPARE(run.checkpoints.size(), 2);
        QVERIFY(run.checkpoints[0].path.endsWith("ckpt.pt"));
        QCOMPARE(run.checkpoints[0].fingerprint, QString());
        QCOMPARE(run.checkpoints[1].fingerprint, QStringLiteral("00"));
    }

    // A finite float64 checkpoint with one 1e155 entry: that matrix is named (σ₁² overflows) with
    // either solver, the matrix beside it analysed, and the results file serves the same.
    void spikedMatrixIsNamedAndTheRestAnalysed_data()
    {
        QTest::addColumn<int>("method");
        QTest::newRow("gram") << int(SvdMethod::FastGram);
        QTest::newRow("svd") << int(SvdMethod::ExactSvd);
    }
    void spikedMatrixIsNamedAndTheRestAnalysed()
    {
        QFETCH(int, method);
        QTemporaryDir dir;
        std::mt19937_64 rng(9);
        auto f64 = [](const Eigen::MatrixXd &m) {
            QList<double> values;
            for (Eigen::Index r = 0; r < m.rows(); ++r)
                for (Eigen::Index c = 0; c < m.cols(); ++c)
                    values << m(r, c);
            return test::rawBytes(values);
        };
        const Eigen::MatrixXd attention = test::gaussianMatrix(16, 16, rng, 0.2);
        Eigen::MatrixXd down = test::gaussianMatrix(64, 16, rng, 0.2);
        down(5, 3) = 1e155;
        test::saveBytes(dir.filePath("step_000100.safetensors"),
                        test::safetensorsFile({{"h.0.attn.c_proj.weight", "F64", {16, 16}, f64(attention)},
                                               {"h.0.mlp.c_proj.weight", "F64", {64, 16}, f64(down)}}));
        test::saveBytes(dir.filePath("config.json"), R"({"model_type": "gpt2", "n_head": 4})");
        AnalysisSettings settings;
        settings.method = SvdMethod(method);
        settings.resultsPath = dir.filePath("cache/run.h5");
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path());
        QVERIFY2(run.issues.size() == 1, qPrintable(run.issueLines().join('\n')));
        const QString line = run.issueLines().first();
        QVERIFY2(line.startsWith("step_000100.safetensors: h.0.mlp.c_proj.weight") && line.contains("too large for float64"), qPrintable(line));
        QCOMPARE(run.results.size(), 1);
        QVERIFY(run.results.first().tensor.startsWith("h.0.attn.c_proj.weight"));
        QVERIFY(std::isfinite(run.results.first().metrics.frobeniusNorm));

        const LoadedRun loaded = loadRun(settings.resultsPath, RunLoadOptions());
        QVERIFY2(loaded.run, qPrintable(loaded.messages.join('\n')));
        QCOMPARE(loaded.run->results.size(), 1);
        QCOMPARE(loaded.run->issueLines(), run.issueLines());
    }

    // The descriptor lists are what is written: every column they name for this schema is in the
    // file, stored as its type says, and nothing else is in the tables' groups.
    void everyListedColumnIsWrittenWithItsType()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(everyTableFilled(dir.path()), path, &error), qPrintable(error));
        const QList<ListedColumn> columns = schemaColumns();
        for (const ListedColumn &column : columns)
            QVERIFY2(storedType(path, column.dataset) == expectedType(column.type), column.dataset.constData());
        QVERIFY(storedType(path, ResultsSchema::kSpectra) == expectedType(ColumnType::Float64));
        QVERIFY(storedType(path, ResultsSchema::kDeltaSpectra) == expectedType(ColumnType::Float64));
        QVERIFY(storedType(path, ResultsSchema::kTopVectors) == expectedType(ColumnType::Float32));
        const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDONLY, H5P_DEFAULT);
        for (const char *group : {"checkpoints", "matrices", "issues", "skipped_files"}) {
            H5G_info_t info{};
            QVERIFY(H5Gget_info_by_name(file, group, &info, H5P_DEFAULT) >= 0);
            const auto listed = std::count_if(columns.begin(), columns.end(),
                                              [&](const ListedColumn &c) { return c.dataset.startsWith(QByteArray(group) + '/'); });
            QVERIFY2(qsizetype(info.nlinks) == listed, group);
        }
        H5Fclose(file);
    }

    // An optional column a file lacks (one written before it existed) reads as its default, the
    // rest of the file as it was; the metrics the spectrum gives are recomputed from it.
    void eachOptionalColumnMissingReadsItsDefault_data()
    {
        QTest::addColumn<QByteArray>("dataset");
        for (const ListedColumn &column : schemaColumns())
            if (column.presence == Presence::Optional)
                QTest::newRow(column.dataset.constData()) << column.dataset;
    }
    void eachOptionalColumnMissingReadsItsDefault()
    {
        QFETCH(QByteArray, dataset);
        QTemporaryDir dir;
        const QString path = dir.filePath("results.h5");
        const RunAnalysis run = everyTableFilled(dir.path());
        QString error;
        QVERIFY2(ResultsFile::save(run, path, &error), qPrintable(error));
        deleteDataset(path, dataset);
        const auto loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->checkpoints.size(), run.checkpoints.size());
        QCOMPARE(loaded->results.size(), run.results.size());
        QCOMPARE(loaded->issueLines(), run.issueLines());
        QCOMPARE(loaded->sidecars.size(), 1);
        const QByteArray column = dataset.mid(dataset.indexOf('/') + 1);
        for (const Column<CheckpointRecord> &c : ResultsSchema::checkpoints().columns)
            if (dataset == datasetPath("checkpoints", c.name))
                for (const CheckpointRecord &record : loaded->checkpoints)
                    QVERIFY(c.get(record) == c.get(CheckpointRecord()));
        if (dataset.startsWith("matrices/delta_sv_"))
            for (const MatrixResult &r : loaded->results)
                QCOMPARE(r.deltaSingularValues.size(), 0);
        if (dataset.startsWith("matrices/top_vectors_"))
            QCOMPARE(loaded->results[2].topVectors.size(), 0);
        if (dataset == "skipped_files/duplicate")
            QVERIFY(!loaded->sidecars[0].duplicate);
        const qsizetype metric = spectralMetricColumns().indexOf(QString::fromUtf8(column));
        if (dataset.startsWith("matrices/") && metric >= 0)
            for (qsizetype i = 0; i < run.results.size(); ++i) {
                const double stored = spectralMetricValues(loaded->results[i].metrics)[metric];
                const double computed = spectralMetricValues(computeSpectralMetrics(run.results[i].singularValues, 3, 3))[metric];
                if (matrixMetricColumns().contains(QString::fromUtf8(column)))
                    QVERIFY2(std::isnan(stored), column.constData()); // needs the matrix: not recomputed
                else
                    QVERIFY2(stored == computed || (std::isnan(stored) && std::isnan(computed)), column.constData());
            }
    }

    // A required column a file lacks makes it damaged, and what is said names the file and the column.
    void eachRequiredColumnMissingIsNamed_data()
    {
        QTest::addColumn<QByteArray>("dataset");
        QTest::addColumn<QString>("expected");
        for (const ListedColumn &column : schemaColumns()) {
            if (column.presence != Presence::Required || column.dataset.startsWith("skipped_files/") || !column.dataset.contains('/'))
                continue; // skipped files and notes only tell how the run was read: never required
            const QString name = QString::fromUtf8(column.dataset.mid(column.dataset.indexOf('/') + 1));
            const QString expected = column.dataset == "checkpoints/path" ? QStringLiteral("damaged results file: no checkpoint paths")
                                                                            : name + QStringLiteral(" is missing");
            QTest::newRow(column.dataset.constData()) << column.dataset << expected;
        }
        QTest::newRow(ResultsSchema::kSpectra) << QByteArray(ResultsSchema::kSpectra)
                                               << QStringLiteral("matrix table is incomplete (singular_values is missing)");
    }
    void eachRequiredColumnMissingIsNamed()
    {
        QFETCH(QByteArray, dataset);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(everyTableFilled(dir.path()), path, &error), qPrintable(error));
        deleteDataset(path, dataset);
        const LoadedRun loaded = loadRun(path, RunLoadOptions());
        QVERIFY(!loaded.run);
        QCOMPARE(loaded.messages.size(), 1);
        QVERIFY2(loaded.messages[0].startsWith(path + QStringLiteral(": damaged results file: ")), qPrintable(loaded.messages[0]));
        QVERIFY2(loaded.messages[0].contains(expected), qPrintable(loaded.messages[0]));
    }

    // Schema 3 kept no fingerprints: its checkpoints read an empty one, which matches no checkpoint,
    // even where such a file holds a dataset of that name; a schema-4 file without it is damaged.
    void schema3FilesHaveNoFingerprints()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("results.h5");
        QString error;
        QVERIFY2(ResultsFile::save(everyTableFilled(dir.path()), path, &error), qPrintable(error));
        setSchemaVersion(path, 3);
        auto loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        for (const CheckpointRecord &c : loaded->checkpoints)
            QVERIFY(c.fingerprint.isEmpty());
        QCOMPARE(loaded->results.size(), 3);
        QVERIFY(loaded->notes == QStringList{"a note"});
        deleteDataset(path, "checkpoints/fingerprint");
        QVERIFY2(ResultsFile::load(path, &error), qPrintable(error));
        setSchemaVersion(path, 4);
        QVERIFY(!ResultsFile::load(path, &error));
        QVERIFY2(error.contains("fingerprint is missing"), qPrintable(error));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestResultsFile)
} // namespace tst_resultsfile

#include "tst_ResultsFile.moc"
