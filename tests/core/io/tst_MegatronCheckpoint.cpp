// Megatron-LM legacy saves, written byte for byte as megatron/training/checkpointing.py (Megatron-LM
// d98e8a64dd; legacy model code at 532ad926b4) has torch.save write them: a save folder with
// latest_checkpointed_iteration.txt and iter_NNNNNNN/mp_rank_TT_PPP/model_optim_rng.pt. Every matrix
// of the unsharded model has a spectrum of its own and is sharded here as Megatron's layers shard it
// (written independently of the code under test), so the merged matrices must equal the unsharded
// ones exactly and every part must come out with its own stable rank.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "FamilyCheckpoint.h"
#include "io/CheckpointFormats.h"
#include "io/megatron/MegatronCheckpointReader.h"
#include "io/nemo/NemoCheckpointReader.h"
#include "MegatronCheckpointWriter.h"
#include "TestSuite.h"

#include <QTemporaryDir>

namespace tst_megatroncheckpoint {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using T = MatrixType;
using M = Eigen::MatrixXd;
// 4 query heads in 2 groups of head_dim 2 (kv_channels), hidden 8, ffn 6, 4 layers, vocabulary 16.
constexpr int H = 8, HEADS = 4, GROUPS = 2, HD = 2, FF = 6, LAYERS = 4, VOCAB = 16;

// Megatron's shards of one unsharded tensor on TP rank t of n.
M rowShard(const M &m, int n, int t) { return m.middleRows(t * m.rows() / n, m.rows() / n); }
M columnShard(const M &m, int n, int t) { return m.middleCols(t * m.cols() / n, m.cols() / n); }
// A gated fc1 [gate; up]: each rank holds its own [gate_t; up_t] (mlp.py glu chunks the local output).
M gatedShard(const M &m, int n, int t)
{
    const M gate = m.topRows(m.rows() / 2), up = m.bottomRows(m.rows() / 2);
    return stackRows({rowShard(gate, n, t), rowShard(up, n, t)});
}

// One tensor of the unsharded model and how Megatron shards it.
enum class Shard { Rows, Gated, Columns, Whole };
struct GlobalTensor {
    QString name;   // the unsharded model's name, global layer numbers ("language_model.encoder.layers.3.…")
    QStringList path; // the nested keys a stage saves it under, local layer number in place of the global
    int stage = 0;
    M values;
    Shard shard = Shard::Whole;
    bool vector = false;
};

QList<QPair<QString, QVariant>> legacyArgs(int tp, int pp, bool gqa, bool swiglu)
{
    return {{"num_layers", LAYERS}, {"hidden_size", H}, {"ffn_hidden_size", FF}, {"num_attention_heads", HEADS},
            {"group_query_attention", gqa}, {"num_query_groups", gqa ? GROUPS : 1}, {"kv_channels", HD}, {"swiglu", swiglu},
            {"tensor_model_parallel_size", tp}, {"pipeline_model_parallel_size", pp}, {"padded_vocab_size", VOCAB},
            {"ckpt_format", QStringLiteral("torch")}, {"lr", 3e-4}};
}

// The legacy GPT model (megatron/legacy/model): QKV per query group [q × 2, k, v], swiglu dense_h_to_4h
// [gate; up], nested as language_model → embedding / encoder / output_layer.
QList<GlobalTensor> legacyModel(FamilyCheckpoint &f, int stages)
{
    QList<GlobalTensor> model;
    const int perStage = LAYERS / stages;
    model.append({"language_model.embedding.word_embeddings.weight", {"language_model", "embedding", "word_embeddings", "weight"}, 0,
                  f.other(VOCAB, H), Shard::Rows});
    for (int l = 0; l < LAYERS; ++l) {
        const int stage = l / perStage;
        const QString local = QStringLiteral("layers.%1.").arg(l % perStage), global = QStringLiteral("language_model.encoder.layers.%1.").arg(l);
        auto add = [&](const QString &leaf, const M &values, Shard shard, bool vector = false) {
            model.append({global + leaf, {"language_model", "encoder", local + leaf}, stage, values, shard, vector});
        };
        add("input_norm.weight", M::Ones(1, H), Shard::Whole, true);
        const M q = f.matrix(id(l, T::Q), HEADS * HD, H), k = f.matrix(id(l, T::K), GROUPS * HD, H), v = f.matrix(id(l, T::V), GROUPS * HD, H);
        add("self_attention.query_key_value.weight", interleaveRows({q, k, v}, {HEADS / GROUPS * HD, HD, HD}, GROUPS), Shard::Rows);
        add("self_attention.dense.weight", f.matrix(id(l, T::O), H, HEADS * HD), Shard::Columns);
        add("post_attention_norm.weight", M::Ones(1, H), Shard::Whole, true);
        add("mlp.dense_h_to_4h.weight", stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)}), Shard::Gated);
        add("mlp.dense_4h_to_h.weight", f.matrix(id(l, T::MlpDown), H, FF), Shard::Columns);
    }
    model.append({"language_model.encoder.final_norm.weight", {"language_model", "encoder", "final_norm.weight"}, stages - 1, M::Ones(1, H),
                  Shard::Whole, true});
    model.append({"language_model.output_layer.weight", {"language_model", "output_layer", "weight"}, stages - 1, f.other(VOCAB, H), Shard::Rows});
    return model;
}

// Megatron-Core's GPTModel with Transformer Engine layers (flat names, norms fused into linear_qkv and
// linear_fc1 as layer_norm_weight): multi-head attention (one group per head) and fc1 not gated, or
// grouped-query attention and swiglu; `prefix` is NeMo's "model.".
QList<GlobalTensor> coreModel(FamilyCheckpoint &f, int stages, bool gqaSwiglu = false, const QString &prefix = {})
{
    const int groups = gqaSwiglu ? GROUPS : HEADS;
    QList<GlobalTensor> model;
    const int perStage = LAYERS / stages;
    model.append({prefix + "embedding.word_embeddings.weight", {prefix + "embedding.word_embeddings.weight"}, 0, f.other(VOCAB, H), Shard::Rows});
    for (int l = 0; l < LAYERS; ++l) {
        const int stage = l / perStage;
        const QString local = QStringLiteral("%1decoder.layers.%2.").arg(prefix).arg(l % perStage);
        const QString global = QStringLiteral("%1decoder.layers.%2.").arg(prefix).arg(l);
        auto add = [&](const QString &leaf, const M &values, Shard shard, bool vector = false) {
            model.append({global + leaf, {local + leaf}, stage, values, shard, vector});
        };
        add("self_attention.linear_qkv.layer_norm_weight", M::Ones(1, H), Shard::Whole, true);
        const M q = f.matrix(id(l, T::Q), HEADS * HD, H), k = f.matrix(id(l, T::K), groups * HD, H), v = f.matrix(id(l, T::V), groups * HD, H);
        add("self_attention.linear_qkv.weight", interleaveRows({q, k, v}, {HEADS / groups * HD, HD, HD}, groups), Shard::Rows);
        add("self_attention.linear_proj.weight", f.matrix(id(l, T::O), H, HEADS * HD), Shard::Columns);
        add("mlp.linear_fc1.layer_norm_weight", M::Ones(1, H), Shard::Whole, true);
        if (gqaSwiglu)
            add("mlp.linear_fc1.weight", stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)}), Shard::Gated);
        else
            add("mlp.linear_fc1.weight", f.matrix(id(l, T::MlpUp), FF, H), Shard::Rows);
        add("mlp.linear_fc2.weight", f.matrix(id(l, T::MlpDown), H, FF), Shard::Columns);
    }
    model.append({prefix + "decoder.final_layernorm.weight", {prefix + "decoder.final_layernorm.weight"}, stages - 1, M::Ones(1, H), Shard::Whole, true});
    model.append({prefix + "output_layer.weight", {prefix + "output_layer.weight"}, stages - 1, f.other(VOCAB, H), Shard::Rows});
    return model;
}

QString rankFolder(int t, int s, int stages)
{
    return stages > 1 ? QStringLiteral("mp_rank_%1_%2").arg(t, 2, 10, QLatin1Char('0')).arg(s, 3, 10, QLatin1Char('0'))
                      : QStringLiteral("mp_rank_%1").arg(t, 2, 10, QLatin1Char('0'));
}

// What TP rank t of stage s saves of the unsharded model.
QList<MegatronEntry> sharesOf(const QList<GlobalTensor> &model, int tp, int t, int s)
{
    QList<MegatronEntry> entries;
    for (const GlobalTensor &g : model) {
        if (g.stage != s)
            continue;
        M share = g.values;
        if (g.shard == Shard::Rows)
            share = rowShard(g.values, tp, t);
        else if (g.shard == Shard::Gated)
            share = gatedShard(g.values, tp, t);
        else if (g.shard == Shard::Columns)
            share = columnShard(g.values, tp, t);
        entries.append({g.path, g.vector ? QList<qint64>{share.cols()} : QList<qint64>{share.rows(), share.cols()}, share});
    }
    return entries;
}

// Writes iter_NNNNNNN/ of a save: each (TP rank, stage) its shares of the model.
QStringList writeIteration(const QString &save, qint64 iteration, const QList<GlobalTensor> &model, int tp, int stages,
                           const QList<QPair<QString, QVariant>> &args)
{
    QStringList files;
    for (int s = 0; s < stages; ++s)
        for (int t = 0; t < tp; ++t) {
            MegatronPickle pickle(args, iteration);
            pickle.addChunk(sharesOf(model, tp, t, s));
            const QString dir = QStringLiteral("%1/iter_%2/%3").arg(save).arg(iteration, 7, 10, QLatin1Char('0')).arg(rankFolder(t, s, stages));
            writeFile(dir + "/model_optim_rng.pt", pickle.archive());
            writeFile(dir + "/distrib_optim.pt", zipArchive({{"archive/data.pkl", "\x80\x02}."}}));
            files << dir + "/model_optim_rng.pt";
        }
    return files;
}

// NeMo's model_config.yaml (OmegaConf.save of the model cfg), as examples/nlp/language_modeling/conf/
// megatron_gpt_config.yaml names its keys, with a nested section that is not read.
QByteArray nemoYaml(int tp, int pp)
{
    return QStringLiteral("mcore_gpt: true\nmicro_batch_size: 4\ntensor_model_parallel_size: %1\npipeline_model_parallel_size: %2\n"
                          "num_layers: %3\nhidden_size: %4\nffn_hidden_size: %5\nnum_attention_heads: %6\nnum_query_groups: %7\n"
                          "kv_channels: %8\nactivation: fast-swiglu  # gated\nnormalization: rmsnorm\ntokenizer:\n  library: megatron\n"
                          "  num_layers: 99\n")
        .arg(tp).arg(pp).arg(LAYERS).arg(H).arg(FF).arg(HEADS).arg(GROUPS).arg(HD)
        .toUtf8();
}

// A .nemo as NLPSaveRestoreConnector.save_to tars it (arcname "."): model_config.yaml, the weights
// (model_weights.ckpt, mp_rank_TT/… when TP > 1 alone, tp_rank_TT_pp_rank_PPP/… with PP > 1), a
// tokenizer file with a name long enough for a pax header.
QList<TarEntry> nemoMembers(const QList<GlobalTensor> &model, int tp, int stages)
{
    QList<TarEntry> members{{".", {}, true}, {"./model_config.yaml", nemoYaml(tp, stages)}};
    for (int s = 0; s < stages; ++s)
        for (int t = 0; t < tp; ++t) {
            MegatronPickle pickle({}, 0);
            pickle.addChunk(sharesOf(model, tp, t, s));
            QString folder;
            if (stages > 1)
                folder = QStringLiteral("tp_rank_%1_pp_rank_%2").arg(t, 2, 10, QLatin1Char('0')).arg(s, 3, 10, QLatin1Char('0'));
            else if (tp > 1)
                folder = QStringLiteral("mp_rank_%1").arg(t, 2, 10, QLatin1Char('0'));
            if (!folder.isEmpty())
                members.append({"./" + folder, {}, true});
            members.append({"./" + (folder.isEmpty() ? QString() : folder + "/") + "model_weights.ckpt", pickle.stateDictArchive()});
        }
    members.append({"./" + QString(120, QLatin1Char('t')) + "_tokenizer.model", "spm"});
    return members;
}

// The analysis holds exactly the expected matrices, each with its stable rank.
void verifyAnalysis(const FamilyCheckpoint &f, const RunAnalysis &run)
{
    QSet<MatrixIdentity> seen;
    for (const MatrixResult &r : run.results) {
        const MatrixIdentity key = r.identity();
        QVERIFY2(f.expected().contains(key), qPrintable("unexpected " + key.text() + " " + r.tensor));
        QVERIFY2(!seen.contains(key), qPrintable("twice: " + key.text()));
        seen.insert(key);
        const ExpectedMatrix &e = f.expected()[key];
        QVERIFY2(std::abs(r.metrics.stableRank - e.stableRank) < 1e-4 * e.stableRank,
                 qPrintable(QStringLiteral("%1 (%2): stable rank %3, expected %4").arg(key.text(), r.tensor).arg(r.metrics.stableRank).arg(e.stableRank)));
    }
    QStringList issues;
    for (const AnalysisIssue &i : run.issues)
        issues << i.text();
    QCOMPARE(seen.size(), f.expected().size());
    QVERIFY2(issues.isEmpty(), qPrintable(issues.join("\n")));
}

// The good checkpoint at `step` analysed beside hostile ones: exactly its matrices, each with its
// stable rank, and nothing from another step.
void verifyGoodStep(const FamilyCheckpoint &f, const RunAnalysis &run, qint64 step)
{
    QSet<MatrixIdentity> seen;
    for (const MatrixResult &r : run.results) {
        QCOMPARE(r.step, step);
        const MatrixIdentity key = r.identity();
        QVERIFY2(f.expected().contains(key) && !seen.contains(key), qPrintable(key.text() + " " + r.tensor));
        seen.insert(key);
        const ExpectedMatrix &e = f.expected()[key];
        QVERIFY2(std::abs(r.metrics.stableRank - e.stableRank) < 1e-4 * e.stableRank, qPrintable(key.text()));
    }
    QCOMPARE(seen.size(), f.expected().size());
}

// Every line the analysis has to say (issues, notes, skipped files, pending checkpoints), each at
// most 1,000 characters however many ranks or shards a name or a config claims.
void verifyShortLines(const RunAnalysis &run)
{
    QStringList said = run.notes + run.pending;
    for (const AnalysisIssue &i : run.issues)
        said << i.text();
    for (const SkippedFile &s : run.sidecars)
        said << s.path + QStringLiteral(": ") + s.reason;
    for (const QString &text : std::as_const(said))
        for (const QString &line : text.split(QLatin1Char('\n')))
            QVERIFY2(line.size() <= 1000, qPrintable(QStringLiteral("a line of %1 characters: %2…").arg(line.size()).arg(line.left(300))));
}

// The issue of the checkpoint at `path`.
QString issueOf(const RunAnalysis &run, const QString &fileName)
{
    for (const AnalysisIssue &i : run.issues)
        if (QFileInfo(i.path).fileName() == fileName)
            return i.text();
    return QStringLiteral("(no issue for %1)").arg(fileName);
}

} // namespace

class TestMegatronCheckpoint : public QObject {
    Q_OBJECT

private slots:
    // TP 2 × PP 2: every merged tensor equals the unsharded one, element for element.
    void mergedEqualsUnsharded_data()
    {
        QTest::addColumn<bool>("core");
        QTest::newRow("legacy, GQA, swiglu") << false;
        QTest::newRow("Core + TE, MHA") << true;
    }
    void mergedEqualsUnsharded()
    {
        QFETCH(bool, core);
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<GlobalTensor> model = core ? coreModel(f, 2) : legacyModel(f, 2);
        const QStringList files = writeIteration(dir.path(), 100, model, 2, 2, legacyArgs(2, 2, !core, !core));
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpointFiles(WeightsLayout::MegatronShards, files, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->step(), std::optional<qint64>(100));
        QCOMPARE(reader->modelConfig().value("num_query_groups").toInt(), core ? HEADS : GROUPS);
        QCOMPARE(reader->tensors().size(), model.size()); // the optimizer's exp_avg is not among them
        for (const GlobalTensor &g : model) {
            if (g.vector)
                continue;
            const MatrixRead read = reader->readMatrix(g.name);
            QVERIFY2(read.ok(), qPrintable(g.name + ": " + read.error));
            QVERIFY2(read.values == asFloat(g.values), qPrintable(g.name + " differs from the unsharded tensor"));
        }
        QVERIFY2(reader->warnings().isEmpty(), qPrintable(reader->warnings().join('\n')));
    }

    // The save folder is one run: one checkpoint per iteration, steps from the pickles, the tracker's
    // iteration complete and a newer one still being written; analysed, every part has its spectrum.
    void saveFolderIsOneRun()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<GlobalTensor> model = legacyModel(f, 2);
        for (qint64 iteration : {100, 200, 300})
            writeIteration(dir.path(), iteration, model, 2, 2, legacyArgs(2, 2, true, true));
        writeFile(dir.filePath("latest_checkpointed_iteration.txt"), "200");
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QVERIFY(listing.runs.isEmpty());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[0].stepInFile, std::optional<qint64>(100));
        QCOMPARE(listing.checkpoints[1].stepInFile, std::optional<qint64>(200));
        QCOMPARE(listing.checkpoints[0].files.size(), 4);
        QCOMPARE(listing.takenFor,
                 QStringList{"a Megatron-LM save folder: 2 iteration(s), TP 2 × PP 2, shards merged (latest_checkpointed_iteration.txt: 200)"});
        bool pending = false;
        for (const SkippedFile &s : listing.skipped)
            pending |= s.path.endsWith("iter_0000300") && s.reason.contains("still being written") && !s.problem;
        QVERIFY(pending);
        for (const ClassifiedFile &file : listing.files)
            if (file.path.endsWith("distrib_optim.pt"))
                QCOMPARE(file.role, FileRole::TrainingSidecar);

        QDir(dir.filePath("iter_0000200")).removeRecursively();
        QDir(dir.filePath("iter_0000300")).removeRecursively();
        RunAnalyzer analyzer;
        verifyAnalysis(f, analyzer.analyzeFolder(dir.path()));
    }

    void coreNamesAnalysed()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        writeIteration(dir.path(), 50, coreModel(f, 1), 2, 1, legacyArgs(2, 1, false, false));
        writeFile(dir.filePath("latest_checkpointed_iteration.txt"), "50");
        RunAnalyzer analyzer;
        verifyAnalysis(f, analyzer.analyzeFolder(dir.path()));
    }

    // A rank folder missing: the iteration is refused, naming it, never merged short.
    void missingShardRefused()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QStringList files = writeIteration(dir.path(), 100, legacyModel(f, 2), 2, 2, legacyArgs(2, 2, true, true));
        QDir(dir.filePath("iter_0000100/mp_rank_01_001")).removeRecursively();
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QVERIFY2(listing.checkpoints[0].error.contains("mp_rank_01_001"), qPrintable(listing.checkpoints[0].error));
        files.removeLast();
        QString error;
        QVERIFY(!MegatronCheckpointReader::open(files, &error));
        QVERIFY2(error.contains("TP rank 1 of stage 1") && error.contains("not merged short"), qPrintable(error));
        // The last TP rank of every stage gone: the args' TP 2 still says it is missing.
        QVERIFY(!MegatronCheckpointReader::open({files[0], files[2]}, &error));
        QVERIFY2(error.contains("TP rank 1 of stage 0"), qPrintable(error));
    }

    // Counts that only a name or a config claims are never walked (#41): an empty rank folder named
    // mp_rank_9999_9999_9999 (10¹² ranks by its name) and args of TP 2²⁰ × PP 2²⁰ over one rank
    // each refuse their iteration at once, in a line naming the first ranks missing and counting the
    // rest; a folder no save names (mp_rank_1048575_1048575, past the 4 digits a rank has) is no rank
    // folder. The good iteration beside them is analysed. Walking either grid took minutes and
    // ended out of memory, the good iteration lost with it.
    void claimedRanksAreCountedNotWalked()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<GlobalTensor> model = legacyModel(f, 1);
        writeIteration(dir.path(), 100, model, 1, 1, legacyArgs(1, 1, true, true));
        const QStringList claimed = writeIteration(dir.path(), 200, model, 1, 1, legacyArgs(1 << 20, 1 << 20, true, true));
        QVERIFY(QDir().mkpath(dir.filePath("iter_0000300/mp_rank_9999_9999_9999")));
        QVERIFY(QDir().mkpath(dir.filePath("iter_0000400/mp_rank_1048575_1048575")));

        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 3);
        const auto byName = std::find_if(listing.checkpoints.begin(), listing.checkpoints.end(),
                                         [](const CheckpointFile &c) { return c.path.endsWith("iter_0000300"); });
        QVERIFY(byName != listing.checkpoints.end());
        QCOMPARE(byName->error,
                 QStringLiteral("rank folder(s) mp_rank_00_000_000, mp_rank_01_000_000, mp_rank_02_000_000, mp_rank_03_000_000, mp_rank_04_000_000 "
                                "and 999999999994 more missing: the iteration is not read (its shards are never merged short)"));
        QString error;
        QVERIFY(!MegatronCheckpointReader::open(claimed, &error));
        QCOMPARE(error, QStringLiteral("shards missing: TP rank 1 of stage 0, TP rank 2 of stage 0, TP rank 3 of stage 0, TP rank 4 of stage 0, "
                                       "TP rank 5 of stage 0 and 1099511627770 more (TP 1048576 × PP 1048576); not merged short"));

        const RunAnalysis run = RunAnalyzer().analyzeFolder(dir.path());
        verifyGoodStep(f, run, 100);
        QCOMPARE(run.issues.size(), 2);
        QVERIFY2(issueOf(run, "iter_0000200").contains("and 1099511627770 more (TP 1048576 × PP 1048576)"), qPrintable(issueOf(run, "iter_0000200")));
        QVERIFY2(issueOf(run, "iter_0000300").contains("mp_rank_00_000_000"), qPrintable(issueOf(run, "iter_0000300")));
        verifyShortLines(run);
    }

    // The same in a .nemo: a model_config.yaml claiming TP 2²⁰ × PP 2²⁰ over one model_weights.ckpt,
    // and a member named tp_rank_9999_pp_rank_9999/ (10⁸ ranks by its name), beside a good .nemo.
    void nemoClaimedRanksAreCountedNotWalked()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<GlobalTensor> model = coreModel(f, 1, true, "model.");
        writeFile(dir.filePath("megatron_gpt--step=100.nemo"), tarArchive(nemoMembers(model, 1, 1)));
        QList<TarEntry> claims = nemoMembers(model, 1, 1);
        QCOMPARE(claims[1].name, QStringLiteral("./model_config.yaml"));
        claims[1].data = nemoYaml(1 << 20, 1 << 20);
        writeFile(dir.filePath("megatron_gpt--step=200.nemo"), tarArchive(claims));
        QList<TarEntry> named = nemoMembers(model, 1, 1);
        named[1].data = nemoYaml(1, 1).replace("tensor_model_parallel_size: 1\n", "").replace("pipeline_model_parallel_size: 1\n", "");
        for (TarEntry &member : named)
            if (member.name == QLatin1String("./model_weights.ckpt"))
                member.name = QStringLiteral("./tp_rank_9999_pp_rank_9999/model_weights.ckpt");
        writeFile(dir.filePath("megatron_gpt--step=300.nemo"), tarArchive(named));

        QString error;
        QVERIFY(!openCheckpoint(dir.filePath("megatron_gpt--step=200.nemo"), &error));
        QVERIFY2(error.contains("TP rank 5 of stage 0 and 1099511627770 more (TP 1048576 × PP 1048576); not merged short"), qPrintable(error));
        QVERIFY(!openCheckpoint(dir.filePath("megatron_gpt--step=300.nemo"), &error));
        QVERIFY2(error.contains("shards missing: TP rank 0 of stage 0, TP rank 1 of stage 0") &&
                     error.contains("and 99999994 more (TP 10000 × PP 10000)"),
                 qPrintable(error));

        const RunAnalysis run = RunAnalyzer().analyzeFolder(dir.path());
        verifyGoodStep(f, run, 100);
        QCOMPARE(run.issues.size(), 2);
        QVERIFY2(issueOf(run, "megatron_gpt--step=200.nemo").contains("TP 1048576 × PP 1048576"), qPrintable(issueOf(run, "megatron_gpt--step=200.nemo")));
        QVERIFY2(issueOf(run, "megatron_gpt--step=300.nemo").contains("TP 10000 × PP 10000"), qPrintable(issueOf(run, "megatron_gpt--step=300.nemo")));
        verifyShortLines(run);
    }

    void shardShapesDisagree()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QList<GlobalTensor> model = legacyModel(f, 1);
        QStringList files = writeIteration(dir.path(), 100, model, 2, 1, legacyArgs(2, 1, true, true));
        // Rank 1 written by a model with a wider dense_4h_to_h.
        for (GlobalTensor &g : model)
            if (g.name.endsWith("layers.0.mlp.dense_4h_to_h.weight"))
                g.values = M::Ones(H, FF + 2);
        const QString other = dir.filePath("other");
        writeIteration(other, 100, model, 2, 1, legacyArgs(2, 1, true, true));
        files[1] = other + "/iter_0000100/mp_rank_01/model_optim_rng.pt";
        QString error;
        QVERIFY(!MegatronCheckpointReader::open(files, &error));
        QVERIFY2(error.contains("dense_4h_to_h") && error.contains("do not join"), qPrintable(error));
    }

    // Layers that do not add up to num_layers are not renumbered by guess.
    void stagesMustHoldNumLayers()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QList<QPair<QString, QVariant>> args = legacyArgs(1, 2, true, true);
        args[0].second = LAYERS + 2;
        const QStringList files = writeIteration(dir.path(), 100, legacyModel(f, 2), 1, 2, args);
        QString error;
        QVERIFY(!MegatronCheckpointReader::open(files, &error));
        QVERIFY2(error.contains("num_layers is 6"), qPrintable(error));
    }

    // A shard whose storage holds fewer bytes than its tensor declares: the read fails, nothing is
    // allocated for the declared size.
    void storageShorterThanDeclared()
    {
        QTemporaryDir dir;
        QList<QPair<QString, QVariant>> args = legacyArgs(1, 1, false, false);
        args[0].second = 1; // num_layers
        MegatronPickle pickle(args, 7);
        const QString proj = "decoder.layers.0.self_attention.linear_proj.weight", stack = "decoder.layers.0.mlp.experts.stacked";
        pickle.addChunk({{{proj}, {4096, 4096}, M::Ones(2, 2)}, {{stack}, {qint64(1) << 30, 2, 2}, M::Ones(2, 2)}});
        pickle.setStorageElements(proj, 4);
        pickle.setStorageElements(stack, 4);
        const QString file = dir.filePath("iter_0000007/mp_rank_00/model_optim_rng.pt");
        writeFile(file, pickle.archive());
        QString error;
        const std::unique_ptr<MegatronCheckpointReader> reader = MegatronCheckpointReader::open({file}, &error);
        QVERIFY2(reader, qPrintable(error));
        const StoredRead read = reader->readStoredMatrix(proj);
        QVERIFY(!read.ok());
        QVERIFY2(read.error.contains("outside its storage"), qPrintable(read.error));
        // A stack of 2³⁰ matrices in 16 bytes is refused when the iteration is opened: never planned.
        QCOMPARE(reader->tensors().size(), 1);
        QVERIFY2(reader->warnings().join(' ').contains(stack), qPrintable(reader->warnings().join('\n')));
    }

    // A .nemo read in place: each rank's member a torch.save zip inside the tar, joined exactly.
    void nemoMergedEqualsUnsharded_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("stages");
        QTest::newRow("model_weights.ckpt") << 1 << 1;
        QTest::newRow("mp_rank_TT (TP 2)") << 2 << 1;
        QTest::newRow("tp_rank_TT_pp_rank_PPP (TP 2 × PP 2)") << 2 << 2;
    }
    void nemoMergedEqualsUnsharded()
    {
        QFETCH(int, tp);
        QFETCH(int, stages);
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<GlobalTensor> model = coreModel(f, stages, true, "model.");
        const QString path = dir.filePath("megatron_gpt--step=100.nemo");
        writeFile(path, tarArchive(nemoMembers(model, tp, stages)));
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(path, &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("nemo"));
        QCOMPARE(reader->modelConfig().value("num_query_groups").toInt(), GROUPS);
        QVERIFY(reader->modelConfig().value("gated_linear_unit").toBool());
        QCOMPARE(reader->modelConfig().value("num_layers").toInt(), LAYERS); // the tokenizer section's num_layers is not top-level
        QCOMPARE(reader->tensors().size(), model.size());
        for (const GlobalTensor &g : model) {
            if (g.vector)
                continue;
            const MatrixRead read = reader->readMatrix(g.name);
            QVERIFY2(read.ok(), qPrintable(g.name + ": " + read.error));
            QVERIFY2(read.values == asFloat(g.values), qPrintable(g.name + " differs from the unsharded tensor"));
        }
        RunAnalyzer analyzer;
        verifyAnalysis(f, analyzer.analyzeFolder(dir.path()));
    }

    // .nemo files beside each other are a run, their steps from their names.
    void nemoFilesAreARun()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QByteArray nemo = tarArchive(nemoMembers(coreModel(f, 1, true, "model."), 2, 1));
        writeFile(dir.filePath("megatron_gpt--val_loss=2.10-step=100-consumed_samples=800.0.nemo"), nemo);
        writeFile(dir.filePath("megatron_gpt--val_loss=1.90-step=200-consumed_samples=1600.0.nemo"), nemo);
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[0].stepFromName, std::optional<qint64>(100));
        QCOMPARE(listing.checkpoints[1].stepFromName, std::optional<qint64>(200));
        QCOMPARE(listing.checkpoints[0].format, QStringLiteral("nemo"));
    }

    void nemoRefused_data()
    {
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("expected");
        QTest::newRow("member past the end") << "past end" << "past the end of the file";
        QTest::newRow("absurd declared size") << "absurd" << "past the end of the file";
        QTest::newRow("../ in a name") << "dotdot" << "leads outside the archive";
        QTest::newRow("gzip (NeMo < 1.7)") << "gzip" << "decompress it";
        QTest::newRow("torch_dist weights") << "dist" << "torch_dist";
        QTest::newRow("a shard missing") << "missing" << "TP rank 1 of stage 0";
        QTest::newRow("damaged header") << "checksum" << "checksum";
        // tar reads the last copy of a member, a reader looking names up the first: refused by name.
        QTest::newRow("model_config.yaml twice") << "twice" << "'model_config.yaml' is in the archive twice";
    }
    void nemoRefused()
    {
        QFETCH(QString, variant);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QList<TarEntry> members = nemoMembers(coreModel(f, 1, true, "model."), 2, 1);
        if (variant == "past end")
            members.last().declaredSize = 1 << 20;
        if (variant == "absurd")
            members.last().declaredSize = qint64(1) << 60;
        if (variant == "dotdot")
            members.insert(2, {"./../../etc/passwd", "x"});
        if (variant == "dist")
            members.append({{"./model_weights", {}, true}, {"./model_weights/.metadata", "x"}});
        if (variant == "twice")
            members.append(TarEntry{"./model_config.yaml", "num_layers: 1\nhidden_size: 8\n"});
        if (variant == "missing")
            members.removeIf([](const TarEntry &m) { return m.name.startsWith("./mp_rank_01"); });
        QByteArray bytes = tarArchive(members);
        if (variant == "gzip")
            bytes = QByteArray("\x1f\x8b\x08\x00", 4) + bytes;
        if (variant == "checksum")
            bytes[512 + 10] = 'Z'; // a byte of model_config.yaml's header
        const QString path = dir.filePath("model.nemo");
        writeFile(path, bytes);
        QString error;
        QVERIFY(!openCheckpoint(path, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void nemoYamlParsed()
    {
        const QVariantMap config = NemoCheckpointReader::configFromYaml("num_layers: 12\nnum_query_groups: null\nactivation: 'gelu'\n"
                                                                        "hidden_size: 768 # width\n  kv_channels: 5\n");
        QCOMPARE(config.value("num_layers").toInt(), 12);
        QCOMPARE(config.value("hidden_size").toInt(), 768);
        QCOMPARE(config.value("activation").toString(), QStringLiteral("gelu"));
        QVERIFY(!config.contains("num_query_groups")); // null: multi-head, as NeMo means it
        QVERIFY(!config.contains("kv_channels"));       // nested, not top-level
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMegatronCheckpoint)
} // namespace tst_megatroncheckpoint

#include "tst_MegatronCheckpoint.moc"
