// Trainers' save layouts whose checkpoints are folders inside folders, each built small here exactly
// as the trainer writes it (names, nesting, sidecars), every matrix with a spectrum of its own
// (top, top/2, top/4, …; top distinct for every step and matrix), and read as one run with the
// trainer's steps and exactly the model's matrices:
// - Lightning under DeepSpeedStrategy (src/lightning/pytorch/strategies/deepspeed.py save_checkpoint,
//   Lightning 7f0c3436): epoch=E-step=N.ckpt/ folders, each a DeepSpeed save folder of the tag
//   "checkpoint" (deepspeed/runtime/engine.py 38327e07f), Lightning's checkpoint dict as client state;
// - Accelerate's save_state with automatic_checkpoint_naming under FSDP (accelerator.py,
//   utils/fsdp_utils.py, checkpointing.py at accelerate 16cb6eb8): checkpoint_N/ holding
//   pytorch_model_fsdp_0/ (torch.distributed.checkpoint of {"model": state_dict}) and optimizer_0/;
// - torchtune's output_dir (training/checkpointing/_checkpointer.py at v0.4.0, v0.6.1 and bd2a0fc7):
//   epoch_N/ folders and the flat files of v0.4.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/MetricsTable.h"
#include "DcpCheckpointWriter.h"
#include "DeepSpeedCheckpointWriter.h"
#include "FormatWriters.h"
#include "TestSuite.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <functional>

namespace tst_trainerlayouts {

using namespace rankscope;
using namespace rankscope::test;

namespace {

struct Tensor {
    QString name;
    QList<qint64> shape;
    QList<float> values; // row-major
};

// A model's tensors, and the top singular value each typed matrix was given, by identity.
struct TinyModel {
    QList<Tensor> tensors;
    QMap<QString, float> tops; // MatrixIdentity::text() → its largest singular value
};

// rows × cols with singular values top, top/2, top/4, … (a diagonal with its rows reversed: a
// permutation keeps the spectrum), exact in float32.
QList<float> knownSpectrum(qint64 rows, qint64 cols, float top)
{
    QList<float> values(rows * cols, 0.0f);
    for (qint64 i = 0; i < std::min(rows, cols); ++i)
        values[(rows - 1 - i) * cols + i] = top / float(qint64(1) << i);
    return values;
}

QList<float> ones(qint64 n) { return QList<float>(n, 1.0f); }

using Namer = std::function<QString(int layer, MatrixType type)>;

// A two-layer LLaMA-shaped model (d = 8, MLP 16, vocabulary 32): Q, K, V, O [8, 8], gate and up
// [16, 8], down [8, 16] named by `name`; `embedding` and `head` [32, 8] and the 1-D `norms` (with %1
// for the layer) are no matrix type. Every matrix's top singular value is seed·100 + layer·10 + its
// type's index + 1.
TinyModel tinyLlama(int seed, const Namer &name, const QString &embedding, const QString &head, const QStringList &layerNorms, const QString &finalNorm)
{
    TinyModel model;
    model.tensors.append({embedding, {32, 8}, knownSpectrum(32, 8, 0.5f)});
    const QList<std::tuple<MatrixType, qint64, qint64>> types = {
        {MatrixType::Q, 8, 8},         {MatrixType::K, 8, 8},          {MatrixType::V, 8, 8},        {MatrixType::O, 8, 8},
        {MatrixType::MlpGate, 16, 8}, {MatrixType::MlpUp, 16, 8}, {MatrixType::MlpDown, 8, 16}};
    for (int layer = 0; layer < 2; ++layer) {
        for (const QString &norm : layerNorms)
            model.tensors.append({norm.arg(layer), {8}, ones(8)});
        for (qsizetype t = 0; t < types.size(); ++t) {
            const auto [type, rows, cols] = types[t];
            const float top = float(seed * 100 + layer * 10 + int(t) + 1);
            model.tensors.append({name(layer, type), {rows, cols}, knownSpectrum(rows, cols, top)});
            model.tops.insert(MatrixIdentity{{}, layer, type, {}}.text(), top);
        }
    }
    model.tensors.append({finalNorm, {8}, ones(8)});
    model.tensors.append({head, {32, 8}, knownSpectrum(32, 8, 0.25f)});
    return model;
}

QString typeWord(MatrixType type, const char *q, const char *k, const char *v, const char *o, const char *gate, const char *up, const char *down)
{
    switch (type) {
    case MatrixType::Q: return QLatin1String(q);
    case MatrixType::K: return QLatin1String(k);
    case MatrixType::V: return QLatin1String(v);
    case MatrixType::O: return QLatin1String(o);
    case MatrixType::MlpGate: return QLatin1String(gate);
    case MatrixType::MlpUp: return QLatin1String(up);
    default: return QLatin1String(down);
    }
}

// transformers' LlamaForCausalLM state_dict, under `prefix` (a LightningModule's attribute).
TinyModel hfLlama(int seed, const QString &prefix = {})
{
    return tinyLlama(
        seed,
        [&](int layer, MatrixType type) {
            const QString module = typeWord(type, "self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj",
                                            "mlp.up_proj", "mlp.down_proj");
            return QStringLiteral("%1model.layers.%2.%3.weight").arg(prefix).arg(layer).arg(module);
        },
        prefix + "model.embed_tokens.weight", prefix + "lm_head.weight",
        {prefix + "model.layers.%1.input_layernorm.weight", prefix + "model.layers.%1.post_attention_layernorm.weight"}, prefix + "model.norm.weight");
}

// torchtune's own names (llama3 _component_builders.py: MultiHeadAttention q_proj … output_proj,
// FeedForward w1 = gate_proj, w2 = down_proj, w3 = up_proj; TransformerDecoder tok_embeddings, output).
TinyModel torchtuneLlama(int seed)
{
    return tinyLlama(
        seed,
        [](int layer, MatrixType type) {
            const QString module = typeWord(type, "attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.output_proj", "mlp.w1", "mlp.w3", "mlp.w2");
            return QStringLiteral("layers.%1.%2.weight").arg(layer).arg(module);
        },
        "tok_embeddings.weight", "output.weight", {"layers.%1.sa_norm.scale", "layers.%1.mlp_norm.scale"}, "norm.scale");
}

// Meta's names (convert_weights.py _FROM_META): attention.wq … wo, feed_forward.w1 (gate), w3 (up), w2 (down).
TinyModel metaLlama(int seed)
{
    return tinyLlama(
        seed,
        [](int layer, MatrixType type) {
            const QString module = typeWord(type, "attention.wq", "attention.wk", "attention.wv", "attention.wo", "feed_forward.w1",
                                            "feed_forward.w3", "feed_forward.w2");
            return QStringLiteral("layers.%1.%2.weight").arg(layer).arg(module);
        },
        "tok_embeddings.weight", "output.weight", {"layers.%1.attention_norm.weight", "layers.%1.ffn_norm.weight"}, "norm.weight");
}

void write(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    file.write(bytes);
}

void setModified(const QString &path, qint64 secondsAgo)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-secondsAgo), QFileDevice::FileModificationTime));
}

QByteArray safetensorsOf(const QList<Tensor> &tensors)
{
    QList<SafeTensor> list;
    for (const Tensor &t : tensors)
        list.append({t.name, QStringLiteral("F32"), t.shape, rawBytes(t.values)});
    return safetensorsFile(list);
}

// torch.save(state_dict): an OrderedDict of float32 tensors, each with a storage of its own.
QByteArray torchSaveStateDict(const QList<Tensor> &tensors)
{
    PickleBuilder p;
    p.op('\x80').op('\x02').global("collections", "OrderedDict").op(')').op('R').op('(');
    QList<QPair<QString, QByteArray>> entries;
    for (qsizetype i = 0; i < tensors.size(); ++i) {
        const Tensor &t = tensors[i];
        QList<qint64> stride(t.shape.size(), 1);
        for (qsizetype d = t.shape.size() - 2; d >= 0; --d)
            stride[d] = stride[d + 1] * t.shape[d + 1];
        p.str(t.name).global("torch._utils", "_rebuild_tensor_v2").op('(');
        p.op('(').str("storage").global("torch", "FloatStorage").str(QString::number(i)).str("cpu").integer(t.values.size()).op('t').op('Q');
        p.integer(0).intTuple(t.shape).intTuple(stride).op('\x89');
        p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        entries.append({QStringLiteral("archive/data/%1").arg(i), rawBytes(t.values)});
    }
    p.op('u').op('.');
    entries.prepend({QStringLiteral("archive/data.pkl"), p.bytes});
    return zipArchive(entries);
}

// torch.save of a dict of ints and one nested dict holding a matrix (an optimizer's exp_avg): what
// recipe_state.pt, random_states_0.pkl or scheduler.bin hold.
QByteArray torchSaveState(const QList<QPair<QString, qint64>> &values, const QString &nested = {})
{
    PickleBuilder p;
    p.op('\x80').op('\x02').op('}').op('(');
    QList<QPair<QString, QByteArray>> entries;
    for (const auto &[key, value] : values)
        p.str(key).integer(value);
    if (!nested.isEmpty()) {
        p.str(nested).op('}').op('(').str("state").op('}').op('(').integer(0).op('}').op('(').str("exp_avg");
        p.global("torch._utils", "_rebuild_tensor_v2").op('(');
        p.op('(').str("storage").global("torch", "FloatStorage").str("0").str("cpu").integer(128).op('t').op('Q');
        p.integer(0).intTuple({16, 8}).intTuple({8, 1}).op('\x89');
        p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        p.op('u').op('u').str("param_groups").op(']').op('u');
        entries.append({QStringLiteral("archive/data/0"), rawBytes(knownSpectrum(16, 8, 3.0f))});
    }
    p.op('u').op('.');
    entries.prepend({QStringLiteral("archive/data.pkl"), p.bytes});
    return zipArchive(entries);
}

RunAnalysis analyse(const QString &folder)
{
    AnalysisSettings settings;
    settings.jobs = 2;
    return RunAnalyzer(settings).analyzeFolder(folder);
}

QStringList issueTexts(const RunAnalysis &run)
{
    QStringList texts;
    for (const AnalysisIssue &issue : run.issues)
        texts << issue.text();
    return texts;
}

QList<qint64> stepsOf(const RunAnalysis &run)
{
    QList<qint64> steps;
    for (const CheckpointRecord &c : run.checkpoints)
        steps << c.step;
    return steps;
}

QByteArray rowsOf(const RunAnalysis &run)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    MetricsTable::writeCsv(run.results, buffer);
    return buffer.data();
}

const SkippedFile *skipped(const RunAnalysis &run, const QString &fileName)
{
    for (const SkippedFile &s : run.sidecars)
        if (QFileInfo(s.path).fileName() == fileName)
            return &s;
    return nullptr;
}

// The file or folder at `relativePath` as the listing classified it (role Folder, "not listed", if it is not there).
ClassifiedFile classified(const CheckpointListing &listing, const QString &relativePath)
{
    for (const ClassifiedFile &f : listing.files)
        if (f.path.endsWith(QLatin1Char('/') + relativePath))
            return f;
    return {relativePath, FileRole::Folder, QStringLiteral("not listed")};
}

// One run, at exactly `steps`, each row one of the model's matrices of its step with the spectrum
// it was written with, and every matrix of every step there once.
void expectRun(const RunAnalysis &run, const QList<QPair<qint64, TinyModel>> &steps)
{
    QVERIFY2(run.runs.isEmpty(), qPrintable(run.runs.join(", ")));
    QList<qint64> expectedSteps;
    QMap<QString, float> expected;
    for (const auto &[step, model] : steps) {
        expectedSteps << step;
        for (auto it = model.tops.begin(); it != model.tops.end(); ++it)
            expected.insert(QStringLiteral("step %1 %2").arg(step).arg(it.key()), it.value());
    }
    QCOMPARE(stepsOf(run), expectedSteps);
    QCOMPARE(run.results.size(), expected.size());
    for (const MatrixResult &r : run.results) {
        const QString key = QStringLiteral("step %1 %2").arg(r.step).arg(r.identity().text());
        QVERIFY2(expected.contains(key), qPrintable(QStringLiteral("%1 (%2) is not one of the model's matrices").arg(key, r.tensor)));
        const double top = expected.take(key);
        QVERIFY2(r.weights.isEmpty(), qPrintable(r.tensor));
        QVERIFY2(r.singularValues.size() >= 2 && qAbs(r.singularValues(0) - top) <= 1e-5 * top && qAbs(r.singularValues(1) - top / 2) <= 1e-5 * top,
                 qPrintable(QStringLiteral("%1 (%2): σ1 %3, written with %4").arg(key, r.tensor).arg(r.singularValues(0)).arg(top)));
    }
    QVERIFY2(expected.isEmpty(), qPrintable(QStringList(expected.keys()).join(", ")));
}

// Only these files or folders named as problems, each once, and the rest analysed.
void expectProblems(const RunAnalysis &run, QStringList names, const QStringList &said)
{
    QStringList named;
    for (const AnalysisIssue &issue : run.issues)
        named << QFileInfo(issue.path).fileName();
    named.sort();
    names.sort();
    QVERIFY2(named == names, qPrintable(issueTexts(run).join('\n')));
    const QString texts = issueTexts(run).join('\n');
    for (const QString &text : said)
        QVERIFY2(texts.contains(text), qPrintable(QStringLiteral("'%1' not said in:\n%2").arg(text, texts)));
}

// ---- Lightning under DeepSpeedStrategy -------------------------------------------------------

deepspeed::Fixture deepSpeedFixture(const TinyModel &model, int world, qint64 deepSpeedSteps)
{
    deepspeed::Fixture f;
    f.world = world;
    f.globalSteps = deepSpeedSteps;
    f.params.clear();
    for (const Tensor &t : model.tensors)
        f.params.append({t.name, t.shape, t.values});
    return f;
}

// dump_checkpoint's dict less state_dict and optimizer_states, in its order, as Lightning passes it
// to engine.save_checkpoint(client_state=…).
std::function<void(deepspeed::Pickler &)> lightningClientState(qint64 epoch, qint64 globalStep, const QString &lastModelPath)
{
    return [=](deepspeed::Pickler &p) {
        p.str("epoch").integer(epoch).str("global_step").integer(globalStep).str("pytorch-lightning_version").str("2.5.1");
        p.str("loops").dict(1, [&] {
            p.str("fit_loop").dict(2, [&] { p.str("state_dict").dict(0, [] {}).str("epoch_loop.batch_progress").dict(0, [] {}); });
        });
        p.str("callbacks").dict(1, [&] {
            p.str("ModelCheckpoint{'monitor': None, 'mode': 'min', 'every_n_train_steps': 0, 'every_n_epochs': 1, 'train_time_interval': None}")
                .dict(2, [&] { p.str("dirpath").str("/runs/lightning_logs/version_0/checkpoints").str("last_model_path").str(lastModelPath); });
        });
        p.str("lr_schedulers").list(0, [] {});
        p.str("hparams_name").str("kwargs").str("hyper_parameters").dict(1, [&] { p.str("lr").integer(3); });
    };
}

enum class Zero { Two, Three };

// engine.save_checkpoint(save, client_state, tag="checkpoint") into save/: the tag, latest, and
// zero_to_fp32.py (rank 0 copies it beside the tag under ZeRO).
void writeLightningSave(const QString &save, const TinyModel &model, Zero zero, qint64 epoch, qint64 globalStep, qint64 deepSpeedSteps,
                        const QString &lastModelPath = {}, const QString &latest = QStringLiteral("checkpoint"))
{
    deepspeed::Fixture f = deepSpeedFixture(model, 2, deepSpeedSteps);
    f.clientState = lightningClientState(epoch, globalStep, lastModelPath);
    const QString tag = QDir(save).filePath(QStringLiteral("checkpoint"));
    QDir().mkpath(tag);
    if (zero == Zero::Three) {
        deepspeed::writeZero3Tag(tag, f);
    } else {
        deepspeed::writeZero2ModelStates(tag, f, true);
        deepspeed::writeZero2OptimStates(tag, f);
    }
    if (!latest.isNull())
        write(QDir(save).filePath("latest"), latest.toUtf8());
    write(QDir(save).filePath("zero_to_fp32.py"), "#!/usr/bin/env python\n# DeepSpeed's recovery script\n");
}

// ---- Accelerate FSDP -------------------------------------------------------------------------

// dist_cp.save({"model": state_dict}, FileSystemWriter(folder)) from two ranks, each matrix sharded
// on its rows (FSDP's dim-0 sharding), a vector whole on rank 0.
DcpFolderSpec fsdpSpec(const QList<Tensor> &tensors, const QString &key, const QString &id)
{
    DcpFolderSpec spec;
    spec.stateDictKey = key;
    spec.checkpointId = id;
    for (const Tensor &t : tensors) {
        DcpTensorSpec dcp{key + QLatin1Char('.') + t.name, t.shape, {}, t.values};
        if (t.shape.size() == 2) {
            const qint64 half = t.shape[0] / 2;
            dcp.chunks = {{{0, 0}, {half, t.shape[1]}, "__0_0.distcp"}, {{half, 0}, {t.shape[0] - half, t.shape[1]}, "__1_0.distcp"}};
        } else {
            dcp.chunks = {{{0}, {t.shape[0]}, "__0_0.distcp"}};
        }
        spec.tensors.append(dcp);
    }
    return spec;
}

// save_state under FSDP SHARDED_STATE_DICT: pytorch_model_fsdp_0/, optimizer_0/ (AdamW's exp_avg of
// each matrix, under optimizer.state.…), scheduler.bin, random_states_{rank}.pkl of two ranks.
void writeAccelerateSave(const QString &save, const TinyModel &model, qint64 schedulerSteps, bool withModel = true)
{
    if (withModel)
        QVERIFY(DcpFolderWriter::write(QDir(save).filePath("pytorch_model_fsdp_0"), fsdpSpec(model.tensors, "model", save + "/pytorch_model_fsdp_0")));
    QList<Tensor> moments;
    for (const Tensor &t : model.tensors)
        if (t.shape.size() == 2)
            moments.append({"state." + t.name + ".exp_avg", t.shape, knownSpectrum(t.shape[0], t.shape[1], 7.0f)});
    QVERIFY(DcpFolderWriter::write(QDir(save).filePath("optimizer_0"), fsdpSpec(moments, "optimizer", save + "/optimizer_0")));
    write(QDir(save).filePath("scheduler.bin"), torchSaveState({{"last_epoch", schedulerSteps}, {"_step_count", schedulerSteps + 1}}));
    for (int rank : {0, 1})
        write(QDir(save).filePath(QStringLiteral("random_states_%1.pkl").arg(rank)), torchSaveState({{"step", 0}}));
}

// ---- torchtune -----------------------------------------------------------------------------

// FullModelHFCheckpointer (v0.5, v0.6): the HF-named state_dict split as the weight map of the
// checkpoint it was loaded from (here two shards), an index, the base model's files copied.
void writeTorchtuneHfEpoch(const QString &epochFolder, const TinyModel &model, bool withSecondShard = true)
{
    const QDir dir(epochFolder);
    QList<Tensor> first, second;
    QJsonObject map;
    for (const Tensor &t : model.tensors) {
        const bool one = !t.name.contains("layers.1.") && !t.name.startsWith("lm_head") && !t.name.startsWith("model.norm");
        (one ? first : second).append(t);
        map.insert(t.name, one ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors");
    }
    write(dir.filePath("model-00001-of-00002.safetensors"), safetensorsOf(first));
    if (withSecondShard)
        write(dir.filePath("model-00002-of-00002.safetensors"), safetensorsOf(second));
    write(dir.filePath("model.safetensors.index.json"), QJsonDocument(QJsonObject{{"metadata", QJsonObject{{"total_size", 4096}}}, {"weight_map", map}}).toJson());
    write(dir.filePath("config.json"), R"({"model_type": "llama", "num_attention_heads": 2, "num_key_value_heads": 2, "hidden_size": 8})");
    write(dir.filePath("generation_config.json"), R"({"bos_token_id": 1})");
    write(dir.filePath("tokenizer.json"), "{}");
    write(dir.filePath("original_repo_id.json"), R"({"repo_id": "meta-llama/Llama-3.2-1B"})");
}

} // namespace

class TestTrainerLayouts : public QObject {
    Q_OBJECT
private slots:
    // ---- Lightning + DeepSpeed ----

    void lightningDeepSpeedSavesAreOneRun_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("ZeRO-2, LightningModule.model") << int(Zero::Two) << "model.";
        QTest::newRow("ZeRO-3, LightningModule.model") << int(Zero::Three) << "model.";
        QTest::newRow("ZeRO-2, Lightning < 2.1's _forward_module") << int(Zero::Two) << "_forward_module.model.";
    }
    // Two saves and save_last's last.ckpt (the newest step saved again): one run at Lightning's steps
    // 100 and 200 (DeepSpeed counted 25 and 50 optimizer steps under gradient accumulation 4), each
    // read through DeepSpeed's readers, the LightningModule's `model.` prefix no part of an identity.
    void lightningDeepSpeedSavesAreOneRun()
    {
        QFETCH(int, zero);
        QFETCH(QString, prefix);
        QTemporaryDir run;
        const QDir dir(run.path());
        const TinyModel early = hfLlama(1, prefix), late = hfLlama(2, prefix);
        writeLightningSave(dir.filePath("epoch=0-step=100.ckpt"), early, Zero(zero), 0, 100, 25, dir.filePath("epoch=0-step=100.ckpt"));
        writeLightningSave(dir.filePath("epoch=1-step=200.ckpt"), late, Zero(zero), 1, 200, 50, dir.filePath("epoch=1-step=200.ckpt"));
        writeLightningSave(dir.filePath("last.ckpt"), late, Zero(zero), 1, 200, 50, dir.filePath("last.ckpt"));
        for (const QString &save : {QStringLiteral("epoch=0-step=100.ckpt"), QStringLiteral("epoch=1-step=200.ckpt")})
            for (const QString &file : QDir(dir.filePath(save + "/checkpoint")).entryList(QDir::Files))
                setModified(dir.filePath(save + "/checkpoint/" + file), 600);

        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QVERIFY2(listing.runs.isEmpty(), qPrintable(listing.runs.join(", ")));
        QCOMPARE(listing.checkpoints.size(), 3);
        const QString takenFor = listing.takenFor.join('\n');
        QVERIFY2(takenFor.contains("a Lightning ModelCheckpoint folder under DeepSpeedStrategy (Lightning 2.5.1): 3 save(s)") &&
                     takenFor.contains("steps Lightning's global_step") && !takenFor.contains("a DeepSpeed save folder"),
                 qPrintable(takenFor));
        QCOMPARE(classified(listing, "epoch=0-step=100.ckpt/latest").role, FileRole::TrainingSidecar);
        QCOMPARE(classified(listing, "epoch=0-step=100.ckpt/zero_to_fp32.py").role, FileRole::TrainingSidecar);
        QCOMPARE(classified(listing, "epoch=0-step=100.ckpt/checkpoint").role, FileRole::CheckpointFolder);
        QCOMPARE(classified(listing, "epoch=0-step=100.ckpt").role, FileRole::CheckpointFolder);

        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{100, early}, {200, late}});
        // last.ckpt, saved after epoch=1-step=200.ckpt at its step, is what step 200 is read from.
        QVERIFY(analysis.checkpoints.last().path.endsWith("last.ckpt"));
        const SkippedFile *duplicate = skipped(analysis, "epoch=1-step=200.ckpt");
        QVERIFY(duplicate && duplicate->duplicate);
        QVERIFY2(duplicate->reason.contains("claims step 200 like last.ckpt"), qPrintable(duplicate->reason));

        const StepPlan steps = CheckpointSteps::decide({&listing.checkpoints[0], &listing.checkpoints[1], &listing.checkpoints[2]});
        QVERIFY2(steps.checkpoints.first().stepSource == "Lightning's global_step, in checkpoint/" +
                                                             QString(zero == int(Zero::Two) ? "mp_rank_00_model_states.pt" : "zero_pp_rank_0_mp_rank_00_model_states.pt"),
                 qPrintable(steps.checkpoints.first().stepSource));
    }

    // save_last="link": last.ckpt is a link to the newest save, read once.
    void lightningLastLinkIsReadOnce()
    {
        QTemporaryDir run;
        const QDir dir(run.path());
        const TinyModel early = hfLlama(1, "model."), late = hfLlama(2, "model.");
        writeLightningSave(dir.filePath("epoch=0-step=100.ckpt"), early, Zero::Two, 0, 100, 100);
        writeLightningSave(dir.filePath("epoch=1-step=200.ckpt"), late, Zero::Two, 1, 200, 200);
        QVERIFY(QFile::link("epoch=1-step=200.ckpt", dir.filePath("last.ckpt")));
        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{100, early}, {200, late}});
        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QCOMPARE(classified(listing, "last.ckpt").role, FileRole::Link);
    }

    // A save whose tag lost its model states, one whose latest names a tag that is not there (each
    // refused, by name, with what is wrong), and one DeepSpeed has not finished (no latest: named,
    // left for a later look): the two good saves are analysed as in a clean folder.
    void lightningDeepSpeedBrokenSavesAreNamed()
    {
        QTemporaryDir clean, messy;
        const TinyModel early = hfLlama(1, "model."), late = hfLlama(2, "model.");
        for (const QString &folder : {clean.path(), messy.path()}) {
            writeLightningSave(QDir(folder).filePath("epoch=0-step=100.ckpt"), early, Zero::Two, 0, 100, 100);
            writeLightningSave(QDir(folder).filePath("epoch=1-step=200.ckpt"), late, Zero::Two, 1, 200, 200);
        }
        const QDir dir(messy.path());
        writeLightningSave(dir.filePath("epoch=2-step=300.ckpt"), hfLlama(3, "model."), Zero::Two, 2, 300, 300);
        QVERIFY(QFile::remove(dir.filePath("epoch=2-step=300.ckpt/checkpoint/mp_rank_00_model_states.pt")));
        writeLightningSave(dir.filePath("epoch=3-step=400.ckpt"), hfLlama(4, "model."), Zero::Two, 3, 400, 400, {}, "global_step400");
        writeLightningSave(dir.filePath("epoch=4-step=500.ckpt"), hfLlama(5, "model."), Zero::Two, 4, 500, 500, {}, QString());

        const RunAnalysis analysis = analyse(messy.path());
        expectProblems(analysis, {"epoch=2-step=300.ckpt", "epoch=3-step=400.ckpt"},
                       {"epoch=2-step=300.ckpt: no model states file (mp_rank_00_model_states.pt or zero_pp_rank_0_mp_rank_00_model_states.pt)",
                        "epoch=3-step=400.ckpt: DeepSpeed's latest names the tag global_step400, which is not here"});
        QCOMPARE(rowsOf(analysis), rowsOf(analyse(clean.path())));
        expectRun(analysis, {{100, early}, {200, late}, {300, {}}, {400, {}}});
        const SkippedFile *unfinished = skipped(analysis, "epoch=4-step=500.ckpt");
        QVERIFY2(unfinished && !unfinished->problem && unfinished->reason.contains("without DeepSpeed's latest"),
                 qPrintable(unfinished ? unfinished->reason : QStringLiteral("not named")));
        const CheckpointListing listing = CheckpointDiscovery::scan(messy.path());
        QVERIFY(listing.beingWritten.contains(QDir::cleanPath(dir.filePath("epoch=4-step=500.ckpt"))));
    }

    // One save opened on its own: a DeepSpeed save folder of one tag, at Lightning's step.
    void lightningDeepSpeedSaveOpenedAlone()
    {
        QTemporaryDir run;
        const QString save = QDir(run.path()).filePath("epoch=1-step=200.ckpt");
        const TinyModel model = hfLlama(2, "model.");
        writeLightningSave(save, model, Zero::Three, 1, 200, 50);
        const RunAnalysis analysis = analyse(save);
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{200, model}});
        QVERIFY2(CheckpointDiscovery::scan(save).takenFor.join('\n').contains("one Lightning checkpoint saved under DeepSpeedStrategy"),
                 qPrintable(CheckpointDiscovery::scan(save).takenFor.join('\n')));
    }

    // ---- Accelerate FSDP ----

    // checkpoint_0/ … checkpoint_2/ of save_state under FSDP SHARDED_STATE_DICT: one run whose steps
    // are said to be save indices, each read from pytorch_model_fsdp_0/ (keys under model.), the
    // optimizer's DCP folder never read.
    void accelerateFsdpSavesAreOneRun()
    {
        QTemporaryDir run;
        const QDir dir(run.path());
        const QList<TinyModel> models = {hfLlama(1), hfLlama(2), hfLlama(3)};
        for (int i = 0; i < 3; ++i)
            writeAccelerateSave(dir.filePath(QStringLiteral("checkpoint_%1").arg(i)), models[i], 40 * (i + 1));

        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QVERIFY2(listing.runs.isEmpty(), qPrintable(listing.runs.join(", ")));
        QCOMPARE(listing.checkpoints.size(), 3);
        QVERIFY2(listing.takenFor.join('\n').contains("an Accelerate save_state folder (automatic_checkpoint_naming): 3 checkpoint_N/ save(s), "
                                                      "weights from pytorch_model_fsdp_0/ (FSDP SHARDED_STATE_DICT"),
                 qPrintable(listing.takenFor.join('\n')));
        QCOMPARE(classified(listing, "checkpoint_1/optimizer_0").role, FileRole::TrainingSidecar);
        QVERIFY(classified(listing, "checkpoint_1/optimizer_0").reason.contains("optimizer state"));
        QCOMPARE(classified(listing, "checkpoint_1/pytorch_model_fsdp_0").role, FileRole::CheckpointFolder);
        QCOMPARE(classified(listing, "checkpoint_1/random_states_1.pkl").role, FileRole::TrainingSidecar);
        QCOMPARE(classified(listing, "checkpoint_1/scheduler.bin").role, FileRole::TrainingSidecar);

        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{0, models[0]}, {1, models[1]}, {2, models[2]}});
        QVERIFY2(analysis.notes.join('\n').contains("the steps of this run are Accelerate's save indices"), qPrintable(analysis.notes.join('\n')));
        const StepPlan steps = CheckpointSteps::decide({&listing.checkpoints[0], &listing.checkpoints[1], &listing.checkpoints[2]});
        QVERIFY2(steps.checkpoints[1].stepSource.contains("the save index in the name checkpoint_1"), qPrintable(steps.checkpoints[1].stepSource));

        // One save opened on its own is one checkpoint.
        const RunAnalysis alone = analyse(dir.filePath("checkpoint_1"));
        QVERIFY2(alone.issues.isEmpty(), qPrintable(issueTexts(alone).join('\n')));
        expectRun(alone, {{1, models[1]}});
    }

    // FULL_STATE_DICT: checkpoint_N/pytorch_model_fsdp.bin (torch.save of the full state dict on rank
    // 0) beside optimizer.bin: the same run, the same labels.
    void accelerateFullStateDictSaves()
    {
        QTemporaryDir run;
        const QDir dir(run.path());
        const QList<TinyModel> models = {hfLlama(1), hfLlama(2)};
        for (int i = 0; i < 2; ++i) {
            const QDir save(dir.filePath(QStringLiteral("checkpoint_%1").arg(i)));
            write(save.filePath("pytorch_model_fsdp.bin"), torchSaveStateDict(models[i].tensors));
            write(save.filePath("optimizer.bin"), torchSaveState({{"step", 10}}, "state"));
            write(save.filePath("scheduler.bin"), torchSaveState({{"last_epoch", 10}}));
            write(save.filePath("random_states_0.pkl"), torchSaveState({{"step", 0}}));
        }
        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{0, models[0]}, {1, models[1]}});
        QVERIFY2(CheckpointDiscovery::scan(run.path()).takenFor.join('\n').contains("weights from pytorch_model_fsdp.bin (FSDP FULL_STATE_DICT)"),
                 qPrintable(CheckpointDiscovery::scan(run.path()).takenFor.join('\n')));
        QVERIFY2(analysis.notes.join('\n').contains("save indices"), qPrintable(analysis.notes.join('\n')));
    }

    // A save holding only the optimizer's state, and one whose model folder has chunks but no
    // .metadata (its save did not finish): each refused by name, the rest analysed as in a clean folder.
    void accelerateBrokenSavesAreNamed()
    {
        QTemporaryDir clean, messy;
        const QList<TinyModel> models = {hfLlama(1), hfLlama(2)};
        for (const QString &folder : {clean.path(), messy.path()})
            for (int i = 0; i < 2; ++i)
                writeAccelerateSave(QDir(folder).filePath(QStringLiteral("checkpoint_%1").arg(i)), models[i], 40 * (i + 1));
        const QDir dir(messy.path());
        writeAccelerateSave(dir.filePath("checkpoint_2"), hfLlama(3), 120, false);
        writeAccelerateSave(dir.filePath("checkpoint_3"), hfLlama(4), 160);
        QVERIFY(QFile::remove(dir.filePath("checkpoint_3/pytorch_model_fsdp_0/.metadata")));

        const RunAnalysis analysis = analyse(messy.path());
        const QStringList texts = issueTexts(analysis);
        QVERIFY2(texts.join('\n').contains("checkpoint_2: Accelerate saved the optimizer's state here (optimizer_0/) but no model weights"),
                 qPrintable(texts.join('\n')));
        QVERIFY2(texts.join('\n').contains("checkpoint_3: folder holds no model weights"), qPrintable(texts.join('\n')));
        for (const AnalysisIssue &issue : analysis.issues)
            QVERIFY2(issue.path.contains("checkpoint_2") || issue.path.contains("checkpoint_3"), qPrintable(issue.text()));
        QCOMPARE(rowsOf(analysis), rowsOf(analyse(clean.path())));
        QVERIFY(analysis.runs.isEmpty());
    }

    // ---- torchtune ----

    // v0.5/v0.6 FullModelHFCheckpointer: epoch_0/ and epoch_1/ of two HF shards and an index each,
    // the base model's files copied, recipe_state/recipe_state.pt of the last intermediate save: one
    // run whose steps are the epochs, said to be, each epoch's shards one checkpoint.
    void torchtuneEpochFoldersAreOneRun()
    {
        QTemporaryDir run;
        const QDir dir(run.path());
        const QList<TinyModel> models = {hfLlama(1), hfLlama(2)};
        for (int epoch = 0; epoch < 2; ++epoch)
            writeTorchtuneHfEpoch(dir.filePath(QStringLiteral("epoch_%1").arg(epoch)), models[epoch]);
        write(dir.filePath("recipe_state/recipe_state.pt"), torchSaveState({{"epochs_run", 1}, {"seed", 1234}, {"total_epochs", 3}}, "optimizer"));

        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QVERIFY2(listing.runs.isEmpty(), qPrintable(listing.runs.join(", ")));
        QCOMPARE(listing.checkpoints.size(), 2);
        QVERIFY2(listing.takenFor.join('\n').contains("a torchtune output_dir: 2 epoch(s), one epoch_N/ folder each, weights read from "
                                                      "model.safetensors.index.json; steps are epochs"),
                 qPrintable(listing.takenFor.join('\n')));
        QCOMPARE(classified(listing, "recipe_state").role, FileRole::TrainingSidecar);
        QCOMPARE(classified(listing, "epoch_1").role, FileRole::CheckpointFolder);

        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{0, models[0]}, {1, models[1]}});
        QVERIFY2(analysis.notes.join('\n').contains("the steps of this run are epochs, not training steps"), qPrintable(analysis.notes.join('\n')));
        const StepPlan steps = CheckpointSteps::decide({&listing.checkpoints[0], &listing.checkpoints[1]});
        QCOMPARE(steps.checkpoints[1].stepSource, QStringLiteral("the epoch in the name epoch_1 (torchtune saves once per epoch)"));
    }

    // LoRA: each epoch_N/ holds the merged model, its adapter in torchtune's names (adapter_model.pt)
    // and in PEFT's (adapter_model.safetensors, adapter_config.json): the model is read, exactly,
    // and the adapter named.
    void torchtuneLoraEpochsReadTheMergedModel()
    {
        QTemporaryDir run;
        const QDir dir(run.path());
        const QList<TinyModel> models = {hfLlama(1), hfLlama(2)};
        for (int epoch = 0; epoch < 2; ++epoch) {
            const QDir folder(dir.filePath(QStringLiteral("epoch_%1").arg(epoch)));
            writeTorchtuneHfEpoch(folder.path(), models[epoch]);
            const QList<Tensor> tune = {{"layers.0.attn.q_proj.lora_a.weight", {2, 8}, knownSpectrum(2, 8, 1.0f)},
                                        {"layers.0.attn.q_proj.lora_b.weight", {8, 2}, knownSpectrum(8, 2, 1.0f)}};
            const QList<Tensor> peft = {{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", {2, 8}, knownSpectrum(2, 8, 1.0f)},
                                        {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", {8, 2}, knownSpectrum(8, 2, 1.0f)}};
            write(folder.filePath("adapter_model.pt"), torchSaveStateDict(tune));
            write(folder.filePath("adapter_model.safetensors"), safetensorsOf(peft));
            write(folder.filePath("adapter_config.json"), R"({"peft_type": "LORA", "r": 2, "lora_alpha": 4, "target_modules": ["q_proj"]})");
            write(folder.filePath("recipe_state.pt"), torchSaveState({{"epochs_run", epoch + 1}}, "optimizer"));
        }
        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{0, models[0]}, {1, models[1]}});
        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QVERIFY2(!listing.takenFor.join('\n').contains("PEFT"), qPrintable(listing.takenFor.join('\n')));
        QVERIFY2(classified(listing, "epoch_1/adapter_model.safetensors").reason.contains("LoRA adapter of this epoch"),
                 qPrintable(classified(listing, "epoch_1/adapter_model.safetensors").reason));
        QCOMPARE(classified(listing, "epoch_1/recipe_state.pt").role, FileRole::TrainingSidecar);
    }

    // FullModelMetaCheckpointer and FullModelTorchTuneCheckpointer (v0.5+): epoch_N/model-00001-of-00001.bin,
    // torch.save of the state_dict in Meta's names or torchtune's own: every matrix typed.
    void torchtuneMetaAndTuneNamedEpochs_data()
    {
        QTest::addColumn<bool>("meta");
        QTest::newRow("Meta names") << true;
        QTest::newRow("torchtune names") << false;
    }
    void torchtuneMetaAndTuneNamedEpochs()
    {
        QFETCH(bool, meta);
        QTemporaryDir run;
        const QDir dir(run.path());
        const QList<TinyModel> models = meta ? QList<TinyModel>{metaLlama(1), metaLlama(2)} : QList<TinyModel>{torchtuneLlama(1), torchtuneLlama(2)};
        for (int epoch = 0; epoch < 2; ++epoch)
            write(dir.filePath(QStringLiteral("epoch_%1/model-00001-of-00001.bin").arg(epoch)), torchSaveStateDict(models[epoch].tensors));
        write(dir.filePath("recipe_state/recipe_state.pt"), torchSaveState({{"epochs_run", 1}}, "optimizer"));
        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{0, models[0]}, {1, models[1]}});
    }

    // torchtune ≤ 0.4 saved flat: hf_model_0001_0.pt and hf_model_0002_0.pt are epoch 0 (not steps 1
    // and 2), meta_model_N.pt and torchtune_model_N.pt epoch N; adapter_N.pt beside a merged model
    // and the PEFT copy adapter_model.bin are named, recipe_state.pt a sidecar.
    void torchtuneFlatFilesAreOneCheckpointPerEpoch()
    {
        QTemporaryDir hf, meta;
        const QList<TinyModel> models = {hfLlama(1), hfLlama(2)};
        for (int epoch = 0; epoch < 2; ++epoch) {
            QList<Tensor> first, second;
            for (const Tensor &t : models[epoch].tensors)
                (t.name.contains("layers.1.") || t.name.startsWith("lm_head") ? second : first).append(t);
            write(QDir(hf.path()).filePath(QStringLiteral("hf_model_0001_%1.pt").arg(epoch)), torchSaveStateDict(first));
            write(QDir(hf.path()).filePath(QStringLiteral("hf_model_0002_%1.pt").arg(epoch)), torchSaveStateDict(second));
            write(QDir(hf.path()).filePath(QStringLiteral("adapter_%1.pt").arg(epoch)),
                  torchSaveStateDict({{"layers.0.attn.q_proj.lora_a.weight", {2, 8}, knownSpectrum(2, 8, 1.0f)},
                                      {"layers.0.attn.q_proj.lora_b.weight", {8, 2}, knownSpectrum(8, 2, 1.0f)}}));
        }
        write(QDir(hf.path()).filePath("adapter_model.bin"),
              torchSaveStateDict({{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", {2, 8}, knownSpectrum(2, 8, 1.0f)},
                                  {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", {8, 2}, knownSpectrum(8, 2, 1.0f)}}));
        write(QDir(hf.path()).filePath("adapter_config.json"), R"({"peft_type": "LORA", "r": 2, "lora_alpha": 4, "target_modules": ["q_proj"]})");
        write(QDir(hf.path()).filePath("recipe_state.pt"), torchSaveState({{"epochs_run", 1}}, "optimizer"));
        const RunAnalysis analysis = analyse(hf.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        expectRun(analysis, {{0, models[0]}, {1, models[1]}});
        QVERIFY(skipped(analysis, "adapter_1.pt") && skipped(analysis, "adapter_1.pt")->reason.contains("LoRA adapter of epoch 1"));
        QVERIFY(skipped(analysis, "adapter_model.bin") && skipped(analysis, "adapter_model.bin")->reason.contains("PEFT copy"));
        QVERIFY2(CheckpointDiscovery::scan(hf.path()).takenFor.join('\n').contains("a torchtune output_dir: 2 epoch(s), flat files named by epoch"),
                 qPrintable(CheckpointDiscovery::scan(hf.path()).takenFor.join('\n')));

        const QList<TinyModel> metaModels = {metaLlama(1), metaLlama(2), torchtuneLlama(3)};
        write(QDir(meta.path()).filePath("meta_model_0.pt"), torchSaveStateDict(metaModels[0].tensors));
        write(QDir(meta.path()).filePath("meta_model_1.pt"), torchSaveStateDict(metaModels[1].tensors));
        write(QDir(meta.path()).filePath("torchtune_model_2.pt"), torchSaveStateDict(metaModels[2].tensors));
        const RunAnalysis flat = analyse(meta.path());
        QVERIFY2(flat.issues.isEmpty(), qPrintable(issueTexts(flat).join('\n')));
        expectRun(flat, {{0, metaModels[0]}, {1, metaModels[1]}, {2, metaModels[2]}});
    }

    // An epoch folder with a shard missing and a flat epoch with a shard missing: each refused by
    // name, saying which shard, and the other epochs analysed as in a clean folder.
    void torchtuneMissingShardsAreNamed()
    {
        QTemporaryDir clean, messy, flatClean, flatMessy;
        const QList<TinyModel> models = {hfLlama(1), hfLlama(2), hfLlama(3)};
        for (const QString &folder : {clean.path(), messy.path()})
            for (int epoch = 0; epoch < 2; ++epoch)
                writeTorchtuneHfEpoch(QDir(folder).filePath(QStringLiteral("epoch_%1").arg(epoch)), models[epoch]);
        writeTorchtuneHfEpoch(QDir(messy.path()).filePath("epoch_2"), models[2], false);
        const RunAnalysis analysis = analyse(messy.path());
        expectProblems(analysis, {"epoch_2"}, {"epoch_2: shard model-00002-of-00002.safetensors named by the index is missing"});
        QCOMPARE(rowsOf(analysis), rowsOf(analyse(clean.path())));

        for (const QString &folder : {flatClean.path(), flatMessy.path()})
            for (int epoch = 0; epoch < 2; ++epoch) {
                QList<Tensor> first, second;
                for (const Tensor &t : models[epoch].tensors)
                    (t.name.contains("layers.1.") ? second : first).append(t);
                write(QDir(folder).filePath(QStringLiteral("hf_model_0001_%1.pt").arg(epoch)), torchSaveStateDict(first));
                write(QDir(folder).filePath(QStringLiteral("hf_model_0002_%1.pt").arg(epoch)), torchSaveStateDict(second));
            }
        write(QDir(flatMessy.path()).filePath("hf_model_0001_2.pt"), torchSaveStateDict(models[2].tensors.mid(0, 5)));
        const RunAnalysis flat = analyse(flatMessy.path());
        expectProblems(flat, {"hf_model_0001_2.pt"}, {"hf_model_0001_2.pt: shard(s) 2 of 2 of epoch 2 are missing (every epoch is saved in 2 shards)"});
        QCOMPARE(rowsOf(flat), rowsOf(analyse(flatClean.path())));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTrainerLayouts)
} // namespace tst_trainerlayouts

#include "tst_TrainerLayouts.moc"
