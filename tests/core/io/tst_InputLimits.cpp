// Memory and time bounded by the bytes that exist: a matrix larger than the memory limit, a
// sparse file's hole, a compressed entry, an allocation that fails, a FIFO or device where a
// checkpoint should be. Each is refused for its tensor or file, quickly, and the rest is read.
#include "analysis/execution/RunAnalyzer.h"
#include "FormatWriters.h"
#include "Hdf5TestFiles.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "io/MemoryBudget.h"
#include "TestSuite.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <fcntl.h>
#include <new>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace tst_inputlimits {

using namespace rankscope;
using namespace rankscope::test;

namespace {

constexpr const char *kLimit = "RANKSCOPE_MAX_MATRIX_BYTES";

auto limitMatrices(const char *bytes)
{
    qputenv(kLimit, bytes);
    return qScopeGuard([] { qunsetenv(kLimit); });
}

// A reader whose one tensor cannot be allocated: what any reader meets when memory runs out.
class ExhaustedReader : public CheckpointReader {
public:
    QString formatName() const override { return QStringLiteral("test"); }
    QList<TensorInfo> tensors() const override { return {{"w", {4, 4}, "float32"}, {"v", {2, 2}, "float32"}}; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64, qint64 rows, qint64 cols) override
    {
        if (tensor.name == QLatin1String("w"))
            throw std::bad_alloc();
        return {StoredMatrix::fromDouble(RowMajorMatrix::Ones(rows, cols)), {}};
    }
};

} // namespace

class TestInputLimits : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void matrixLimitFollowsAvailableMemory()
    {
        qunsetenv(kLimit);
        const qint64 available = MemoryBudget::availableBytes();
        QVERIFY(available > 0);
        const qint64 limit = MemoryBudget::maxMatrixBytes();
        QVERIFY2(limit > 0 && limit <= available / 2, qPrintable(QString::number(limit)));
        {
            auto restore = limitMatrices("64M");
            QCOMPARE(MemoryBudget::maxMatrixBytes(), qint64(64) << 20);
            QVERIFY(MemoryBudget::matrixProblem(8192, 1024).isEmpty());
            const QString problem = MemoryBudget::matrixProblem(8193, 1024);
            QVERIFY2(problem.contains("a 8193×1024 matrix takes 67.1 MB as float64, more than the 67.1 MB") ||
                         problem.contains("more than the"),
                     qPrintable(problem));
            QVERIFY(problem.contains(kLimit));
        }
        {
            auto restore = limitMatrices("2G");
            QCOMPARE(MemoryBudget::maxMatrixBytes(), qint64(2) << 30);
        }
        {
            auto restore = limitMatrices("lots"); // not a size: the limit derived from memory holds
            QVERIFY(MemoryBudget::maxMatrixBytes() <= available / 2);
        }
    }

    // An 8.5 GB safetensors file that stores 4 KB: the big tensor is refused (by the memory limit,
    // or where that allows it, as a hole with no bytes), and the 8×8 matrix beside it is analysed.
    void sparseFileTensorIsRefusedAndTheRestRead()
    {
        QTemporaryDir run;
        const QString path = run.filePath("model_000100.safetensors");
        const qint64 big = qint64(46000) * 46000 * 4;
        const QByteArray small = rawBytes<float>(QList<float>(64, 1.0f));
        QJsonObject header{{"transformer.h.0.attn.c_proj.weight", QJsonObject{{"dtype", "F32"}, {"shape", QJsonArray{8, 8}}, {"data_offsets", QJsonArray{0, 256}}}},
                           {"transformer.h.0.mlp.c_fc.weight", QJsonObject{{"dtype", "F32"}, {"shape", QJsonArray{46000, 46000}}, {"data_offsets", QJsonArray{256, double(256 + big)}}}}};
        QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
        while (json.size() % 8)
            json.append(' ');
        QByteArray bytes(8, '\0');
        qToLittleEndian<quint64>(quint64(json.size()), bytes.data());
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes + json + small);
        QVERIFY(file.resize(8 + json.size() + 256 + big)); // the rest is a hole: no disk used
        file.close();

        QString error;
        auto reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        const MatrixRead limited = reader->readMatrix("transformer.h.0.mlp.c_fc.weight");
        QVERIFY2(limited.error.contains("a 46000×46000 matrix takes 16.9 GB as float64, more than the"), qPrintable(limited.error));
        {
            auto restore = limitMatrices("1000G");
            const MatrixRead hole = reader->readMatrix("transformer.h.0.mlp.c_fc.weight");
            QVERIFY2(hole.error.contains("its 8.5 GB of data are a hole in a sparse file"), qPrintable(hole.error));
        }
        QVERIFY(reader->readMatrix("transformer.h.0.attn.c_proj.weight").ok());
        reader.reset();

        const RunAnalysis analysed = RunAnalyzer().analyzeFolder(run.path());
        QCOMPARE(analysed.results.size(), 1);
        QCOMPARE(analysed.issues.size(), 1);
        QVERIFY(analysed.issues.first().text().contains("transformer.h.0.mlp.c_fc.weight: a 46000×46000 matrix"));
    }

    // A compressed .npz entry is inflated only as far as the matrix read needs, never whole: the
    // header lists the tensor of a 3 MB entry even when its stream is damaged further on; a slice is exact; a
    // matrix over the limit is refused before inflating.
    void npzInflatesOnlyWhatIsRead()
    {
        // Random values, which deflate cannot shrink: damage near the stream's end hits the last slice.
        std::mt19937 random(18);
        QList<float> values;
        for (int i = 0; i < 3 * 512 * 512; ++i)
            values << float(random() % 100000);
        const QByteArray npy = npyFile("<f4", {3, 512, 512}, rawBytes<float>(values));
        const QString path = m_dir.filePath("experts.npz");
        saveBytes(path, npzArchive({{"model.layers.0.mlp.experts.down_proj.npy", npy}}, true));
        QString error;
        auto reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        const MatrixRead slice = reader->readMatrix("model.layers.0.mlp.experts.down_proj", 2);
        QVERIFY2(slice.ok(), qPrintable(slice.error));
        QCOMPARE(slice.values(0, 0), double(values[2 * 512 * 512]));
        QCOMPARE(slice.values(511, 511), double(values.last()));
        {
            auto restore = limitMatrices("1M");
            const MatrixRead refused = reader->readMatrix("model.layers.0.mlp.experts.down_proj", 0);
            QVERIFY2(refused.error.contains("more than the 1.0 MB one matrix may use"), qPrintable(refused.error));
        }
        reader.reset();

        // Damage the deflate stream near its end: the header still reads, the last slice does not.
        QByteArray damaged = npzArchive({{"w.npy", npy}}, true);
        const qsizetype directory = damaged.indexOf(QByteArray("PK\x01\x02", 4));
        for (qsizetype i = directory - 64; i < directory - 16; ++i)
            damaged[i] = char(0xFF);
        saveBytes(path, damaged);
        reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        QVERIFY(reader->readMatrix("w", 0).ok());
        const MatrixRead cut = reader->readMatrix("w", 2);
        QVERIFY2(!cut.ok() && cut.error.startsWith("zip entry w.npy"), qPrintable(cut.error));
    }

    void allocationFailureFailsOneTensor()
    {
        ExhaustedReader reader;
        const MatrixRead failed = reader.readMatrix("w");
        QVERIFY2(failed.error.contains("there was not enough memory to read it (4×4"), qPrintable(failed.error));
        QVERIFY(reader.readMatrix("v").ok());
    }

    // Opening a FIFO for reading waits for a writer, and /dev/zero never ends: neither is opened.
    // A 1–2 KB file declaring 10⁸ stacked experts, or a stride-0 expert axis repeating one stored
    // 32×32 matrix as 5000 "experts": each is refused when the file is opened, before anything is
    // planned per expert, named with the file, and the good checkpoint beside it is analysed.
    void declaredExpertCountsAreCheckedAgainstTheBytesStored()
    {
        QTemporaryDir folder;
        const QList<float> block(32 * 32, 0.5f);
        PickleBuilder p;
        p.op('\x80').op('\x02').op('}').op('(');
        const QList<FakeTensor> tensors = {
            {"model.layers.0.mlp.experts.down_proj", "FloatStorage", "0", 1024, 0, {100'000'000, 32, 32}, {1024, 32, 1}},
            {"model.layers.0.mlp.experts.gate_up_proj", "FloatStorage", "0", 1024, 0, {5000, 32, 32}, {0, 32, 1}},
            {"model.layers.0.self_attn.q_proj.weight", "FloatStorage", "0", 1024, 0, {32, 32}, {32, 1}}};
        for (const FakeTensor &t : tensors) {
            p.str(t.name).global("torch._utils", "_rebuild_tensor_v2").op('(');
            p.op('(').str("storage").global("torch", "FloatStorage").str(t.key).str("cpu").integer(t.numel).op('t').op('Q');
            p.integer(t.offset).intTuple(t.shape).intTuple(t.stride).op('\x89');
            p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        }
        p.op('u').op('.');
        const QString torch = folder.filePath("ckpt_000100.pt");
        saveBytes(torch, zipArchive({{"archive/data.pkl", p.bytes}, {"archive/data/0", rawBytes(block)}}));
        QVERIFY(QFileInfo(torch).size() < 8000);
        QString error;
        auto reader = openCheckpoint(torch, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), 1);
        const QString said = reader->warnings().join('\n');
        QVERIFY2(said.contains("model.layers.0.mlp.experts.down_proj declares [100000000, 32, 32] float32") &&
                     said.contains("but the file stores 4.1 kB"), qPrintable(said));
        QVERIFY2(said.contains("model.layers.0.mlp.experts.gate_up_proj repeats its elements along dimension 0 of 5000 (stride 0"), qPrintable(said));

        const QString npy = folder.filePath("ckpt_000200");
        QDir().mkpath(npy);
        saveBytes(QDir(npy).filePath("model.layers.0.mlp.experts.down_proj.npy"), npyFile("<f4", {100'000'000, 32, 32}, rawBytes(block)));
        saveBytes(QDir(npy).filePath("model.layers.0.self_attn.q_proj.weight.npy"), npyFile("<f4", {32, 32}, rawBytes(block)));
        reader = openCheckpoint(npy, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), 1);
        QVERIFY2(reader->warnings().join('\n').contains("down_proj declares [100000000, 32, 32] float32"), qPrintable(reader->warnings().join('\n')));
        const QString npz = m_dir.filePath("experts.npz");
        saveBytes(npz, npzArchive({{"model.layers.0.mlp.experts.down_proj.npy", npyFile("<f4", {100'000'000, 32, 32}, rawBytes(block))}}, false));
        QVERIFY(!openCheckpoint(npz, &error));
        QVERIFY2(error.contains("down_proj declares [100000000, 32, 32]"), qPrintable(error));

        const QString h5 = folder.filePath("ckpt_000300.h5");
        {
            const hid_t file = H5Fcreate(QFile::encodeName(h5).constData(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
            test::writeDataset(file, "model/layers/0/mlp/experts/down_proj", {10'000'000, 32, 32}, test::DatasetStorage::NeverWritten);
            test::writeDataset(file, "model/layers/0/self_attn/q_proj/weight", {32, 32}, test::DatasetStorage::Written);
            H5Fclose(file);
        }
        QVERIFY(QFileInfo(h5).size() < 64 * 1024);
        reader = openCheckpoint(h5, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), 1);
        QVERIFY2(reader->warnings().join('\n').contains("down_proj declares 10240000000 elements"), qPrintable(reader->warnings().join('\n')));

        // The run: each checkpoint's good matrix analysed, each refusal an issue of its file.
        AnalysisSettings settings;
        settings.jobs = 1;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(folder.path());
        QCOMPARE(run.checkpointsAnalysed, 3);
        QCOMPARE(run.results.size(), 3);
        QStringList issues;
        for (const AnalysisIssue &issue : run.issues)
            issues << issue.text();
        QCOMPARE(issues.filter("declares").size() + issues.filter("repeats its elements").size(), 4);
    }

    // A file whose apparent size matches what it declares, but holds it as holes (a sparse .npy of
    // 100,000 stacked experts, 409.6 MB apparent, a few bytes stored) passes the size check; the
    // plan is still bounded: no tensor is planned as more than 65,536 experts, whatever the file.
    void expertCountsBeyondAnyModelAreNotPlanned()
    {
        QTemporaryDir folder;
        const QString npy = folder.filePath("ckpt_000100");
        QDir().mkpath(npy);
        const QString experts = QDir(npy).filePath("model.layers.0.mlp.experts.down_proj.npy");
        saveBytes(experts, npyFile("<f4", {100'000, 32, 32}, QByteArray()));
        {
            QFile sparse(experts);
            QVERIFY(sparse.open(QIODevice::ReadWrite));
            QVERIFY(sparse.resize(sparse.size() + qint64(100'000) * 32 * 32 * 4)); // holes, nothing written
        }
        saveBytes(QDir(npy).filePath("model.layers.0.self_attn.q_proj.weight.npy"), npyFile("<f4", {32, 32}, rawBytes(QList<float>(32 * 32, 0.5f))));
        QString error;
        const auto reader = openCheckpoint(npy, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), 2); // its apparent size is what it declares
        AnalysisSettings settings;
        settings.jobs = 1;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(folder.path());
        QCOMPARE(run.results.size(), 1); // q_proj
        QStringList issues;
        for (const AnalysisIssue &issue : run.issues)
            issues << issue.text();
        QVERIFY2(issues.join('\n').contains("down_proj.npy: claims 100000 experts (shape [100000, 32, 32]), more than the 65536 any model has: not planned")
                     || issues.join('\n').contains("claims 100000 experts (shape [100000, 32, 32]), more than the 65536 any model has: not planned"),
                 qPrintable(issues.join('\n')));
    }

    void fifosAndDevicesAreNeverOpened()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("model.safetensors");
        QCOMPARE(mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        QVERIFY(QFile::link("/dev/zero", dir.filePath("ckpt_000100.pt")));
        QVERIFY(QFile::link("/dev/urandom", dir.filePath("model_000200.h5")));
        // Should an open block, this writer ends it after 3 s, and the time taken fails the test.
        std::thread unblock([&] {
            std::this_thread::sleep_for(std::chrono::seconds(3));
            const int fd = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0)
                ::close(fd);
        });
        auto joined = qScopeGuard([&] { unblock.join(); });
        QElapsedTimer clock;
        clock.start();
        QString error;
        QVERIFY(!openCheckpoint(fifo, &error));
        QVERIFY2(error.contains("a FIFO (named pipe), not a regular file"), qPrintable(error));
        QVERIFY(!openCheckpoint(dir.path(), &error)); // a save_pretrained folder whose weights are the FIFO
        QVERIFY2(error.contains("FIFO"), qPrintable(error));
        for (const char *device : {"ckpt_000100.pt", "model_000200.h5"}) {
            QVERIFY(!openCheckpoint(dir.filePath(device), &error));
            QVERIFY2(error.contains("a character device, not a regular file"), qPrintable(error));
        }
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestInputLimits)
} // namespace tst_inputlimits

#include "tst_InputLimits.moc"
