// HDF5 files built to break their readers: attributes of any shape where one value is expected,
// datasets whose bytes are elsewhere or nowhere, and results files that declare more than they
// hold. Every HDF5 id is closed on every path. Run under the sanitizers, an overflow is a failure.
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/ResultsFile.h"
#include "Hdf5TestFiles.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "TestSuite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QScopeGuard>
#include <sys/wait.h>
#include <unistd.h>

namespace tst_hdf5inputs {

using namespace rankscope;
using namespace rankscope::test;

namespace {

const QByteArray kLongText(100 * 1024, 'x'); // longer than any attribute RankScope reads

struct Shape {
    const char *label;
    AttributeShape shape;
    QByteArray text;
    size_t size;
};

// Every way an attribute meant to hold one value can hold something else.
QList<Shape> hostileShapes(const QByteArray &text)
{
    return {{"64 integers", AttributeShape::Int64Array, text, 0},
            {"64 variable-length strings", AttributeShape::VlenStringArray, text, 0},
            {"64 fixed-length strings", AttributeShape::FixedStringArray, text, 8},
            {"the text in a 100 KB fixed-length string", AttributeShape::FixedStringScalar, text, 100 * 1024},
            {"a 100 KB variable-length string", AttributeShape::VlenStringScalar, kLongText, 0},
            {"a float", AttributeShape::Float64Scalar, text, 0}};
}

// An HDF5 checkpoint: one written 8×8 matrix, and whatever `extra` adds to the open file.
QString writeCheckpoint(const QString &path, const std::function<void(hid_t)> &extra, bool newestFormat = true)
{
    // The newest file format stores attributes over 64 KB, which the oldest cannot.
    const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    if (newestFormat)
        H5Pset_libver_bounds(access, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    const hid_t file = H5Fcreate(path.toLocal8Bit().constData(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
    H5Pclose(access);
    writeDataset(file, "transformer/h/0/attn/c_proj.weight", {8, 8}, DatasetStorage::Written);
    extra(file);
    H5Fclose(file);
    return path;
}

void withFile(const QString &path, const std::function<void(hid_t)> &change)
{
    const hid_t file = H5Fopen(path.toLocal8Bit().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
    QVERIFY(file >= 0);
    change(file);
    H5Fclose(file);
    test::clearResultsSeal(path);
}

RunAnalysis smallRun(const QString &folder)
{
    RunAnalysis run;
    run.folder = folder;
    run.settingsKey = QStringLiteral("solver=gram");
    MatrixResult r;
    r.singularValues = Eigen::VectorXd::Ones(3);
    r.rows = r.cols = 3;
    r.metrics = computeSpectralMetrics(r.singularValues, 3, 3);
    run.results << r;
    CheckpointRecord c;
    c.path = folder + "/ckpt.pt";
    c.matrices = 1;
    run.checkpoints << c;
    return run;
}

} // namespace

class TestHdf5Inputs : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void cleanup() { QCOMPARE(openHdf5Objects(), 0); } // every path closes what it opened

    // The checkpoint reader's `step` (root) and `dtype` (a uint16 dataset's bfloat16 marker).
    void checkpointAttributesOfAnyShape()
    {
        for (const Shape &s : hostileShapes("bfloat16")) {
            const QString path = writeCheckpoint(m_dir.filePath("attributes.h5"), [&](hid_t file) {
                writeAttribute(file, "step", s.shape, s.text, 7, 64, s.size);
                const hsize_t dims[2] = {2, 2};
                const hid_t space = H5Screate_simple(2, dims, nullptr);
                const hid_t dataset = H5Dcreate2(file, "bf16.weight", H5T_STD_U16LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
                const quint16 values[4] = {0x3F80, 0, 0, 0x3F80};
                H5Dwrite(dataset, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
                writeAttribute(dataset, "dtype", s.shape, s.text, 7, 64, s.size);
                H5Dclose(dataset);
                H5Sclose(space);
            });
            QString error;
            auto reader = openCheckpoint(path, &error);
            QVERIFY2(reader, qPrintable(error));
            QVERIFY2(!reader->step(), s.label); // one value is wanted: anything else is no step
            for (const TensorInfo &t : reader->tensors())
                if (t.name == "bf16.weight")
                    QCOMPARE(t.dtype, QStringLiteral("int16"));
            QVERIFY(reader->readMatrix("transformer.h.0.attn.c_proj.weight").ok());
        }
        // The shapes a writer really uses still work: a scalar step, fixed- and variable-length dtype.
        for (const auto shape : {AttributeShape::FixedStringScalar, AttributeShape::VlenStringScalar}) {
            const QString path = writeCheckpoint(m_dir.filePath("good.h5"), [&](hid_t file) {
                writeAttribute(file, "step", AttributeShape::Int64Scalar, {}, 4200);
                writeDataset(file, "bf16.weight", {2, 2}, DatasetStorage::Written, {}, H5T_STD_U16LE);
                const hid_t dataset = H5Dopen2(file, "bf16.weight", H5P_DEFAULT);
                writeAttribute(dataset, "dtype", shape, "bfloat16", 0);
                H5Dclose(dataset);
            });
            QString error;
            auto reader = openCheckpoint(path, &error);
            QVERIFY2(reader, qPrintable(error));
            QCOMPARE(reader->step(), std::optional<qint64>(4200));
            for (const TensorInfo &t : reader->tensors())
                if (t.name == "bf16.weight")
                    QCOMPARE(t.dtype, QStringLiteral("bfloat16"));
        }
    }

    // format, folder, settings_key, schema_version, complete: a results file with any of them in
    // another shape is not read as one, and is never a crash (discovery asks every .h5).
    void resultsFileAttributesOfAnyShape()
    {
        const QString path = m_dir.filePath("results.h5");
        QString error;
        for (const char *name : {"format", "folder", "settings_key", "schema_version", "complete"}) {
            for (const Shape &s : hostileShapes("rankscope-results")) {
                QVERIFY2(ResultsFile::save(smallRun(m_dir.path()), path, &error), qPrintable(error));
                withFile(path, [&](hid_t file) { writeAttribute(file, name, s.shape, s.text, 1, 64, s.size); });
                const QByteArray what = QByteArray(name) + " as " + s.label;
                const auto loaded = ResultsFile::load(path, &error);
                const bool identity = qstrcmp(name, "folder") == 0 || qstrcmp(name, "settings_key") == 0;
                if (identity) {
                    // Read as missing: a run with no folder or settings key, whose checkpoints no
                    // analysis will take from it.
                    QVERIFY2(loaded, what + ": " + error.toUtf8());
                    QVERIFY(qstrcmp(name, "folder") == 0 ? loaded->folder.isEmpty() : loaded->settingsKey.isEmpty());
                } else {
                    QVERIFY2(!loaded, what.constData());
                }
                QCOMPARE(ResultsFile::isResultsFile(path), qstrcmp(name, "format") != 0);
            }
        }
        // A fixed-length format string, as h5py writes np.bytes_, is still RankScope's.
        QVERIFY(ResultsFile::save(smallRun(m_dir.path()), path, &error));
        withFile(path, [](hid_t file) { writeAttribute(file, "format", AttributeShape::FixedStringScalar, "rankscope-results", 0); });
        QVERIFY(ResultsFile::isResultsFile(path));
        QVERIFY2(ResultsFile::load(path, &error), qPrintable(error));
    }

    // Raw data in another file (/etc/passwd here, a FIFO elsewhere) is not followed, as external
    // links are not; the matrix beside it is read.
    void externalAndVirtualStorageIsNotFollowed()
    {
        const QString source = m_dir.filePath("source.h5");
        writeCheckpoint(source, [](hid_t) {});
        const QString path = writeCheckpoint(m_dir.filePath("external.h5"), [&](hid_t file) {
            writeDataset(file, "transformer/h/0/mlp/c_fc.weight", {4, 8}, DatasetStorage::External, "/etc/passwd");
            // A virtual dataset, mapping another file's matrix.
            const hsize_t dims[2] = {8, 8};
            const hid_t space = H5Screate_simple(2, dims, nullptr);
            const hid_t creation = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_virtual(creation, space, source.toLocal8Bit().constData(), "transformer/h/0/attn/c_proj.weight", space);
            const hid_t dataset = H5Dcreate2(file, "virtual.weight", H5T_IEEE_F64LE, space, H5P_DEFAULT, creation, H5P_DEFAULT);
            H5Dclose(dataset);
            H5Pclose(creation);
            H5Sclose(space);
        });
        QString error;
        auto reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        const MatrixRead external = reader->readMatrix("transformer.h.0.mlp.c_fc.weight");
        QVERIFY2(external.error.contains("stored outside the file (external storage in '/etc/passwd')"), qPrintable(external.error));
        const MatrixRead virtualRead = reader->readMatrix("virtual.weight");
        QVERIFY2(virtualRead.error.contains("virtual dataset"), qPrintable(virtualRead.error));
        QVERIFY(reader->readMatrix("transformer.h.0.attn.c_proj.weight").ok());
    }

    // A 46000×46000 dataset in a 2 KB file (never written) and a chunked one of fill value are
    // refused before anything is allocated; the 8×8 matrix beside them is analysed.
    void declaredSizeBeyondTheStoredBytes()
    {
        // The storage check, not the memory limit (which would refuse 46000×46000 here too), is tested.
        qputenv("RANKSCOPE_MAX_MATRIX_BYTES", "1000G");
        auto restore = qScopeGuard([] { qunsetenv("RANKSCOPE_MAX_MATRIX_BYTES"); });
        QTemporaryDir run;
        const QString path = writeCheckpoint(run.filePath("model_000100.h5"), [](hid_t file) {
            writeDataset(file, "transformer/h/0/mlp/c_fc.weight", {46000, 46000}, DatasetStorage::NeverWritten);
            writeDataset(file, "transformer/h/0/mlp/c_proj.weight", {20000, 20000}, DatasetStorage::FilledChunks);
        }, false);
        QVERIFY(QFileInfo(path).size() < 64 * 1024);
        QString error;
        auto reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        const MatrixRead never = reader->readMatrix("transformer.h.0.mlp.c_fc.weight");
        QVERIFY2(never.error.contains("declares 2116000000 elements") && never.error.contains("stores no data"), qPrintable(never.error));
        const MatrixRead filled = reader->readMatrix("transformer.h.0.mlp.c_proj.weight");
        QVERIFY2(filled.error.contains("more than compression or fill values can make of it"), qPrintable(filled.error));
        reader.reset();

        const RunAnalysis analysed = RunAnalyzer().analyzeFolder(run.path());
        QCOMPARE(analysed.results.size(), 1);
        QCOMPARE(analysed.results.first().rows, 8);
        QCOMPARE(analysed.issues.size(), 2);
    }

    // A results file declaring 2³³ singular values (or 2³³ matrices) that it does not hold is
    // damaged, not a 64 GB allocation.
    void resultsFileDeclaringMoreThanItHolds()
    {
        const QString path = m_dir.filePath("huge.h5");
        QString error;
        for (const auto &[dataset, type, expected] : {std::tuple{"singular_values", H5T_IEEE_F64LE, "(singular_values declares 8589934592 elements"},
                                                      {"matrices/rows", H5T_STD_I64LE, "(rows has 8589934592 entries, not 1)"}}) {
            QVERIFY(ResultsFile::save(smallRun(m_dir.path()), path, &error));
            withFile(path, [&](hid_t file) {
                H5Ldelete(file, dataset, H5P_DEFAULT);
                writeDataset(file, dataset, {hsize_t(1) << 33}, DatasetStorage::NeverWritten, {}, type);
            });
            QVERIFY(!ResultsFile::load(path, &error));
            QVERIFY2(error.startsWith("damaged results file: matrix table is incomplete") && error.contains(QLatin1String(expected)), qPrintable(error));
        }
    }

    // The temporary a save writes is created exclusively under an unpredictable name, so nothing
    // planted at a guessable name is followed; those of dead processes are removed.
    void temporariesAreExclusiveAndStaleOnesRemoved()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("run.h5");
        const pid_t dead = fork();
        if (dead == 0)
            _exit(0);
        waitpid(dead, nullptr, 0);
        const QString stale = path + QStringLiteral(".tmp-%1-Ab12Cd").arg(dead), older = path + QStringLiteral(".tmp-%1").arg(dead);
        const QString alive = path + QStringLiteral(".tmp-1-Ab12Cd"); // pid 1 never dies
        for (const QString &name : {stale, older, alive}) {
            QFile f(name);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        // What an older RankScope would have written to: a symlink to a victim, planted there.
        const QString victim = dir.filePath("victim.txt");
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("precious");
        v.close();
        QVERIFY(QFile::link(victim, path + QStringLiteral(".tmp-%1").arg(getpid())));

        QString error;
        QVERIFY2(ResultsFile::save(smallRun(dir.path()), path, &error), qPrintable(error));
        QVERIFY(ResultsFile::load(path, &error));
        QVERIFY(!QFile::exists(stale));
        QVERIFY(!QFile::exists(older));
        QVERIFY(QFile::exists(alive));
        QVERIFY(v.open(QIODevice::ReadOnly));
        QCOMPARE(v.readAll(), QByteArray("precious"));
        const QStringList left = QDir(dir.path()).entryList({"run.h5.tmp-*"}, QDir::Files | QDir::System);
        QCOMPARE(left.size(), 2); // the live process's, and the planted link
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestHdf5Inputs)
} // namespace tst_hdf5inputs

#include "tst_Hdf5Inputs.moc"
