// --heads: every head of Q, K, V and O and each query head's QK and OV circuit, against a dense
// float64 SVD (Eigen's BDCSVD) of the head slices and of the explicit d × d products, on tiny
// checkpoints of two families written with their exact tensor names: GPT-2 (Conv1D, stored
// (in, out), Q|K|V fused as the columns of c_attn; transformers' GPT2Attention splits c_attn's
// output at split_size and views it (…, heads, head_dim), and c_proj takes the merged heads as its
// input rows) and LLaMA with grouped-query attention (nn.Linear (out, in); repeat_kv serves query
// head h with key/value head h / (heads / kv_heads)). Every head's factor has a spectrum of its
// own, so a wrong slice, orientation or key/value group gives other singular values.
#include "analysis/execution/RunLoader.h"
#include "analysis/planning/AnalysisTeam.h"
#include "analysis/planning/HeadPlan.h"
#include "analysis/results/MetricsTable.h"
#include "analysis/results/ResultsFile.h"
#include "analysis/results/RunSummary.h"
#include "HeadCheckpoint.h"
#include "TestSuite.h"

#include <QBuffer>
#include <QJsonArray>

namespace tst_headspectra {

using namespace rankscope;
using namespace rankscope::test;
using namespace rankscope::test::headfixture;

namespace {

using T = MatrixType;

Eigen::VectorXd denseSingularValues(const M &m, Eigen::Index count)
{
    return exactSingularValues(m).head(count);
}

const MatrixResult *findRow(const QList<MatrixResult> &rows, int layer, T type, int head)
{
    for (const MatrixResult &r : rows)
        if (r.layer == layer && r.type == type && r.head == head)
            return &r;
    return nullptr;
}

void compareSpectrum(const MatrixResult *row, const Eigen::VectorXd &expected, const char *what)
{
    QVERIFY2(row, what);
    QCOMPARE(row->singularValues.size(), expected.size());
    const double error = (row->singularValues - expected).cwiseAbs().maxCoeff() / expected[0];
    QVERIFY2(error < 1e-10, qPrintable(QStringLiteral("%1: relative error %2").arg(QLatin1String(what)).arg(error)));
}

// Every head and circuit of every layer against the dense SVD of its slice and its product.
void verifyHeads(const RunAnalysis &run, const QList<Heads> &layers, int kv)
{
    const int group = HEADS / kv;
    QCOMPARE(run.headResults.size(), qsizetype(LAYERS * (HEADS + 2 * kv + HEADS + 2 * HEADS)));
    for (const MatrixResult &r : run.results)
        QVERIFY(!r.isHead() && !isCircuit(r.type));
    for (int l = 0; l < LAYERS; ++l) {
        const Heads &w = layers[l];
        for (int h = 0; h < HEADS; ++h) {
            const int g = h / group;
            compareSpectrum(findRow(run.headResults, l, T::Q, h), denseSingularValues(w.q[h], HD), "Q head");
            compareSpectrum(findRow(run.headResults, l, T::O, h), denseSingularValues(w.o[h], HD), "O head");
            compareSpectrum(findRow(run.headResults, l, T::QK, h), denseSingularValues(w.q[h] * w.k[g].transpose(), HD), "QK circuit");
            compareSpectrum(findRow(run.headResults, l, T::OV, h), denseSingularValues(w.v[g] * w.o[h], HD), "OV circuit");
            const MatrixResult *qk = findRow(run.headResults, l, T::QK, h);
            QCOMPARE(qk->kvHead, g);
            QCOMPARE(qk->rows, qint64(D));
            QCOMPARE(qk->cols, qint64(D));
            QCOMPARE(findRow(run.headResults, l, T::Q, h)->kvHead, g);
            QCOMPARE(findRow(run.headResults, l, T::OV, h)->kvHead, g);
            // Every metric from the spectrum: σ₁ is the spectral norm.
            QCOMPARE(qk->metrics.spectralNorm, qk->singularValues[0]);
        }
        for (int g = 0; g < kv; ++g) {
            compareSpectrum(findRow(run.headResults, l, T::K, g), denseSingularValues(w.k[g], HD), "K head");
            compareSpectrum(findRow(run.headResults, l, T::V, g), denseSingularValues(w.v[g], HD), "V head");
            QCOMPARE(findRow(run.headResults, l, T::K, g)->kvHead, g);
        }
    }
}

AnalysisSettings withHeads()
{
    AnalysisSettings settings;
    settings.heads = true;
    settings.jobs = 2;
    return settings;
}

// GPT-2 as transformers writes it: Conv1D weights (in, out); c_attn [C, 3C] = [W_Q | W_K | W_V] with
// head h in columns h·head_dim …; c_proj's rows h·head_dim … are W_O^h.
QList<Heads> writeGpt2(FamilyCheckpoint &f, HeadFixture &fixture)
{
    QList<Heads> layers;
    for (int l = 0; l < LAYERS; ++l) {
        const Heads w = fixture.layer();
        const QString p = QStringLiteral("transformer.h.%1.").arg(l);
        M qkv(D, 3 * D);
        qkv << sideBySide(w.q), sideBySide(w.k), sideBySide(w.v);
        f.add(p + "attn.c_attn.weight", qkv);
        f.add(p + "attn.c_proj.weight", stackRows(w.o));
        f.add(p + "mlp.c_fc.weight", f.other(D, 4 * D));
        f.add(p + "mlp.c_proj.weight", f.other(4 * D, D));
        layers << w;
    }
    f.add("transformer.wte.weight", f.other(64, D));
    f.setConfig({{"model_type", "gpt2"}, {"n_head", HEADS}, {"n_embd", D}, {"n_layer", LAYERS}});
    return layers;
}

// The folder as written, analysed again (the files untouched: an earlier analysis can serve).
RunAnalysis reanalyse(const QString &folder, const AnalysisSettings &settings, const RunAnalysis *previous)
{
    RunAnalyzer analyzer(settings);
    return analyzer.analyzeFolder(folder, {}, previous);
}

// Two ranks in one process, one after the other: what rank 1 sends is what rank 0 receives.
class RecordedTeam : public AnalysisTeam {
public:
    RecordedTeam(int rank, QList<QByteArray> inbox = {}) : m_rank(rank), m_inbox(std::move(inbox)) {}
    int rank() const override { return m_rank; }
    int size() const override { return 2; }
    void sendToLeader(const QByteArray &share) override { sent << share; }
    QByteArray receiveFrom(int) override { return m_inbox.isEmpty() ? QByteArray() : m_inbox.takeFirst(); }
    void barrier() override {}
    QList<QByteArray> sent;

private:
    int m_rank;
    QList<QByteArray> m_inbox;
};

QString csvOf(const QList<MatrixResult> &rows)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    MetricsTable::writeCsv(rows, buffer);
    return QString::fromUtf8(buffer.data());
}

} // namespace

class TestHeadSpectra : public QObject {
    Q_OBJECT
private slots:
    void gpt2Conv1dFusedCAttn()
    {
        FamilyCheckpoint f;
        HeadFixture fixture(HEADS);
        const QList<Heads> layers = writeGpt2(f, fixture);
        const RunAnalysis run = f.analyse(TensorNameRules::builtIn(), withHeads());
        QVERIFY2(run.issues.isEmpty(), qPrintable(run.issueLines().join('\n')));
        QCOMPARE(run.results.size(), qsizetype(LAYERS * 6));
        verifyHeads(run, layers, HEADS);
        // A Q head of c_attn is D × head_dim as stored (columns), an O head of c_proj head_dim × D.
        QCOMPARE(findRow(run.headResults, 0, T::Q, 1)->rows, qint64(D));
        QCOMPARE(findRow(run.headResults, 0, T::O, 1)->rows, qint64(HD));
    }

    void llamaGroupedQuery_data()
    {
        QTest::addColumn<int>("kv");
        QTest::newRow("grouped (kv 2 of 4)") << 2;
        QTest::newRow("multi-query (kv 1)") << 1;
        QTest::newRow("multi-head (kv 4)") << HEADS;
    }
    void llamaGroupedQuery()
    {
        QFETCH(int, kv);
        FamilyCheckpoint f;
        HeadFixture fixture(kv);
        const QList<Heads> layers = writeLlama(f, fixture);
        const RunAnalysis run = f.analyse(TensorNameRules::builtIn(), withHeads());
        QVERIFY2(run.issues.isEmpty(), qPrintable(run.issueLines().join('\n')));
        QCOMPARE(run.results.size(), qsizetype(LAYERS * 7));
        verifyHeads(run, layers, kv);
    }

    // Without --heads nothing per head is computed; the whole matrices are the same either way.
    void offByDefault()
    {
        FamilyCheckpoint f;
        HeadFixture fixture(2);
        writeLlama(f, fixture);
        const RunAnalysis plain = f.analyse();
        QVERIFY(plain.headResults.isEmpty());
        const RunAnalysis heads = f.analyse(TensorNameRules::builtIn(), withHeads());
        QCOMPARE(heads.results.size(), plain.results.size());
        for (qsizetype i = 0; i < plain.results.size(); ++i)
            QCOMPARE(heads.results[i].metrics.stableRank, plain.results[i].metrics.stableRank);
        QCOMPARE(heads.checkpoints.first().matrices, plain.checkpoints.first().matrices);
    }

    // A layer whose head counts are unknown is named with the reason; its matrices are analysed.
    void withoutHeadCountsSaysWhy()
    {
        FamilyCheckpoint f;
        HeadFixture fixture(2);
        writeLlama(f, fixture);
        f.setConfig({{"model_type", "llama"}, {"hidden_size", D}});
        const RunAnalysis run = f.analyse(TensorNameRules::builtIn(), withHeads());
        QVERIFY(run.headResults.isEmpty());
        QCOMPARE(run.results.size(), qsizetype(LAYERS * 7));
        const QString lines = run.issueLines().join('\n');
        QVERIFY2(lines.contains("q_proj") && lines.contains("num_attention_heads"), qPrintable(lines));
    }

    // Shapes that fit no head count: said, not guessed.
    void shapesThatDoNotFit()
    {
        const auto part = [](T type, qint64 rows, qint64 cols) {
            return AttentionPart{{QString(), 0, type, QString()}, csvName(type), {rows, cols}, MatrixPart::Axis::Rows};
        };
        ModelConfig config;
        config.addSource({{"num_attention_heads", 4}, {"num_key_value_heads", 2}}, "config.json");
        const HeadPlan fits = HeadPlan::of({part(T::Q, 16, 16), part(T::K, 8, 16), part(T::V, 8, 16), part(T::O, 16, 16)}, config);
        QVERIFY(fits.problems.isEmpty());
        QCOMPARE(fits.cutOf({QString(), 0, T::K, QString()})->heads, 2);
        QCOMPARE(fits.cutOf({QString(), 0, T::O, QString()})->alongRows, false);
        const HeadPlan wrong = HeadPlan::of({part(T::Q, 16, 16), part(T::K, 12, 16), part(T::V, 8, 16), part(T::O, 16, 16)}, config);
        QCOMPARE(wrong.problems.size(), qsizetype(1));
        QVERIFY2(wrong.problems[0].second.contains("K 12×16"), qPrintable(wrong.problems[0].second));
        QVERIFY(!wrong.cutOf({QString(), 0, T::Q, QString()}));
    }

    // The results file keeps every head and circuit with its head, key/value head and spectrum, and a
    // cached run shows them without reading a checkpoint.
    void resultsFileAndCache()
    {
        FamilyCheckpoint f;
        HeadFixture fixture(2);
        const QList<Heads> layers = writeLlama(f, fixture);
        const RunAnalysis run = f.analyse(TensorNameRules::builtIn(), withHeads());
        QTemporaryDir dir;
        const QString path = dir.filePath("run.h5");
        QString error;
        QVERIFY2(ResultsFile::save(run, path, &error), qPrintable(error));
        const std::optional<RunAnalysis> loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->results.size(), run.results.size());
        QCOMPARE(loaded->headResults.size(), run.headResults.size());
        for (qsizetype i = 0; i < run.headResults.size(); ++i) {
            const MatrixResult &a = run.headResults[i], &b = loaded->headResults[i];
            QCOMPARE(b.type, a.type);
            QCOMPARE(b.head, a.head);
            QCOMPARE(b.kvHead, a.kvHead);
            QCOMPARE(b.singularValues, a.singularValues);
            QCOMPARE(b.metrics.stableRank, a.metrics.stableRank);
        }
        verifyHeads(*loaded, layers, 2);
        const RunAnalysis cached = reanalyse(f.folder(), withHeads(), &*loaded);
        QVERIFY(cached.checkpoints.first().fromCache);
        verifyHeads(cached, layers, 2);
        // Asked for later, the heads are computed for a checkpoint cached without them.
        const RunAnalysis plain = reanalyse(f.folder(), {}, nullptr);
        QVERIFY(plain.headResults.isEmpty());
        const RunAnalysis added = reanalyse(f.folder(), withHeads(), &plain);
        QVERIFY(!added.checkpoints.first().fromCache);
        verifyHeads(added, layers, 2);
        // Without --heads, results that have them serve whole, heads kept.
        const RunAnalysis kept = reanalyse(f.folder(), {}, &added);
        QVERIFY(kept.checkpoints.first().fromCache);
        verifyHeads(kept, layers, 2);
    }

    // A folder's run as loadRun shows it, to every command and the window: with --heads its heads
    // and what keeps a layer from being cut; without it neither (nor among the rows as they
    // arrive), though the results file served it: the results file and the next watch pass keep
    // them all, and a results file opened is shown as it is.
    void loadRunShowsHeadsOnlyWhenAsked()
    {
        FamilyCheckpoint f;
        HeadFixture fixture(2);
        const QList<Heads> layers = writeLlama(f, fixture);
        // A layer of Q alone: its heads cannot be cut, which only --heads says.
        f.add(QStringLiteral("model.layers.%1.self_attn.q_proj.weight").arg(LAYERS), f.other(D, D));
        f.analyse(); // writes the checkpoint
        QTemporaryDir cache;
        RunLoadOptions asked;
        asked.settings = withHeads();
        asked.settings.resultsPath = cache.filePath("run.h5");
        const LoadedRun withHeadsRun = loadRun(f.folder(), asked);
        QVERIFY(withHeadsRun.run && !withHeadsRun.whole);
        verifyHeads(*withHeadsRun.run, layers, 2);
        QCOMPARE(withHeadsRun.run->issues.size(), qsizetype(1));
        QVERIFY2(withHeadsRun.run->issues.first().raisedBy().heads, qPrintable(withHeadsRun.run->issueLines().join('\n')));
        QCOMPARE(RunSummary(*withHeadsRun.run).exitStatus(), ExitStatus::Skipped);

        RunLoadOptions plain = asked;
        plain.settings.heads = false;
        QList<MatrixResult> arrived;
        LoadedRun without = loadRun(f.folder(), plain, [&](const AnalysisProgress &, const QList<MatrixResult> &rows) { arrived += rows; });
        QVERIFY(without.run && without.whole);
        QVERIFY(without.run->checkpoints.first().fromCache);
        QVERIFY(without.run->headResults.isEmpty());
        QVERIFY2(without.run->issues.isEmpty(), qPrintable(without.run->issueLines().join('\n')));
        QCOMPARE(RunSummary(*without.run).exitStatus(), ExitStatus::Clean);
        QCOMPARE(without.run->results.size(), withHeadsRun.run->results.size());
        QCOMPARE(arrived.size(), without.run->results.size());
        QVERIFY(std::none_of(arrived.begin(), arrived.end(), [](const MatrixResult &r) { return r.isHead(); }));

        verifyHeads(*without.whole, layers, 2);
        QCOMPARE(without.whole->issues.size(), qsizetype(1));
        const std::optional<RunAnalysis> next = without.takeForNextPass();
        QVERIFY(next);
        verifyHeads(*next, layers, 2);
        QString error;
        const std::optional<RunAnalysis> saved = ResultsFile::load(asked.settings.resultsPath, &error);
        QVERIFY2(saved, qPrintable(error));
        verifyHeads(*saved, layers, 2);
        const LoadedRun file = loadRun(asked.settings.resultsPath, RunLoadOptions());
        QVERIFY(file.run && !file.whole);
        verifyHeads(*file.run, layers, 2);
    }

    // Under mpirun the ranks share the reads: a query head's K may be another rank's, and the
    // leader pairs the R each rank sends.
    void sharedByTwoRanks()
    {
        FamilyCheckpoint f;
        HeadFixture fixture(2);
        const QList<Heads> layers = writeLlama(f, fixture);
        f.analyse(); // writes the checkpoint
        RecordedTeam member(1);
        AnalysisSettings settings = withHeads();
        settings.team = &member;
        const RunAnalysis share = reanalyse(f.folder(), settings, nullptr);
        QCOMPARE(member.sent.size(), qsizetype(1));
        QVERIFY(!share.headResults.isEmpty());
        QVERIFY(share.headResults.size() < qsizetype(LAYERS * (HEADS + 4 + 2 * HEADS + HEADS))); // a share, no circuits
        RecordedTeam leader(0, member.sent);
        settings.team = &leader;
        const RunAnalysis run = reanalyse(f.folder(), settings, nullptr);
        QVERIFY2(run.issues.isEmpty(), qPrintable(run.issueLines().join('\n')));
        verifyHeads(run, layers, 2);
    }

    void csvHeadColumns()
    {
        const QStringList columns = MetricsTable::columns();
        QCOMPARE(columns.mid(columns.size() - 5, 2), QStringList({"head", "kv_head"}));
        MatrixResult whole, head;
        whole.singularValues = head.singularValues = Eigen::VectorXd::Ones(2);
        head.type = T::OV;
        head.head = 3;
        head.kvHead = 1;
        const QStringList lines = csvOf({whole, head}).split('\n');
        QVERIFY2(lines[1].endsWith(",,,,,"), qPrintable(lines[1]));
        QVERIFY2(lines[2].endsWith(",3,1,,,"), qPrintable(lines[2]));
        QCOMPARE(lines[2].section(',', 2, 2), QStringLiteral("OV"));
        const QJsonArray json = MetricsTable::toJson({whole, head}).array();
        QVERIFY(json[0].toObject().value("head").isNull());
        QCOMPARE(json[1].toObject().value("kv_head").toInt(), 1);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestHeadSpectra)
} // namespace tst_headspectra

#include "tst_HeadSpectra.moc"
