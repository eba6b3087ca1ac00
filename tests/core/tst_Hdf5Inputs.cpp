// HDF5 files built to break their readers: attributes of any shape where one value is expected,
// datasets whose bytes are elsewhere or nowhere, and results files that declare more than they
// hold. Every HDF5 id is closed on every path. Run under the sanitizers, an overflow is a failure.
#include "Hdf5TestFiles.h"
#include "analysis/ResultsFile.h"
#include "analysis/RunAnalyzer.h"
#include "io/CheckpointReader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QScopeGuard>
#include <QTest>
#include <sys/wait.h>
#include <unistd.h>

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

};

QTEST_GUILESS_MAIN(TestHdf5Inputs)
#include "tst_Hdf5Inputs.moc"
