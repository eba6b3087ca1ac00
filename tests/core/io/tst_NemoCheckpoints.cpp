// NeMo 2 checkpoints as nemo.lightning writes them (NVIDIA/NeMo 8cfedd7203, 2025-09):
// ModelCheckpoint (nemo/lightning/pytorch/callbacks/model_checkpoint.py) saves one folder per
// checkpoint, named "{model_name}--{val_loss:.2f}-{step}-{consumed_samples}" by the recipes
// (nemo/collections/llm/recipes/log/default.py) or "{name}--{monitor:.4f}-{epoch}-{consumed_samples}"
// by NeMoLogger (nemo/lightning/nemo_logger.py), with a "<checkpoint>-unfinished" marker beside it
// while it is written. Inside, weights/ (ckpt_utils.py WEIGHTS_PATH) is what MegatronCheckpointIO
// (nemo/lightning/io/pl.py) has dist_checkpointing.save write: Megatron-Core torch_dist, model keys
// under "module." (MegatronParallel), homogeneous layers stacked along a leading axis, swiglu fc1's
// TP chunks at [gate_all; up_all] (mlp.py apply_swiglu_sharded_factory), and common.pt holding
// Lightning's checkpoint dict (dump_checkpoint: epoch, global_step, loops…). context/ (CONTEXT_PATH)
// holds io.json and model.yaml, yaml.safe_dump of the model's config as
// tests/lightning/_io/artifacts/model.yaml shows it (TrainerContext.io_dump, nemo/lightning/io/mixin.py).
// Every matrix has a spectrum of its own, so a wrong per-group QKV split shows as a wrong stable rank.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/execution/RunAnalyzer.h"
#include "DcpCheckpointWriter.h"
#include "FamilyCheckpoint.h"
#include "io/CheckpointFormats.h"
#include "io/nemo/NemoContext.h"
#include "MegatronCheckpointWriter.h"
#include "TestSuite.h"

#include <QDir>
#include <QTemporaryDir>

namespace tst_nemocheckpoints {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using T = MatrixType;
using M = Eigen::MatrixXd;
using namespace tiny_megatron;

QList<float> rowMajor(const QList<M> &layers)
{
    QList<float> out;
    for (const M &m : layers)
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index c = 0; c < m.cols(); ++c)
                out << float(m(r, c));
    return out;
}

QString rankFile(int r) { return QStringLiteral("__%1_0.distcp").arg(r); }

// A stacked [layers, out, in] parameter as TransformerBlock saves it: one chunk per (layer, TP rank),
// column-parallel on rows, row-parallel on columns; swiglu's fc1 two chunks per rank, its gate share
// at (r·F/tp) and its up share at (F + r·F/tp) of the global [gate; up] axis.
enum class Split { Rows, Columns, Swiglu, Whole };
DcpTensorSpec stackedSpec(const QString &fqn, const QList<M> &layers, Split split)
{
    const qint64 out = layers[0].rows(), in = layers[0].cols();
    DcpTensorSpec t{fqn, {qint64(layers.size()), out, in}, {}, rowMajor(layers)};
    for (qint64 l = 0; l < layers.size(); ++l)
        for (int r = 0; r < TP; ++r) {
            if (split == Split::Rows)
                t.chunks.append({{l, r * out / TP, 0}, {1, out / TP, in}, rankFile(r)});
            else if (split == Split::Columns)
                t.chunks.append({{l, 0, r * in / TP}, {1, out, in / TP}, rankFile(r)});
            else if (split == Split::Swiglu)
                for (const qint64 half : {qint64(0), out / 2})
                    t.chunks.append({{l, half + r * out / 2 / TP, 0}, {1, out / 2 / TP, in}, rankFile(r)});
            else if (r == 0)
                t.chunks.append({{l, 0, 0}, {1, out, in}, rankFile(r)});
        }
    return t;
}

DcpTensorSpec vectorSpec(const QString &fqn, qint64 layers)
{
    DcpTensorSpec t{fqn, {layers, H}, {}, QList<float>(layers * H, 1.0f)};
    for (qint64 l = 0; l < layers; ++l)
        t.chunks.append({{l, 0}, {1, H}, rankFile(0)});
    return t;
}

// The unsharded model: per layer fused QKV per query group [q × 2, k, v], linear_proj, swiglu fc1
// [gate; up], fc2; its embedding and output layer are not typed matrices.
struct Nemo2Model {
    QList<M> qkv, proj, fc1, fc2;
    M embedding, output;
};

Nemo2Model nemo2Model(FamilyCheckpoint &f)
{
    Nemo2Model m;
    for (int l = 0; l < LAYERS; ++l) {
        const M q = f.matrix(id(l, T::Q), HEADS * HD, H), k = f.matrix(id(l, T::K), GROUPS * HD, H), v = f.matrix(id(l, T::V), GROUPS * HD, H);
        m.qkv << interleaveRows({q, k, v}, {HEADS / GROUPS * HD, HD, HD}, GROUPS);
        m.proj << f.matrix(id(l, T::O), H, HEADS * HD);
        m.fc1 << stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)});
        m.fc2 << f.matrix(id(l, T::MlpDown), H, FF);
    }
    m.embedding = f.other(VOCAB, H);
    m.output = f.other(VOCAB, H);
    return m;
}

// common.pt: Lightning's checkpoint dict without its sharded parts (state_dict emptied by MegatronStrategy).
QByteArray lightningCommonState(qint64 globalStep)
{
    PyObjects o;
    const PyRef progress = pyDict({{pyStr("total"), pyDict({{pyStr("completed"), pyInt(globalStep)}})}});
    return torchSaveArchive(pyDict({{pyStr("epoch"), pyInt(0)}, {pyStr("global_step"), pyInt(globalStep)},
                                    {pyStr("pytorch-lightning_version"), pyStr("2.4.0")}, {pyStr("state_dict"), pyDict({})},
                                    {pyStr("loops"), pyDict({{pyStr("fit_loop"), pyDict({{pyStr("epoch_loop.batch_progress"), progress}})}})}}),
                            {});
}

// context/model.yaml as yaml.safe_dump writes TrainerContext's model (sorted keys, nested configs two
// spaces in), cut to the fields that matter and a few that must not be taken for them.
QByteArray modelYaml()
{
    return QStringLiteral("_target_: nemo.collections.llm.gpt.model.llama.LlamaModel\n"
                          "config:\n"
                          "  _target_: nemo.collections.llm.gpt.model.llama.Llama3Config\n"
                          "  activation_func:\n    _call_: false\n    _target_: torch.nn.functional.silu\n"
                          "  ffn_hidden_size: %1\n  gated_linear_unit: true\n  hidden_size: %2\n  kv_channels: null\n"
                          "  normalization: RMSNorm\n  num_attention_heads: %3\n  num_layers: %4\n  num_query_groups: %5\n"
                          "  pipeline_model_parallel_size: 1\n  tensor_model_parallel_size: %6\n"
                          "model_transform: null\n"
                          "optim:\n  _target_: nemo.lightning.pytorch.optim.megatron.MegatronOptimizerModule\n  config:\n"
                          "    _target_: megatron.core.optimizer.optimizer_config.OptimizerConfig\n    num_attention_heads: 99\n"
                          "tokenizer:\n  _target_: nemo.collections.common.tokenizers.huggingface.auto_tokenizer.AutoTokenizer\n"
                          "  num_query_groups: 77\n")
        .arg(FF).arg(H).arg(HEADS).arg(LAYERS).arg(GROUPS).arg(TP)
        .toUtf8();
}

// The model as dist_checkpointing.save writes it with TP 2 (metadata.json and common.pt beside),
// its keys under `prefix`: NeMo 2's "module.", NeMo 1's "model.".
void writeTorchDist(const QString &folder, const Nemo2Model &m, const QString &prefix, const QByteArray &commonState)
{
    DcpFolderSpec spec;
    spec.megatron = true;
    spec.tensors = {stackedSpec(prefix + "decoder.layers.self_attention.linear_qkv.weight", m.qkv, Split::Rows),
                    vectorSpec(prefix + "decoder.layers.self_attention.linear_qkv.layer_norm_weight", LAYERS),
                    stackedSpec(prefix + "decoder.layers.self_attention.linear_proj.weight", m.proj, Split::Columns),
                    vectorSpec(prefix + "decoder.layers.mlp.linear_fc1.layer_norm_weight", LAYERS),
                    stackedSpec(prefix + "decoder.layers.mlp.linear_fc1.weight", m.fc1, Split::Swiglu),
                    stackedSpec(prefix + "decoder.layers.mlp.linear_fc2.weight", m.fc2, Split::Columns),
                    {prefix + "embedding.word_embeddings.weight", {VOCAB, H}, {{{0, 0}, {VOCAB / 2, H}, rankFile(0)}, {{VOCAB / 2, 0}, {VOCAB / 2, H}, rankFile(1)}},
                     rowMajor({m.embedding})},
                    {prefix + "decoder.final_layernorm.weight", {H}, {{{0}, {H}, rankFile(0)}}, QList<float>(H, 1.0f)},
                    {prefix + "output_layer.weight", {VOCAB, H}, {{{0, 0}, {VOCAB / 2, H}, rankFile(0)}, {{VOCAB / 2, 0}, {VOCAB / 2, H}, rankFile(1)}},
                     rowMajor({m.output})},
                    {"optimizer.state.exp_avg." + prefix + "output_layer.weight", {VOCAB, H}, {{{0, 0}, {VOCAB, H}, rankFile(0)}}}};
    for (qint64 l = 0; l < LAYERS; ++l)
        spec.objects.append({prefix + QStringLiteral("decoder.layers.self_attention.linear_qkv._extra_state/shard_%1.0_%2.%3").arg(l).arg(LAYERS).arg(TP),
                             rankFile(0), pyList({pyNone()})});
    QVERIFY(DcpFolderWriter::write(folder, spec));
    QVERIFY(DcpFolderWriter::writeBytes(QDir(folder).filePath("metadata.json"),
                                        R"({"sharded_backend": "torch_dist", "sharded_backend_version": 1, "common_backend": "torch", "common_backend_version": 1})"));
    QVERIFY(DcpFolderWriter::writeBytes(QDir(folder).filePath("common.pt"), commonState));
}

// One NeMo 2 checkpoint folder: weights/ (torch_dist) and context/ (io.json, model.yaml).
void writeNemo2(const QString &checkpoint, const Nemo2Model &m, qint64 globalStep, bool withYaml = true)
{
    const QDir dir(checkpoint);
    writeTorchDist(dir.filePath("weights"), m, "module.", lightningCommonState(globalStep));
    QVERIFY(dir.mkpath("context"));
    QVERIFY(DcpFolderWriter::writeBytes(dir.filePath("context/io.json"), R"({"root": {"type": "ref", "key": "trainer_context_1"}, "objects": {}})"));
    if (withYaml)
        QVERIFY(DcpFolderWriter::writeBytes(dir.filePath("context/model.yaml"), modelYaml()));
}

// NeMo 1's model_config.yaml (OmegaConf.save of the model cfg, examples/nlp/language_modeling/conf/
// megatron_gpt_config.yaml's keys) with dist_ckpt_format torch_dist.
QByteArray nemo1Yaml()
{
    return QStringLiteral("mcore_gpt: true\ntensor_model_parallel_size: %1\npipeline_model_parallel_size: 1\nnum_layers: %2\nhidden_size: %3\n"
                          "ffn_hidden_size: %4\nnum_attention_heads: %5\nnum_query_groups: %6\nkv_channels: %7\nactivation: fast-swiglu\n"
                          "normalization: rmsnorm\ndist_ckpt_format: torch_dist\n")
        .arg(TP).arg(LAYERS).arg(H).arg(FF).arg(HEADS).arg(GROUPS).arg(HD)
        .toUtf8();
}

// A NeMo 1 .nemo whose weights are a distributed checkpoint: NLPSaveRestoreConnector.save_to
// (nemo/collections/nlp/parts/nlp_overrides.py) saves into ckpt_to_dir("model_weights.ckpt"), the
// folder model_weights/, and SaveRestoreConnector._make_nemo_file_from_folder tars the folder with
// tarfile.open(path, "w:") and tar.add(dir, arcname="."): members "./…", folders before their files.
QList<TarEntry> nemo1DistMembers(const Nemo2Model &m, const QString &scratch)
{
    // save_to saves model.sharded_state_dict() alone: its common state holds no iteration.
    writeTorchDist(scratch, m, "model.", torchSaveArchive(pyDict({}), {}));
    QList<TarEntry> members{{".", {}, true}, {"./model_config.yaml", nemo1Yaml()}, {"./model_weights", {}, true}};
    for (const QFileInfo &file : QDir(scratch).entryInfoList(QDir::Files | QDir::Hidden, QDir::Name)) {
        QFile f(file.filePath());
        if (f.open(QIODevice::ReadOnly))
            members.append({"./model_weights/" + file.fileName(), f.readAll()});
    }
    return members;
}

// The analysis holds exactly the expected matrices, each with its stable rank, and no issue.
void verifyAnalysis(const FamilyCheckpoint &f, const RunAnalysis &run, int checkpoints = 1)
{
    QHash<MatrixIdentity, int> seen;
    for (const MatrixResult &r : run.results) {
        const MatrixIdentity key = r.identity();
        QVERIFY2(f.expected().contains(key), qPrintable("unexpected " + key.text() + " " + r.tensor));
        ++seen[key];
        const ExpectedMatrix &e = f.expected()[key];
        QVERIFY2(std::abs(r.metrics.stableRank - e.stableRank) < 1e-4 * e.stableRank,
                 qPrintable(QStringLiteral("%1 (%2): stable rank %3, expected %4").arg(key.text(), r.tensor).arg(r.metrics.stableRank).arg(e.stableRank)));
    }
    QCOMPARE(seen.size(), f.expected().size());
    for (const int n : seen)
        QCOMPARE(n, checkpoints);
    QStringList issues;
    for (const AnalysisIssue &i : run.issues)
        issues << i.text();
    QVERIFY2(issues.isEmpty(), qPrintable(issues.join("\n")));
}

} // namespace

class TestNemoCheckpoints : public QObject {
    Q_OBJECT

private slots:
    // One NeMo 2 checkpoint: its step from common.pt's global_step, its head and group counts from
    // context/model.yaml, every matrix exactly the unsharded one, and the fused QKV split per group.
    void nemo2CheckpointSplitByItsContext()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const Nemo2Model m = nemo2Model(f);
        const QString checkpoint = dir.filePath("llama--reduced_train_loss=2.3456-epoch=0-consumed_samples=800.0");
        writeNemo2(checkpoint, m, 100);
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(checkpoint, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->step(), std::optional<qint64>(100));
        QCOMPARE(reader->modelConfig().value("num_query_groups").toInt(), GROUPS); // not tokenizer's 77
        QCOMPARE(reader->modelConfig().value("num_attention_heads").toInt(), HEADS); // not optim's 99
        QCOMPARE(reader->modelConfig().value("kv_channels").toInt(), HD);
        QVERIFY(reader->modelConfig().value("gated_linear_unit").toBool());
        for (int l = 0; l < LAYERS; ++l) {
            const QString layer = QStringLiteral("module.decoder.layers.%1.").arg(l);
            QCOMPARE(reader->readMatrix(layer + "self_attention.linear_qkv.weight").values, asFloat(m.qkv[l]));
            QCOMPARE(reader->readMatrix(layer + "self_attention.linear_proj.weight").values, asFloat(m.proj[l]));
            QCOMPARE(reader->readMatrix(layer + "mlp.linear_fc1.weight").values, asFloat(m.fc1[l]));
            QCOMPARE(reader->readMatrix(layer + "mlp.linear_fc2.weight").values, asFloat(m.fc2[l]));
        }
        QVERIFY2(reader->warnings().isEmpty(), qPrintable(reader->warnings().join('\n')));
        const CheckpointListing listing = CheckpointDiscovery::scan(checkpoint);
        QCOMPARE(listing.takenFor.first(), QStringLiteral("one NeMo 2 checkpoint (weights/ + context/): model config from context/model.yaml, "
                                                          "LlamaModel: 4 heads in 2 query group(s), kv_channels 2, fc1 gated [gate; up]"));
        RunAnalyzer analyzer;
        verifyAnalysis(f, analyzer.analyzeFolder(checkpoint));
    }

    // ModelCheckpoint's folder is one run: steps from the names (step=N), or from the weights when
    // NeMoLogger's default name has none; a checkpoint NeMo marks unfinished is left out, named.
    void modelCheckpointFolderIsOneRun()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const Nemo2Model m = nemo2Model(f);
        writeNemo2(dir.filePath("llama--val_loss=2.10-step=10-consumed_samples=80.0"), m, 10);
        writeNemo2(dir.filePath("llama--val_loss=1.90-step=20-consumed_samples=160.0"), m, 20);
        writeNemo2(dir.filePath("llama--val_loss=1.80-step=30-consumed_samples=240.0"), m, 30);
        QVERIFY(DcpFolderWriter::writeBytes(dir.filePath("llama--val_loss=1.80-step=30-consumed_samples=240.0-unfinished"), {}));
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QVERIFY(listing.runs.isEmpty());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[0].stepFromName, std::optional<qint64>(10));
        QCOMPARE(listing.checkpoints[1].stepFromName, std::optional<qint64>(20));
        QCOMPARE(listing.beingWritten.size(), 1);
        QVERIFY(listing.beingWritten[0].endsWith("step=30-consumed_samples=240.0"));
        QVERIFY(listing.takenFor.contains("a NeMo 2 ModelCheckpoint folder: 2 checkpoint(s), 1 marked unfinished left out, steps from their names or "
                                          "the weights' global_step; model config from context/model.yaml, LlamaModel: 4 heads in 2 query group(s), "
                                          "kv_channels 2, fc1 gated [gate; up]"));
        bool named = false;
        for (const SkippedFile &s : listing.skipped)
            named |= s.path.endsWith("step=30-consumed_samples=240.0") && s.reason.contains("NeMo marks this checkpoint unfinished") && !s.problem;
        QVERIFY(named);

        // NeMoLogger's default names carry no step: still checkpoints of one run, never runs of one model.
        QTemporaryDir logger;
        writeNemo2(logger.filePath("default--reduced_train_loss=2.3456-epoch=0-consumed_samples=80.0"), m, 10);
        writeNemo2(logger.filePath("default--reduced_train_loss=2.1234-epoch=0-consumed_samples=160.0"), m, 20);
        const CheckpointListing unnamed = CheckpointDiscovery::scan(logger.path());
        QVERIFY(unnamed.runs.isEmpty());
        QCOMPARE(unnamed.checkpoints.size(), 2);
        RunAnalyzer analyzer;
        const RunAnalysis run = analyzer.analyzeFolder(logger.path());
        verifyAnalysis(f, run, 2);
        QSet<qint64> steps;
        for (const MatrixResult &r : run.results)
            steps.insert(r.step);
        QCOMPARE(steps, (QSet<qint64>{10, 20}));
    }

    // Without model.yaml the groups cannot be told from the shapes: the reader says so, and the fused
    // tensors are not split by guess.
    void withoutModelYamlSaysSo()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QString checkpoint = dir.filePath("llama--val_loss=2.10-step=10-consumed_samples=80.0");
        writeNemo2(checkpoint, nemo2Model(f), 10, false);
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(checkpoint, &error);
        QVERIFY2(reader, qPrintable(error));
        QVERIFY2(reader->warnings().join('\n').contains("NeMo 2 context: context/ holds no model.yaml"), qPrintable(reader->warnings().join('\n')));
        QVERIFY(!reader->modelConfig().contains("num_query_groups"));
        // An oversized model.yaml is refused by its size, not read.
        QVERIFY(DcpFolderWriter::writeBytes(QDir(checkpoint).filePath("context/model.yaml"), QByteArray((1 << 20) + 1, '#')));
        const NemoContextConfig big = NemoContext::read(QDir(checkpoint).filePath("context"));
        QVERIFY(big.fields.isEmpty());
        QVERIFY2(big.problem.startsWith("context/model.yaml: "), qPrintable(big.problem));
    }

    // A .nemo holding ./model_weights/ (torch_dist) is read in place: one checkpoint, each matrix the
    // unsharded one, the groups from model_config.yaml.
    void nemo1DistributedWeightsReadInPlace()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const Nemo2Model m = nemo2Model(f);
        const QString path = dir.filePath("megatron_gpt--val_loss=2.10-step=40-consumed_samples=320.0.nemo");
        QVERIFY(DcpFolderWriter::writeBytes(path, tarArchive(nemo1DistMembers(m, dir.filePath("scratch")))));
        QVERIFY(QDir(dir.filePath("scratch")).removeRecursively());
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        QVERIFY2(reader->formatName().startsWith("nemo (NeMo 1 .nemo torch_dist"), qPrintable(reader->formatName()));
        QCOMPARE(reader->modelConfig().value("num_query_groups").toInt(), GROUPS);
        QCOMPARE(reader->step(), std::nullopt); // the name's step=40 is the step
        for (int l = 0; l < LAYERS; ++l) {
            const QString layer = QStringLiteral("model.decoder.layers.%1.").arg(l);
            QCOMPARE(reader->readMatrix(layer + "self_attention.linear_qkv.weight").values, asFloat(m.qkv[l]));
            QCOMPARE(reader->readMatrix(layer + "mlp.linear_fc1.weight").values, asFloat(m.fc1[l]));
        }
        QCOMPARE(reader->readMatrix("model.output_layer.weight").values, asFloat(m.output));
        QVERIFY(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).size() == 1); // nothing extracted
        RunAnalyzer analyzer;
        verifyAnalysis(f, analyzer.analyzeFolder(dir.path()));
    }

    // Hostile members: a chunk file cut short inside the tar (its chunks reach past the member, not
    // only past the file), the index missing, a member past the archive's end.
    void nemo1DistributedRefused_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a .distcp member cut short") << "short" << "of __1_0.distcp, which holds 100 bytes";
        QTest::newRow("no .metadata") << "nometa" << "holds no .metadata";
        QTest::newRow("a member past the end") << "past" << "past the end of the file";
    }
    void nemo1DistributedRefused()
    {
        QFETCH(QString, variant);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QList<TarEntry> members = nemo1DistMembers(nemo2Model(f), dir.filePath("scratch"));
        for (TarEntry &member : members)
            if (variant == "short" && member.name.endsWith("__1_0.distcp"))
                member.data = member.data.left(100);
        if (variant == "nometa")
            members.removeIf([](const TarEntry &e) { return e.name.endsWith("/.metadata"); });
        if (variant == "past")
            members.last().declaredSize = qint64(1) << 40;
        const QString path = dir.filePath("model.nemo");
        QVERIFY(DcpFolderWriter::writeBytes(path, tarArchive(members)));
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(path, &error);
        if (reader) { // a damaged tensor is refused by name, the others still read
            error = reader->warnings().join('\n');
            QVERIFY(!reader->tensors().isEmpty());
        }
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    // NeMo's own artifact (tests/lightning/_io/artifacts/model.yaml): multi-head (num_query_groups
    // null), kv_channels null (hidden / heads), gelu.
    void parsesNemosOwnModelYaml()
    {
        const NemoContextConfig c = NemoContext::parse("_target_: nemo.collections.llm.gpt.model.base.GPTModel\nconfig:\n"
                                                       "  _cpu_offloading_context: null\n  _target_: nemo.collections.llm.gpt.model.base.GPTConfig\n"
                                                       "  activation_func:\n    _call_: false\n    _target_: torch._C._nn.gelu\n"
                                                       "  ffn_hidden_size: 4096\n  gated_linear_unit: false\n  hidden_size: 1024\n"
                                                       "  kv_channels: null\n  normalization: LayerNorm\n  num_attention_heads: 8\n  num_layers: 2\n"
                                                       "  num_moe_experts: null\n  num_query_groups: null\n  tensor_model_parallel_size: 1\n"
                                                       "model_transform: null\n");
        QCOMPARE(c.modelClass, QStringLiteral("nemo.collections.llm.gpt.model.base.GPTModel"));
        QCOMPARE(c.fields.value("num_query_groups").toInt(), 8);
        QCOMPARE(c.fields.value("kv_channels").toInt(), 128);
        QCOMPARE(c.fields.value("num_layers").toInt(), 2);
        QVERIFY(!c.fields.value("gated_linear_unit").toBool());
        QCOMPARE(c.fields.value("model_type").toString(), QStringLiteral("megatron"));
        // Only the config section is the model's: the optimizer's or tokenizer's fields are not taken for it.
        QVERIFY(NemoContext::parse("_target_: x\nconfig:\n  hidden_size: 8\noptim:\n  num_attention_heads: 8\n").fields.isEmpty());
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestNemoCheckpoints)
} // namespace tst_nemocheckpoints

#include "tst_NemoCheckpoints.moc"
