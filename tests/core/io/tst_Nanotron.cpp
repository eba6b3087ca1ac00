// nanotron's checkpoints: <checkpoints>/<step>/ with checkpoint_metadata.json, model_config.json
// and model/, one safetensors file per parameter and tensor-parallel rank, each holding "data" and
// the slices it fills of the unsharded tensor. The files are written here as nanotron's
// serialize/weights.py and parallel/sharded_parameters.py write them (independently of the code
// under test): a column-parallel linear with contiguous chunks (qkv_proj: nH·d, nKV·d, nKV·d;
// gate_up_proj: I, I) holds on rank r its own block of every chunk, [q_r; k_r; v_r], with one
// slice pair per chunk; a row-parallel linear (o_proj, down_proj) a block of columns; the vocabulary
// embedding and lm_head a block of rows; the norms whole, unsuffixed. Every matrix has a spectrum of
// its own, so a join in rank order ([q_0; k_0; v_0; q_1; …]) or a wrong split shows.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "FamilyCheckpoint.h"
#include "io/CheckpointFormats.h"
#include "io/nanotron/NanotronLayout.h"
#include "io/nanotron/NanotronReader.h"
#include "TestSuite.h"

#include <QJsonDocument>
#include <QTemporaryDir>

namespace tst_nanotron {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using T = MatrixType;
using M = Eigen::MatrixXd;
constexpr int DIM = 16, HEADS = 4, KV = 2, HD = 4, LAYERS = 2, FFN = 24, VOCAB = 32;

// How a parameter lies over the tensor-parallel ranks.
struct Parameter {
    QString name;     // model.decoder.0.pp_block.attn.qkv_proj.weight
    M values;         // unsharded (a vector is one row)
    int splitDim = -1; // -1: not sharded (a norm)
    QList<int> chunks = {}; // contiguous chunks along splitDim (qkv_proj, gate_up_proj)
    bool vector = false;
};

QList<Parameter> llama(FamilyCheckpoint &f)
{
    QList<Parameter> model;
    model.append({"model.token_position_embeddings.pp_block.token_embedding.weight", f.other(VOCAB, DIM), 0});
    for (int l = 0; l < LAYERS; ++l) {
        const QString p = QStringLiteral("model.decoder.%1.pp_block.").arg(l);
        const M q = f.matrix(id(l, T::Q), HEADS * HD, DIM), k = f.matrix(id(l, T::K), KV * HD, DIM), v = f.matrix(id(l, T::V), KV * HD, DIM);
        const M gate = f.matrix(id(l, T::MlpGate), FFN, DIM), up = f.matrix(id(l, T::MlpUp), FFN, DIM);
        model.append({p + "input_layernorm.weight", M::Ones(1, DIM), -1, {}, true});
        model.append({p + "attn.qkv_proj.weight", stackRows({q, k, v}), 0, {HEADS * HD, KV * HD, KV * HD}});
        model.append({p + "attn.o_proj.weight", f.matrix(id(l, T::O), DIM, HEADS * HD), 1});
        model.append({p + "post_attention_layernorm.weight", M::Ones(1, DIM), -1, {}, true});
        model.append({p + "mlp.gate_up_proj.weight", stackRows({gate, up}), 0, {FFN, FFN}});
        model.append({p + "mlp.down_proj.weight", f.matrix(id(l, T::MlpDown), DIM, FFN), 1});
    }
    model.append({"model.final_layer_norm.pp_block.weight", M::Ones(1, DIM), -1, {}, true});
    model.append({"model.lm_head.pp_block.weight", f.other(VOCAB, DIM), 0});
    return model;
}

QString slice(qint64 start, qint64 stop) { return QStringLiteral("%1,%2,None").arg(start).arg(stop); }
const QString kAll = QStringLiteral("None,None,None");

QByteArray floats(const M &m)
{
    QList<float> values;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            values << float(m(r, c));
    return rawBytes(values);
}

// Rank `rank` of `tp`'s shard and its "local_global_slices_pairs", as create_sharded_parameter_from_config makes them.
QPair<M, QString> shardOf(const Parameter &p, int rank, int tp)
{
    if (p.splitDim == 1) {
        const int width = int(p.values.cols()) / tp;
        return {p.values.middleCols(rank * width, width), kAll + "|" + kAll + "#" + kAll + "|" + slice(rank * width, (rank + 1) * width)};
    }
    const QList<int> chunks = p.chunks.isEmpty() ? QList<int>{int(p.values.rows())} : p.chunks;
    QList<M> blocks;
    QStringList pairs;
    int global = 0, local = 0;
    for (int chunk : chunks) {
        const int length = chunk / tp;
        blocks << p.values.middleRows(global + rank * length, length);
        pairs << slice(local, local + length) + "|" + kAll + "#" + slice(global + rank * length, global + (rank + 1) * length) + "|" + kAll;
        global += chunk;
        local += length;
    }
    return {stackRows(blocks), pairs.join(';')};
}

QString folderOf(const QString &model, const QString &name)
{
    QStringList parts = name.split('.');
    parts.removeLast();
    return QDir(model).filePath(parts.join('/'));
}

QString shardFile(int rank, int tp) { return QStringLiteral("model_weight_pp-rank-0-of-1_tp-rank-%1-of-%2.safetensors").arg(rank).arg(tp); }

// One step folder, as trainer.py save_checkpoint leaves it.
void writeStep(const QString &folder, const QList<Parameter> &model, qint64 step, int tp = 2)
{
    const QString root = QDir(folder).filePath("model");
    for (const Parameter &p : model) {
        const QString where = folderOf(root, p.name);
        QDir().mkpath(where);
        if (p.splitDim < 0) {
            saveBytes(QDir(where).filePath("model_weight.safetensors"),
                      safetensorsFile({{"data", "F32", p.vector ? QList<qint64>{p.values.cols()} : QList<qint64>{p.values.rows(), p.values.cols()}, floats(p.values)}}));
            continue;
        }
        for (int rank = 0; rank < tp; ++rank) {
            const auto [shard, pairs] = shardOf(p, rank, tp);
            const QJsonObject metadata{{"version", "1.5"},
                                       {"local_global_slices_pairs", pairs},
                                       {"unsharded_shape", QStringLiteral("(%1, %2)").arg(p.values.rows()).arg(p.values.cols())}};
            saveBytes(QDir(where).filePath(shardFile(rank, tp)), safetensorsFile({{"data", "F32", {shard.rows(), shard.cols()}, floats(shard)}}, {}, metadata));
        }
    }
    const QJsonObject metas{{"consumed_train_samples", step * 8}, {"last_train_step", step}, {"last_stage_idx", 0}};
    saveBytes(QDir(folder).filePath("checkpoint_metadata.json"),
              QJsonDocument(QJsonObject{{"version", "1.5"}, {"tp", tp}, {"dp", 1}, {"cp", 1}, {"custom_metas", QJsonValue()}, {"metas", metas}}).toJson());
    saveBytes(QDir(folder).filePath("model_config.json"),
              QJsonDocument(QJsonObject{{"hidden_size", DIM}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"intermediate_size", FFN},
                                        {"num_hidden_layers", LAYERS}, {"vocab_size", VOCAB}, {"is_llama_config", true}, {"hidden_act", "silu"}})
                  .toJson(QJsonDocument::Compact));
    saveBytes(QDir(folder).filePath("config.yaml"), QStringLiteral("general:\n  step: %1\n").arg(step).toUtf8());
    for (const char *state : {"optimizer", "lr_scheduler", "random"}) {
        QDir().mkpath(QDir(folder).filePath(state));
        saveBytes(QDir(folder).filePath(QStringLiteral("%1/state_pp-0-of-1_tp-0-of-%2.pt").arg(state).arg(tp)), "not read");
    }
}

// The analysis holds exactly the expected matrices at each step, each with its stable rank.
void verifyAnalysis(const FamilyCheckpoint &f, const RunAnalysis &run, const QList<qint64> &steps, bool issuesAllowed = false)
{
    QSet<QPair<qint64, MatrixIdentity>> seen;
    for (const MatrixResult &r : run.results) {
        QVERIFY2(steps.contains(r.step), qPrintable(QStringLiteral("step %1 analysed").arg(r.step)));
        const MatrixIdentity key = r.identity();
        QVERIFY2(f.expected().contains(key), qPrintable("unexpected " + key.text() + " " + r.tensor));
        const ExpectedMatrix &e = f.expected()[key];
        QCOMPARE(r.rows, e.rows);
        QCOMPARE(r.cols, e.cols);
        QVERIFY2(std::abs(r.metrics.stableRank - e.stableRank) < 1e-6,
                 qPrintable(QStringLiteral("%1 (%2): stable rank %3, expected %4").arg(key.text(), r.tensor).arg(r.metrics.stableRank).arg(e.stableRank)));
        seen.insert({r.step, key});
    }
    QCOMPARE(seen.size(), f.expected().size() * steps.size());
    if (!issuesAllowed) {
        QStringList issues;
        for (const AnalysisIssue &i : run.issues)
            issues << i.text();
        QVERIFY2(run.issues.isEmpty(), qPrintable(issues.join('\n')));
    }
}

QString issueOf(const RunAnalysis &run, const QString &name)
{
    QStringList found;
    for (const AnalysisIssue &i : run.issues)
        if (i.path.contains(name) || i.text().contains(name))
            found << i.text();
    return found.isEmpty() ? QStringLiteral("(no issue for %1)").arg(name) : found.join('\n');
}

} // namespace

class TestNanotron : public QObject {
    Q_OBJECT

private slots:
    void parsesWhatNanotronWrites()
    {
        QCOMPARE(NanotronReader::parseShape("(768, 512)"), std::optional(QList<qint64>{768, 512}));
        QCOMPARE(NanotronReader::parseShape("(np.int64(768), 512)"), std::optional(QList<qint64>{768, 512}));
        QCOMPARE(NanotronReader::parseShape("(32,)"), std::optional(QList<qint64>{32}));
        QVERIFY(!NanotronReader::parseShape("(0, 4)"));
        QVERIFY(!NanotronReader::parseShape("[4, 4]"));
        QVERIFY(!NanotronReader::parseShape("(4, __import__('os'))"));
        const std::optional<NanotronFileName> shard = NanotronLayout::parseFileName("model_weight_pp-rank-0-of-1_tp-rank-1-of-2.safetensors");
        QVERIFY(shard && shard->sharded && shard->tensorRank == 1 && shard->tensorSize == 2 && shard->kind == "weight");
        const std::optional<NanotronFileName> whole = NanotronLayout::parseFileName("model_bias.safetensors");
        QVERIFY(whole && !whole->sharded && whole->kind == "bias");
        QVERIFY(!NanotronLayout::parseFileName("model_weight_pp-rank-0-of-1_tp-rank-2-of-2.safetensors"));
        QVERIFY(!NanotronLayout::parseFileName("optimizer_pp-0-of-1_tp-0-of-2.pt"));
        // The worked example of serialize/metadata.py's SlicesPair: two pairs, strided slices.
        QString error;
        QVERIFY(!NanotronReader::parseSlices("0,10,2|None,None,None#0,10,2|None,None,None", {10, 4}, {10, 4}, &error));
        const auto pairs = NanotronReader::parseSlices("0,8,None|None,None,None#8,16,None|None,None,None;8,12,None|None,None,None#20,24,None|None,None,None",
                                                       {12, 4}, {24, 4}, &error);
        QVERIFY2(pairs && pairs->size() == 2, qPrintable(error));
        QCOMPARE((*pairs)[1].global.start, (QList<qint64>{20, 0}));
        QCOMPARE((*pairs)[1].global.stop, (QList<qint64>{24, 4}));
    }

    // Each parameter read back is the unsharded tensor, joined by its slices, not in rank order.
    void joinedTensorsAreTheUnshardedOnes()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<Parameter> model = llama(f);
        writeStep(dir.filePath("10"), model, 10);
        QString error;
        const FolderWeights weights = FolderWeights::read(dir.filePath("10"));
        const WeightsGroup *group = weights.checkpoint(&error);
        QVERIFY2(group && group->layout == WeightsLayout::NanotronParameters, qPrintable(error));
        QCOMPARE(group->stepInFile, std::optional<qint64>(10));
        std::unique_ptr<CheckpointReader> reader = openCheckpointFiles(group->layout, group->files, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), model.size());
        for (const Parameter &p : model) {
            if (p.vector)
                continue;
            const MatrixRead read = reader->readMatrix(p.name);
            QVERIFY2(read.ok(), qPrintable(p.name + ": " + read.error));
            QVERIFY2(read.values == asFloat(p.values), qPrintable(p.name + " is not the unsharded tensor"));
        }
        QCOMPARE(reader->modelConfig().value("num_key_value_heads").toInt(), KV);
        // Every file and folder of the step is said for what it is; none is left unexplained.
        for (const ClassifiedFile &file : weights.files)
            QVERIFY2(file.role != FileRole::Other, qPrintable(file.path + ": " + file.reason));
    }

    // A checkpoints folder of step folders is one run; Q, K, V and gate, up come out of the fused
    // tensors with their own spectra, at each step.
    void checkpointsFolderIsOneRun()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<Parameter> model = llama(f);
        writeStep(dir.filePath("checkpoints/10"), model, 10);
        writeStep(dir.filePath("checkpoints/20"), model, 20);
        saveBytes(dir.filePath("checkpoints/latest.txt"), "20");
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.filePath("checkpoints"));
        QCOMPARE(listing.checkpoints.size(), 2);
        QVERIFY2(listing.takenFor.join(' ').contains("a nanotron checkpoints folder: 2 step folder(s)") && listing.takenFor.join(' ').contains("latest.txt: 20"),
                 qPrintable(listing.takenFor.join('\n')));
        verifyAnalysis(f, RunAnalyzer().analyzeFolder(dir.filePath("checkpoints")), {10, 20});
        // Opened one level up, the checkpoints folder is the run.
        QCOMPARE(CheckpointDiscovery::scan(dir.path()).runs.size(), 1);
    }

    // A parameter whose shards cannot be joined as their metadata says is named with the reason;
    // every other matrix of the step is analysed.
    void hostileShardsRefusedOthersAnalysed_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("said");
        QTest::newRow("a rank missing") << "missing" << "1 of its 2 tensor-parallel shards are here (tp-rank-1 missing): not joined short";
        QTest::newRow("two ranks fill the same rows") << "same-rows" << "two shards both fill [0:8, 0:16] of the [32, 16] tensor";
        QTest::newRow("a larger tensor claimed") << "claims-more" << "its shards fill only part of the [64, 16] tensor their metadata declares";
        QTest::newRow("a block outside the shard") << "outside" << "is not a step-1 block inside the [16, 16] shard and the [32, 16] tensor";
        QTest::newRow("one stored block copied twice") << "reused" << "name the same stored elements";
        QTest::newRow("no slices") << "no-metadata" << "has no unsharded_shape nanotron writes";
        QTest::newRow("strided slices") << "strided" << "is not a step-1 block inside";
    }
    void hostileShardsRefusedOthersAnalysed()
    {
        QFETCH(QString, variant);
        QFETCH(QString, said);
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QList<Parameter> model = llama(f);
        writeStep(dir.filePath("checkpoints/10"), model, 10);
        writeStep(dir.filePath("checkpoints/20"), model, 20);
        const QString qkv = dir.filePath("checkpoints/20/model/model/decoder/1/pp_block/attn/qkv_proj/");
        const Parameter &fused = model[8]; // layer 1's qkv_proj
        QVERIFY(fused.name == "model.decoder.1.pp_block.attn.qkv_proj.weight");
        auto rewrite = [&](const QString &pairs, const QString &shape, const M &shard, int rank = 1) {
            QJsonObject metadata{{"local_global_slices_pairs", pairs}, {"unsharded_shape", shape}};
            if (pairs.isEmpty())
                metadata = {};
            saveBytes(qkv + shardFile(rank, 2), safetensorsFile({{"data", "F32", {shard.rows(), shard.cols()}, floats(shard)}}, {}, metadata));
        };
        const auto [shard, pairs] = shardOf(fused, 0, 2);
        if (variant == "missing")
            QVERIFY(QFile::remove(qkv + shardFile(1, 2)));
        else if (variant == "same-rows")
            rewrite(pairs, "(32, 16)", shard);
        else if (variant == "claims-more")
            for (int rank : {0, 1})
                rewrite(shardOf(fused, rank, 2).second, "(64, 16)", shardOf(fused, rank, 2).first, rank);
        else if (variant == "outside")
            rewrite("0,8,None|None,None,None#16,24,None|None,None,None;8,12,None|None,None,None#24,28,None|None,None,None;12,20,None|None,None,None#28,36,None|None,None,None",
                    "(32, 16)", shard);
        else if (variant == "reused")
            rewrite("0,8,None|None,None,None#8,16,None|None,None,None;0,8,None|None,None,None#20,28,None|None,None,None", "(32, 16)", shard);
        else if (variant == "no-metadata")
            rewrite({}, {}, shard);
        else if (variant == "strided")
            rewrite("0,16,2|None,None,None#8,16,None|None,None,None", "(32, 16)", shard);

        const RunAnalysis run = RunAnalyzer().analyzeFolder(dir.filePath("checkpoints"));
        const QString issue = issueOf(run, "qkv_proj");
        QVERIFY2(issue.contains(said), qPrintable(issue));
        // Step 10 in full; step 20 without layer 1's Q, K and V.
        qsizetype atTwenty = 0;
        for (const MatrixResult &r : run.results) {
            QVERIFY2(!(r.step == 20 && r.layer == 1 && (r.type == T::Q || r.type == T::K || r.type == T::V)), qPrintable(r.tensor));
            atTwenty += r.step == 20 ? 1 : 0;
        }
        QCOMPARE(atTwenty, f.expected().size() - 3);
        QCOMPARE(run.results.size() - atTwenty, f.expected().size());
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestNanotron)
} // namespace tst_nanotron

#include "tst_Nanotron.moc"
