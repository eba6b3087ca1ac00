// How an MPI team shares a checkpoint's matrices (by cost) and what a rank sends the leader.
#include "analysis/planning/AnalysisTeam.h"
#include "TestSuite.h"

#include <cmath>
#include <limits>

namespace tst_analysisteam {

using namespace rankscope;

class TestAnalysisTeam : public QObject {
    Q_OBJECT

private slots:
    void balancesByCostNotCount()
    {
        // One matrix as costly as the ten others together: it gets a member of its own (the
        // highest: the leader also gathers and saves).
        QList<double> costs(11, 1.0);
        costs[4] = 10;
        QList<double> load(2, 0.0);
        const QList<int> owners = AnalysisTeam::assignByCost(costs, load);
        QCOMPARE(owners.size(), 11);
        for (int i = 0; i < 11; ++i)
            QCOMPARE(owners[i], i == 4 ? 1 : 0);
        QCOMPARE(load, (QList<double>{10, 10}));
    }

    void everyMemberDecidesAlike()
    {
        const QList<double> costs{3, 7, 7, 2, 5, 5, 1, 9};
        QList<double> load(3, 0.0), again(3, 0.0);
        const QList<int> owners = AnalysisTeam::assignByCost(costs, load);
        QCOMPARE(AnalysisTeam::assignByCost(costs, again), owners);
        // Longest first, each to the least loaded: 7 5 | 7 5 1 | 9 3 2 — within one small item of even.
        QCOMPARE(owners, (QList<int>{2, 1, 0, 2, 1, 0, 1, 2}));
        QCOMPARE(load, (QList<double>{12, 13, 14}));
    }

    // The work carries over: checkpoint after checkpoint, the run is balanced, not each checkpoint.
    void balancedOverTheRun()
    {
        QList<double> load(2, 0.0);
        QCOMPARE(AnalysisTeam::assignByCost({5}, load), QList<int>{1});
        QCOMPARE(AnalysisTeam::assignByCost({5}, load), QList<int>{0});
        QCOMPARE(AnalysisTeam::assignByCost({2, 1}, load), (QList<int>{1, 0}));
        QCOMPARE(load, (QList<double>{6, 7}));
    }

    void moreMembersThanItems()
    {
        QList<double> load(6, 0.0);
        QCOMPARE(AnalysisTeam::assignByCost({1, 4, 2}, load), (QList<int>{3, 5, 4}));
        QCOMPARE(AnalysisTeam::assignByCost({}, load), QList<int>{});
    }

    void shareRoundTrip()
    {
        CheckpointShare share;
        MatrixResult r;
        r.step = 1200;
        r.block = QStringLiteral("vision");
        r.layer = 7;
        r.type = MatrixType::MlpGate;
        r.expert = QStringLiteral("3");
        r.tensor = QStringLiteral("model.layers.7.mlp.experts.3.gate_proj.weight");
        r.checkpointPath = QStringLiteral("/runs/a/step1200.safetensors");
        r.dtype = QStringLiteral("bfloat16");
        r.rows = 11008;
        r.cols = 4096;
        r.singularValues = Eigen::VectorXd::LinSpaced(5, 9.0, 1.0);
        r.metrics = computeSpectralMetrics(r.singularValues, 5, 5);
        r.metrics.randDistance = std::numeric_limits<double>::quiet_NaN();
        r.deltaSingularValues = Eigen::Vector3d(0.5, 0.25, 0.125);
        setDeltaMetrics(r.metrics, r.deltaSingularValues, 2.0);
        r.topVectors = Eigen::MatrixXf::Random(7, 3);
        share.results << r;
        share.issues << AnalysisIssue{QStringLiteral("/runs/a/step1200.safetensors"), QStringLiteral("lm_head.weight"), QStringLiteral("is empty"), false};
        share.matricesDone = 2;
        share.costSeconds = 1.5;
        share.timings = {0.25, 3.0, 0.5};

        const std::optional<CheckpointShare> back = CheckpointShare::fromBytes(share.serialized());
        QVERIFY(back);
        QCOMPARE(back->matricesDone, 2);
        QCOMPARE(back->costSeconds, 1.5);
        QCOMPARE(back->timings.spectraSeconds, 3.0);
        QCOMPARE(back->issues.size(), 1);
        QCOMPARE(back->issues[0].text(), share.issues[0].text());
        QCOMPARE(back->results.size(), 1);
        const MatrixResult &b = back->results[0];
        QCOMPARE(b.step, r.step);
        QVERIFY(b.identity() == r.identity());
        QCOMPARE(b.tensor, r.tensor);
        QCOMPARE(b.checkpointPath, r.checkpointPath);
        QCOMPARE(b.dtype, r.dtype);
        QCOMPARE(b.rows, r.rows);
        QCOMPARE(b.cols, r.cols);
        QVERIFY(b.singularValues == r.singularValues);
        QVERIFY(b.deltaSingularValues == r.deltaSingularValues);
        QCOMPARE(b.topVectors.rows(), 7);
        QVERIFY(b.topVectors == r.topVectors);
        QCOMPARE(b.metrics.deltaStableRank, r.metrics.deltaStableRank);
        QCOMPARE(b.metrics.alpha, r.metrics.alpha);
        QCOMPARE(b.metrics.mpSoftrank, r.metrics.mpSoftrank);
        QVERIFY(std::isnan(b.metrics.randDistance));
    }

    // Bytes that are not a whole share are refused, and never allocate what they do not hold.
    void damagedSharesAreRefused()
    {
        CheckpointShare share;
        MatrixResult r;
        r.singularValues = Eigen::VectorXd::Ones(100);
        share.results << r;
        const QByteArray bytes = share.serialized();
        QVERIFY(CheckpointShare::fromBytes(bytes));
        for (const qsizetype cut : {qsizetype(0), qsizetype(3), bytes.size() / 2, bytes.size() - 1})
            QVERIFY2(!CheckpointShare::fromBytes(bytes.left(cut)), qPrintable(QString::number(cut)));
        QVERIFY(!CheckpointShare::fromBytes(bytes + "x"));
        QVERIFY(!CheckpointShare::fromBytes(QByteArray(200, '\xff')));
        // A value count far beyond the bytes: the count is the 8 bytes just before the values (the
        // change's count, 0 here, the top vectors' rows and columns, 0 and 0, and the metrics
        // follow them).
        // After the metrics: the head, its key/value head and its R's rows and columns (--heads, 24 bytes).
        const qsizetype metricsAt = bytes.size() - 24 - qsizetype(sizeof(SpectralMetrics));
        QByteArray huge = bytes;
        huge[metricsAt - 16 - 8 - 100 * 8 - 8] = '\x7f';
        QVERIFY(!CheckpointShare::fromBytes(huge));
        QByteArray hugeChange = bytes;
        hugeChange[metricsAt - 16 - 8] = '\x7f';
        QVERIFY(!CheckpointShare::fromBytes(hugeChange));
        QByteArray hugeVectors = bytes; // 2⁶²-odd rows of one column
        hugeVectors[metricsAt - 16] = '\x3f';
        hugeVectors[metricsAt - 1] = '\x01';
        QVERIFY(!CheckpointShare::fromBytes(hugeVectors));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestAnalysisTeam)
} // namespace tst_analysisteam

#include "tst_AnalysisTeam.moc"
