// torch.distributed.checkpoint folders as torch's FileSystemWriter, torchtitan, Megatron-Core's
// torch_dist and NeMo 2 write them (DcpCheckpointWriter.h says which revisions), read back
// exactly, and hostile .metadata refused by name without allocating what the files do not hold.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/execution/RunAnalyzer.h"
#include "DcpCheckpointWriter.h"
#include "io/CheckpointFormats.h"
#include "io/dcp/DcpMetadata.h"
#include "io/dcp/DistributedCheckpointReader.h"
#include "TestMatrices.h"
#include "TestSuite.h"

#include <QDir>
#include <QTemporaryDir>
#include <functional>

Q_DECLARE_METATYPE(rankscope::test::DcpTensorSpec)
Q_DECLARE_METATYPE(std::function<void(rankscope::test::DcpFolderSpec &)>)

namespace tst_distributedcheckpoint {

using namespace rankscope;
using namespace rankscope::test;

namespace {

// Element (r, c) of a [rows, cols] tensor whose element i is 1 + i (layer l of a stack: offset l·rows·cols).
RowMajorMatrix counting(qint64 rows, qint64 cols, qint64 layer = 0)
{
    RowMajorMatrix m(rows, cols);
    for (qint64 r = 0; r < rows; ++r)
        for (qint64 c = 0; c < cols; ++c)
            m(r, c) = double(1 + layer * rows * cols + r * cols + c);
    return m;
}

// w [4, 8] split 2×2 over two ranks: rank 0 holds the top half's two chunks, rank 1 the bottom's.
DcpTensorSpec twoByTwo(const QString &fqn = "w")
{
    return {fqn, {4, 8}, {{{0, 0}, {2, 4}, "__0_0.distcp"}, {{0, 4}, {2, 4}, "__0_0.distcp"},
                          {{2, 0}, {2, 4}, "__1_0.distcp"}, {{2, 4}, {2, 4}, "__1_0.distcp"}}};
}

// One Megatron-Core stacked parameter: [layers, out, in], one chunk per (layer, TP rank) of
// [1, out/tp, in] (column-parallel, split on rows) or [1, out, in/tp] (row-parallel, on columns),
// each TP rank's chunks in its own __tp_0.distcp.
DcpTensorSpec stacked(const QString &fqn, qint64 layers, qint64 out, qint64 in, bool onColumns, int tp = 2)
{
    DcpTensorSpec t{fqn, {layers, out, in}, {}};
    for (qint64 l = 0; l < layers; ++l)
        for (int r = 0; r < tp; ++r)
            t.chunks.append(onColumns ? DcpChunkSpec{{l, 0, r * in / tp}, {1, out, in / tp}, QStringLiteral("__%1_0.distcp").arg(r)}
                                      : DcpChunkSpec{{l, r * out / tp, 0}, {1, out / tp, in}, QStringLiteral("__%1_0.distcp").arg(r)});
    return t;
}

// common.pt: torch.save of Megatron's common state, args an argparse.Namespace (NEWOBJ + BUILD of its fields).
QByteArray megatronCommonState(qint64 iteration)
{
    PyObjects o;
    const PyRef args = o.newObj("argparse", "Namespace",
                                o.fields({{"num_layers", pyInt(2)}, {"hidden_size", pyInt(4)}, {"ffn_hidden_size", pyInt(8)},
                                          {"num_attention_heads", pyInt(2)}, {"group_query_attention", pyBool(false)},
                                          {"num_query_groups", pyInt(1)}, {"kv_channels", pyNone()}, {"swiglu", pyBool(false)},
                                          {"tensor_model_parallel_size", pyInt(2)}, {"pipeline_model_parallel_size", pyInt(1)}}));
    return torchSaveArchive(o.fields({{"args", args}, {"checkpoint_version", pyFloat(3.0)}, {"iteration", pyInt(iteration)},
                                      {"num_floating_point_operations_so_far", pyInt(0)}}), {});
}

// A Megatron torch_dist iter_N/ folder: 2 layers × 2 TP shards, as dist_checkpointing.save writes it.
void writeTorchDist(const QString &folder, const QString &prefix = QString(), qint64 iteration = 100)
{
    DcpFolderSpec spec;
    spec.megatron = true;
    spec.tensors = {stacked(prefix + "decoder.layers.self_attention.linear_qkv.weight", 2, 12, 4, false),
                    stacked(prefix + "decoder.layers.self_attention.linear_proj.weight", 2, 4, 4, true),
                    {prefix + "decoder.layers.self_attention.linear_qkv.layer_norm_weight", {2, 4},
                     {{{0, 0}, {1, 4}, "__0_0.distcp"}, {{1, 0}, {1, 4}, "__0_0.distcp"}}},
                    {prefix + "embedding.word_embeddings.weight", {16, 4}, {{{0, 0}, {8, 4}, "__0_0.distcp"}, {{8, 0}, {8, 4}, "__1_0.distcp"}}},
                    {"optimizer.state.exp_avg." + prefix + "embedding.word_embeddings.weight", {16, 4}, {{{0, 0}, {16, 4}, "__0_0.distcp"}}}};
    for (qint64 l = 0; l < 2; ++l)
        spec.objects.append({prefix + QStringLiteral("decoder.layers.self_attention.linear_qkv._extra_state/shard_%1.0_2.2").arg(l), "__0_0.distcp",
                             pyList({pyNone()})});
    QVERIFY(DcpFolderWriter::write(folder, spec));
    QVERIFY(DcpFolderWriter::writeBytes(QDir(folder).filePath("metadata.json"),
                                        R"({"sharded_backend": "torch_dist", "sharded_backend_version": 1, "common_backend": "torch", "common_backend_version": 1})"));
    QVERIFY(DcpFolderWriter::writeBytes(QDir(folder).filePath("common.pt"), megatronCommonState(iteration)));
}

std::unique_ptr<CheckpointReader> openFolder(const QString &folder)
{
    QString error;
    std::unique_ptr<CheckpointReader> reader = openCheckpoint(folder, &error);
    if (!reader)
        qWarning("%s", qPrintable(error));
    return reader;
}

// Why a read is not exactly `expected` (empty when it is): compared only once the shapes agree.
QString mismatch(const MatrixRead &read, const RowMajorMatrix &expected)
{
    if (!read.ok())
        return read.error;
    if (read.values.rows() != expected.rows() || read.values.cols() != expected.cols())
        return QStringLiteral("read %1×%2, not %3×%4").arg(read.values.rows()).arg(read.values.cols()).arg(expected.rows()).arg(expected.cols());
    return read.values == expected ? QString() : QStringLiteral("values differ");
}

QByteArray contents(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// How CPython 3.<minor>.<micro> pickles an Enum member: by name from 3.11.0 (python/cpython#26658)
// until 3.11.5 took #105348's return to pickling by value, which 3.12 has from its first release.
EnumPickling enumPicklingOf(int minor, int micro)
{
    return minor == 11 && micro <= 4 ? EnumPickling::ByName : EnumPickling::ByValue;
}

// Everything a .metadata says, one line a tensor, chunk or object, to compare two reads of it.
QString metadataText(const DcpMetadata &metadata)
{
    QStringList lines{metadata.metadataClass + QLatin1Char(' ') + metadata.version};
    auto list = [](const QList<qint64> &values) {
        QStringList parts;
        for (const qint64 v : values)
            parts << QString::number(v);
        return parts.join(QLatin1Char(','));
    };
    for (const DcpTensor &t : metadata.tensors) {
        lines << QStringLiteral("%1 %2 [%3]").arg(t.fqn, t.dtype, list(t.size));
        for (const DcpChunk &c : t.chunks)
            lines << QStringLiteral("  at [%1] of [%2]: %3")
                         .arg(list(c.offsets), list(c.sizes),
                              c.storage ? QStringLiteral("%1 %2+%3").arg(c.storage->relativePath).arg(c.storage->offset).arg(c.storage->length)
                                        : QStringLiteral("nowhere"));
    }
    lines << metadata.objects;
    return lines.join(QLatin1Char('\n'));
}

// getattr(_MEM_FORMAT_ENCODING, *arguments) as a pickled call.
PyRef getattrOfEnum(PyObjects &o, QList<PyRef> arguments)
{
    arguments.prepend(o.global("torch.distributed.checkpoint.metadata", "_MEM_FORMAT_ENCODING"));
    return o.reduce(o.global("builtins", "getattr"), pyTuple(arguments));
}

QStringList names(const CheckpointReader &reader)
{
    QStringList out;
    for (const TensorInfo &t : reader.tensors())
        out << t.name;
    return out;
}

} // namespace

class TestDistributedCheckpoint : public QObject {
    Q_OBJECT

private slots:
    void stitchesChunksOfTwoRanks()
    {
        QTemporaryDir dir;
        DcpFolderSpec spec;
        // A chunk saved from a transposed view keeps its strides (1, 3): read as they place it.
        spec.tensors = {twoByTwo(), {"v", {3, 2}, {{{0, 0}, {3, 2}, "__0_0.distcp", {1, 3}}}},
                        {"optimizer.state.w.exp_avg", {4, 8}, {{{0, 0}, {4, 8}, "__0_0.distcp"}}},
                        {"train_state.step", {}, {{{}, {}, "__0_0.distcp"}}}};
        spec.objects = {{"dataloader", "__0_0.distcp", pyDict({})}};
        QVERIFY(DcpFolderWriter::write(dir.path(), spec));
        const auto reader = openFolder(dir.path());
        QVERIFY(reader);
        QCOMPARE(names(*reader), QStringList({"w", "v"}));
        QCOMPARE(reader->tensors().first().shape, QList<qint64>({4, 8}));
        QCOMPARE(reader->tensors().first().dtype, QStringLiteral("float32"));
        QCOMPARE(mismatch(reader->readMatrix("w"), counting(4, 8)), QString());
        QCOMPARE(mismatch(reader->readMatrix("v"), counting(3, 2)), QString());
        // What was left out is counted, and is not a warning: the folder is not damaged.
        QVERIFY(reader->warnings().isEmpty());
        QVERIFY2(reader->formatName().contains("not read: 2 optimizer/training-state tensor(s), 1 pickled object(s)"), qPrintable(reader->formatName()));
    }

    void megatronTorchDistLayersAreMatrices()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath("iter_0000100");
        writeTorchDist(folder);
        const auto reader = openFolder(folder);
        QVERIFY(reader);
        QCOMPARE(reader->formatName().section(' ', 0, 1), QStringLiteral("Megatron torch_dist"));
        QCOMPARE(names(*reader), QStringList({"decoder.layers.0.self_attention.linear_qkv.weight", "decoder.layers.1.self_attention.linear_qkv.weight",
                                              "decoder.layers.0.self_attention.linear_proj.weight", "decoder.layers.1.self_attention.linear_proj.weight",
                                              "decoder.layers.0.self_attention.linear_qkv.layer_norm_weight",
                                              "decoder.layers.1.self_attention.linear_qkv.layer_norm_weight", "embedding.word_embeddings.weight"}));
        QCOMPARE(reader->tensors().first().shape, QList<qint64>({12, 4}));
        QCOMPARE(reader->tensors()[4].shape, QList<qint64>({4}));
        for (qint64 layer = 0; layer < 2; ++layer) {
            QCOMPARE(mismatch(reader->readMatrix(QStringLiteral("decoder.layers.%1.self_attention.linear_qkv.weight").arg(layer)), counting(12, 4, layer)),
                     QString());
            QCOMPARE(mismatch(reader->readMatrix(QStringLiteral("decoder.layers.%1.self_attention.linear_proj.weight").arg(layer)), counting(4, 4, layer)),
                     QString());
        }
        QCOMPARE(mismatch(reader->readMatrix("embedding.word_embeddings.weight"), counting(16, 4)), QString());
        QCOMPARE(reader->step(), std::optional<qint64>(100));
        QCOMPARE(reader->modelConfig().value("num_attention_heads").toLongLong(), 2);
        QCOMPARE(reader->modelConfig().value("kv_channels").toLongLong(), 2);
        QCOMPARE(reader->modelConfig().value("model_type").toString(), QStringLiteral("megatron"));
        QVERIFY(reader->warnings().isEmpty());
    }

    // End to end: the stacked layers of a torch_dist save are typed by Megatron's own rules (its
    // args from common.pt make it model_type megatron): linear_qkv split per query group into Q, K
    // and V of [4, 4] each, linear_proj the O, for both layers; nothing attention-like left out.
    void megatronTorchDistIsAnalysedByMegatronsRules()
    {
        QTemporaryDir dir;
        writeTorchDist(dir.filePath("iter_0000100"));
        RunAnalyzer analyzer;
        const RunAnalysis run = analyzer.analyzeFolder(dir.path());
        // Megatron's per-group rows: 2 query groups (one per head), each [q (2 rows); k (2); v (2)].
        auto part = [](const RowMajorMatrix &qkv, int offset) {
            RowMajorMatrix out(4, qkv.cols());
            for (int g = 0; g < 2; ++g)
                out.middleRows(2 * g, 2) = qkv.middleRows(6 * g + offset, 2);
            return out;
        };
        QStringList seen;
        for (const MatrixResult &r : run.results) {
            seen << QStringLiteral("%1 %2 %3x%4").arg(r.layer).arg(csvName(r.type)).arg(r.rows).arg(r.cols);
            const RowMajorMatrix qkv = counting(12, 4, r.layer);
            const int offset = r.type == MatrixType::Q ? 0 : r.type == MatrixType::K ? 2 : r.type == MatrixType::V ? 4 : -1;
            const RowMajorMatrix expected = offset < 0 ? counting(4, 4, r.layer) : part(qkv, offset);
            const double sigma = exactSingularValues(expected)(0);
            QVERIFY2(std::abs(r.singularValues(0) - sigma) < 1e-9 * sigma, qPrintable(r.tensor + QStringLiteral(": σ₁ %1, expected %2").arg(r.singularValues(0)).arg(sigma)));
        }
        seen.sort();
        QCOMPARE(seen, QStringList({"0 K 4x4", "0 O 4x4", "0 Q 4x4", "0 V 4x4", "1 K 4x4", "1 O 4x4", "1 Q 4x4", "1 V 4x4"}));
        for (const AnalysisIssue &issue : run.issues)
            QVERIFY2(!issue.text().contains("linear_"), qPrintable(issue.text()));
    }

    // Since Megatron-Core deprecated common.pt (40b1fd37c1) the common state is the BYTE_IO
    // item common_state/shard_0_1, a torch.save of [state].
    void megatronCommonStateInsideTheCheckpoint()
    {
        QTemporaryDir dir;
        PyObjects o;
        const PyRef args = o.newObj("argparse", "Namespace", o.fields({{"num_attention_heads", pyInt(4)}, {"hidden_size", pyInt(8)}}));
        DcpFolderSpec spec;
        spec.megatron = true;
        spec.tensors = {stacked("decoder.layers.mlp.linear_fc2.weight", 2, 8, 16, true)};
        spec.objects = {{"common_state/shard_0_1", "__0_0.distcp", pyList({o.fields({{"args", args}, {"iteration", pyInt(300)}})})}};
        QVERIFY(DcpFolderWriter::write(dir.path(), spec));
        QVERIFY(DcpFolderWriter::writeBytes(dir.filePath("metadata.json"), R"({"sharded_backend": "torch_dist", "sharded_backend_version": 1})"));
        const auto reader = openFolder(dir.path());
        QVERIFY(reader);
        QCOMPARE(reader->step(), std::optional<qint64>(300));
        QCOMPARE(reader->modelConfig().value("kv_channels").toLongLong(), 2);
        QCOMPARE(mismatch(reader->readMatrix("decoder.layers.1.mlp.linear_fc2.weight"), counting(8, 16, 1)), QString());
    }

    void torchtitanStepsAreOneRun()
    {
        QTemporaryDir dir;
        for (const int step : {10, 20}) {
            DcpFolderSpec spec;
            spec.tensors = {twoByTwo("model.layers.0.attention.wq.weight"), {"train_state.step", {}, {{{}, {}, "__0_0.distcp"}}}};
            spec.objects = {{"train_state.global_avg_losses", "__0_0.distcp", pyList({})}};
            QVERIFY(DcpFolderWriter::write(dir.filePath(QStringLiteral("step-%1").arg(step)), spec));
        }
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[0].stepFromName, std::optional<qint64>(10));
        QCOMPARE(listing.checkpoints[1].stepFromName, std::optional<qint64>(20));
        QCOMPARE(listing.checkpoints[0].layout, WeightsLayout::DistributedCheckpoint);
        QVERIFY(listing.skipped.isEmpty());
        QCOMPARE(listing.takenFor.size(), 1);
        QVERIFY2(listing.takenFor.first().startsWith("torch.distributed.checkpoint folders (torchtitan step-N/)") &&
                     listing.takenFor.first().endsWith(", 2 checkpoint(s)"),
                 qPrintable(listing.takenFor.first()));
        int index = 0, chunks = 0;
        for (const ClassifiedFile &file : listing.files) {
            index += file.role == FileRole::ShardIndex && file.path.endsWith("/.metadata");
            chunks += file.role == FileRole::Shard && file.path.endsWith(".distcp");
        }
        QCOMPARE(index, 2);
        QCOMPARE(chunks, 4);
        QString error;
        const auto reader = listing.checkpoints[1].open(&error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(names(*reader), QStringList({"model.layers.0.attention.wq.weight"}));
        QCOMPARE(mismatch(reader->readMatrix("model.layers.0.attention.wq.weight"), counting(4, 8)), QString());
    }

    void megatronSaveFolderStepsFromIterations()
    {
        QTemporaryDir dir;
        writeTorchDist(dir.filePath("iter_0000100"), QString(), 100);
        writeTorchDist(dir.filePath("iter_0000200"), QString(), 200);
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[1].stepFromName, std::optional<qint64>(200));
        QCOMPARE(listing.checkpoints[1].format, QStringLiteral("Megatron torch_dist"));
        // common.pt is named as not being a checkpoint of its own (a .pt file), never as a problem.
        QCOMPARE(listing.skipped.size(), 2);
        for (const SkippedFile &skipped : listing.skipped)
            QVERIFY(skipped.path.endsWith("common.pt") && !skipped.problem);
        for (const ClassifiedFile &file : listing.files)
            if (file.path.endsWith("common.pt") || file.path.endsWith("metadata.json"))
                QCOMPARE(file.role, FileRole::TrainingSidecar);
    }

    void nemo2CheckpointReadsItsWeightsFolder()
    {
        QTemporaryDir dir;
        const QString checkpoint = dir.filePath("megatron_gpt--step=5-consumed_samples=40.0-last");
        writeTorchDist(QDir(checkpoint).filePath("weights"), "module.");
        QVERIFY(QDir(checkpoint).mkpath("context"));
        QVERIFY(DcpFolderWriter::writeBytes(QDir(checkpoint).filePath("context/model.yaml"), "_target_: nemo.collections.llm.gpt.model.GPTModel\n"));
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QCOMPARE(listing.checkpoints[0].path, QDir::cleanPath(QFileInfo(checkpoint).absoluteFilePath()));
        QCOMPARE(listing.checkpoints[0].stepFromName, std::optional<qint64>(5));
        QCOMPARE(listing.checkpoints[0].format, QStringLiteral("NeMo 2 torch_dist"));
        const auto reader = openFolder(checkpoint);
        QVERIFY(reader);
        QCOMPARE(reader->tensors().first().name, QStringLiteral("module.decoder.layers.0.self_attention.linear_qkv.weight"));
        QCOMPARE(mismatch(reader->readMatrix("module.decoder.layers.1.self_attention.linear_qkv.weight"), counting(12, 4, 1)), QString());
    }

    void refusesClassesOutsideTheAllowList()
    {
        QTemporaryDir dir;
        PyObjects o;
        DcpFolderSpec spec;
        spec.tensors = {twoByTwo()};
        spec.extraPlannerData = o.reduce(o.global("posix", "system"), pyTuple({pyStr("touch pwned")}));
        QVERIFY(DcpFolderWriter::write(dir.path(), spec));
        QString error;
        QVERIFY(!openCheckpoint(dir.path(), &error));
        QVERIFY2(error.contains(".metadata names posix.system, which is not a class torch.distributed.checkpoint writes"), qPrintable(error));
        QVERIFY(!QFile::exists(dir.filePath("pwned")));
    }

    // DCP's TensorProperties pickles its memory format as a member of an enum, which Python
    // 3.11.0–3.11.4 write as getattr(<enum class>, 'TORCH_CONTIGUOUS_FORMAT') and the others as
    // <enum class>(0): each reads to the same metadata and the same values. Debian 12's Python is
    // 3.11.2; torch 2.2 and before pickled the _shard copy of the enum.
    void readsTheEnumMemberAsEveryPythonPicklesIt_data()
    {
        QTest::addColumn<int>("minor");
        QTest::addColumn<int>("micro");
        QTest::addColumn<bool>("shard");
        QTest::newRow("Python 3.10.12: by value") << 10 << 12 << false;
        QTest::newRow("Python 3.11.2 (Debian 12): getattr by name") << 11 << 2 << false;
        QTest::newRow("Python 3.11.2, torch 2.2: the _shard enum by name") << 11 << 2 << true;
        QTest::newRow("Python 3.11.5: by value again") << 11 << 5 << false;
        QTest::newRow("Python 3.12.3: by value") << 12 << 3 << false;
    }

    void readsTheEnumMemberAsEveryPythonPicklesIt()
    {
        QFETCH(int, minor);
        QFETCH(int, micro);
        QFETCH(bool, shard);
        QTemporaryDir dir;
        DcpFolderSpec spec;
        spec.tensors = {twoByTwo(), {"v", {3, 2}, {{{0, 0}, {3, 2}, "__0_0.distcp", {1, 3}}}}};
        spec.objects = {{"dataloader", "__0_0.distcp", pyDict({})}};
        spec.enumPickling = enumPicklingOf(minor, micro);
        spec.shardProperties = shard;
        QVERIFY(DcpFolderWriter::write(dir.filePath("python"), spec));
        DcpFolderSpec byValue = spec;
        byValue.enumPickling = EnumPickling::ByValue;
        byValue.shardProperties = false;
        QVERIFY(DcpFolderWriter::write(dir.filePath("reference"), byValue));

        // The bytes CPython writes by name: STACK_GLOBAL builtins.getattr, the enum class, the
        // member's name, TUPLE2, REDUCE, each memoized (as CPython 3.11.7's pickle.dumps writes a
        // member whose __reduce_ex__ is enum.pickle_by_enum_name, 3.11.0–3.11.4's default).
        const QByteArray pickle = contents(dir.filePath("python/.metadata"));
        const bool byName = spec.enumPickling == EnumPickling::ByName;
        const QByteArray getattrGlobal = QByteArray("\x8c\x08") + "builtins\x94\x8c\x07getattr\x94\x93\x94"; // "\x08b" would be one escape
        QCOMPARE(pickle.contains(getattrGlobal), byName);
        QCOMPARE(pickle.contains("\x8c\x17TORCH_CONTIGUOUS_FORMAT\x94\x86\x94R\x94"), byName);
        QCOMPARE(pickle.contains("_shard.sharded_tensor.metadata"), shard);
        QString error;
        const std::optional<DcpMetadata> metadata = DcpMetadata::parse(pickle, &error);
        QVERIFY2(metadata, qPrintable(error));
        const std::optional<DcpMetadata> reference = DcpMetadata::parse(contents(dir.filePath("reference/.metadata")), &error);
        QVERIFY2(reference, qPrintable(error));
        QCOMPARE(metadataText(*metadata), metadataText(*reference));

        const auto reader = openFolder(dir.filePath("python"));
        QVERIFY(reader);
        QCOMPARE(names(*reader), QStringList({"w", "v"}));
        QCOMPARE(mismatch(reader->readMatrix("w"), counting(4, 8)), QString());
        QCOMPARE(mismatch(reader->readMatrix("v"), counting(3, 2)), QString());
        QVERIFY2(reader->warnings().isEmpty(), qPrintable(reader->warnings().join('\n')));
    }

    // getattr reaches anything (getattr(os, 'system'), a function's __globals__), so it is read only
    // as Python 3.11.0–3.11.4 write an enum member: any other use refuses the .metadata, naming the
    // call, and the good checkpoint beside it is still analysed.
    void refusesGetattrOfAnythingElse_data()
    {
        using Put = std::function<void(DcpFolderSpec &)>;
        QTest::addColumn<Put>("put");
        QTest::addColumn<QString>("reason");
        QTest::newRow("getattr(os, 'system')") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            const PyRef os = o.reduce(o.global("builtins", "__import__"), pyTuple({pyStr("os")}));
            const PyRef system = o.reduce(o.global("builtins", "getattr"), pyTuple({os, pyStr("system")}));
            spec.extraPlannerData = o.reduce(system, pyTuple({pyStr("touch pwned")}));
        }) << "calls getattr(builtins.__import__('os'), 'system'), which is not how Python names a member of DCP's memory-format enum: not read";
        QTest::newRow("getattr(enum, '__class__')") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            spec.memoryFormat = getattrOfEnum(o, {pyStr("__class__")});
        }) << "calls getattr(torch.distributed.checkpoint.metadata._MEM_FORMAT_ENCODING, '__class__'), which is not how";
        QTest::newRow("getattr(enum, not a member)") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            spec.memoryFormat = getattrOfEnum(o, {pyStr("TORCH_CHANNELS_LAST_3D")});
        }) << "calls getattr(torch.distributed.checkpoint.metadata._MEM_FORMAT_ENCODING, 'TORCH_CHANNELS_LAST_3D'), which is not how";
        QTest::newRow("getattr(enum)") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            spec.memoryFormat = getattrOfEnum(o, {});
        }) << "calls getattr(torch.distributed.checkpoint.metadata._MEM_FORMAT_ENCODING), which is not how";
        QTest::newRow("getattr(enum, member, default)") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            spec.memoryFormat = getattrOfEnum(o, {pyStr("TORCH_CONTIGUOUS_FORMAT"), pyNone()});
        }) << "calls getattr(torch.distributed.checkpoint.metadata._MEM_FORMAT_ENCODING, 'TORCH_CONTIGUOUS_FORMAT', None), which is not how";
        QTest::newRow("getattr(another allowed global, '__globals__')") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            spec.memoryFormat =
                o.reduce(o.global("builtins", "getattr"), pyTuple({o.global("torch.serialization", "_get_layout"), pyStr("__globals__")}));
        }) << "calls getattr(torch.serialization._get_layout, '__globals__'), which is not how";
        QTest::newRow("a member given a state") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            spec.memoryFormat = getattrOfEnum(o, {pyStr("TORCH_CONTIGUOUS_FORMAT")});
            spec.memoryFormat->state = pyDict({{pyStr("_value_"), pyInt(1)}});
        }) << "calls getattr(torch.distributed.checkpoint.metadata._MEM_FORMAT_ENCODING, 'TORCH_CONTIGUOUS_FORMAT') and gives the "
              "member a state (BUILD)";
        QTest::newRow("getattr kept, not called") << Put([](DcpFolderSpec &spec) {
            PyObjects o;
            spec.extraPlannerData = pyList({o.global("builtins", "getattr")});
        }) << "uses builtins.getattr other than by calling it, which torch.distributed.checkpoint never writes: not read";
    }

    void refusesGetattrOfAnythingElse()
    {
        using Put = std::function<void(DcpFolderSpec &)>;
        QFETCH(Put, put);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        for (const int step : {10, 20}) {
            DcpFolderSpec spec;
            spec.tensors = {twoByTwo("model.layers.0.attention.wq.weight")};
            spec.enumPickling = EnumPickling::ByName;
            if (step == 20)
                put(spec);
            QVERIFY(DcpFolderWriter::write(dir.filePath(QStringLiteral("step-%1").arg(step)), spec));
        }
        QString error;
        QVERIFY(!openCheckpoint(dir.filePath("step-20"), &error));
        QVERIFY2(error.startsWith(".metadata " + reason), qPrintable(error));

        const RunAnalysis run = RunAnalyzer().analyzeFolder(dir.path());
        QCOMPARE(run.checkpoints.size(), 2);
        QStringList analysed;
        for (const MatrixResult &r : run.results)
            analysed << QStringLiteral("%1 %2").arg(r.step).arg(r.tensor);
        QCOMPARE(analysed, QStringList{"10 model.layers.0.attention.wq.weight"});
        QCOMPARE(run.issues.size(), 1);
        QVERIFY2(run.issues.first().path.endsWith("step-20") && run.issues.first().message.startsWith(".metadata " + reason),
                 qPrintable(run.issues.first().text()));
        QVERIFY(!QFile::exists(dir.filePath("pwned")) && !QFile::exists("pwned"));
    }

    void refusesHostileChunks_data()
    {
        QTest::addColumn<DcpTensorSpec>("bad");
        QTest::addColumn<QString>("reason");
        DcpTensorSpec pastEnd = twoByTwo("bad");
        pastEnd.chunks[3].offsetOverride = 2500; // __1_0.distcp holds 4 chunks of 644 bytes, good's and bad's
        QTest::newRow("chunk past its file's end") << pastEnd << "has its chunk at [2, 4] at bytes [2500, 3144) of __1_0.distcp, which holds 2576 bytes";
        DcpTensorSpec pastShape = twoByTwo("bad");
        pastShape.chunks[3].declaredOffsets = {2, 6};
        QTest::newRow("chunk past the global shape") << pastShape << "has a chunk at [2, 6] of [2, 4] reaching past its global size [4, 8]";
        DcpTensorSpec overlap = twoByTwo("bad");
        overlap.chunks[1].declaredOffsets = {0, 2};
        QTest::newRow("overlapping chunks") << overlap << "has overlapping chunks: the one at [0, 0] and the one at [0, 2]";
        DcpTensorSpec gap = twoByTwo("bad");
        gap.declaredSize = {4, 9};
        QTest::newRow("a gap") << gap << "has a gap: no chunk holds its elements at [0, 8]";
        DcpTensorSpec missing = twoByTwo("bad");
        missing.chunks[3].pathOverride = "__7_0.distcp";
        QTest::newRow("missing .distcp") << missing << "has its chunk at [2, 4] in __7_0.distcp, which is missing";
        DcpTensorSpec traversal = twoByTwo("bad");
        traversal.chunks[0].pathOverride = "../__0_0.distcp";
        QTest::newRow("relative_path with ../") << traversal << "has its chunk at [0, 0] in '../__0_0.distcp', which is not a file name of this folder";
        DcpTensorSpec huge{"bad", {2, 4}, {{{0, 0}, {2, 4}, "__0_0.distcp"}}};
        huge.declaredSize = {1000000, 1000000};
        huge.chunks[0].declaredSizes = {1000000, 1000000};
        QTest::newRow("10^12 elements in a tiny folder") << huge << "has a chunk at [0, 0] that declares [1000000, 1000000] float32";
        // Each chunk is its own record: two chunks naming the same bytes would let a small folder
        // stand for a large matrix.
        DcpTensorSpec shared = twoByTwo("bad");
        shared.chunks[3].offsetOverride = 1288; // bad's chunk at [2, 0]
        QTest::newRow("two chunks in the same bytes") << shared << "has its chunk at [2, 4] in bytes [1288, 1932) of __1_0.distcp, which also "
                                                                   "hold bad's chunk at [2, 0]: two chunks cannot share bytes";
        DcpTensorSpec transformed = twoByTwo("bad");
        transformed.chunks[2].transforms = {"zstd"};
        QTest::newRow("stream transforms") << transformed << "has its chunk at [2, 0] stored through stream transforms (zstd), which are not supported";
    }

    // Each hostile tensor is refused by name, with the reason, when the folder is opened; the
    // tensor beside it is still read exactly.
    void refusesHostileChunks()
    {
        QFETCH(DcpTensorSpec, bad);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString folder = dir.filePath("step-1");
        DcpFolderSpec spec;
        spec.tensors = {twoByTwo("good"), bad};
        QVERIFY(DcpFolderWriter::write(folder, spec));
        if (QTest::currentDataTag() == QLatin1String("relative_path with ../"))
            QVERIFY(QFile::copy(QDir(folder).filePath("__0_0.distcp"), dir.filePath("__0_0.distcp")));
        const auto reader = openFolder(folder);
        QVERIFY(reader);
        QCOMPARE(names(*reader), QStringList({"good"}));
        QCOMPARE(reader->warnings().size(), 1);
        QVERIFY2(reader->warnings().first().startsWith("tensor bad " + reason), qPrintable(reader->warnings().first()));
        QCOMPARE(mismatch(reader->readMatrix("good"), counting(4, 8)), QString());
    }

    void safetensorsChunksAreNotSupported()
    {
        QTemporaryDir dir;
        DcpFolderSpec spec;
        DcpTensorSpec raw{"w", {2, 4}, {{{0, 0}, {2, 4}, "__0_0.distcp"}}};
        raw.chunks[0].pathOverride = "__1_0.distcp";
        raw.chunks[0].offsetOverride = 0;
        raw.chunks[0].lengthOverride = 32;
        spec.tensors = {raw};
        QVERIFY(DcpFolderWriter::write(dir.path(), spec));
        QVERIFY(DcpFolderWriter::writeBytes(dir.filePath("__1_0.distcp"), rawBytes<float>({1, 2, 3, 4, 5, 6, 7, 8})));
        const auto reader = openFolder(dir.path());
        QVERIFY(reader);
        const MatrixRead read = reader->readMatrix("w");
        QVERIFY(!read.ok());
        QVERIFY2(read.error.endsWith("not a torch.save archive (DCP's safetensors serialization?), which is not supported"), qPrintable(read.error));
    }

    void chunkFilesWithoutMetadataAreNamed()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath("step-1");
        DcpFolderSpec spec;
        spec.tensors = {twoByTwo()};
        QVERIFY(DcpFolderWriter::write(folder, spec));
        QVERIFY(QFile::remove(QDir(folder).filePath(".metadata")));
        const CheckpointListing listing = CheckpointDiscovery::scan(folder);
        QVERIFY(listing.checkpoints.isEmpty());
        QCOMPARE(listing.skipped.size(), 2);
        QVERIFY2(listing.skipped.first().reason.contains("its folder has no .metadata"), qPrintable(listing.skipped.first().reason));
        QVERIFY(listing.skipped.first().problem);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestDistributedCheckpoint)
} // namespace tst_distributedcheckpoint

#include "tst_DistributedCheckpoint.moc"
