// `rankscope export --figure plan` and `--figure heads --layer L --head H`, run as a user runs them,
// on the demo run and on a grouped-query LLaMA written by the test (modeling_llama.py's q/k/v/o_proj,
// nn.Linear (out, in); 4 query heads, 2 key/value heads, repeat_kv serving query head h with
// key/value head h / 2). The plan figure's numbers are `rankscope plan`'s own; a head's spectrum is
// the one stored for it and, on the LLaMA, the dense SVD of the head's slice or circuit; the
// planner's ranks and parameter counts are checked against the dense spectra of the non-square
// K and V, and the spectrogram of K against their stable ranks.
#include "core/HeadCheckpoint.h"
#include "TestSuite.h"

#include "analysis/results/ResultsFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

namespace tst_planandheadexports {

using namespace rankscope;
using namespace rankscope::test;
using namespace rankscope::test::headfixture;

namespace {

struct Run {
    int exitCode;
    QString err;
};

// Every run caches into this folder, not the user's cache, and sees no display.
Run runRankscope(const QStringList &arguments)
{
    static QTemporaryDir cacheHome;
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cacheHome.path());
    for (const char *name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(name);
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(RANKSCOPE_BINARY), arguments);
    process.waitForFinished(120000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromUtf8(process.readAllStandardError())};
}

QByteArray contents(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A CSV's rows after its header, split into fields.
QList<QStringList> csvRows(const QByteArray &csv, const QString &header)
{
    QStringList lines = QString::fromUtf8(csv).split('\n', Qt::SkipEmptyParts);
    if (lines.isEmpty() || lines.first() != header) {
        QTest::qFail(qPrintable(QStringLiteral("header %1, not %2").arg(lines.value(0), header)), __FILE__, __LINE__);
        return {};
    }
    QList<QStringList> rows;
    for (const QString &line : lines.mid(1))
        rows << line.split(',');
    return rows;
}

const QString kHeadSpectrumHeader = QStringLiteral("step,block,layer,type,head,kv_head,index,singular_value");

// The singular values a head-spectrum CSV holds, in order.
Eigen::VectorXd csvSpectrum(const QList<QStringList> &rows)
{
    Eigen::VectorXd s(rows.size());
    for (qsizetype i = 0; i < rows.size(); ++i) {
        if (rows[i].size() != 8 || rows[i][6].toInt() != int(i + 1)) {
            QTest::qFail(qPrintable("not the singular value " + QString::number(i + 1) + ": " + rows[i].join(',')), __FILE__, __LINE__);
            return {};
        }
        s[i] = rows[i][7].toDouble();
    }
    return s;
}

Eigen::VectorXd denseSpectrum(const M &m) { return exactSingularValues(m); }

double relativeDifference(const Eigen::VectorXd &a, const Eigen::VectorXd &b)
{
    return a.size() == b.size() ? (a - b).cwiseAbs().maxCoeff() / b[0] : INFINITY;
}

// --energy τ for one matrix, from its spectrum: the smallest rank keeping τ of Σσ², kept dense
// (its full rank) where factors of that rank cost r(m + n) ≥ mn.
int energyRank(const Eigen::VectorXd &s, double tau, qint64 rows, qint64 cols)
{
    const double total = s.squaredNorm();
    double kept = 0;
    int rank = 0;
    while (rank < s.size() && kept < tau * total)
        kept += s[rank] * s[rank], ++rank;
    return rank * (rows + cols) >= rows * cols ? int(std::min(rows, cols)) : rank;
}

// A grouped-query LLaMA at steps 100 and 200: model_000100.safetensors, model_000200.safetensors
// and config.json, every head of its own spectrum.
struct GroupedQueryRun {
    QTemporaryDir dir;
    FamilyCheckpoint steps[2];
    QList<Heads> layers[2]; // [step][layer]
    GroupedQueryRun()
    {
        HeadFixture fixture(2);
        for (int i = 0; i < 2; ++i) {
            layers[i] = writeLlama(steps[i], fixture);
            steps[i].write(dir.filePath(QStringLiteral("model_%1.safetensors").arg((i + 1) * 100, 6, 10, QLatin1Char('0'))));
        }
    }
    // The stored matrices as the model holds them, nn.Linear (out, in).
    M stored(int step, int layer, const QString &module) const
    {
        const Heads &w = layers[step][layer];
        if (module == "q_proj")
            return sideBySide(w.q).transpose();
        if (module == "k_proj")
            return sideBySide(w.k).transpose();
        if (module == "v_proj")
            return sideBySide(w.v).transpose();
        return stackRows(w.o).transpose();
    }
};

} // namespace

class TestPlanAndHeadExports : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_demo = m_dir.filePath("demo.h5");
        const Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--heads", "--results", m_demo, "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    // The plan figure's CSV is `rankscope plan`'s CSV (the same planning) followed by the
    // error-vs-budget curve, from rank 1 everywhere to every matrix dense; drawn at the size asked.
    void planFigureIsThePlansNumbers()
    {
        const QString plan = m_dir.filePath("plan.csv"), figure = m_dir.filePath("plan-figure.csv");
        QCOMPARE(runRankscope({"plan", m_demo, "--keep", "0.4", "--out", plan}).exitCode, 0);
        Run r = runRankscope({"export", m_demo, "--figure", "plan", "--keep", "0.4", "--out", figure});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QByteArray planCsv = contents(plan), figureCsv = contents(figure);
        QVERIFY(planCsv.count('\n') == 25); // a header and the demo's 24 matrices
        QVERIFY2(figureCsv.startsWith(planCsv + "kept_fraction,relative_error\n"), figureCsv.left(400).constData());
        const QList<QStringList> curve = csvRows(figureCsv.mid(planCsv.size()), "kept_fraction,relative_error");
        QVERIFY(curve.size() > 10);
        QCOMPARE(curve.last(), (QStringList{"1", "0"}));
        for (qsizetype i = 1; i < curve.size(); ++i) {
            QVERIFY(curve[i][0].toDouble() > curve[i - 1][0].toDouble());
            QVERIFY(curve[i][1].toDouble() <= curve[i - 1][1].toDouble());
        }

        // Another step and target: the same as plan's again.
        QCOMPARE(runRankscope({"plan", m_demo, "--energy", "0.9", "--step", "100", "--out", plan}).exitCode, 0);
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "plan", "--energy", "0.9", "--step", "100", "--out", figure}).exitCode, 0);
        QVERIFY(contents(figure).startsWith(contents(plan) + "kept_fraction,"));
        QCOMPARE(runRankscope({"plan", m_demo, "--max-error", "0.3", "--out", plan}).exitCode, 0);
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "plan", "--max-error", "0.3", "--out", figure}).exitCode, 0);
        QVERIFY(contents(figure).startsWith(contents(plan) + "kept_fraction,"));

        const QString png = m_dir.filePath("plan.png"), svg = m_dir.filePath("plan.svg"), pdf = m_dir.filePath("plan.pdf");
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "plan", "--keep", "0.4", "--size", "6x3in", "--dpi", "100", "--out", png}).exitCode, 0);
        QCOMPARE(QImage(png).size(), QSize(600, 300));
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "plan", "--keep", "0.4", "--preset", "column", "--out", pdf}).exitCode, 0);
        QCOMPARE(contents(pdf).left(4), QByteArray("%PDF"));
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "plan", "--keep", "0.4", "--out", svg}).exitCode, 0);
        const QString text = QString::fromUtf8(contents(svg));
        QVERIFY(text.contains(QStringLiteral(">Ranks keeping 40% of the parameters \u00b7 step 1500<")));
        QVERIFY(text.contains(QStringLiteral(">Error vs budget \u00b7 step 1500 \u00b7 \u25cf keeping 40% of the parameters<")));
        // Under a caption: no titles; the axes say which step was planned and what the point is.
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "plan", "--keep", "0.4", "--preset", "two-column", "--out", svg}).exitCode, 0);
        const QString paper = QString::fromUtf8(contents(svg));
        QVERIFY2(!paper.contains(QStringLiteral("Ranks keeping")) && !paper.contains(QStringLiteral("Error vs budget")), qPrintable(paper.left(300)));
        QVERIFY(paper.contains(QStringLiteral(">Layer (final step)<")));
        QVERIFY(paper.contains(QStringLiteral("keeping 40% of the parameters)<")));
    }

    // What plan refuses, export --figure plan refuses in the same words, writing nothing.
    void planFigureRefusesAsPlanDoes()
    {
        const QString out = m_dir.filePath("refused.png");
        const QList<std::pair<QStringList, QString>> cases = {
            {{"--figure", "plan"}, "give a target: --keep F, --energy τ or --max-error E"},
            {{"--figure", "plan", "--keep", "0.4", "--max-error", "0.1"}, "give one of --keep, --energy and --max-error, not several"},
            {{"--figure", "plan", "--keep", "1.5"}, "--keep takes a number in (0, 1], not '1.5'"},
            {{"--figure", "plan", "--keep", "0.4", "--step", "7"}, "no checkpoint at step 7"},
            {{"--figure", "plan", "--keep", "0.01"}, "--keep 0.01 is below the smallest plan of step 1500"},
        };
        for (const auto &[options, message] : cases) {
            const Run r = runRankscope(QStringList{"export", m_demo, "--out", out} + options);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("rankscope export: " + message), qPrintable(r.err));
            QVERIFY(!QFileInfo::exists(out));
        }
    }

    // One head's spectrum as the Heads tab draws it: its CSV holds the singular values stored
    // for that head, exactly.
    void headSpectrumIsTheStoredOne()
    {
        QString error;
        const std::optional<RunAnalysis> run = ResultsFile::load(m_demo, &error);
        QVERIFY2(run, qPrintable(error));
        const QString csv = m_dir.filePath("head.csv");
        for (const char *type : {"OV", "K", "QK"}) {
            const Run r = runRankscope({"export", m_demo, "--figure", "heads", "--layer", "2", "--head", "1", "--type", type, "--step", "600", "--out", csv});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const MatrixResult *stored = nullptr;
            for (const MatrixResult &m : run->headResults)
                if (m.step == 600 && m.layer == 2 && m.head == 1 && csvName(m.type) == QLatin1String(type))
                    stored = &m;
            QVERIFY(stored);
            const QList<QStringList> rows = csvRows(contents(csv), kHeadSpectrumHeader);
            QCOMPARE(rows.size(), qsizetype(stored->singularValues.size()));
            QCOMPARE(rows.first().mid(0, 6), (QStringList{"600", "", "2", type, "1", QString::number(stored->kvHead)}));
            const Eigen::VectorXd s = csvSpectrum(rows);
            QVERIFY(s == stored->singularValues);
        }
        const QString png = m_dir.filePath("head.png");
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "heads", "--layer", "2", "--head", "1", "--preset", "column", "--out", png}).exitCode, 0);
        QCOMPARE(QImage(png).size(), QSize(990, 720));
        // The heads' heatmap under a caption: no title, the circuit and the step on the axes.
        const QString svg = m_dir.filePath("heads.svg");
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "heads", "--type", "QK", "--preset", "column", "--out", svg}).exitCode, 0);
        const QString text = QString::fromUtf8(contents(svg));
        QVERIFY2(!text.contains("of each") && text.contains(">Head (QK circuit)<") && text.contains(">Layer (final step)<"), qPrintable(text.left(400)));
        Run r = runRankscope({"export", m_demo, "--figure", "heads", "--head", "1", "--out", png + ".png"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rankscope export: heads: --head needs --layer L"), qPrintable(r.err));
        r = runRankscope({"export", m_demo, "--figure", "heads", "--layer", "2", "--head", "9", "--out", png + ".png"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rankscope export: heads: no QK head 9 in layer 2 at this step"), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(png + ".png"));
        // A results file analysed without --heads has nothing per head: refused with how to get it,
        // not a blank figure.
        const QString plain = m_dir.filePath("plain.h5");
        QCOMPARE(runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--results", plain, "--quiet"}).exitCode, 0);
        r = runRankscope({"export", plain, "--figure", "heads", "--out", png + ".png"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rankscope export: heads: Per-head spectra were not computed: analyze with --heads"), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(png + ".png"));
        // A folder's figure asks for its heads, whatever its cache held before: the same numbers as
        // the results file analysed with --heads.
        const QString fromFolder = m_dir.filePath("heads-folder.csv"), fromFile = m_dir.filePath("heads-file.csv");
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "heads", "--out", fromFolder});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(runRankscope({"export", m_demo, "--figure", "heads", "--out", fromFile}).exitCode, 0);
        QVERIFY(!contents(fromFolder).isEmpty());
        QCOMPARE(contents(fromFolder), contents(fromFile));
    }

    // A grouped-query checkpoint end to end: analysed with --heads, planned (the checkpoint's own
    // module names, K and V 8 × 16, their ranks and parameters from their dense spectra), the
    // spectrogram of K (its stable rank at each step), and a key/value head's spectrum and a
    // query head's circuit through its group.
    void groupedQueryEndToEnd()
    {
        const GroupedQueryRun gqa;
        const QString results = m_dir.filePath("gqa.h5");
        Run r = runRankscope({"analyze", gqa.dir.path(), "--heads", "--results", results, "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        const QString json = m_dir.filePath("gqa-plan.json");
        r = runRankscope({"plan", results, "--energy", "0.9", "--step", "200", "--out", json});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject plan = QJsonDocument::fromJson(contents(json)).object();
        const QJsonObject pattern = plan["rank_pattern"].toObject();
        QStringList modules;
        for (int layer = 0; layer < LAYERS; ++layer)
            for (const char *name : {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"})
                modules << QStringLiteral("model.layers.%1.%2").arg(layer).arg(QLatin1String(name));
        modules.sort();
        QCOMPARE(pattern.keys(), modules);
        int checked = 0;
        for (const QJsonValue &value : plan["matrices"].toArray()) {
            const QJsonObject m = value.toObject();
            const QString module = m["module"].toString(), name = module.section('.', -1);
            const int layer = m["layer"].toInt();
            QCOMPARE(m["tensor"].toString(), module + ".weight");
            if (module.section('.', -2, -2) != "self_attn")
                continue;
            const M stored = gqa.stored(1, layer, name);
            const qint64 rows = stored.rows(), cols = stored.cols();
            QCOMPARE(qint64(m["rows"].toInteger()), rows);
            QCOMPARE(qint64(m["cols"].toInteger()), cols);
            if (name == "k_proj" || name == "v_proj")
                QCOMPARE(rows, qint64(2 * HD)); // 2 key/value heads of 4
            const int rank = energyRank(denseSpectrum(stored), 0.9, rows, cols);
            QCOMPARE(m["rank"].toInt(), rank);
            QCOMPARE(pattern[module].toInt(), rank);
            QCOMPARE(qint64(m["params_before"].toInteger()), rows * cols);
            QCOMPARE(qint64(m["params_after"].toInteger()), m["dense"].toBool() ? rows * cols : rank * (rows + cols));
            ++checked;
        }
        QCOMPARE(checked, 2 * 4);
        // q, o 16 × 16; k, v 8 × 16; gate, up 32 × 16; down 16 × 32: per layer 2304 parameters.
        QCOMPARE(plan["totals"].toObject()["params_before"].toInteger(), qint64(2 * 2304));

        // The spectrogram of layer 0's K: its stable rank at each step is the dense spectrum's.
        const QString spectrogram = m_dir.filePath("gqa-k.csv");
        r = runRankscope({"export", results, "--figure", "spectrogram", "--layer", "0", "--type", "K", "--out", spectrogram});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QHash<int, double> stableRanks;
        for (const QStringList &f : csvRows(contents(spectrogram), "step,block,layer,type,expert,matrices,sigma_low,sigma_high,density,stable_rank,left_out"))
            stableRanks[f[0].toInt()] = f[9].toDouble();
        QCOMPARE(stableRanks.size(), 2);
        for (int step : {0, 1}) {
            const Eigen::VectorXd s = denseSpectrum(gqa.stored(step, 0, "k_proj"));
            const double expected = s.squaredNorm() / (s[0] * s[0]);
            QVERIFY2(std::abs(stableRanks[(step + 1) * 100] - expected) < 1e-9 * expected, qPrintable(QString::number(stableRanks[(step + 1) * 100])));
        }

        // Key/value head 1 of layer 1 at step 100, and query head 3's QK circuit, served by it.
        const QString head = m_dir.filePath("gqa-head.csv");
        const Heads &w = gqa.layers[0][1];
        r = runRankscope({"export", results, "--figure", "heads", "--layer", "1", "--head", "1", "--type", "K", "--step", "100", "--out", head});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QList<QStringList> rows = csvRows(contents(head), kHeadSpectrumHeader);
        QCOMPARE(rows.value(0).mid(0, 6), (QStringList{"100", "", "1", "K", "1", "1"}));
        QVERIFY(relativeDifference(csvSpectrum(rows), denseSpectrum(w.k[1])) < 1e-10);
        r = runRankscope({"export", results, "--figure", "heads", "--layer", "1", "--head", "3", "--type", "QK", "--step", "100", "--out", head});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        rows = csvRows(contents(head), kHeadSpectrumHeader);
        QCOMPARE(rows.value(0).mid(0, 6), (QStringList{"100", "", "1", "QK", "3", "1"}));
        QVERIFY(relativeDifference(csvSpectrum(rows), denseSpectrum(w.q[3] * w.k[1].transpose()).head(HD)) < 1e-10);
        // Only two key/value heads: no K head 2.
        r = runRankscope({"export", results, "--figure", "heads", "--layer", "1", "--head", "2", "--type", "K", "--out", head + ".png"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("heads: no K head 2 in layer 1 at this step"), qPrintable(r.err));

        // The V heads' heatmap at step 200: a row per key/value head and layer, each its stable rank.
        r = runRankscope({"export", results, "--figure", "heads", "--type", "V", "--metric", "stable_rank", "--out", head});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        rows = csvRows(contents(head), "step,block,layer,type,head,kv_head,stable_rank");
        QCOMPARE(rows.size(), qsizetype(LAYERS * 2));
        for (const QStringList &f : rows) {
            const Eigen::VectorXd s = denseSpectrum(gqa.layers[1][f[2].toInt()].v[f[4].toInt()]);
            QCOMPARE(f[0], QStringLiteral("200"));
            QCOMPARE(f[5], f[4]);
            QVERIFY(std::abs(f[6].toDouble() - s.squaredNorm() / (s[0] * s[0])) < 1e-9 * f[6].toDouble());
        }
    }

private:
    QTemporaryDir m_dir;
    QString m_demo;
};

RANKSCOPE_TEST_GUILESS_MAIN(TestPlanAndHeadExports)
} // namespace tst_planandheadexports

#include "tst_PlanAndHeadExports.moc"
