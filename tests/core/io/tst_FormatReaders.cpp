// safetensors, NumPy and HDF5 readers on files the tests write, and the validation each does.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/execution/RunAnalyzer.h"
#include "FormatWriters.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "io/RegularFile.h"
#include "io/TrainingFileNames.h"
#include "TestSuite.h"
#include "TorchCheckpointWriter.h"

#include <QDateTime>
#include <QJsonArray>
#include <QTemporaryDir>
#include <hdf5.h>

namespace tst_formatreaders {

using namespace rankscope;
using namespace rankscope::test;

namespace {

const QList<float> kSix{1, -2, 3.5f, 4, 0.25f, 6};

void expectSix(CheckpointReader &reader, const QString &name)
{
    const MatrixRead m = reader.readMatrix(name);
    QVERIFY2(m.ok(), qPrintable(m.error));
    QCOMPARE(m.values.rows(), 2);
    QCOMPARE(m.values.cols(), 3);
    QCOMPARE(m.values(0, 0), 1.0);
    QCOMPARE(m.values(0, 1), -2.0);
    QCOMPARE(m.values(0, 2), 3.5);
    QCOMPARE(m.values(1, 0), 4.0);
    QCOMPARE(m.values(1, 1), 0.25);
    QCOMPARE(m.values(1, 2), 6.0);
}

QString openError(const QString &path)
{
    QString error;
    auto reader = openCheckpoint(path, &error);
    return reader ? QString() : error;
}

void writeHdf5(const QString &path, bool bf16Dataset, long long step)
{
    const hid_t file = H5Fcreate(path.toLocal8Bit().constData(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {2, 3};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    auto dataset = H5Dcreate2(file, "transformer/h/0/attn/c_proj.weight", H5T_IEEE_F32LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, kSix.constData());
    H5Dclose(dataset);
    dataset = H5Dcreate2(file, "model_weights/dense/dense/kernel:0", H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    const double sixDouble[6] = {1, -2, 3.5, 4, 0.25, 6};
    H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, sixDouble);
    H5Dclose(dataset);
    if (bf16Dataset) {
        const quint16 bf16[6] = {0x3F80, 0xC000, 0x4060, 0x4080, 0x3E80, 0x40C0};
        dataset = H5Dcreate2(file, "bf16.weight", H5T_STD_U16LE, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(dataset, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, bf16);
        const hid_t stringType = H5Tcopy(H5T_C_S1);
        H5Tset_size(stringType, 8);
        const hid_t scalar = H5Screate(H5S_SCALAR);
        const hid_t attribute = H5Acreate2(dataset, "dtype", stringType, scalar, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(attribute, stringType, "bfloat16");
        H5Aclose(attribute);
        H5Sclose(scalar);
        H5Tclose(stringType);
        H5Dclose(dataset);
    }
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(file, "step", H5T_STD_I64LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attribute, H5T_NATIVE_LLONG, &step);
    H5Aclose(attribute);
    H5Sclose(scalar);
    H5Pclose(lcpl);
    H5Sclose(space);
    H5Fclose(file);
}

} // namespace

class TestFormatReaders : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void safetensorsAllFloatDtypes()
    {
        const QString path = m_dir.filePath("model.safetensors");
        saveBytes(path, safetensorsFile({{"f32", "F32", {2, 3}, rawBytes(kSix)},
                                         {"f64", "F64", {2, 3}, rawBytes<double>({1, -2, 3.5, 4, 0.25, 6})},
                                         {"f16", "F16", {2, 3}, rawBytes<quint16>({0x3C00, 0xC000, 0x4300, 0x4400, 0x3400, 0x4600})},
                                         {"bf16", "BF16", {2, 3}, rawBytes<quint16>({0x3F80, 0xC000, 0x4060, 0x4080, 0x3E80, 0x40C0})},
                                         {"f8", "F8_E4M3", {2, 3}, QByteArray("\x38\xC0\x46\x48\x28\x4C", 6)},
                                         // E5M2 is the top byte of a float16: 1, −2, 3.5, 4, 0.25, 6.
                                         {"f8e5", "F8_E5M2", {2, 3}, QByteArray("\x3C\xC0\x43\x44\x34\x46", 6)},
                                         // Its subnormals and infinities (E4M3fn has none).
                                         {"f8e5special", "F8_E5M2", {1, 3}, QByteArray("\x01\x7C\xFC", 3)},
                                         {"ids", "I64", {1, 2}, rawBytes<qint64>({1, 2})}}));
        QString error;
        auto reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("safetensors"));
        QCOMPARE(reader->tensors().size(), 8);
        for (const char *name : {"f32", "f64", "f16", "bf16", "f8", "f8e5"})
            expectSix(*reader, name);
        const MatrixRead special = reader->readMatrix("f8e5special");
        QVERIFY2(special.ok(), qPrintable(special.error));
        QCOMPARE(special.values(0, 0), std::ldexp(1.0, -16)); // 0.00.01: the smallest subnormal
        QCOMPARE(special.values(0, 1), std::numeric_limits<double>::infinity());
        QCOMPARE(special.values(0, 2), -std::numeric_limits<double>::infinity());
        QVERIFY(reader->readMatrix("ids").error.contains("unsupported dtype int64"));
    }

    // The format comes from the bytes first: each reader gets the files whose bytes are its own,
    // whatever their name, and what no reader recognises says so.
    void formatIsChosenByContent_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        // An empty archive is complete: unrecognised, so it is never waited for as a file being written.
        QTest::newRow("empty zip as .bin") << "model.bin" << QByteArray("PK\x05\x06", 4) + QByteArray(18, '\0') << "not a recognised checkpoint format";
        QTest::newRow("zip named .pt") << "notes.pt" << zipArchive({{"notes.txt", "x"}}) << "data.pkl";
        QTest::newRow("zip named .npz") << "arrays.npz" << zipArchive({{"notes.txt", "x"}}) << "no .npy arrays";
        QTest::newRow("hdf5 named .pt") << "model.pt" << QByteArray("\x89HDF\r\n\x1a\n", 8) + QByteArray(8, '\0') << "HDF5";
        QTest::newRow("legacy torch") << "old.pt" << QByteArray("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x00\x00\x00\x00", 16) << "legacy PyTorch";
        QTest::newRow("one npy") << "w.npy" << QByteArray("\x93NUMPY\x01\x00") + QByteArray(8, ' ') << "single .npy";
        QTest::newRow("text") << "text.pt" << QByteArray("hello, world\n") << "not a recognised checkpoint format";
    }

    void formatIsChosenByContent()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        const QString path = m_dir.filePath(name);
        saveBytes(path, bytes);
        QString problem;
        QVERIFY(!openCheckpoint(path, &problem));
        QVERIFY2(problem.contains(error, Qt::CaseInsensitive), qPrintable(problem));
        QCOMPARE(hasCheckpointSignature(bytes.left(16)), !name.endsWith(QLatin1String(".npy")) && name != QLatin1String("text.pt"));
    }

    void safetensorsToleratesLeadingSpacesAndUnalignedData()
    {
        // A 1-byte tensor first puts the float32 data at an odd offset.
        const QByteArray header = R"(  {"a":{"dtype":"U8","shape":[1,1],"data_offsets":[0,1]},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[1,25]}})";
        QByteArray file(8, '\0');
        qToLittleEndian<quint64>(quint64(header.size()), file.data());
        file += header + QByteArray(1, '\x07') + rawBytes(kSix);
        const QString path = m_dir.filePath("odd.safetensors");
        saveBytes(path, file);
        QString error;
        auto reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        expectSix(*reader, "w");
    }

    void safetensorsValidation()
    {
        const QString path = m_dir.filePath("bad.safetensors");
        const QByteArray good = safetensorsFile({{"w", "F32", {2, 3}, rawBytes(kSix)}});
        saveBytes(path, good.left(good.size() - 4));
        QVERIFY2(openError(path).contains("truncated"), qPrintable(openError(path)));
        saveBytes(path, good + "xx");
        QVERIFY(openError(path).contains("trailing"));
        QByteArray longHeader = good;
        qToLittleEndian<quint64>(quint64(good.size()), longHeader.data());
        saveBytes(path, longHeader);
        QVERIFY2(openError(path).contains("runs past the end"), qPrintable(openError(path)));
        qToLittleEndian<quint64>(quint64(200'000'000), longHeader.data());
        saveBytes(path, longHeader);
        QVERIFY(openError(path).contains("100 MB"));
        saveBytes(path, safetensorsFile({}, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})") + QByteArray(12, '\0'));
        QVERIFY2(openError(path).contains("overlaps"), qPrintable(openError(path)));
        saveBytes(path, safetensorsFile({}, R"({"a":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})") + QByteArray(8, '\0'));
        QVERIFY(openError(path).contains("unknown dtype 'Q7'"));
        saveBytes(path, safetensorsFile({}, R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})") + QByteArray(8, '\0'));
        QVERIFY(openError(path).contains("need 12"));
        saveBytes(path, safetensorsFile({}, "{\"a\xff\":1}"));
        QVERIFY2(openError(path).contains("not valid UTF-8 JSON"), qPrintable(openError(path)));
        saveBytes(path, safetensorsFile({}, R"({"a":{"dtype":"F32","shape":[1000000000000,1000000000000],"data_offsets":[0,8]}})") + QByteArray(8, '\0'));
        QVERIFY(!openError(path).isEmpty());
        // Each says what is wrong, not something else (#32: 16).
        saveBytes(path, safetensorsFile({}, R"([{"dtype":"F32","shape":[2],"data_offsets":[0,8]}])") + QByteArray(8, '\0'));
        QVERIFY2(openError(path).contains("a JSON array, not the object"), qPrintable(openError(path)));
        saveBytes(path, safetensorsFile({}, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})") + QByteArray(16, '\0'));
        QVERIFY2(openError(path).contains("names tensor a twice"), qPrintable(openError(path)));
        saveBytes(path, safetensorsFile({}, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"\u0061":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})") + QByteArray(16, '\0'));
        QVERIFY2(openError(path).contains("names tensor a twice"), qPrintable(openError(path)));
        saveBytes(path, safetensorsFile({}, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[1e300,1e300]}})") + QByteArray(8, '\0'));
        QVERIFY2(openError(path).contains("[1.0000000000000001e+300, 1.0000000000000001e+300]"), qPrintable(openError(path)));
        // Nested objects' keys are not tensor names: one "dtype" per tensor is no duplicate.
        saveBytes(path, safetensorsFile({{"a", "F32", {2, 3}, rawBytes(kSix)}, {"b", "F32", {2, 3}, rawBytes(kSix)}}));
        QVERIFY2(openError(path).isEmpty(), qPrintable(openError(path)));
    }

    void shardedSafetensorsReadEachTensorFromItsShard()
    {
        QTemporaryDir folder;
        saveBytes(folder.filePath("model-00001-of-00002.safetensors"), safetensorsFile({{"a", "F32", {2, 3}, rawBytes(kSix)}}));
        saveBytes(folder.filePath("model-00002-of-00002.safetensors"), safetensorsFile({{"b", "F32", {2, 3}, rawBytes(kSix)}}));
        saveBytes(folder.filePath("model.safetensors.index.json"),
                  R"({"metadata":{},"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}})");
        QString error;
        auto reader = openCheckpoint(folder.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), 2);
        expectSix(*reader, "a");
        expectSix(*reader, "b");
        QFile::remove(folder.filePath("model-00002-of-00002.safetensors"));
        QVERIFY(openError(folder.path()).contains("shard model-00002-of-00002.safetensors named by the index is missing"));
    }

    // transformers' sharded pytorch_model-0000N-of-0000M.bin with pytorch_model.bin.index.json.
    void shardedPytorchBins()
    {
        QTemporaryDir folder;
        for (int i : {1, 2}) {
            const QString name = QStringLiteral("w%1").arg(i);
            saveBytes(folder.filePath(QStringLiteral("pytorch_model-0000%1-of-00002.bin").arg(i)),
                      zipArchive({{"archive/data.pkl", torchPickle({{name, "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, 0)},
                                  {"archive/data/0", rawBytes(kSix)}}));
        }
        saveBytes(folder.filePath("pytorch_model.bin.index.json"),
                  R"({"weight_map":{"w1":"pytorch_model-00001-of-00002.bin","w2":"pytorch_model-00002-of-00002.bin"}})");
        QString error;
        auto reader = openCheckpoint(folder.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("pytorch (sharded)"));
        expectSix(*reader, "w1");
        expectSix(*reader, "w2");
        // The shards are one checkpoint, not two.
        QCOMPARE(CheckpointDiscovery::scan(folder.path()).checkpoints.size(), 1);
    }

    void npyFolderAllLayouts()
    {
        QTemporaryDir folder;
        saveBytes(folder.filePath("c.npy"), npyFile("<f4", {2, 3}, rawBytes(kSix)));
        saveBytes(folder.filePath("fortran.npy"), npyFile("<f8", {2, 3}, rawBytes<double>({1, 4, -2, 0.25, 3.5, 6}), true));
        saveBytes(folder.filePath("big.npy"), npyFile(">f4", {2, 3}, rawBytes(kSix, true)));
        saveBytes(folder.filePath("half.npy"), npyFile("<f2", {2, 3}, rawBytes<quint16>({0x3C00, 0xC000, 0x4300, 0x4400, 0x3400, 0x4600})));
        saveBytes(folder.filePath("transformer.h.0.mlp.c_fc.weight.npy"), npyFile("<f4", {2, 3}, rawBytes(kSix)));
        QString error;
        auto reader = openCheckpoint(folder.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), 5);
        for (const char *name : {"c", "fortran", "big", "half", "transformer.h.0.mlp.c_fc.weight"})
            expectSix(*reader, name);
        saveBytes(folder.filePath("short.npy"), npyFile("<f4", {2, 3}, rawBytes(kSix).left(8)));
        reader = openCheckpoint(folder.path(), &error);
        QVERIFY(reader->readMatrix("short").error.contains("header claims 24"));
    }

    // numpy.dtype(descr) reads 'float32', 'f8' or '=f2' as well as '<f4': no byte-order character
    // means native order. Each is read at its real element size, in .npy and .npz alike; a 64×64
    // array is large enough that a zero element size would read past the buffer.
    void npyDtypesWithoutByteOrderCharacter_data()
    {
        QTest::addColumn<QString>("descr");
        QTest::addColumn<int>("size");
        QTest::newRow("float32") << "float32" << 4;
        QTest::newRow("f4") << "f4" << 4;
        QTest::newRow("=f4") << "=f4" << 4;
        QTest::newRow("float64") << "float64" << 8;
        QTest::newRow("d") << "d" << 8;
        QTest::newRow("float16") << "float16" << 2;
    }
    void npyDtypesWithoutByteOrderCharacter()
    {
        QFETCH(QString, descr);
        QFETCH(int, size);
        const int n = 64;
        auto value = [](int i) { return (i % 7) - 3; }; // −3 … 3, exact in every float type
        static const quint16 halfOf[] = {0xC200, 0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000, 0x4200};
        QByteArray data;
        for (int i = 0; i < n * n; ++i) {
            if (size == 8)
                data += rawBytes<double>({double(value(i))});
            else if (size == 4)
                data += rawBytes<float>({float(value(i))});
            else
                data += rawBytes<quint16>({halfOf[value(i) + 3]});
        }
        QTemporaryDir folder;
        saveBytes(folder.filePath("transformer.h.0.mlp.c_fc.weight.npy"), npyFile(descr, {n, n}, data));
        const QString npz = m_dir.filePath(QStringLiteral("dtype-%1.npz").arg(descr));
        saveBytes(npz, npzArchive({{"transformer.h.0.mlp.c_fc.weight.npy", npyFile(descr, {n, n}, data)}}, false));
        for (const QString &path : {folder.path(), npz}) {
            QString error;
            auto reader = openCheckpoint(path, &error);
            QVERIFY2(reader, qPrintable(error));
            const MatrixRead m = reader->readMatrix("transformer.h.0.mlp.c_fc.weight");
            QVERIFY2(m.ok(), qPrintable(m.error));
            for (int i : {0, 1, 5, 4000, n * n - 1})
                QCOMPARE(m.values(i / n, i % n), double(value(i)));
        }
        // Too few bytes for the real element size: an error, never a read past them.
        saveBytes(folder.filePath("transformer.h.0.mlp.c_fc.weight.npy"), npyFile(descr, {n, n}, data.left(data.size() / 2)));
        QString error;
        auto reader = openCheckpoint(folder.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QVERIFY(!reader->readMatrix("transformer.h.0.mlp.c_fc.weight").ok());
    }

    void objectArraysAreRefused()
    {
        QTemporaryDir folder;
        saveBytes(folder.filePath("obj.npy"), npyFile("|O", {2}, QByteArray("\x80\x02N.", 4)));
        QVERIFY2(openError(folder.path()).contains("object arrays"), qPrintable(openError(folder.path())));
        const QString npz = m_dir.filePath("obj.npz");
        saveBytes(npz, npzArchive({{"obj.npy", npyFile("|O", {2}, "x")}}, false));
        QVERIFY(openError(npz).contains("object arrays"));
    }

    void npzStoredAndCompressed()
    {
        for (bool compressed : {false, true}) {
            const QString path = m_dir.filePath(compressed ? "c.npz" : "s.npz");
            saveBytes(path, npzArchive({{"w.npy", npyFile("<f4", {2, 3}, rawBytes(kSix))},
                                        {"transformer.h.1.attn.c_proj.weight.npy", npyFile("<f8", {2, 3}, rawBytes<double>({1, -2, 3.5, 4, 0.25, 6}))}},
                                       compressed));
            QString error;
            auto reader = openCheckpoint(path, &error);
            QVERIFY2(reader, qPrintable(error));
            QCOMPARE(reader->formatName(), QStringLiteral("numpy-npz"));
            expectSix(*reader, "w");
            expectSix(*reader, "transformer.h.1.attn.c_proj.weight");
        }
    }

    void npzDecompressionBombIsRefusedBeforeAllocating()
    {
        QByteArray archive = npzArchive({{"w.npy", npyFile("<f4", {2, 3}, rawBytes(kSix))}}, true);
        // Claim 3 GB uncompressed in the central directory.
        const qsizetype directory = archive.indexOf(QByteArray("PK\x01\x02", 4));
        qToLittleEndian<quint32>(3'000'000'000u, archive.data() + directory + 24);
        const QString path = m_dir.filePath("bomb.npz");
        saveBytes(path, archive);
        const QString error = openError(path);
        QVERIFY2(error.contains("3000000000"), qPrintable(error));
    }

    void hdf5GenericKerasAndBfloat16()
    {
        const QString path = m_dir.filePath("step.h5");
        writeHdf5(path, true, 4200);
        QString error;
        auto reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("hdf5"));
        QCOMPARE(reader->step(), std::optional<qint64>(4200));
        QStringList names;
        for (const TensorInfo &t : reader->tensors())
            names << t.name;
        QVERIFY2(names.contains("transformer.h.0.attn.c_proj.weight"), qPrintable(names.join(' ')));
        QVERIFY(names.contains("model_weights.dense.dense.kernel:0"));
        expectSix(*reader, "transformer.h.0.attn.c_proj.weight");
        expectSix(*reader, "model_weights.dense.dense.kernel:0");
        expectSix(*reader, "bf16.weight");
    }

    void damagedHdf5IsAnError()
    {
        const QString path = m_dir.filePath("cut.h5");
        writeHdf5(path, false, 1);
        QFile f(path);
        f.open(QIODevice::ReadOnly);
        const QByteArray bytes = f.read(f.size() / 3);
        f.close();
        saveBytes(path, bytes);
        QString error;
        auto reader = openCheckpoint(path, &error);
        if (reader) // the directory may survive; the data cannot
            QVERIFY(!reader->readMatrix("transformer.h.0.attn.c_proj.weight").ok());
        else
            QVERIFY2(error.contains("HDF5"), qPrintable(error));
    }

    // A Trainer output folder: checkpoint-N/ subfolders with trainer_state.json, sidecars beside.
    void trainerFoldersAndStepSources()
    {
        QTemporaryDir run;
        for (int step : {500, 1000}) {
            QDir(run.path()).mkdir(QStringLiteral("checkpoint-%1").arg(step));
            const QString sub = run.filePath(QStringLiteral("checkpoint-%1").arg(step));
            saveBytes(sub + "/model.safetensors", safetensorsFile({{"model.layers.0.self_attn.q_proj.weight", "F32", {2, 3}, rawBytes(kSix)}}));
            saveBytes(sub + "/optimizer.pt", "x");
            saveBytes(sub + "/trainer_state.json", QStringLiteral(R"({"global_step": %1})").arg(step + 1).toUtf8());
        }
        saveBytes(run.filePath("config.json"), R"({"num_attention_heads": 4})");
        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[0].stepFromSidecar, std::optional<qint64>(501));
        QCOMPARE(listing.checkpoints[1].stepFromName, std::optional<qint64>(1000));
        QCOMPARE(listing.checkpoints[0].sidecarConfig.value("num_attention_heads").toInt(), 4);
        const RunAnalysis analysis = RunAnalyzer().analyzeFolder(run.path());
        QCOMPARE(analysis.results.size(), 2);
        QCOMPARE(analysis.results[0].step, 501);
        QCOMPARE(analysis.results[1].step, 1001);
        QCOMPARE(analysis.results[0].type, MatrixType::Q);
        QVERIFY(analysis.issues.isEmpty());
    }

    void stepNamesAndSidecars()
    {
        const std::pair<const char *, qint64> names[] = {{"checkpoint-500", 500}, {"step_1000.pt", 1000}, {"step1000.safetensors", 1000},
                                                         {"ckpt_001000.pt", 1000}, {"model_001000.pt", 1000}, {"iter_1000.bin", 1000},
                                                         {"global_step1000", 1000}};
        for (const auto &[name, step] : names)
            QCOMPARE(CheckpointDiscovery::stepFromName(name), std::optional<qint64>(step));
        QVERIFY(!CheckpointDiscovery::stepFromName("final.pt"));
        for (const char *sidecar : {"optimizer.pt", "optim_000100.pt", "scheduler.pt", "rng_state_0.pth", "training_args.bin"})
            QVERIFY2(isTrainingSidecar(sidecar), sidecar);
        QVERIFY(!isTrainingSidecar("model_000100.pt"));
    }

    // No step anywhere: placed after the numbered checkpoints by modification time (never by name
    // or position among real steps), marked unnumbered for the views' "final", and said so.
    void withoutStepsCheckpointsArePlacedByModificationTime()
    {
        QTemporaryDir run;
        const QStringList names{"b.safetensors", "a.safetensors", "c.safetensors"};
        for (qsizetype i = 0; i < names.size(); ++i) {
            saveBytes(run.filePath(names[i]), safetensorsFile({{"transformer.h.0.attn.c_proj.weight", "F32", {2, 3}, rawBytes(QList<float>{1, 2, 3, 4, 5, float(i)})}}));
            QFile f(run.filePath(names[i]));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(-100 + 10 * i), QFileDevice::FileModificationTime));
        }
        saveBytes(run.filePath("step_50.safetensors"), safetensorsFile({{"transformer.h.0.attn.c_proj.weight", "F32", {2, 3}, rawBytes(kSix)}}));
        const RunAnalysis analysis = RunAnalyzer().analyzeFolder(run.path());
        QCOMPARE(analysis.results.size(), 4);
        QCOMPARE(analysis.results[0].step, 50);
        QVERIFY(!analysis.results[0].unnumbered);
        QCOMPARE(analysis.results[1].checkpointPath, run.filePath("b.safetensors"));
        QCOMPARE(analysis.results[1].step, 51);
        QCOMPARE(analysis.results[3].checkpointPath, run.filePath("c.safetensors"));
        QCOMPARE(analysis.results[3].step, 53);
        QVERIFY(analysis.results[3].unnumbered);
        QCOMPARE(analysis.notes.size(), 3);
        QVERIFY2(analysis.notes[0].contains("placed after step 50 by modification time"), qPrintable(analysis.notes[0]));
    }

    // nanochat: model_N.pt beside meta_N.json, whose step and model_config are used.
    void nanochatMetaFiles()
    {
        QTemporaryDir run;
        saveBytes(run.filePath("model_000700.pt"),
                  zipArchive({{"model_000700/data.pkl", torchPickle({{"transformer.h.0.attn.c_q.weight", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, 0)},
                              {"model_000700/data/0", rawBytes(kSix)}}));
        saveBytes(run.filePath("meta_000700.json"), R"({"step": 777, "model_config": {"n_head": 6}})");
        saveBytes(run.filePath("optim_000700_rank0.pt"), "x");
        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QCOMPARE(listing.skipped.size(), 1);
        QCOMPARE(listing.checkpoints[0].stepFromSidecar, std::optional<qint64>(777));
        QCOMPARE(listing.checkpoints[0].sidecarConfig.value("n_head").toInt(), 6);
    }

    // Python's json.dump writes a float that is not finite as a bare NaN, Infinity or -Infinity:
    // each reads as null outside strings, at the top level and nested; inside a string (escaped
    // quotes and backslashes included) the same letters stay. Anything else stays strict JSON.
    void pythonJsonNonFiniteValuesAreNull()
    {
        const QByteArray json = R"({"loss": NaN, "best": Infinity, "worst": -Infinity, "NaN": 1,)"
                                R"( "log": [{"grad_norm": NaN, "step": 5}, [Infinity, -Infinity, -1.5e3]],)"
                                // not raw: moc takes \" in a raw string for an escaped quote
                                " \"note\": \"NaN at \\\"Infinity\\\" \\\\\", \"quoted\": \"\\u0022-Infinity\\u0022 NaN\"}";
        QString error;
        const std::optional<QJsonObject> object = parsePythonJsonObject(json, &error);
        QVERIFY2(object, qPrintable(error));
        for (const char *key : {"loss", "best", "worst"})
            QVERIFY2(object->value(QLatin1String(key)).isNull(), key);
        QCOMPARE(object->value("NaN").toInt(), 1);
        const QJsonArray log = object->value("log").toArray();
        QVERIFY(log.at(0).toObject().value("grad_norm").isNull());
        QCOMPARE(log.at(0).toObject().value("step").toInt(), 5);
        QVERIFY(log.at(1).toArray().at(0).isNull() && log.at(1).toArray().at(1).isNull());
        QCOMPARE(log.at(1).toArray().at(2).toDouble(), -1500.0);
        QCOMPARE(object->value("note").toString(), QStringLiteral(R"(NaN at "Infinity" \)"));
        QCOMPARE(object->value("quoted").toString(), QStringLiteral(R"("-Infinity" NaN)"));

        QVERIFY(!parsePythonJsonObject(R"({"loss": NaNa})", &error)); // a token Python never writes
        QVERIFY(!parsePythonJsonObject(R"({"loss": nan})", &error));
        QVERIFY(!parsePythonJsonObject("[NaN]", &error));
        QCOMPARE(error, QStringLiteral("not a JSON object"));
    }

    // A diverged run: trainer_state.json and config.json with NaN and Infinity (top level and nested),
    // nanochat's meta_N.json with them: every checkpoint keeps its step and config.
    void pythonJsonSidecarsKeepTheirStepAndConfig()
    {
        QTemporaryDir run;
        QDir(run.path()).mkdir("checkpoint-500");
        const QString sub = run.filePath("checkpoint-500");
        saveBytes(sub + "/model.safetensors", safetensorsFile({{"model.layers.0.self_attn.q_proj.weight", "F32", {2, 3}, rawBytes(kSix)}}));
        saveBytes(sub + "/trainer_state.json",
                  R"({"best_metric": NaN, "global_step": 501, "log_history": [{"loss": NaN, "grad_norm": Infinity, "step": 500},)"
                  R"( {"eval_loss": -Infinity, "step": 501}], "total_flos": Infinity, "best_model_checkpoint": "NaN/-Infinity"})");
        saveBytes(run.filePath("config.json"),
                  R"({"num_attention_heads": 4, "initializer_range": NaN,)"
                  R"( "rope_scaling": {"factor": Infinity, "low_freq_factor": -Infinity}, "_name_or_path": "runs/NaN"})");
        QDir(run.path()).mkdir("nanochat");
        const QByteArray pickle = torchPickle({{"transformer.h.0.attn.c_q.weight", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, 0);
        saveBytes(run.filePath("nanochat/model_000700.pt"), zipArchive({{"model_000700/data.pkl", pickle}, {"model_000700/data/0", rawBytes(kSix)}}));
        saveBytes(run.filePath("nanochat/meta_000700.json"),
                  R"({"step": 777, "val_bpb": NaN, "model_config": {"n_head": 6, "loss_scale": -Infinity}})");

        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        const CheckpointFile &trainer = listing.checkpoints[0];
        QCOMPARE(trainer.stepFromSidecar, std::optional<qint64>(501));
        QVERIFY2(trainer.stepProblems.isEmpty(), qPrintable(trainer.stepProblems.join('\n')));
        QCOMPARE(trainer.configPath, QDir::cleanPath(run.filePath("config.json")));
        QCOMPARE(trainer.sidecarConfig.value("num_attention_heads").toInt(), 4);
        QVERIFY(trainer.sidecarConfig.contains("initializer_range") && trainer.sidecarConfig.value("initializer_range").isNull());
        QVERIFY(trainer.sidecarConfig.value("rope_scaling").toMap().value("factor").isNull());
        QCOMPARE(trainer.sidecarConfig.value("_name_or_path").toString(), QStringLiteral("runs/NaN"));
        const RunAnalysis analysis = RunAnalyzer().analyzeFolder(run.path());
        QCOMPARE(analysis.results.size(), 1);
        QCOMPARE(analysis.results[0].step, 501);

        const CheckpointListing nanochat = CheckpointDiscovery::scan(run.filePath("nanochat"));
        QCOMPARE(nanochat.checkpoints.size(), 1);
        QCOMPARE(nanochat.checkpoints[0].stepFromSidecar, std::optional<qint64>(777));
        QCOMPARE(nanochat.checkpoints[0].sidecarConfig.value("n_head").toInt(), 6);
        QCOMPARE(nanochat.checkpoints[0].configPath, QDir::cleanPath(run.filePath("nanochat/meta_000700.json")));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestFormatReaders)
} // namespace tst_formatreaders

#include "tst_FormatReaders.moc"
