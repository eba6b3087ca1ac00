#include "analysis/execution/RunAnalyzer.h"
#include "FormatWriters.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "io/megatron/MegatronConfig.h"
#include "io/torch/PickleReader.h"
#include "io/torch/TorchCheckpointReader.h"
#include "TestSuite.h"
#include "TorchCheckpointWriter.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <algorithm>
#include <cstring>
#include <random>

namespace tst_torchcheckpointreader {

using namespace rankscope;
using namespace rankscope::test;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QByteArray checkpoint(const QList<FakeTensor> &tensors, const QList<QPair<QString, QByteArray>> &storages,
                      qint64 step, const QString &prefix = "my_run", const QByteArray &byteOrder = "little")
{
    QList<QPair<QString, QByteArray>> entries{{prefix + "/data.pkl", torchPickle(tensors, step)},
                                              {prefix + "/byteorder", byteOrder}};
    for (const auto &[key, data] : storages)
        entries.append({prefix + "/data/" + key, data});
    entries.append({prefix + "/version", "3\n"});
    return zipArchive(entries);
}

std::unique_ptr<CheckpointReader> openBytes(const QTemporaryDir &dir, const QByteArray &bytes, QString *error)
{
    const QString path = dir.filePath("t.pt");
    QFile::remove(path);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(bytes);
    f.close();
    return openCheckpoint(path, error);
}

// The same archive as zipArchive, but with every size and offset in ZIP64 records, as writers
// do for archives past 4 GiB.
QByteArray zip64Archive(const QList<QPair<QString, QByteArray>> &entries)
{
    QByteArray out, directory;
    auto u16 = [](QByteArray &b, quint16 v) { char c[2]; qToLittleEndian(v, c); b.append(c, 2); };
    auto u32 = [](QByteArray &b, quint32 v) { char c[4]; qToLittleEndian(v, c); b.append(c, 4); };
    auto u64 = [](QByteArray &b, quint64 v) { char c[8]; qToLittleEndian(v, c); b.append(c, 8); };
    for (const auto &[name, data] : entries) {
        const quint64 offset = quint64(out.size());
        const QByteArray n = name.toUtf8();
        u32(out, 0x04034b50); u16(out, 45); u16(out, 8); u16(out, 0); u16(out, 0); u16(out, 0);
        u32(out, 0); u32(out, 0xFFFFFFFF); u32(out, 0xFFFFFFFF); u16(out, quint16(n.size())); u16(out, 0);
        out.append(n).append(data);
        u32(directory, 0x02014b50); u16(directory, 45); u16(directory, 45); u16(directory, 8); u16(directory, 0);
        u16(directory, 0); u16(directory, 0); u32(directory, 0);
        u32(directory, 0xFFFFFFFF); u32(directory, 0xFFFFFFFF);
        u16(directory, quint16(n.size())); u16(directory, 28); u16(directory, 0); u16(directory, 0); u16(directory, 0);
        u32(directory, 0); u32(directory, 0xFFFFFFFF);
        directory.append(n);
        u16(directory, 0x0001); u16(directory, 24); u64(directory, quint64(data.size())); u64(directory, quint64(data.size())); u64(directory, offset);
    }
    const quint64 directoryOffset = quint64(out.size());
    out.append(directory);
    const quint64 zip64End = quint64(out.size());
    u32(out, 0x06064b50); u64(out, 44); u16(out, 45); u16(out, 45); u32(out, 0); u32(out, 0);
    u64(out, quint64(entries.size())); u64(out, quint64(entries.size())); u64(out, quint64(directory.size())); u64(out, directoryOffset);
    u32(out, 0x07064b50); u32(out, 0); u64(out, zip64End); u32(out, 1);
    u32(out, 0x06054b50); u16(out, 0); u16(out, 0); u16(out, 0xFFFF); u16(out, 0xFFFF);
    u32(out, 0xFFFFFFFF); u32(out, 0xFFFFFFFF); u16(out, 0);
    return out;
}

// nanoGPT's pickle of one 2×3 tensor "w", with one more top-level entry whose value `valueOps` pushes.
QByteArray withExtraEntry(const QByteArray &valueOps)
{
    const QByteArray pickle = torchPickle({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, 0);
    PickleBuilder extra;
    extra.str("hparams");
    return pickle.chopped(2) + extra.bytes + valueOps + "u.";
}

QByteArray checkpointWithExtraEntry(const QByteArray &valueOps)
{
    return zipArchive({{"archive/data.pkl", withExtraEntry(valueOps)}, {"archive/data/0", rawBytes<float>({1, 2, 3, 4, 5, 6})}});
}

} // namespace

class TestTorchCheckpointReader : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void readsFloat32ValuesShapeAndStep()
    {
        const QList<float> values{1, 2, 3, 4, 5, 6};
        QString error;
        auto reader = openBytes(m_dir, checkpoint({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, {{"0", rawBytes(values)}}, 250), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("pytorch"));
        QCOMPARE(reader->step(), std::optional<qint64>(250));
        QCOMPARE(reader->tensors().size(), 1);
        QCOMPARE(reader->tensors()[0].shape, (QList<qint64>{2, 3}));
        QCOMPARE(reader->tensors()[0].dtype, QStringLiteral("float32"));
        const MatrixRead m = reader->readMatrix("w");
        QVERIFY2(m.ok(), qPrintable(m.error));
        QCOMPARE(m.values(0, 0), 1.0);
        QCOMPARE(m.values(0, 2), 3.0);
        QCOMPARE(m.values(1, 0), 4.0);
        QCOMPARE(m.values(1, 2), 6.0);
    }

    // A DCP .distcp file holds one torch.save archive per chunk at (offset, length); a .nemo tar a
    // member: the archive is read in place, and nothing outside its bytes.
    void readsAnArchiveInsideALargerFile()
    {
        const QByteArray first = checkpoint({{"a", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, {{"0", rawBytes<float>({1, 2, 3, 4, 5, 6})}}, 1);
        const QByteArray second = checkpoint({{"b", "FloatStorage", "0", 4, 0, {2, 2}, {2, 1}}}, {{"0", rawBytes<float>({7, 8, 9, 10})}}, 2);
        const QByteArray padding(37, 'x');
        const QString path = m_dir.filePath("chunks.distcp");
        writeFile(path, first + padding + second + padding);
        QString error;
        auto one = TorchCheckpointReader::openArchive(path, 0, first.size(), &error);
        QVERIFY2(one, qPrintable(error));
        QCOMPARE(one->tensors().value(0).name, QStringLiteral("a"));
        auto two = TorchCheckpointReader::openArchive(path, first.size() + padding.size(), second.size(), &error);
        QVERIFY2(two, qPrintable(error));
        QCOMPARE(two->tensors().value(0).name, QStringLiteral("b"));
        const MatrixRead m = two->readMatrix("b");
        QVERIFY2(m.ok(), qPrintable(m.error));
        QCOMPARE(m.values(1, 1), 10.0);
        QCOMPARE(two->step(), std::optional<qint64>(2));
        // A window cut short of its archive's end record, or past the file, is refused.
        QVERIFY(!TorchCheckpointReader::openArchive(path, first.size() + padding.size(), second.size() - 10, &error));
        QVERIFY(!TorchCheckpointReader::openArchive(path, first.size(), qint64(1) << 40, &error));
        QVERIFY2(error.contains("outside the file"), qPrintable(error));
        // Offsets are the window's own: one byte late, every entry misses its header.
        QVERIFY(!TorchCheckpointReader::openArchive(path, first.size() + padding.size() + 1, second.size() - 1, &error));
        QVERIFY2(error.contains("damaged"), qPrintable(error));
    }

    // DCP metadata classes and argparse.Namespace keep their fields only in BUILD's state;
    // torch.Size is a REDUCE of a tuple. Both stay data: nothing is instantiated.
    void objectStateAndSizesAreKept()
    {
        PickleBuilder p;
        p.op('\x80').op('\x02').op('}').op('(');
        p.str("args").global("argparse", "Namespace").op(')').op('\x81').op('}').op('(').str("num_layers").integer(12).str("swiglu").op('\x88').op('u').op('b');
        p.str("shape").global("torch", "Size").op('(').intTuple({4, 8}).op('t').op('R');
        p.str("stage").global("deepspeed.runtime.zero.config", "ZeroStageEnum").op('(').integer(3).op('t').op('R');
        p.op('u').op('.');
        const PickleResult result = readPickle(p.bytes);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        const PickleRef args = result.root->value("args");
        QCOMPARE(args->kind, PickleValue::Kind::Opaque);
        QCOMPARE(args->text, QStringLiteral("argparse.Namespace"));
        QVERIFY(args->state);
        QCOMPARE(args->state->value("num_layers")->integer, 12);
        QCOMPARE(args->state->value("swiglu")->integer, 1);
        const PickleRef shape = result.root->value("shape");
        QCOMPARE(shape->kind, PickleValue::Kind::Tuple);
        QCOMPARE(shape->items.size(), 2);
        QCOMPARE(shape->items[1]->integer, 8);
        const PickleRef stage = result.root->value("stage");
        QCOMPARE(stage->kind, PickleValue::Kind::Opaque);
        QCOMPARE(stage->items.value(0)->integer, 3);
        QVERIFY(result.unsafeGlobals.contains("argparse.Namespace"));
        const QVariantMap config = MegatronConfig::fromArgs(args);
        QCOMPARE(config.value("num_layers").toLongLong(), 12);
        QCOMPARE(config.value("gated_linear_unit").toBool(), true);
        QCOMPARE(config.value("model_type").toString(), QStringLiteral("megatron"));
    }

    // Each REDUCE of a global is listed with its arguments; a global that lands on the stack and
    // leaves it other than as a REDUCE's callable (kept in a list, dropped, instantiated by OBJ or
    // INST, left over after a DUP) is named as put to another use.
    void callsAndOtherUsesOfGlobalsAreRecorded()
    {
        PickleBuilder twice; // getattr memoized and called again from the memo, as CPython writes it
        twice.op('\x80').op('\x02').global("builtins", "getattr").op('q').op('\0');
        twice.global("enums", "Format").op('q').op('\1').str("A").op('\x86').op('R');
        twice.op('h').op('\0').op('h').op('\1').str("B").op('\x86').op('R').op('\x86').op('.');
        PickleResult result = readPickle(twice.bytes);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(result.calls.size(), 2);
        QCOMPARE(result.calls[1].callable, QStringLiteral("builtins.getattr"));
        QCOMPARE(result.calls[1].args->items.size(), 2);
        QCOMPARE(result.calls[1].args->items[1]->text, QStringLiteral("B"));
        QCOMPARE(result.calls[1].value, result.root->items[1]);
        QCOMPARE(result.globalsNotOnlyCalled, QStringList{"enums.Format"}); // an argument, never called

        const QList<std::pair<const char *, QByteArray>> otherUses = {
            {"kept in a list", QByteArray("]cbuiltins\ngetattr\na.")},
            {"dropped", QByteArray("cbuiltins\ngetattr\n0N.")},
            {"called by OBJ", QByteArray("(cbuiltins\ngetattr\nN\x85o.")},
            {"called by INST", QByteArray("(N\x85ibuiltins\ngetattr\n.")},
            {"duplicated, called once", QByteArray("cbuiltins\ngetattr\n2(NNtR\x86.")}};
        for (const auto &[use, ops] : otherUses) {
            result = readPickle("\x80\x02" + ops);
            QVERIFY2(result.error.isEmpty(), qPrintable(use + QStringLiteral(": ") + result.error));
            QVERIFY2(result.globalsNotOnlyCalled == QStringList{"builtins.getattr"}, use);
        }
    }

    // Megatron's arguments.py: one query group per head unless group_query_attention is on.
    void megatronFieldsResolveAsMegatronDoes()
    {
        const QVariantMap base{{"num_attention_heads", 8}, {"hidden_size", 64}, {"num_query_groups", 2}};
        QVariantMap grouped = base;
        grouped.insert("group_query_attention", true);
        QCOMPARE(MegatronConfig::resolved(grouped).value("num_query_groups").toLongLong(), 2);
        QCOMPARE(MegatronConfig::resolved(grouped).value("num_key_value_heads").toLongLong(), 2);
        QCOMPARE(MegatronConfig::resolved(grouped).value("kv_channels").toLongLong(), 8);
        QVariantMap plain = base;
        plain.insert("group_query_attention", false);
        QCOMPARE(MegatronConfig::resolved(plain).value("num_query_groups").toLongLong(), 8);
        // NeMo's yaml has no flag: num_query_groups given means grouped, null means multi-head.
        QCOMPARE(MegatronConfig::resolved(base).value("num_query_groups").toLongLong(), 2);
        QCOMPARE(MegatronConfig::resolved({{"num_attention_heads", 8}, {"hidden_size", 64}}).value("num_query_groups").toLongLong(), 8);
        QCOMPARE(MegatronConfig::resolved({{"activation", "fast-geglu"}}).value("gated_linear_unit").toBool(), true);
        QCOMPARE(MegatronConfig::resolved({{"activation", "gelu"}}).value("gated_linear_unit").toBool(), false);
    }

    void readsHalfBFloatAndDouble()
    {
        // 1.5, -2, 0.25 in each encoding.
        const QByteArray half = rawBytes<quint16>({0x3E00, 0xC000, 0x3400});
        const QByteArray bf16 = rawBytes<quint16>({0x3FC0, 0xC000, 0x3E80});
        const QByteArray f64 = rawBytes<double>({1.5, -2.0, 0.25});
        QString error;
        auto reader = openBytes(m_dir,
                                checkpoint({{"h", "HalfStorage", "0", 3, 0, {1, 3}, {3, 1}},
                                            {"b", "BFloat16Storage", "1", 3, 0, {3, 1}, {1, 1}},
                                            {"d", "DoubleStorage", "2", 3, 0, {1, 3}, {3, 1}}},
                                           {{"0", half}, {"1", bf16}, {"2", f64}}, 0),
                                &error);
        QVERIFY2(reader, qPrintable(error));
        for (const char *name : {"h", "b", "d"}) {
            const MatrixRead m = reader->readMatrix(name);
            QVERIFY2(m.ok(), qPrintable(m.error));
            QCOMPARE(m.values.size(), 3);
            QCOMPARE(m.values.data()[0], 1.5);
            QCOMPARE(m.values.data()[1], -2.0);
            QCOMPARE(m.values.data()[2], 0.25);
        }
    }

    void gathersNonContiguousViewsAndSharedStorages()
    {
        // storage 0..11; "t" is the transpose view [3, 2] of a [2, 3] block starting at element 6;
        // "tied" shares the same storage key.
        QList<float> values;
        for (int i = 0; i < 12; ++i)
            values << float(i);
        QString error;
        auto reader = openBytes(m_dir,
                                checkpoint({{"t", "FloatStorage", "7", 12, 6, {3, 2}, {1, 3}},
                                            {"tied", "FloatStorage", "7", 12, 0, {2, 6}, {6, 1}}},
                                           {{"7", rawBytes(values)}}, 1),
                                &error);
        QVERIFY2(reader, qPrintable(error));
        const MatrixRead t = reader->readMatrix("t");
        QVERIFY2(t.ok(), qPrintable(t.error));
        QCOMPARE(t.values(0, 0), 6.0);
        QCOMPARE(t.values(0, 1), 9.0);
        QCOMPARE(t.values(2, 0), 8.0);
        QCOMPARE(t.values(2, 1), 11.0);
        const MatrixRead tied = reader->readMatrix("tied");
        QCOMPARE(tied.values(1, 5), 11.0);
    }

    void bigEndianArchives()
    {
        QString error;
        auto reader = openBytes(m_dir, checkpoint({{"w", "FloatStorage", "0", 2, 0, {1, 2}, {2, 1}}},
                                                  {{"0", rawBytes<float>({3.5f, -1.0f}, true)}}, 0, "archive", "big"),
                                &error);
        QVERIFY2(reader, qPrintable(error));
        const MatrixRead m = reader->readMatrix("w");
        QCOMPARE(m.values(0, 0), 3.5);
        QCOMPARE(m.values(0, 1), -1.0);
    }

    void zip64Archives()
    {
        QString error;
        auto reader = openBytes(m_dir, zip64Archive({{"big/data.pkl", torchPickle({{"w", "FloatStorage", "0", 2, 0, {1, 2}, {2, 1}}}, 9)},
                                                     {"big/data/0", rawBytes<float>({2.5f, -4.0f})}}),
                                &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->step(), std::optional<qint64>(9));
        QCOMPARE(reader->readMatrix("w").values(0, 1), -4.0);
    }

    // torch 2.x writes _rebuild_tensor_v3 (dtype given), wraps parameters in _rebuild_parameter and
    // tensor subclasses in _rebuild_from_type_v2; Lightning keeps weights under "state_dict".
    void rebuildVariantsAndStateDictKey()
    {
        auto storage = [](PickleBuilder &p, const char *cls, const char *key, qint64 numel) {
            p.op('(').str("storage").global("torch", cls).str(key).str("cpu").integer(numel).op('t').op('Q');
        };
        PickleBuilder p;
        p.op('\x80').op('\x02').op('}').op('(').str("epoch").integer(3).str("global_step").integer(1234);
        p.str("state_dict").global("collections", "OrderedDict").op(')').op('R').op('(');
        // v3: (storage, offset, size, stride, requires_grad, hooks, dtype, metadata)
        p.str("v3").global("torch._utils", "_rebuild_tensor_v3").op('(');
        storage(p, "UntypedStorage", "0", 8);
        p.integer(0).intTuple({1, 2}).intTuple({2, 1}).op('\x89').global("collections", "OrderedDict").op(')').op('R');
        p.global("torch", "float32").op(')').op('t').op('R');
        // _rebuild_parameter(_rebuild_tensor_v2(...), requires_grad, hooks)
        p.str("param").global("torch._utils", "_rebuild_parameter").op('(');
        p.global("torch._utils", "_rebuild_tensor_v2").op('(');
        storage(p, "FloatStorage", "1", 2);
        p.integer(0).intTuple({1, 2}).intTuple({2, 1}).op('\x89').global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        p.op('\x88').global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        // _rebuild_from_type_v2(func, type, args, state)
        p.str("sub").global("torch._tensor", "_rebuild_from_type_v2").op('(');
        p.global("torch._utils", "_rebuild_tensor_v2").global("torch.nn.parameter", "Parameter");
        p.op('(');
        storage(p, "HalfStorage", "2", 2);
        p.integer(0).intTuple({1, 2}).intTuple({2, 1}).op('\x89').global("collections", "OrderedDict").op(')').op('R').op('t');
        p.op('}').op('t').op('R');
        p.op('u').op('u').op('.');
        QString error;
        auto reader = openBytes(m_dir, zipArchive({{"x/data.pkl", p.bytes}, {"x/data/0", rawBytes<float>({1.5f, 2.5f})},
                                                   {"x/data/1", rawBytes<float>({3, 4})}, {"x/data/2", rawBytes<quint16>({0x3C00, 0xC000})}}),
                                &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->step(), std::optional<qint64>(1234));
        QCOMPARE(reader->tensors().size(), 3);
        QCOMPARE(reader->tensors()[0].dtype, QStringLiteral("float32"));
        QCOMPARE(reader->readMatrix("v3").values(0, 1), 2.5);
        QCOMPARE(reader->readMatrix("param").values(0, 0), 3.0);
        QCOMPARE(reader->readMatrix("sub").values(0, 1), -2.0);
    }

    void unsupportedDtypeFailsThatTensorOnly()
    {
        QString error;
        auto reader = openBytes(m_dir,
                                checkpoint({{"ints", "LongStorage", "0", 2, 0, {1, 2}, {2, 1}},
                                            {"w", "FloatStorage", "1", 2, 0, {1, 2}, {2, 1}}},
                                           {{"0", rawBytes<qint64>({1, 2})}, {"1", rawBytes<float>({1, 2})}}, 0),
                                &error);
        QVERIFY2(reader, qPrintable(error));
        QVERIFY(reader->readMatrix("ints").error.contains("unsupported dtype int64"));
        QVERIFY(reader->readMatrix("w").ok());
    }

    // Two entries of one name: this reader took the first data.pkl but the last data/0, so zeros
    // were analysed where torch.load sees the real weights. Refused, in .pt and .npz alike.
    void duplicateZipEntryNamesAreRefused()
    {
        const QByteArray pickle = torchPickle({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, 0);
        for (const QList<QPair<QString, QByteArray>> &entries :
             {QList<QPair<QString, QByteArray>>{{"archive/data.pkl", pickle}, {"archive/data/0", rawBytes<float>({1, 2, 3, 4, 5, 6})}, {"archive/data/0", QByteArray(24, '\0')}},
              QList<QPair<QString, QByteArray>>{{"archive/data.pkl", pickle}, {"archive/data.pkl", pickle}, {"archive/data/0", rawBytes<float>({1, 2, 3, 4, 5, 6})}}}) {
            QString error;
            QVERIFY(!openBytes(m_dir, zipArchive(entries), &error));
            QVERIFY2(error.contains("two entries named archive/data"), qPrintable(error));
        }
        const QString npz = m_dir.filePath("twice.npz");
        saveBytes(npz, zipArchive({{"w.npy", npyFile("<f4", {2, 3}, rawBytes<float>({1, 2, 3, 4, 5, 6}))},
                                   {"w.npy", npyFile("<f4", {2, 3}, QByteArray(24, '\0'))}}));
        QString error;
        QVERIFY(!openCheckpoint(npz, &error));
        QVERIFY2(error.contains("two entries named w.npy"), qPrintable(error));
    }

    void storageTooSmallIsAnError()
    {
        QString error;
        auto reader = openBytes(m_dir, checkpoint({{"w", "FloatStorage", "0", 6, 0, {2, 3}, {3, 1}}}, {{"0", rawBytes<float>({1, 2})}}, 0), &error);
        QVERIFY(reader);
        QVERIFY(reader->readMatrix("w").error.contains("fewer than the tensor needs"));
    }

    // torch's weights_only allow-list, not a deny-list: every global it does not allow makes the file
    // "unsafe pickle: it references X", code-running or benign-looking, and nothing is ever run.
    // The tensors beside it are still read, and the file is reported with them.
    void unsafePickleIsReportedAndNothingRuns()
    {
        const QString marker = m_dir.filePath("pwned");
        const QList<std::pair<const char *, const char *>> globals = {
            {"os", "system"}, {"posix", "system"}, {"subprocess", "check_output"}, {"__builtin__", "eval"}, {"builtins", "exec"},
            // missed by the deny-list this replaces
            {"cProfile", "run"}, {"profile", "run"}, {"pydoc", "pipepager"}, {"_posixsubprocess", "fork_exec"},
            {"uuid", "_get_command_stdout"}, {"distutils.spawn", "spawn"}, {"pip", "main"},
            {"numpy.testing._private.utils", "runstring"}, {"torch.serialization", "_load"}, {"torch.storage", "_load_from_bytes"},
            // benign, and still not what torch loads: kept as opaque values
            {"types", "SimpleNamespace"}, {"functools", "partial"}};
        for (const auto &[module, name] : globals) {
            const QString qualified = QStringLiteral("%1.%2").arg(module == QLatin1String("__builtin__") ? "builtins" : module, name);
            PickleBuilder call;
            call.global(module, name).op('(').str("touch " + marker).op('t').op('R');
            const PickleResult result = readPickle(withExtraEntry(call.bytes));
            QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
            QCOMPARE(result.unsafeGlobals, QStringList{qualified});

            QString error;
            auto reader = openBytes(m_dir, checkpointWithExtraEntry(call.bytes), &error);
            QVERIFY2(reader, qPrintable(error));
            QCOMPARE(reader->warnings().size(), 1);
            QVERIFY2(reader->warnings().first().startsWith("unsafe pickle: it references " + qualified + ", which torch.load"),
                     qPrintable(reader->warnings().first()));
            QVERIFY(reader->warnings().first().contains("nothing was executed, and its tensors were read"));
            QVERIFY(reader->readMatrix("w").ok());
            QVERIFY(!QFile::exists(marker));
        }
        // What torch itself writes is clean, Python 2 names (__builtin__ set) included.
        PickleBuilder allowed;
        allowed.global("__builtin__", "set").op('(').op(']').op('t').op('R');
        QString error;
        auto clean = openBytes(m_dir, checkpointWithExtraEntry(allowed.bytes), &error);
        QVERIFY2(clean, qPrintable(error));
        QVERIFY2(clean->warnings().isEmpty(), qPrintable(clean->warnings().join('\n')));

        // A file that cannot be read at all is still called unsafe.
        PickleBuilder bare;
        bare.op('\x80').op('\x02').global("os", "system").op('(').str("touch " + marker).op('t').op('R').op('.');
        QVERIFY(!openBytes(m_dir, zipArchive({{"archive/data.pkl", bare.bytes}}), &error));
        QVERIFY2(error.startsWith("unsafe pickle: it references os.system") && error.endsWith("the pickled object is not a dict of tensors"),
                 qPrintable(error));
        QVERIFY(!QFile::exists(marker));
    }

    // Each message says what is wrong once, and rightly: the tensor's name once, a negative offset as
    // an offset, a view's shape in the order it is stored.
    void messagesSayWhatIsWrong()
    {
        QTemporaryDir folder;
        const QByteArray storage = rawBytes<float>(QList<float>(256, 1.0f));
        const QString name = "transformer.h.0.attn.c_proj.weight";
        const QList<std::pair<FakeTensor, QString>> cases = {
            {{name, "FloatStorage", "0", 256, 0, {32, 16}, {16, 1}}, "ckpt_000100.pt: " + name + ": [32, 16] lies outside its storage of 256 elements"},
            {{name, "FloatStorage", "0", 256, -4, {16, 16}, {16, 1}}, "ckpt_000200.pt: " + name + ": has a negative storage offset (-4)"},
            {{name, "FloatStorage", "0", 256, 0, {0, 16}, {16, 1}}, "ckpt_000300.pt: " + name + ": has an empty shape [0, 16]"},
            {{"model.layers.0.mlp.experts.down_proj", "FloatStorage", "0", 256, 128, {2, 8, 8}, {-64, 8, 1}},
             "ckpt_000400.pt: model.layers.0.mlp.experts.down_proj: has negative strides (-64, 8, 1)"}};
        for (qsizetype i = 0; i < cases.size(); ++i)
            writeFile(folder.filePath(QStringLiteral("ckpt_%1.pt").arg((i + 1) * 100, 6, 10, QLatin1Char('0'))),
                      checkpoint({cases[i].first}, {{"0", storage}}, (i + 1) * 100));
        const RunAnalysis run = RunAnalyzer().analyzeFolder(folder.path());
        QStringList texts;
        for (const AnalysisIssue &issue : run.issues)
            texts << issue.text();
        for (const auto &[tensor, expected] : cases)
            QVERIFY2(texts.contains(expected), qPrintable(texts.join('\n')));
        // A matrix read outside the layout still says rows × columns as stored.
        QString error;
        auto reader = openBytes(m_dir, checkpoint({{"w", "FloatStorage", "0", 256, 0, {0, 16}, {16, 1}}}, {{"0", storage}}, 0), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->readMatrix("w").error, QStringLiteral("is empty (shape 0×16)"));
    }

    void damagedFilesGetClearErrors()
    {
        const QByteArray good = checkpoint({{"w", "FloatStorage", "0", 2, 0, {1, 2}, {2, 1}}}, {{"0", rawBytes<float>({1, 2})}}, 0);
        QString error;
        QVERIFY(!openBytes(m_dir, QByteArray(), &error));
        QVERIFY2(error.contains("empty file"), qPrintable(error));
        QVERIFY(!openBytes(m_dir, good.left(good.size() - 30), &error));
        QVERIFY2(error.contains("truncated"), qPrintable(error));
        std::mt19937 rng(5);
        QByteArray noise(4096, Qt::Uninitialized);
        for (char &c : noise)
            c = char(rng());
        QVERIFY(!openBytes(m_dir, noise, &error));
        QVERIFY2(error.contains("not a recognised"), qPrintable(error));
        QVERIFY(!openBytes(m_dir, QByteArray("PK\x03\x04", 4) + noise, &error));
        QVERIFY2(!error.isEmpty(), "random bytes after a zip signature");

        // A directory entry whose local-header offset points past the end of the file.
        QByteArray outside = good;
        const qsizetype directory = outside.indexOf(QByteArray("PK\x01\x02", 4));
        qToLittleEndian<quint32>(0x7FFFFFF0u, outside.data() + directory + 42);
        QVERIFY(!openBytes(m_dir, outside, &error));
        QVERIFY2(error.contains("outside the file"), qPrintable(error));

        // A pickle cut short.
        QByteArray pickle = torchPickle({{"w", "FloatStorage", "0", 2, 0, {1, 2}, {2, 1}}}, 0);
        QVERIFY(!openBytes(m_dir, zipArchive({{"archive/data.pkl", pickle.left(pickle.size() / 2)}}), &error));
        QVERIFY2(error.contains("truncated") || error.contains("STOP"), qPrintable(error));

        QVERIFY(!openBytes(m_dir, zipArchive({{"archive/constants.pkl", "x"}, {"archive/code/m.py", "x"}}), &error));
        QVERIFY2(error.contains("TorchScript"), qPrintable(error));
        QVERIFY(!openBytes(m_dir, QByteArray("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14), &error));
        QVERIFY2(error.contains("legacy"), qPrintable(error));
    }

    // A folder with good and bad files: each bad one named with its reason, the good ones analysed.
    void badFilesDoNotStopTheFolder()
    {
        QTemporaryDir folder;
        const QDir demo(RANKSCOPE_DEMO_RUN);
        QVERIFY(QFile::copy(demo.filePath("ckpt_000000.pt"), folder.filePath("ckpt_000000.pt")));
        QVERIFY(QFile::copy(demo.filePath("ckpt_001500.pt"), folder.filePath("ckpt_001500.pt")));
        QFile full(demo.filePath("ckpt_000100.pt"));
        QVERIFY(full.open(QIODevice::ReadOnly));
        writeFile(folder.filePath("ckpt_000100.pt"), full.read(full.size() / 2)); // truncated
        writeFile(folder.filePath("ckpt_000200.pt"), QByteArray());
        PickleBuilder evil;
        evil.op('\x80').op('\x02').global("os", "system").op('(').str("touch " + folder.filePath("pwned")).op('t').op('R').op('.');
        writeFile(folder.filePath("ckpt_000300.pt"), zipArchive({{"archive/data.pkl", evil.bytes}}));
        Eigen::MatrixXd nan = Eigen::MatrixXd::Constant(4, 4, std::numeric_limits<double>::quiet_NaN());
        writeFile(folder.filePath("ckpt_000400.pt"),
                  checkpoint({{"transformer.h.0.attn.c_proj.weight", "FloatStorage", "0", 16, 0, {4, 4}, {4, 1}}},
                             {{"0", rawBytes<float>(QList<float>(16, std::numeric_limits<float>::quiet_NaN()))}}, 400));
        writeFile(folder.filePath("optimizer.pt"), "not weights");

        const RunAnalysis run = RunAnalyzer().analyzeFolder(folder.path());
        QCOMPARE(run.checkpointsFound, 6);
        QCOMPARE(run.checkpointsAnalysed, 2);
        QCOMPARE(run.results.size(), 48);
        QCOMPARE(run.sidecars.size(), 1);
        QStringList texts;
        for (const AnalysisIssue &issue : run.issues)
            texts << issue.text();
        const QString all = texts.join('\n');
        QVERIFY2(all.contains("ckpt_000100.pt: no zip end-of-directory record (truncated"), qPrintable(all));
        QVERIFY2(all.contains("ckpt_000200.pt: empty file"), qPrintable(all));
        QVERIFY2(all.contains("ckpt_000300.pt: unsafe pickle: it references os.system"), qPrintable(all));
        QVERIFY2(all.contains("ckpt_000400.pt: transformer.h.0.attn.c_proj.weight: matrix contains NaN or Inf (16 of 16"), qPrintable(all));
        QCOMPARE(run.issues.size(), 4);
        QVERIFY(!QFile::exists(folder.filePath("pwned")));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTorchCheckpointReader)
} // namespace tst_torchcheckpointreader

#include "tst_TorchCheckpointReader.moc"
