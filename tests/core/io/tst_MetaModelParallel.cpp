// Meta's own Llama files: consolidated.00.pth … consolidated.NN.pth (one torch.save state dict per
// model-parallel rank) beside params.json, as meta-llama/llama's download lays them out and
// llama/generation.py loads them. The tiny model here (dim 16, 4 query heads of head_dim 4, 2
// key/value heads, 2 layers, ffn 24, vocabulary 32) has a spectrum of its own in every matrix and is
// split into files exactly as fairscale's parallel layers in llama/model.py hold it (written here,
// independently of the code under test): ColumnParallelLinear (wq, wk, wv, w1, w3, output) a block
// of rows per rank, RowParallelLinear (wo, w2) a block of columns, ParallelEmbedding (Llama 1, 2) a
// block of tok_embeddings' columns or VocabParallelEmbedding (Llama 3) of its rows, the RMSNorm
// weights whole on every rank. A merged matrix of the wrong shape or joined on the wrong axis has
// other singular values.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "FamilyCheckpoint.h"
#include "HeadCheckpoint.h"
#include "io/CheckpointFormats.h"
#include "io/metallama/MetaLlamaReader.h"
#include "MegatronCheckpointWriter.h"
#include "TestSuite.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <sys/stat.h>

namespace tst_metamodelparallel {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using T = MatrixType;
using M = Eigen::MatrixXd;
constexpr int DIM = 16, HEADS = 4, KV = 2, HD = 4, LAYERS = 2, FFN = 24, VOCAB = 32;

// How llama/model.py's layer holds a tensor on each of the model-parallel ranks.
enum class Shard { Rows, Columns, Whole };

struct Tensor {
    QString name;
    M values;
    Shard shard = Shard::Whole;
    bool vector = false;
    std::optional<MatrixIdentity> made = std::nullopt; // the FamilyCheckpoint matrix it is, spectrum known
};

// The unsharded model, named as Meta's Transformer's state_dict names it. `vocabParallel`: Llama 3's
// VocabParallelEmbedding (rows) instead of Llama 1 and 2's ParallelEmbedding (columns).
QList<Tensor> llamaModel(FamilyCheckpoint &f, bool vocabParallel)
{
    QList<Tensor> model;
    model.append({"tok_embeddings.weight", f.other(VOCAB, DIM), vocabParallel ? Shard::Rows : Shard::Columns});
    for (int l = 0; l < LAYERS; ++l) {
        const QString p = QStringLiteral("layers.%1.").arg(l);
        auto add = [&](const QString &leaf, T type, int rows, int cols, Shard shard) {
            model.append({p + leaf, f.matrix(id(l, type), rows, cols), shard, false, id(l, type)});
        };
        add("attention.wq.weight", T::Q, HEADS * HD, DIM, Shard::Rows);
        add("attention.wk.weight", T::K, KV * HD, DIM, Shard::Rows);
        add("attention.wv.weight", T::V, KV * HD, DIM, Shard::Rows);
        add("attention.wo.weight", T::O, DIM, HEADS * HD, Shard::Columns);
        add("feed_forward.w1.weight", T::MlpGate, FFN, DIM, Shard::Rows);
        add("feed_forward.w2.weight", T::MlpDown, DIM, FFN, Shard::Columns);
        add("feed_forward.w3.weight", T::MlpUp, FFN, DIM, Shard::Rows);
        model.append({p + "attention_norm.weight", M::Ones(1, DIM), Shard::Whole, true});
        model.append({p + "ffn_norm.weight", M::Ones(1, DIM), Shard::Whole, true});
    }
    model.append({"norm.weight", M::Ones(1, DIM), Shard::Whole, true});
    model.append({"output.weight", f.other(VOCAB, DIM), Shard::Rows});
    return model;
}

// ModelArgs as the download's params.json writes them: ffn 24 from multiple_of 24 and
// ffn_dim_multiplier 0.5 (FeedForward: int(2 · 4·dim / 3) = 42, int(0.5 · 42) = 21, rounded up to 24).
QJsonObject params(bool llama3, int kvHeads = KV)
{
    return {{"dim", DIM}, {"multiple_of", 24}, {"ffn_dim_multiplier", 0.5}, {"n_heads", HEADS}, {"n_kv_heads", kvHeads}, {"n_layers", LAYERS},
            {"norm_eps", 1e-5}, {"vocab_size", llama3 ? VOCAB : -1}, {"rope_theta", llama3 ? 500000.0 : 10000.0}};
}

// What rank t of n saves of a tensor. A norm differs on the last rank (it is taken once, from rank 0).
M shareOf(const Tensor &t, int n, int rank)
{
    switch (t.shard) {
    case Shard::Rows: return t.values.middleRows(rank * t.values.rows() / n, t.values.rows() / n);
    case Shard::Columns: return t.values.middleCols(rank * t.values.cols() / n, t.values.cols() / n);
    case Shard::Whole: return rank == n - 1 && n > 1 ? M(t.values * 1.5) : t.values;
    }
    return t.values;
}

QString fileOf(int rank) { return QStringLiteral("consolidated.%1.pth").arg(rank, 2, 10, QLatin1Char('0')); }

// consolidated.00.pth … of `n` ranks (torch.save of each rank's state dict) and params.json in `folder`.
QStringList writeSet(const QString &folder, const QList<Tensor> &model, int n, const QJsonObject &args)
{
    QStringList files;
    for (int rank = 0; rank < n; ++rank) {
        QList<MegatronEntry> entries;
        for (const Tensor &t : model) {
            const M share = shareOf(t, n, rank);
            entries.append({{t.name}, t.vector ? QList<qint64>{share.cols()} : QList<qint64>{share.rows(), share.cols()}, share});
        }
        MegatronPickle pickle({}, 0);
        pickle.addChunk(entries);
        files << QDir(folder).filePath(fileOf(rank));
        writeFile(files.last(), pickle.stateDictArchive());
    }
    if (!args.isEmpty())
        writeFile(QDir(folder).filePath("params.json"), QJsonDocument(args).toJson());
    return files;
}

// The spectrum a FamilyCheckpoint matrix was made with: σ = c, 1, …, 1, c from its stable rank.
Eigen::VectorXd builtSpectrum(const ExpectedMatrix &e)
{
    const Eigen::Index r = std::min(e.rows, e.cols);
    Eigen::VectorXd s = Eigen::VectorXd::Ones(r);
    s[0] = std::sqrt(double(r - 1) / (e.stableRank - 1));
    return s;
}

// Every matrix of the merged checkpoint: the unsharded shape, the spectrum it was made with, and the
// unsharded values themselves.
void verifyMerged(const CheckpointReader &constReader, const FamilyCheckpoint &f, const QList<Tensor> &model)
{
    auto &reader = const_cast<CheckpointReader &>(constReader);
    QHash<QString, TensorInfo> listed;
    for (const TensorInfo &t : reader.tensors())
        listed.insert(t.name, t);
    QCOMPARE(listed.size(), model.size());
    for (const Tensor &t : model) {
        QVERIFY2(listed.contains(t.name), qPrintable(t.name + " is not listed"));
        const QList<qint64> shape = t.vector ? QList<qint64>{t.values.cols()} : QList<qint64>{t.values.rows(), t.values.cols()};
        QCOMPARE(listed[t.name].shape, shape);
        if (t.vector)
            continue;
        const MatrixRead read = reader.readMatrix(t.name);
        QVERIFY2(read.ok(), qPrintable(t.name + ": " + read.error));
        QCOMPARE(read.values.rows(), t.values.rows());
        QCOMPARE(read.values.cols(), t.values.cols());
        if (t.made) {
            const Eigen::VectorXd expected = builtSpectrum(f.expected()[*t.made]);
            const Eigen::VectorXd got = exactSingularValues(read.values);
            QCOMPARE(got.size(), expected.size());
            const double error = (got - expected).cwiseAbs().maxCoeff() / expected[0];
            QVERIFY2(error < 1e-6, qPrintable(QStringLiteral("%1: singular values off by %2 (relative)").arg(t.name).arg(error)));
        }
        QVERIFY2(read.values == asFloat(t.values), qPrintable(t.name + " differs from the unsharded tensor"));
    }
}

// The analysis holds exactly the expected matrices of each step, each with its stable rank, and says nothing else.
// Without `steps`, the one checkpoint has no step.
void verifyAnalysis(const FamilyCheckpoint &f, const RunAnalysis &run, const QList<qint64> &steps = {}, bool issuesAllowed = false)
{
    QSet<QPair<qint64, MatrixIdentity>> seen;
    for (const MatrixResult &r : run.results) {
        QVERIFY2(steps.isEmpty() || steps.contains(r.step), qPrintable(QStringLiteral("step %1 analysed").arg(r.step)));
        const MatrixIdentity key = r.identity();
        QVERIFY2(f.expected().contains(key), qPrintable("unexpected " + key.text() + " " + r.tensor));
        QVERIFY2(!seen.contains({r.step, key}), qPrintable("twice: " + key.text()));
        seen.insert({r.step, key});
        const ExpectedMatrix &e = f.expected()[key];
        QCOMPARE(r.rows, e.rows);
        QCOMPARE(r.cols, e.cols);
        QVERIFY2(std::abs(r.metrics.stableRank - e.stableRank) < 1e-4 * e.stableRank,
                 qPrintable(QStringLiteral("%1 (%2): stable rank %3, expected %4").arg(key.text(), r.tensor).arg(r.metrics.stableRank).arg(e.stableRank)));
    }
    QCOMPARE(seen.size(), f.expected().size() * std::max<qsizetype>(steps.size(), 1));
    if (issuesAllowed)
        return;
    QStringList issues;
    for (const AnalysisIssue &i : run.issues)
        issues << i.text();
    QVERIFY2(issues.isEmpty(), qPrintable(issues.join("\n")));
}

QString issueOf(const RunAnalysis &run, const QString &name)
{
    for (const AnalysisIssue &i : run.issues)
        if (i.path.endsWith(name))
            return i.text();
    return QStringLiteral("(no issue for %1)").arg(name);
}

} // namespace

class TestMetaModelParallel : public QObject {
    Q_OBJECT

private slots:
    // Two files and params.json are one checkpoint; every merged matrix has the unsharded shape, the
    // spectrum it was made with and the unsharded values; params.json is the model's config.
    void mergedMatricesAreTheUnshardedOnes_data()
    {
        QTest::addColumn<bool>("llama3");
        QTest::newRow("Llama 2: ParallelEmbedding") << false;
        QTest::newRow("Llama 3: VocabParallelEmbedding") << true;
    }
    void mergedMatricesAreTheUnshardedOnes()
    {
        QFETCH(bool, llama3);
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<Tensor> model = llamaModel(f, llama3);
        writeSet(dir.path(), model, 2, params(llama3));

        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(dir.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("meta-llama"));
        verifyMerged(*reader, f, model);
        QVERIFY2(reader->warnings().isEmpty(), qPrintable(reader->warnings().join('\n')));
        const QVariantMap config = reader->modelConfig();
        QCOMPARE(config.value("num_attention_heads").toInt(), HEADS);
        QCOMPARE(config.value("num_key_value_heads").toInt(), KV);
        QCOMPARE(config.value("hidden_size").toInt(), DIM);
        QCOMPARE(config.value("num_hidden_layers").toInt(), LAYERS);
        const auto *meta = dynamic_cast<const MetaLlamaReader *>(reader.get());
        QVERIFY(meta);
        QVERIFY2(meta->sharding().contains(llama3 ? "VocabParallelEmbedding" : "(ParallelEmbedding, Llama 1 and 2)"), qPrintable(meta->sharding()));

        // Analysed: one checkpoint (the folder), each part with its own stable rank, nothing said.
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QCOMPARE(listing.checkpoints[0].layout, WeightsLayout::MetaModelParallel);
        QCOMPARE(listing.checkpoints[0].files.size(), 3);
        QVERIFY(listing.checkpoints[0].files.last().endsWith("params.json"));
        QVERIFY2(listing.takenFor.join('\n').contains("Meta Llama model-parallel checkpoints: 1, MP 2"), qPrintable(listing.takenFor.join('\n')));
        verifyAnalysis(f, RunAnalyzer().analyzeFolder(dir.path()));
    }

    // A folder of step folders, each a consolidated set: one run, one checkpoint per step folder.
    void stepFoldersAreOneRun()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<Tensor> model = llamaModel(f, false);
        for (int step : {100, 200})
            writeSet(dir.filePath(QStringLiteral("step-%1").arg(step)), model, 2, params(false));
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QVERIFY(listing.runs.isEmpty());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[0].stepFromName, std::optional<qint64>(100));
        QCOMPARE(listing.checkpoints[1].stepFromName, std::optional<qint64>(200));
        QVERIFY(listing.checkpoints[1].configPath.endsWith("step-200/params.json"));
        verifyAnalysis(f, RunAnalyzer().analyzeFolder(dir.path()), {100, 200});
    }

    // --heads cuts the merged wq, wk, wv and wo by params.json's n_heads and n_kv_heads (no config.json):
    // every head has the spectrum of the factor it was made from.
    void headsCutByParams()
    {
        using headfixture::Heads;
        using headfixture::sideBySide;
        QTemporaryDir dir;
        FamilyCheckpoint f;
        headfixture::HeadFixture fixture(KV);
        QList<Heads> layers;
        QList<Tensor> model;
        for (int l = 0; l < LAYERS; ++l) {
            const Heads w = fixture.layer();
            const QString p = QStringLiteral("layers.%1.").arg(l);
            model.append({p + "attention.wq.weight", sideBySide(w.q).transpose(), Shard::Rows});
            model.append({p + "attention.wk.weight", sideBySide(w.k).transpose(), Shard::Rows});
            model.append({p + "attention.wv.weight", sideBySide(w.v).transpose(), Shard::Rows});
            model.append({p + "attention.wo.weight", stackRows(w.o).transpose(), Shard::Columns});
            model.append({p + "feed_forward.w1.weight", f.other(FFN, DIM), Shard::Rows});
            model.append({p + "feed_forward.w2.weight", f.other(DIM, FFN), Shard::Columns});
            model.append({p + "feed_forward.w3.weight", f.other(FFN, DIM), Shard::Rows});
            layers << w;
        }
        writeSet(dir.path(), model, 2, params(false));
        AnalysisSettings settings;
        settings.heads = true;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path());
        QStringList issues;
        for (const AnalysisIssue &i : run.issues)
            issues << i.text();
        QVERIFY2(issues.isEmpty(), qPrintable(issues.join('\n')));
        auto spectrumOf = [&](int layer, T type, int head) -> Eigen::VectorXd {
            for (const MatrixResult &r : run.headResults)
                if (r.layer == layer && r.type == type && r.head == head)
                    return r.singularValues;
            return {};
        };
        auto compare = [&](const Eigen::VectorXd &got, const M &factor, const QString &what) {
            const Eigen::VectorXd expected = exactSingularValues(factor).head(HD);
            QVERIFY2(got.size() == expected.size(), qPrintable(what + QStringLiteral(": %1 singular values").arg(got.size())));
            QVERIFY2((got - expected).cwiseAbs().maxCoeff() < 1e-10 * expected[0], qPrintable(what));
        };
        for (int l = 0; l < LAYERS; ++l) {
            for (int h = 0; h < HEADS; ++h) {
                compare(spectrumOf(l, T::Q, h), layers[l].q[h], QStringLiteral("layer %1 Q head %2").arg(l).arg(h));
                compare(spectrumOf(l, T::O, h), layers[l].o[h], QStringLiteral("layer %1 O head %2").arg(l).arg(h));
                const int g = h / (HEADS / KV);
                compare(spectrumOf(l, T::QK, h), layers[l].q[h] * layers[l].k[g].transpose(), QStringLiteral("layer %1 QK head %2").arg(l).arg(h));
            }
            for (int g = 0; g < KV; ++g) {
                compare(spectrumOf(l, T::K, g), layers[l].k[g], QStringLiteral("layer %1 K head %2").arg(l).arg(g));
                compare(spectrumOf(l, T::V, g), layers[l].v[g], QStringLiteral("layer %1 V head %2").arg(l).arg(g));
            }
        }
    }

    // consolidated.00.pth alone (MP 1) is read as the file it is, as before, with params.json's heads.
    void singleFileAsBefore()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<Tensor> model = llamaModel(f, false);
        writeSet(dir.path(), model, 1, params(false));
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QCOMPARE(listing.checkpoints[0].layout, WeightsLayout::OneFile);
        QVERIFY(listing.checkpoints[0].path.endsWith("consolidated.00.pth"));
        QCOMPARE(listing.checkpoints[0].sidecarConfig.value("num_key_value_heads").toInt(), KV);
        QString error;
        const std::unique_ptr<CheckpointReader> reader = listing.checkpoints[0].open(&error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("pytorch"));
        verifyMerged(*reader, f, model);
        verifyAnalysis(f, RunAnalyzer().analyzeFolder(dir.path()));
    }

    // Sets that are not the model params.json describes, each refused with what is wrong, beside a good
    // one that is analysed in full.
    void hostileSetsRefusedOthersAnalysed()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        const QList<Tensor> model = llamaModel(f, false);
        writeSet(dir.filePath("step-100"), model, 2, params(false));
        // A file of three missing.
        writeSet(dir.filePath("step-200"), model, 2, params(false));
        QVERIFY(QFile::rename(dir.filePath("step-200/consolidated.01.pth"), dir.filePath("step-200/consolidated.02.pth")));
        // Two files whose wq do not join.
        const QStringList disagree = writeSet(dir.filePath("step-300"), model, 2, params(false));
        {
            QList<Tensor> other = model;
            other[1].values = f.other(2 * HEADS * HD, DIM); // layers.0.attention.wq: its share on rank 1 twice as tall
            QList<MegatronEntry> entries;
            for (const Tensor &t : other) {
                const M share = shareOf(t, 2, 1);
                entries.append({{t.name}, t.vector ? QList<qint64>{share.cols()} : QList<qint64>{share.rows(), share.cols()}, share});
            }
            MegatronPickle pickle({}, 0);
            pickle.addChunk(entries);
            writeFile(disagree[1], pickle.stateDictArchive());
        }
        // Four files written, two left: named 00 and 01, nothing is missing by name; their shares
        // are a quarter of params.json's model each.
        writeSet(dir.filePath("step-400"), model, 4, params(false));
        QVERIFY(QFile::remove(dir.filePath("step-400/consolidated.02.pth")) && QFile::remove(dir.filePath("step-400/consolidated.03.pth")));
        // consolidated.00.pth of two alone: a share, not the model.
        writeSet(dir.filePath("step-500"), model, 2, params(false));
        QVERIFY(QFile::remove(dir.filePath("step-500/consolidated.01.pth")));
        // Two files without params.json.
        writeSet(dir.filePath("step-600"), model, 2, {});
        // params.json of another model: n_layers 3.
        QJsonObject three = params(false);
        three["n_layers"] = 3;
        writeSet(dir.filePath("step-700"), model, 2, three);

        // The second file a FIFO: never opened, and said.
        writeSet(dir.filePath("step-800"), model, 2, params(false));
        QVERIFY(QFile::remove(dir.filePath("step-800/consolidated.01.pth")));
        QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath("step-800/consolidated.01.pth")).constData(), 0600), 0);

        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 8);
        const RunAnalysis run = RunAnalyzer().analyzeFolder(dir.path());
        verifyAnalysis(f, run, {100}, true);
        QCOMPARE(run.issues.size(), 8); // the seven sets, and the FIFO itself
        const QString missing = issueOf(run, "step-200");
        QVERIFY2(missing.contains("consolidated.01.pth missing of the 3 model-parallel files consolidated.00.pth … consolidated.02.pth"), qPrintable(missing));
        const QString join = issueOf(run, "step-300");
        QVERIFY2(join.contains("layers.0.attention.wq.weight is [16, 16] in consolidated.01.pth but [8, 16] in consolidated.00.pth: the shards do not join"),
                 qPrintable(join));
        const QString quarter = issueOf(run, "step-400");
        QVERIFY2(quarter.contains("tok_embeddings.weight is [32, 4] in consolidated.00.pth, but params.json (dim 16, n_heads 4, n_kv_heads 2) over 2 "
                                  "model-parallel files makes it [32, 8]: it is the share of one of 4 model-parallel files, and 2 are here"),
                 qPrintable(quarter));
        const QString share = issueOf(run, "step-500");
        QVERIFY2(share.contains("in consolidated.00.pth, but params.json") && share.contains("over 1 model-parallel file makes it [32, 16]: it is the share of one of 2 "
                                                                          "model-parallel files, and 1 is here"),
                 qPrintable(share));
        const QString noParams = issueOf(run, "step-600");
        QVERIFY2(noParams.contains("no params.json beside the 2 model-parallel files"), qPrintable(noParams));
        const QString layers = issueOf(run, "step-700");
        QVERIFY2(layers.contains("consolidated.00.pth holds 2 layer(s), numbered up to 1, but params.json's n_layers is 3"), qPrintable(layers));
        const QString fifo = issueOf(run, "step-800");
        QVERIFY2(fifo.contains("consolidated.01.pth (a FIFO (named pipe): not read) missing of the 2 model-parallel files"), qPrintable(fifo));
    }

    // More files than key/value heads (n_kv_heads 2 over 4 files): ColumnParallelLinear still splits
    // wk's and wv's rows evenly (half a head each), and those join; files that hold a copy of a head
    // each instead (llama-models' reshard_mp repeats them) are not the plain split: wk and wv are then
    // named and not merged, every other matrix is.
    void moreFilesThanKeyValueHeads_data()
    {
        QTest::addColumn<bool>("copies");
        QTest::newRow("rows split evenly") << false;
        QTest::newRow("a head copied to each file") << true;
    }
    void moreFilesThanKeyValueHeads()
    {
        QFETCH(bool, copies);
        QTemporaryDir dir;
        FamilyCheckpoint f;
        QList<Tensor> model = llamaModel(f, false);
        QList<Tensor> written = model;
        if (copies)
            for (Tensor &t : written)
                if (t.name.contains(".wk.") || t.name.contains(".wv."))
                    t.values = stackRows({t.values.topRows(HD), t.values.topRows(HD), t.values.bottomRows(HD), t.values.bottomRows(HD)});
        writeSet(dir.path(), written, 4, params(false));
        QString error;
        const std::unique_ptr<CheckpointReader> reader = openCheckpoint(dir.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        if (!copies) {
            verifyMerged(*reader, f, model);
            QVERIFY2(reader->warnings().isEmpty(), qPrintable(reader->warnings().join('\n')));
            return;
        }
        QCOMPARE(reader->tensors().size(), model.size() - 2 * LAYERS);
        QCOMPARE(reader->warnings().size(), 2 * LAYERS);
        QCOMPARE(reader->warnings().first(),
                 QStringLiteral("tensor layers.0.attention.wk.weight is [4, 16] in each of 4 model-parallel files, not the 2 rows each that "
                                "params.json's n_kv_heads 2 × head_dim 4 split over them gives: more files than key/value heads, shared in a way "
                                "the files do not record: not merged: not read"));
        const auto wq = std::find_if(model.begin(), model.end(), [](const Tensor &t) { return t.name == "layers.1.attention.wq.weight"; });
        const MatrixRead read = reader->readMatrix(wq->name);
        QVERIFY2(read.ok() && read.values == asFloat(wq->values), qPrintable(read.error));
    }

    // A file name claiming ten million files: counted, never walked, the first missing named.
    void claimedFilesCountedNotWalked()
    {
        QTemporaryDir dir;
        FamilyCheckpoint f;
        writeSet(dir.path(), llamaModel(f, false), 2, params(false));
        QVERIFY(QFile::copy(dir.filePath("consolidated.01.pth"), dir.filePath("consolidated.9999999.pth")));
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QCOMPARE(listing.checkpoints[0].error,
                 QStringLiteral("consolidated.02.pth, consolidated.03.pth, consolidated.04.pth, consolidated.05.pth, consolidated.06.pth and 9999992 "
                                "more missing of the 10000000 model-parallel files consolidated.00.pth … consolidated.9999999.pth: they are "
                                "merged only all together"));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMetaModelParallel)
} // namespace tst_metamodelparallel

#include "tst_MetaModelParallel.moc"
