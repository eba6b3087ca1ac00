// --subspace across checkpoints: which compare with their predecessor now, which are read again for
// vectors not kept, and the agreement set from the predecessor's vectors as the run goes.
#include "analysis/planning/SubspaceOverlapPlan.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_subspaceoverlapplan {

using namespace rankscope;

namespace {

CheckpointRecord identity(const QString &path)
{
    CheckpointRecord record;
    record.path = path;
    record.fingerprint = QStringLiteral("fp-") + path;
    return record;
}

MatrixResult withVectors(const QString &path, const Eigen::MatrixXf &vectors)
{
    MatrixResult r;
    r.checkpointPath = path;
    r.rows = r.cols = vectors.rows();
    r.topVectors = vectors;
    r.metrics.subspaceOverlap = r.metrics.topVectorCosine = 0.5; // what an earlier analysis said
    return r;
}

} // namespace

class TestSubspaceOverlapPlan : public QObject {
    Q_OBJECT

private slots:
    void disabledDoesNothing()
    {
        SubspaceOverlapPlan plan;
        QVERIFY(!plan.enabled());
        QVERIFY(!plan.compares(0) && !plan.recomputes(0));
        CheckpointRecord record = identity("a");
        QList<MatrixResult> results{withVectors("a", Eigen::MatrixXf::Identity(4, 2))};
        plan.apply(0, 2, record, results, nullptr, {});
        QCOMPARE(results[0].topVectors.cols(), 2);
        QCOMPARE(record.subspaceK, 0);
    }

    // Checkpoints analysed anew compare with the one before, from its vectors; only the newest
    // keeps its vectors in the results.
    void comparesWithThePrevious()
    {
        const QList<CheckpointRecord> ids{identity("a"), identity("b"), identity("c")};
        SubspaceOverlapPlan plan(2, ids, {nullptr, nullptr, nullptr}, {});
        Eigen::MatrixXf v = Eigen::MatrixXf::Identity(4, 2);
        Eigen::MatrixXf turned = Eigen::MatrixXf::Zero(4, 2);
        turned(0, 0) = 1;
        turned(2, 1) = 1;
        QList<QList<MatrixResult>> results{{withVectors("a", v)}, {withVectors("b", v)}, {withVectors("c", turned)}};
        QList<CheckpointRecord> records = ids;
        for (qsizetype i = 0; i < 3; ++i) {
            QVERIFY(plan.compares(i));
            plan.apply(i, 3, records[i], results[i], nullptr, {});
            QCOMPARE(records[i].subspaceK, 2);
        }
        QVERIFY(std::isnan(results[0][0].metrics.subspaceOverlap));
        QCOMPARE(records[0].subspacePrevious, QString());
        QCOMPARE(results[1][0].metrics.subspaceOverlap, 1.0);
        QCOMPARE(records[1].subspacePrevious, ids[0].subspaceKey());
        QCOMPARE(results[2][0].metrics.subspaceOverlap, 0.5);
        QCOMPARE(results[2][0].metrics.topVectorCosine, 1.0);
        QCOMPARE(results[0][0].topVectors.size(), 0);
        QCOMPARE(results[1][0].topVectors.size(), 0);
        QCOMPARE(results[2][0].topVectors.cols(), 2);
    }

    // Earlier results that compared with the same predecessor at this k serve; a checkpoint added
    // after them compares with the newest, whose vectors are kept, so nothing is read again.
    void earlierComparisonsServe()
    {
        const QList<CheckpointRecord> ids{identity("a"), identity("b"), identity("c")};
        CheckpointRecord a = ids[0], b = ids[1];
        a.subspaceK = b.subspaceK = 2;
        b.subspacePrevious = ids[0].subspaceKey();
        QHash<QString, QList<MatrixResult>> known;
        known["a"] = {withVectors("a", Eigen::MatrixXf())};
        known["b"] = {withVectors("b", Eigen::MatrixXf::Identity(4, 2))};
        const SubspaceOverlapPlan plan(2, ids, {&a, &b, nullptr}, known);
        QVERIFY(!plan.compares(0) && !plan.compares(1) && plan.compares(2));
        QVERIFY(!plan.recomputes(0) && !plan.recomputes(1));
        // At another k nothing serves: every checkpoint compares, and is read for its vectors.
        const SubspaceOverlapPlan other(4, ids, {&a, &b, nullptr}, known);
        QVERIFY(other.compares(0) && other.compares(1) && other.recomputes(0) && other.recomputes(1));
    }

    // A checkpoint whose successor is new and whose vectors were not kept is read again for them.
    void predecessorWithoutVectorsIsReadAgain()
    {
        const QList<CheckpointRecord> ids{identity("a"), identity("b")};
        CheckpointRecord a = ids[0];
        a.subspaceK = 2;
        QHash<QString, QList<MatrixResult>> known;
        known["a"] = {withVectors("a", Eigen::MatrixXf())};
        SubspaceOverlapPlan plan(2, ids, {&a, nullptr}, known);
        QVERIFY(!plan.compares(0) && plan.recomputes(0));
        // Read again only for its vectors, it keeps the agreement it had.
        CheckpointRecord record = ids[0];
        QList<MatrixResult> results{withVectors("a", Eigen::MatrixXf::Identity(4, 2))};
        results[0].metrics.subspaceOverlap = 0.1;
        plan.apply(0, 2, record, results, &a, known["a"]);
        QCOMPARE(results[0].metrics.subspaceOverlap, 0.5);
        QCOMPARE(record.subspaceK, 2);
        QCOMPARE(results[0].topVectors.size(), 0);
    }

    void unaskedKeepsWhatWasRecorded()
    {
        CheckpointRecord cached = identity("a"), record = identity("a");
        cached.subspaceK = 8;
        cached.subspacePrevious = QStringLiteral("before");
        SubspaceOverlapPlan::keepUnasked(record, &cached);
        QCOMPARE(record.subspaceK, 8);
        QCOMPARE(record.subspacePrevious, QStringLiteral("before"));
        CheckpointRecord fresh = identity("b");
        SubspaceOverlapPlan::keepUnasked(fresh, nullptr);
        QCOMPARE(fresh.subspaceK, 0);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestSubspaceOverlapPlan)
} // namespace tst_subspaceoverlapplan

#include "tst_SubspaceOverlapPlan.moc"
