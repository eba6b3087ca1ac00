// The metrics table as CSV and JSON: the contract's columns in order, block and expert after them,
// control characters escaped, fields with commas or quotes quoted, NaN as "nan" in CSV and null in JSON.
#include "analysis/results/MetricsTable.h"
#include "analysis/results/RunAnalysis.h"
#include "base/PrintableText.h"
#include "spectral/MetricCatalog.h"
#include "TestSuite.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonObject>
#include <cmath>

namespace tst_metricstable {

using namespace rankscope;

class TestMetricsTable : public QObject {
    Q_OBJECT
private slots:
    void columnsFollowTheContract()
    {
        const QStringList columns = MetricsTable::columns();
        QCOMPARE(columns.mid(0, 15), (QStringList{"step", "layer", "type", "tensor", "rows", "cols", "stable_rank", "compression_pct", "alpha",
                                                  "weighted_alpha", "effective_rank", "spectral_norm", "frobenius_norm", "block", "expert"}));
        // The extras follow in the metric table's order, WeightWatcher's columns after the earlier
        // ones so a reader that counts positions keeps finding what it found before; then a head's
        // and an update's columns.
        const QStringList headAndUpdate{"head", "kv_head", "weights", "update_rank", "update_rank_used_pct"};
        QCOMPARE(columns.mid(15), spectralMetricColumns().mid(7) + headAndUpdate);
        QCOMPARE(columns.mid(15, 11), (QStringList{"energy_rank", "param_saving_pct", "numerical_rank", "alpha_xmin", "alpha_ks_distance",
                                                   "alpha_tail_size", "log_norm", "log_spectral_norm", "log_alpha_norm", "num_spikes",
                                                   "mp_softrank"}));
    }

    // Each column holds its own metric, checked against the formula from the spectrum, not against
    // the table that maps columns to metrics (a column wired to another metric fails here).
    void eachColumnHoldsItsOwnMetric()
    {
        MatrixResult r;
        r.rows = 4;
        r.cols = 6;
        r.singularValues = (Eigen::VectorXd(4) << 4, 2, 1, 0.5).finished();
        r.metrics = computeSpectralMetrics(r.singularValues, r.rows, r.cols, 0.9);
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QVERIFY(MetricsTable::writeCsv({r}, buffer));
        const QStringList lines = QString::fromUtf8(buffer.data()).split(QLatin1Char('\n'));
        const QStringList header = lines[0].split(QLatin1Char(',')), row = lines[1].split(QLatin1Char(','));
        auto column = [&](const char *name) { return row.value(header.indexOf(QLatin1String(name))).toDouble(); };
        // λ = 16, 4, 1, 0.25: Σλ = 21.25; 90% of it needs k = 2 (16 + 4 = 20 ≥ 19.125).
        QCOMPARE(column("stable_rank"), 21.25 / 16);
        QCOMPARE(column("spectral_norm"), 4.0);
        QVERIFY(std::abs(column("frobenius_norm") - std::sqrt(21.25)) < 1e-9);
        QCOMPARE(column("energy_rank"), 2.0);
        QVERIFY(std::abs(column("param_saving_pct") - 100.0 * (1 - 2.0 * (4 + 6) / (4 * 6))) < 1e-7);
        QCOMPARE(column("numerical_rank"), 4.0);
        QVERIFY(std::abs(column("log_norm") - std::log10(21.25)) < 1e-9);
        QVERIFY(std::abs(column("log_spectral_norm") - std::log10(16.0)) < 1e-9);
        QCOMPARE(row.value(header.indexOf(QLatin1String("rand_distance"))), QStringLiteral("nan")); // not asked for
    }

    void csvQuotesWhatNeedsIt()
    {
        MatrixResult r;
        r.tensor = QStringLiteral("a,b \"c\"\nd");
        r.block = QStringLiteral("decoder-cross");
        r.expert = QStringLiteral("3");
        r.singularValues = Eigen::VectorXd::Zero(2); // all metrics but the norms are NaN
        r.metrics = computeSpectralMetrics(r.singularValues, 2, 2);
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QVERIFY(MetricsTable::writeCsv({r}, buffer));
        const QString text = QString::fromUtf8(buffer.data());
        // A line break in a name is escaped, so it cannot split the row.
        QVERIFY2(text.contains("0,0,Q,\"a,b \"\"c\"\"\\nd\",0,0,nan,nan,nan,nan,nan,0,0,decoder-cross,3,"), qPrintable(text));
        QCOMPARE(text.count('\n'), 2);
        QCOMPARE(MetricsTable::csvField("plain"), QStringLiteral("plain"));
        QCOMPARE(MetricsTable::csvField("cr\r"), QStringLiteral("cr\\r"));
        QCOMPARE(MetricsTable::csvField("title\x1b]0;pwned\x07"), QStringLiteral("title\\x1b]0;pwned\\x07"));

        const QJsonObject o = MetricsTable::toJson({r}).array().first().toObject();
        QCOMPARE(o.value("tensor").toString(), r.tensor);
        QCOMPARE(o.value("expert").toString(), QStringLiteral("3"));
        QVERIFY(o.value("stable_rank").isNull());
        QCOMPARE(o.value("frobenius_norm").toDouble(), 0.0);
    }

    // One function escapes what files say before it is shown: an issue's file, tensor and message
    // alike, so a name cannot move the cursor, erase a line, set a title or reorder the text.
    void controlCharactersAreEscapedWherever()
    {
        QCOMPARE(printableText("plain ünïcode 名前"), QStringLiteral("plain ünïcode 名前"));
        QCOMPARE(printableText("a\nb\rc\td\x1b[2K\x07"), QStringLiteral("a\\nb\\rc\\td\\x1b[2K\\x07"));
        QCOMPARE(printableText(QString(QChar(0x9B)) + "31m"), QStringLiteral("\\x9b31m")); // C1 CSI
        QCOMPARE(printableText(QString(QChar(0x202E)) + "txt.exe"), QStringLiteral("\\u{202e}txt.exe")); // right-to-left override
        QCOMPARE(printableText(QString(QChar(0x2028))), QStringLiteral("\\u{2028}"));
        const AnalysisIssue issue{"/runs/ckpt\x1b]0;owned\x07.pt", "w\r", "unsafe pickle: it references os.system\x1b[1A", false};
        QCOMPARE(issue.text(), QStringLiteral("ckpt\\x1b]0;owned\\x07.pt: w\\r: unsafe pickle: it references os.system\\x1b[1A"));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMetricsTable)
} // namespace tst_metricstable

#include "tst_MetricsTable.moc"
