// Megatron-DeepSpeed tensor-parallel saves: megatron/checkpointing.py save_checkpoint with --deepspeed
// --no-pipeline-parallel (microsoft/Megatron-DeepSpeed f4157bea69) hands Megatron's client state to
// DeepSpeed's engine.save_checkpoint (deepspeed/runtime/engine.py @38327e07f6), which writes
// global_stepN/mp_rank_TT_model_states.pt per tensor-parallel rank (_get_ckpt_name), each rank's share
// of the legacy GPTModel under `module`, and `latest`. Every matrix has a spectrum of its own and is
// sharded as Megatron's layers shard it (independently of the code under test): the merged matrices
// must equal the unsharded ones exactly.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "FamilyCheckpoint.h"
#include "io/CheckpointFormats.h"
#include "MegatronCheckpointWriter.h"
#include "TestSuite.h"

#include <QTemporaryDir>

namespace tst_megatrondeepspeed {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using T = MatrixType;
using M = Eigen::MatrixXd;
using namespace tiny_megatron;

enum class Shard { Rows, Gated, Columns, Whole };
struct GlobalTensor {
    QString name;     // the merged name
    QStringList path; // the nested keys of the legacy GPTModel's state_dict_for_save_checkpoint
    M values;
    Shard shard;
    bool vector = false;
};

M share(const GlobalTensor &g, int t)
{
    const M &m = g.values;
    switch (g.shard) {
    case Shard::Rows: return m.middleRows(t * m.rows() / TP, m.rows() / TP);
    case Shard::Columns: return m.middleCols(t * m.cols() / TP, m.cols() / TP);
    case Shard::Gated: { // each rank holds its own [gate_t; up_t] (the MLP's glu chunks the local output)
        const qint64 half = m.rows() / 2, part = half / TP;
        return stackRows({m.middleRows(t * part, part), m.middleRows(half + t * part, part)});
    }
    case Shard::Whole: break;
    }
    return m;
}

// The legacy GPT (megatron/legacy/model): QKV per query group [q × 2, k, v], swiglu dense_h_to_4h [gate; up].
QList<GlobalTensor> legacyModel(FamilyCheckpoint &f)
{
    QList<GlobalTensor> model{{"language_model.embedding.word_embeddings.weight", {"language_model", "embedding", "word_embeddings", "weight"},
                               f.other(VOCAB, H), Shard::Rows}};
    for (int l = 0; l < LAYERS; ++l) {
        const QString layer = QStringLiteral("layers.%1.").arg(l);
        auto add = [&](const QString &leaf, const M &values, Shard shard, bool vector = false) {
            model.append({"language_model.encoder." + layer + leaf, {"language_model", "encoder", layer + leaf}, values, shard, vector});
        };
        add("input_layernorm.weight", M::Ones(1, H), Shard::Whole, true);
        const M q = f.matrix(id(l, T::Q), HEADS * HD, H), k = f.matrix(id(l, T::K), GROUPS * HD, H), v = f.matrix(id(l, T::V), GROUPS * HD, H);
        add("self_attention.query_key_value.weight", interleaveRows({q, k, v}, {HEADS / GROUPS * HD, HD, HD}, GROUPS), Shard::Rows);
        add("self_attention.dense.weight", f.matrix(id(l, T::O), H, HEADS * HD), Shard::Columns);
        add("post_attention_layernorm.weight", M::Ones(1, H), Shard::Whole, true);
        add("mlp.dense_h_to_4h.weight", stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)}), Shard::Gated);
        add("mlp.dense_4h_to_h.weight", f.matrix(id(l, T::MlpDown), H, FF), Shard::Columns);
    }
    model.append({"language_model.encoder.final_layernorm.weight", {"language_model", "encoder", "final_layernorm.weight"}, M::Ones(1, H), Shard::Whole, true});
    return model;
}

QList<QPair<QString, QVariant>> megatronArgs(bool withHeads = true)
{
    QList<QPair<QString, QVariant>> args{{"num_layers", LAYERS}, {"hidden_size", H}, {"ffn_hidden_size", FF}, {"group_query_attention", true},
                                         {"num_query_groups", GROUPS}, {"kv_channels", HD}, {"swiglu", true}, {"tensor_model_parallel_size", TP},
                                         {"pipeline_model_parallel_size", 1}, {"deepspeed", true}, {"zero_stage", 1}};
    if (withHeads)
        args.prepend({"num_attention_heads", HEADS});
    return args;
}

// global_stepN/ with every TP rank's model states, and `latest` naming it.
QStringList writeTag(const QString &save, qint64 step, const QList<GlobalTensor> &model, const QList<QPair<QString, QVariant>> &args)
{
    QStringList files;
    for (int t = 0; t < TP; ++t) {
        QList<MegatronEntry> entries;
        for (const GlobalTensor &g : model) {
            const M s = share(g, t);
            entries.append({g.path, g.vector ? QList<qint64>{s.cols()} : QList<qint64>{s.rows(), s.cols()}, s});
        }
        MegatronPickle pickle(args, step);
        pickle.addChunk(entries);
        files << QStringLiteral("%1/global_step%2/mp_rank_%3_model_states.pt").arg(save).arg(step).arg(t, 2, 10, QLatin1Char('0'));
        writeFile(files.last(), pickle.deepSpeedModelStatesArchive(t, TP));
    }
    writeFile(save + "/latest", QStringLiteral("global_step%1").arg(step).toUtf8());
    return files;
}

} // namespace

class TestMegatronDeepSpeed : public QObject {
    Q_OBJECT

private slots:
    // Two TP ranks merged: every tensor the unsharded one; the folder one run, each part its spectrum.
    void tensorParallelRanksMerged()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<GlobalTensor> model = legacyModel(f);
        const QStringList files = writeTag(dir.path(), 300, model, megatronArgs());
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpointFiles(WeightsLayout::DeepSpeedTag, files, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("deepspeed (Megatron-DeepSpeed, TP 2 shards merged)"));
        QCOMPARE(reader->step(), std::optional<qint64>(300));
        QCOMPARE(reader->modelConfig().value("num_query_groups").toInt(), GROUPS);
        QCOMPARE(reader->tensors().size(), model.size());
        for (const GlobalTensor &g : model) {
            if (g.vector)
                continue;
            const MatrixRead read = reader->readMatrix(g.name);
            QVERIFY2(read.ok(), qPrintable(g.name + ": " + read.error));
            QVERIFY2(read.values == g.values.cast<float>().cast<double>(), qPrintable(g.name + " differs from the unsharded tensor"));
        }
        QVERIFY2(reader->warnings().isEmpty(), qPrintable(reader->warnings().join('\n')));

        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QVERIFY2(listing.takenFor.join('\n').contains("2 model-parallel ranks, joined as Megatron's tensor-parallel shards"), qPrintable(listing.takenFor.join('\n')));
        RunAnalyzer analyzer;
        const RunAnalysis run = analyzer.analyzeFolder(dir.path());
        QCOMPARE(run.results.size(), f.expected().size());
        for (const MatrixResult &r : run.results) {
            QVERIFY2(f.expected().contains(r.identity()), qPrintable("unexpected " + r.identity().text()));
            const double expected = f.expected()[r.identity()].stableRank;
            QVERIFY2(std::abs(r.metrics.stableRank - expected) < 1e-4 * expected, qPrintable(r.identity().text() + " " + r.tensor));
        }
        QVERIFY(run.issues.isEmpty());
    }

    // Ranks without Megatron's args, or a rank missing: refused by name, never merged by guess or read short.
    void refusedWhenTheSplitCannotBeKnown()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QStringList files = writeTag(dir.path(), 300, legacyModel(f), megatronArgs(false));
        QString error;
        QVERIFY(!openCheckpointFiles(WeightsLayout::DeepSpeedTag, files, &error));
        QVERIFY2(error.contains("merging them is not done") && error.contains("carry no Megatron args"), qPrintable(error));

        FamilyCheckpoint other;
        files = writeTag(dir.path(), 400, legacyModel(other), megatronArgs());
        QVERIFY(QFile::remove(files.takeLast()));
        QVERIFY(!openCheckpointFiles(WeightsLayout::DeepSpeedTag, files, &error));
        QVERIFY2(error.contains("one of 2 model-parallel ranks (mp_world_size)") && error.contains("not read short"), qPrintable(error));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMegatronDeepSpeed)
} // namespace tst_megatrondeepspeed

#include "tst_MegatronDeepSpeed.moc"
