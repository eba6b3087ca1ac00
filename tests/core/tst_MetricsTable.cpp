// The metrics table as CSV and JSON: the contract's columns in order, block and expert after them,
// fields with commas, quotes or line breaks quoted, NaN as "nan" in CSV and null in JSON.
#include "analysis/MetricsTable.h"

#include <QBuffer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace rankscope;

class TestMetricsTable : public QObject {
    Q_OBJECT
private slots:
    void columnsFollowTheContract()
    {
        const QStringList columns = MetricsTable::columns();
        QCOMPARE(columns.mid(0, 15), (QStringList{"step", "layer", "type", "tensor", "rows", "cols", "stable_rank", "compression_pct", "alpha",
                                                  "weighted_alpha", "effective_rank", "spectral_norm", "frobenius_norm", "block", "expert"}));
        QCOMPARE(columns.size(), 21);
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
        QVERIFY2(text.contains("0,0,Q,\"a,b \"\"c\"\"\nd\",0,0,nan,nan,nan,nan,nan,0,0,decoder-cross,3,"), qPrintable(text));
        QCOMPARE(MetricsTable::csvField("plain"), QStringLiteral("plain"));
        QCOMPARE(MetricsTable::csvField("cr\r"), QStringLiteral("\"cr\r\""));

        const QJsonObject o = MetricsTable::toJson({r}).array().first().toObject();
        QCOMPARE(o.value("tensor").toString(), r.tensor);
        QCOMPARE(o.value("expert").toString(), QStringLiteral("3"));
        QVERIFY(o.value("stable_rank").isNull());
        QCOMPARE(o.value("frobenius_norm").toDouble(), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestMetricsTable)
#include "tst_MetricsTable.moc"
