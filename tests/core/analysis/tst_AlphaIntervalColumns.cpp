// --alpha-ci through the analysis: alpha_ci_low and alpha_ci_high of every matrix of the demo run
// equal the bootstrap computed again from its spectrum and its fit; they are the last two columns
// of the CSV and JSON (nan and null when not asked for); they survive the results file as written;
// a cached run without them gains them with no checkpoint read, and one with them keeps them.
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/AnalysisSettingsKey.h"
#include "analysis/results/MetricsTable.h"
#include "analysis/results/ResultsFile.h"
#include "spectral/AlphaInterval.h"
#include "TestSuite.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

namespace tst_alphaintervalcolumns {

using namespace rankscope;

namespace {

RunAnalysis analyse(bool alphaCi, const QString &resultsPath = {}, const RunAnalysis *previous = nullptr);

// The demo run analysed once with and once without --alpha-ci, for the tests that only read it.
const RunAnalysis &analysed(bool alphaCi)
{
    static const RunAnalysis with = analyse(true), without = analyse(false);
    return alphaCi ? with : without;
}

RunAnalysis analyse(bool alphaCi, const QString &resultsPath, const RunAnalysis *previous)
{
    AnalysisSettings settings;
    settings.alphaCi = alphaCi;
    settings.resultsPath = resultsPath;
    return RunAnalyzer(settings).analyzeFolder(QStringLiteral(RANKSCOPE_DEMO_RUN), {}, previous);
}

// The interval from the spectrum alone: λ = σ², the contract's fit, the bootstrap of its tail.
AlphaInterval expectedInterval(const MatrixResult &r)
{
    const Eigen::VectorXd lambda = r.singularValues.array().square();
    return alphaInterval(lambda, fitPowerLaw(lambda));
}

bool sameIntervals(const QList<MatrixResult> &a, const QList<MatrixResult> &b)
{
    if (a.size() != b.size())
        return false;
    for (qsizetype i = 0; i < a.size(); ++i)
        if (a[i].identity() != b[i].identity() || a[i].step != b[i].step || a[i].metrics.alphaCiLow != b[i].metrics.alphaCiLow ||
            a[i].metrics.alphaCiHigh != b[i].metrics.alphaCiHigh) {
            qWarning("%s at step %lld: [%.17g, %.17g] against [%.17g, %.17g]", qPrintable(a[i].tensor), a[i].step, a[i].metrics.alphaCiLow,
                     a[i].metrics.alphaCiHigh, b[i].metrics.alphaCiLow, b[i].metrics.alphaCiHigh);
            return false;
        }
    return true;
}

} // namespace

class TestAlphaIntervalColumns : public QObject {
    Q_OBJECT
private slots:
    void everyMatrixHasItsBootstrap()
    {
        const RunAnalysis &run = analysed(true);
        QVERIFY(run.results.size() >= 24);
        QVERIFY(AnalysisSettingsKey::parse(run.settingsKey).alphaCiResamples == kAlphaCiResamples);
        for (const MatrixResult &r : run.results) {
            const AlphaInterval expected = expectedInterval(r);
            QVERIFY2(expected.ok(), qPrintable(r.tensor));
            QCOMPARE(r.metrics.alphaCiLow, expected.low);
            QCOMPARE(r.metrics.alphaCiHigh, expected.high);
            QVERIFY(r.metrics.alphaCiLow <= r.metrics.alpha && r.metrics.alpha <= r.metrics.alphaCiHigh);
        }
        // Not asked for: NaN, and the settings say so.
        const RunAnalysis &plain = analysed(false);
        QVERIFY(!AnalysisSettingsKey::parse(plain.settingsKey).alphaCiResamples);
        for (const MatrixResult &r : plain.results)
            QVERIFY(std::isnan(r.metrics.alphaCiLow) && std::isnan(r.metrics.alphaCiHigh));
    }

    void csvAndJsonColumns()
    {
        const QStringList columns = MetricsTable::columns();
        // The last metric columns, before --heads' head and kv_head and a LoRA update's three.
        QCOMPARE(columns.mid(columns.size() - 7, 4), (QStringList{"alpha_ci_low", "alpha_ci_high", "head", "kv_head"}));
        for (const bool asked : {true, false}) {
            const RunAnalysis &run = analysed(asked);
            QBuffer buffer;
            buffer.open(QIODevice::WriteOnly);
            QVERIFY(MetricsTable::writeCsv(run.results, buffer));
            const QStringList lines = QString::fromUtf8(buffer.data()).split('\n', Qt::SkipEmptyParts);
            QCOMPARE(lines.first().split(','), columns);
            const QJsonArray records = MetricsTable::toJson(run.results).array();
            for (qsizetype i = 0; i < run.results.size(); ++i) {
                const SpectralMetrics &m = run.results[i].metrics;
                const QStringList cells = lines[i + 1].split(',');
                QCOMPARE(cells[columns.indexOf("alpha_ci_low")], MetricsTable::formatNumber(m.alphaCiLow));
                QCOMPARE(cells[columns.indexOf("alpha_ci_high")], MetricsTable::formatNumber(m.alphaCiHigh));
                const QJsonObject o = records[i].toObject();
                if (asked) {
                    QCOMPARE(o["alpha_ci_low"].toDouble(), m.alphaCiLow);
                    QCOMPARE(o["alpha_ci_high"].toDouble(), m.alphaCiHigh);
                } else {
                    QCOMPARE(cells[columns.indexOf("alpha_ci_low")], QStringLiteral("nan"));
                    QVERIFY(o["alpha_ci_low"].isNull() && o["alpha_ci_high"].isNull());
                }
            }
        }
    }

    void resultsFileRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("run.h5");
        const RunAnalysis run = analyse(true, path);
        QString error;
        const std::optional<RunAnalysis> loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QVERIFY(sameIntervals(loaded->results, run.results));
        QVERIFY(std::isfinite(loaded->results.first().metrics.alphaCiLow));
    }

    // Stored without intervals: asked for now, every checkpoint is taken from the file (nothing
    // read) and gains them, the same as a fresh analysis's; asked for no more, they are kept.
    void cachedRunGainsThemWithoutARead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("run.h5");
        analyse(false, path);
        QString error;
        std::optional<RunAnalysis> plain = ResultsFile::load(path, &error);
        QVERIFY2(plain, qPrintable(error));
        const RunAnalysis gained = analyse(true, path, &*plain);
        QVERIFY(!gained.checkpoints.isEmpty());
        for (const CheckpointRecord &c : gained.checkpoints)
            QVERIFY2(c.fromCache, qPrintable(c.path));
        // The cached spectra, each with the interval a fresh analysis of that spectrum gives (two
        // fresh analyses may differ in σ's last bits: the eigensolver's threads follow the load).
        QCOMPARE(gained.results.size(), plain->results.size());
        for (qsizetype i = 0; i < gained.results.size(); ++i) {
            QVERIFY(gained.results[i].singularValues == plain->results[i].singularValues);
            const AlphaInterval expected = expectedInterval(gained.results[i]);
            QCOMPARE(gained.results[i].metrics.alphaCiLow, expected.low);
            QCOMPARE(gained.results[i].metrics.alphaCiHigh, expected.high);
        }
        std::optional<RunAnalysis> withIntervals = ResultsFile::load(path, &error);
        QVERIFY2(withIntervals, qPrintable(error));
        QVERIFY(sameIntervals(withIntervals->results, gained.results));
        const RunAnalysis kept = analyse(false, {}, &*withIntervals);
        for (const CheckpointRecord &c : kept.checkpoints)
            QVERIFY(c.fromCache);
        QVERIFY(sameIntervals(kept.results, gained.results));
    }

    void settingsKeyNamesTheResamples()
    {
        AnalysisSettings settings;
        settings.alphaCi = true;
        const AnalysisSettingsKey key = AnalysisSettingsKey::of(settings, "builtin", QString(), ResultsFile::kSchemaVersion);
        QVERIFY(key.toString().endsWith(QStringLiteral(";alpha_ci=%1").arg(kAlphaCiResamples)));
        const AnalysisSettingsKey parsed = AnalysisSettingsKey::parse(key.toString());
        QCOMPARE(parsed.toString(), key.toString());
        QVERIFY(parsed.coveredBy(key));
        AnalysisSettingsKey without = key;
        without.alphaCiResamples.reset();
        QVERIFY(key.missingFrom(without)->alphaCi && !key.missingFrom(without)->delta);
        QVERIFY(without.coveredBy(key));
        AnalysisSettingsKey fewer = key;
        fewer.alphaCiResamples = 100;
        QVERIFY(key.missingFrom(fewer)->alphaCi); // other resamples: computed again
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestAlphaIntervalColumns)
} // namespace tst_alphaintervalcolumns

#include "tst_AlphaIntervalColumns.moc"
