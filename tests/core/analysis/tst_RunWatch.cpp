// The watch loop shared by `analyze --watch` and the window: one pass at a time, a change during a
// pass is one more pass when it ends, and checkpoints still being written are looked at again.
#include "analysis/discovery/RunWatch.h"
#include "TestSuite.h"

#include <QFile>
#include <QTemporaryDir>

namespace tst_runwatch {

using namespace rankscope;

namespace {

void touch(const QTemporaryDir &dir, const QString &name)
{
    QFile file(dir.filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("x");
}

} // namespace

class TestRunWatch : public QObject {
    Q_OBJECT

private slots:
    void aChangeDuringAPassIsOneMorePass()
    {
        QTemporaryDir dir;
        int passes = 0;
        RunWatch watch(dir.path(), 1, [&] { ++passes; }); // a pass that is still running
        watch.setDebounce(0.05);
        watch.passFinished({});
        touch(dir, "ckpt_000100.pt");
        QTRY_COMPARE_WITH_TIMEOUT(passes, 1, 15000);
        // Two more changes while that pass runs: no pass starts now, one starts when it ends.
        touch(dir, "ckpt_000200.pt");
        QTest::qWait(300);
        touch(dir, "ckpt_000300.pt");
        QTest::qWait(300);
        QCOMPARE(passes, 1);
        watch.passFinished({});
        QCOMPARE(passes, 2);
        watch.passFinished({});
        QTest::qWait(300);
        QCOMPARE(passes, 2); // nothing changed since
    }

    void pendingCheckpointsAreLookedAtAgain()
    {
        QTemporaryDir dir;
        int passes = 0;
        RunWatch watch(dir.path(), 0.2, [&] { ++passes; });
        RunAnalysis run;
        run.pending << dir.filePath("ckpt_000100.pt");
        watch.passFinished(run); // nothing changes on disk, yet the pending checkpoint is looked at
        QTRY_COMPARE_WITH_TIMEOUT(passes, 1, 5000);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestRunWatch)
} // namespace tst_runwatch

#include "tst_RunWatch.moc"
