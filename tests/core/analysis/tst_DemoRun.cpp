// The bundled demo run (a real nanoGPT training run written by torch.save) must reproduce its
// independently computed expected metrics, row for row, within the contract's tolerances.
#include "analysis/execution/RunAnalyzer.h"
#include "core/FormatWriters.h"
#include "TestSuite.h"

#include <QTemporaryDir>
#include <cstring>
#include <random>

#include <QFile>
#include <QHash>
#include <cmath>

namespace tst_demorun {

using namespace rankscope;

namespace {
struct ExpectedRow {
    qint64 rows, cols;
    QHash<QString, double> values;
};

QHash<QString, ExpectedRow> readExpected()
{
    QFile file(QStringLiteral(RANKSCOPE_TEST_DATA "/nanogpt-d4.metrics.csv"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QStringList header = QString::fromUtf8(file.readLine()).trimmed().split(',');
    QHash<QString, ExpectedRow> rows;
    while (!file.atEnd()) {
        const QStringList cells = QString::fromUtf8(file.readLine()).trimmed().split(',');
        if (cells.size() != header.size())
            continue;
        ExpectedRow row{cells[header.indexOf("rows")].toLongLong(), cells[header.indexOf("cols")].toLongLong(), {}};
        for (qsizetype i = 5; i < header.size(); ++i)
            row.values.insert(header[i], cells[i].toDouble());
        rows.insert(cells[0] + '/' + cells[1] + '/' + cells[2], row);
    }
    return rows;
}
} // namespace

class TestDemoRun : public QObject {
    Q_OBJECT
private slots:
    // A matrix counts when its spectrum is done, not when it is queued: one large matrix shows 0 of 1
    // while it computes, with an ETA from the cost model of its shape (nothing has finished to time).
    void progressCountsMatricesWhenDone()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(3);
        std::normal_distribution<float> gauss;
        const qint64 n = 1400;
        QByteArray data(qsizetype(n * n * 4), Qt::Uninitialized);
        for (qint64 i = 0; i < n * n; ++i) {
            const float f = gauss(rng);
            std::memcpy(data.data() + 4 * i, &f, 4);
        }
        test::saveBytes(dir.filePath("model.safetensors"),
                        test::safetensorsFile({{"transformer.h.0.attn.c_proj.weight", "F32", {n, n}, data}}));
        QList<AnalysisProgress> reports;
        AnalysisSettings settings;
        settings.jobs = 2;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path(), [&](const AnalysisProgress &p, const QList<MatrixResult> &) {
            reports << p;
        });
        QCOMPARE(run.results.size(), 1);
        QVERIFY(reports.size() >= 2);
        QCOMPARE(reports.first().matricesDone, 0);
        QCOMPARE(reports.first().matricesTotal, 1);
        QVERIFY(reports.first().etaSeconds > 0);
        QCOMPARE(reports.last().matricesDone, 1);
        QCOMPARE(reports.last().checkpointsDone, 1);
        for (qsizetype i = 1; i < reports.size(); ++i)
            QVERIFY(reports[i].matricesDone >= reports[i - 1].matricesDone);
    }

    // Issue #29, end to end with --delta (which makes each checkpoint long enough to watch): the
    // share of matrices done never falls back, and from the first report on the total counts every
    // checkpoint, not only the one open.
    void progressNeverGoesBack()
    {
        AnalysisSettings settings;
        settings.jobs = 2;
        settings.delta = true;
        QList<AnalysisProgress> reports;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(RANKSCOPE_DEMO_RUN, [&](const AnalysisProgress &p, const QList<MatrixResult> &) {
            reports << p;
        });
        QCOMPARE(run.checkpointsAnalysed, run.checkpointsFound);
        QVERIFY(run.checkpointsFound > 1);
        QCOMPARE(run.results.size() % run.checkpointsFound, 0);
        QCOMPARE(reports.first().checkpointsDone, 0);
        QCOMPARE(reports.first().matricesTotal, int(run.results.size()));
        double share = 0;
        for (const AnalysisProgress &p : reports) {
            const double now = double(p.matricesDone) / p.matricesTotal;
            QVERIFY2(now >= share, qPrintable(QStringLiteral("%1 of %2 matrices after %3 % (%4/%5 checkpoints)")
                                                  .arg(p.matricesDone).arg(p.matricesTotal).arg(100 * share).arg(p.checkpointsDone).arg(p.checkpointsTotal)));
            share = now;
        }
        QCOMPARE(share, 1.0);
    }

    void reproducesExpectedMetrics_data()
    {
        QTest::addColumn<int>("method");
        QTest::addColumn<int>("eigensolver");
        QTest::newRow("gram") << int(SvdMethod::FastGram) << int(Eigensolver::BySize);
        // The demo's matrices are small, so by size they all go to dsyevd: force each solver.
        QTest::newRow("gram dsyevd") << int(SvdMethod::FastGram) << int(Eigensolver::DivideAndConquer);
        QTest::newRow("gram dsyev_2stage") << int(SvdMethod::FastGram) << int(Eigensolver::TwoStage);
        QTest::newRow("svd") << int(SvdMethod::ExactSvd) << int(Eigensolver::BySize);
    }
    void reproducesExpectedMetrics()
    {
        QFETCH(int, method);
        QFETCH(int, eigensolver);
        const QHash<QString, ExpectedRow> expected = readExpected();
        QCOMPARE(expected.size(), 144); // 6 steps × 4 layers × 6 types

        AnalysisSettings settings;
        settings.method = SvdMethod(method);
        settings.eigensolver = Eigensolver(eigensolver);
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(RANKSCOPE_DEMO_RUN);
        QVERIFY(run.issues.isEmpty());
        QCOMPARE(run.checkpointsAnalysed, 6);
        QCOMPARE(run.results.size(), expected.size());

        int alphaMisses = 0;
        QSet<QString> seen;
        for (const MatrixResult &r : run.results) {
            const QString key = QStringLiteral("%1/%2/%3").arg(r.step).arg(r.layer).arg(csvName(r.type));
            QVERIFY2(expected.contains(key), qPrintable(key));
            QVERIFY2(!seen.contains(key), qPrintable("duplicate " + key));
            seen.insert(key);
            const ExpectedRow &e = expected[key];
            QCOMPARE(r.rows, e.rows);
            QCOMPARE(r.cols, e.cols);
            // The expected file holds 9 significant digits: compare at the contract's 1e-6.
            auto relative = [](double a, double b) { return std::abs(a - b) / std::abs(b); };
            QVERIFY2(relative(r.metrics.stableRank, e.values["stable_rank"]) <= 1e-6, qPrintable(key));
            QVERIFY2(relative(r.metrics.effectiveRank, e.values["effective_rank"]) <= 1e-6, qPrintable(key));
            QVERIFY2(relative(r.metrics.spectralNorm, e.values["spectral_norm"]) <= 1e-6, qPrintable(key));
            QVERIFY2(relative(r.metrics.frobeniusNorm, e.values["frobenius_norm"]) <= 1e-6, qPrintable(key));
            QCOMPARE(r.metrics.compressionPct, e.values["compression_pct"]);
            // k_τ from the expected compression % (100·(1 − k/r)), and the parameters a rank-k
            // factorisation saves, from the shapes.
            const double r0 = double(std::min(e.rows, e.cols));
            const double k = std::round(r0 * (1 - e.values["compression_pct"] / 100));
            QCOMPARE(r.metrics.energyRank, k);
            QVERIFY2(std::abs(r.metrics.paramSavingPct - 100 * (1 - k * double(e.rows + e.cols) / (double(e.rows) * double(e.cols)))) <= 1e-9,
                     qPrintable(key));
            // WeightWatcher's log norms from the independently computed norms.
            QVERIFY2(std::abs(r.metrics.logNorm - 2 * std::log10(e.values["frobenius_norm"])) <= 1e-6, qPrintable(key));
            QVERIFY2(std::abs(r.metrics.logSpectralNorm - 2 * std::log10(e.values["spectral_norm"])) <= 1e-6, qPrintable(key));
            if (std::abs(r.metrics.alpha - e.values["alpha"]) > 1e-3)
                ++alphaMisses;
            else
                QVERIFY2(std::abs(r.metrics.weightedAlpha - e.values["weighted_alpha"]) <= 1e-3 * std::abs(std::log10(r.metrics.spectralNorm * r.metrics.spectralNorm)) + 1e-6, qPrintable(key));
        }
        QVERIFY2(alphaMisses <= 1, qPrintable(QStringLiteral("%1 alpha values off by more than 1e-3").arg(alphaMisses))); // ≥ 99 % of 144
        QCOMPARE(run.results.first().tensor, QStringLiteral("transformer.h.0.attn.c_attn.weight[Q]"));
    }

    // The Marchenko–Pastur fit sees the same spectrum whichever solver made it: the fast path's
    // num_spikes and mp_softrank are those of Eigen's exact SVD.
    void marchenkoPasturFitAgreesWithTheExactSvd()
    {
        AnalysisSettings exact;
        exact.method = SvdMethod::ExactSvd;
        const RunAnalysis fast = RunAnalyzer().analyzeFolder(RANKSCOPE_DEMO_RUN);
        const RunAnalysis reference = RunAnalyzer(exact).analyzeFolder(RANKSCOPE_DEMO_RUN);
        QCOMPARE(fast.results.size(), reference.results.size());
        int spiked = 0;
        for (qsizetype i = 0; i < fast.results.size(); ++i) {
            const SpectralMetrics &a = fast.results[i].metrics, &b = reference.results[i].metrics;
            const QString key = fast.results[i].tensor + QStringLiteral(" @ %1").arg(fast.results[i].step);
            QVERIFY2(a.numSpikes == b.numSpikes, qPrintable(key));
            // numerical_rank's threshold is the Gram path's resolution: both solvers count the same.
            QVERIFY2(a.numericalRank == b.numericalRank, qPrintable(key));
            QVERIFY2(b.numericalRank >= 1 && b.numericalRank <= std::min(fast.results[i].rows, fast.results[i].cols), qPrintable(key));
            QVERIFY2(std::abs(a.mpSoftrank - b.mpSoftrank) <= 1e-6 * b.mpSoftrank, qPrintable(key));
            QVERIFY2(b.mpSoftrank > 0 && b.mpSoftrank <= 1.5, qPrintable(key));
            spiked += b.numSpikes > 0;
        }
        QVERIFY(spiked > 0); // trained matrices grow spikes
    }

    // The contract's order: step, then layer, then Q K V O MLP_GATE MLP_UP MLP_DOWN.
    void resultsAreSortedAndStepsComeFromTheCheckpoints()
    {
        const RunAnalysis run = RunAnalyzer().analyzeFolder(RANKSCOPE_DEMO_RUN);
        QList<qint64> steps;
        for (const MatrixResult &r : run.results)
            if (steps.isEmpty() || steps.last() != r.step)
                steps << r.step;
        QCOMPARE(steps, (QList<qint64>{0, 100, 300, 600, 1000, 1500}));
        for (qsizetype i = 1; i < run.results.size(); ++i) {
            const MatrixResult &a = run.results[i - 1], &b = run.results[i];
            QVERIFY(std::tuple(a.step, a.layer, int(a.type)) < std::tuple(b.step, b.layer, int(b.type)));
        }
    }

    // τ changes compression from the stored spectra; nothing is read again.
    void energyRecomputesFromStoredSpectra()
    {
        RunAnalysis run = RunAnalyzer().analyzeFolder(RANKSCOPE_DEMO_RUN);
        const double before = run.results.last().metrics.compressionPct;
        applyEnergy(run.results, 0.5);
        QVERIFY(run.results.last().metrics.compressionPct > before);
        applyEnergy(run.results, 0.9);
        QCOMPARE(run.results.last().metrics.compressionPct, before);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestDemoRun)
} // namespace tst_demorun

#include "tst_DemoRun.moc"
