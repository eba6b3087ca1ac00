// Team scheduling: which work items are this member's, and how a checkpoint's shares come together
// at the leader (each member's results, its issues said once, its work counted in the progress).
#include "analysis/planning/AnalysisTeam.h"
#include "analysis/planning/TeamSchedule.h"
#include "TestSuite.h"

#include <QHash>

namespace tst_teamschedule {

using namespace rankscope;

namespace {

// A team in one process: what a member sends is kept, what the leader receives is given.
class LocalTeam : public AnalysisTeam {
public:
    LocalTeam(int rank, int size) : m_rank(rank), m_size(size) {}
    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    void sendToLeader(const QByteArray &share) override { sent << share; }
    QByteArray receiveFrom(int member) override { return inbox.take(member); }
    void barrier() override { ++barriers; }

    QList<QByteArray> sent;
    QHash<int, QByteArray> inbox;
    int barriers = 0;

private:
    int m_rank, m_size;
};

MatrixResult resultNamed(const QString &tensor)
{
    MatrixResult r;
    r.tensor = tensor;
    r.checkpointPath = QStringLiteral("/run/ckpt_100.pt");
    r.rows = r.cols = 1;
    r.singularValues = Eigen::VectorXd::Ones(1);
    return r;
}

} // namespace

class TestTeamSchedule : public QObject {
    Q_OBJECT

private slots:
    void aloneEverythingIsOwn()
    {
        TeamSchedule alone;
        alone.start();
        QVERIFY(alone.alone() && alone.leads());
        QCOMPARE(alone.size(), 1);
        QCOMPARE(alone.ownItems({3, 1, 2}), (QList<bool>{true, true, true}));
        QList<MatrixResult> results{resultNamed("a")};
        RunAnalysis run;
        AnalysisProgress progress;
        AnalysisProgressModel model(SvdMethod::FastGram, 1);
        alone.gather(results, run, {0, 1, 2.0, {}}, progress, model);
        QCOMPARE(results.size(), 1);
        QCOMPARE(model.doneSeconds(), 0.0);
    }

    // Every member hands out the items alike, by cost with the load carried over the run; starting
    // again starts with no load, after every member has met.
    void itemsByCostOverTheRun()
    {
        LocalTeam team(1, 2);
        TeamSchedule schedule(&team);
        schedule.start();
        QCOMPARE(team.barriers, 1);
        QCOMPARE(schedule.size(), 2);
        QVERIFY(!schedule.leads());
        QCOMPARE(schedule.ownItems({5, 1, 1}), (QList<bool>{true, false, false}));
        QCOMPARE(schedule.ownItems({1}), QList<bool>{false});
        schedule.start();
        QCOMPARE(team.barriers, 2);
        QCOMPARE(schedule.ownItems({1}), QList<bool>{true});
    }

    void memberSendsItsShare()
    {
        LocalTeam team(1, 2);
        const TeamSchedule schedule(&team);
        RunAnalysis run;
        run.issues.append({QStringLiteral("/run/before.pt"), {}, QStringLiteral("earlier"), true});
        run.issues.append({QStringLiteral("/run/ckpt_100.pt"), QStringLiteral("t"), QStringLiteral("left out"), false});
        run.timings.readSeconds = 3;
        RunAnalysis::Timings before;
        before.readSeconds = 1;
        QList<MatrixResult> results{resultNamed("a"), resultNamed("b")};
        AnalysisProgress progress;
        AnalysisProgressModel model(SvdMethod::FastGram, 2);
        schedule.gather(results, run, {1, 2, 4.5, before}, progress, model);
        QCOMPARE(team.sent.size(), 1);
        const std::optional<CheckpointShare> share = CheckpointShare::fromBytes(team.sent[0]);
        QVERIFY(share);
        QCOMPARE(share->results.size(), 2);
        QCOMPARE(share->issues.size(), 1);
        QCOMPARE(share->issues[0].message, QStringLiteral("left out"));
        QCOMPARE(share->matricesDone, 2);
        QCOMPARE(share->costSeconds, 4.5);
        QCOMPARE(share->timings.readSeconds, 2.0);
        QCOMPARE(model.doneSeconds(), 0.0); // the leader counts it
    }

    void leaderGathersEveryShare()
    {
        LocalTeam team(0, 3);
        const TeamSchedule schedule(&team);
        CheckpointShare share;
        share.results << resultNamed("b");
        share.issues.append({QStringLiteral("/run/ckpt_100.pt"), QStringLiteral("t"), QStringLiteral("left out"), false});
        share.issues.append({QStringLiteral("/run/ckpt_100.pt"), QStringLiteral("u"), QStringLiteral("cannot be read"), false});
        share.matricesDone = 3;
        share.costSeconds = 1.5;
        share.timings.spectraSeconds = 7;
        team.inbox.insert(1, share.serialized());
        team.inbox.insert(2, QByteArray("not a share"));
        RunAnalysis run;
        run.issues.append({QStringLiteral("/run/ckpt_100.pt"), QStringLiteral("t"), QStringLiteral("left out"), false});
        QList<MatrixResult> results{resultNamed("a")};
        AnalysisProgress progress;
        progress.currentFile = QStringLiteral("/run/ckpt_100.pt");
        progress.matricesDone = 1;
        AnalysisProgressModel model(SvdMethod::FastGram, 2);
        model.start();
        schedule.gather(results, run, {0, 1, 0.5, {}}, progress, model);
        QVERIFY(team.sent.isEmpty());
        QCOMPARE(results.size(), 2);
        QCOMPARE(results[1].tensor, QStringLiteral("b"));
        QCOMPARE(progress.matricesDone, 4);
        QCOMPARE(model.doneSeconds(), 1.5);
        QCOMPARE(run.timings.spectraSeconds, 7.0);
        QCOMPARE(run.issues.size(), 3);
        QCOMPARE(run.issues[1].tensor, QStringLiteral("u"));
        QCOMPARE(run.issues[2].message, QStringLiteral("rank 2 sent results this build cannot read (is every rank running the same rankscope?)"));
        QCOMPARE(run.issues[2].path, progress.currentFile);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTeamSchedule)
} // namespace tst_teamschedule

#include "tst_TeamSchedule.moc"
