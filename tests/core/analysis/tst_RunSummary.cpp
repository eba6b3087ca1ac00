// One run's summary, shared by the command line and the window: its counts, its words, why a run
// shows nothing, and the exit status of a clean run, a run with skipped files or tensors, and a
// run that gave nothing (or whose output failed).
#include "analysis/results/RunSummary.h"
#include "TestSuite.h"

namespace tst_runsummary {

using namespace rankscope;

namespace {

// Two checkpoints found and analysed, one of them from the results file, with `matrices` results.
RunAnalysis analysedRun(int matrices)
{
    RunAnalysis run;
    run.checkpointsFound = 2;
    run.checkpointsAnalysed = 2;
    CheckpointRecord fresh, cached;
    fresh.path = QStringLiteral("/run/model_100.safetensors");
    cached.path = QStringLiteral("/run/model_200.safetensors");
    cached.fromCache = true;
    run.checkpoints = {fresh, cached};
    run.results.resize(matrices);
    return run;
}

} // namespace

class TestRunSummary : public QObject {
    Q_OBJECT
private slots:
    void countsWhatWasAnalysedAndSkipped()
    {
        RunAnalysis run = analysedRun(8);
        run.checkpointsFound = 3;
        run.issues = {{QStringLiteral("/run/broken.pt"), {}, QStringLiteral("not a zip archive"), true}};
        run.sidecars = {{QStringLiteral("/run/notes.txt"), QStringLiteral("not a checkpoint")},
                        {QStringLiteral("/run/model_200b.safetensors"), QStringLiteral("step 200 is kept by another"), true}};
        run.notes = {QStringLiteral("cache rebuilt")};
        run.pending = {QStringLiteral("/run/model_300.safetensors")};
        const RunSummary summary(run);
        QCOMPARE(summary.checkpointsFound(), 3);
        QCOMPARE(summary.checkpointsAnalysed(), 2);
        QCOMPARE(summary.checkpointsFromResultsFile(), 1);
        QCOMPARE(summary.matrices(), qsizetype(8));
        QCOMPARE(summary.notAnalysed(), qsizetype(1));
        QCOMPARE(summary.skippedOrNoted(), qsizetype(4));
        QCOMPARE(summary.stillBeingWritten(), qsizetype(1));
        QVERIFY(!summary.cancelled());
        QVERIFY(!summary.foundNothing());
        QCOMPARE(summary.empty(), RunSummary::Empty::No);
    }

    // The words the command line prints after every pass (and the window shows after the run's name).
    void wordsTheCountsAndWhatWasLeftOut()
    {
        RunAnalysis run = analysedRun(144);
        QCOMPARE(RunSummary(run).countsText(), QStringLiteral("2 of 2 checkpoints analysed (1 from the results file), 144 matrices"));
        run.sidecars = {{QStringLiteral("/run/notes.txt"), QStringLiteral("not a checkpoint")}};
        run.notes = {QStringLiteral("a note"), QStringLiteral("another")};
        QCOMPARE(RunSummary(run).skippedText(), QStringLiteral("3 skipped or noted"));
        run.issues = {{QStringLiteral("/run/a.pt"), {}, QStringLiteral("truncated"), true},
                      {QStringLiteral("/run/b.pt"), QStringLiteral("w"), QStringLiteral("is empty"), false}};
        QCOMPARE(RunSummary(run).skippedText(), QStringLiteral("⚠ 2 not analysed"));
    }

    void exitStatusOfCleanSkippedAndFailedRuns()
    {
        RunAnalysis run = analysedRun(4);
        QCOMPARE(RunSummary(run).exitStatus(), ExitStatus::Clean);
        // Sidecars and notes are no problem of the run's: still clean.
        run.sidecars = {{QStringLiteral("/run/notes.txt"), QStringLiteral("not a checkpoint")}};
        run.notes = {QStringLiteral("a note")};
        QCOMPARE(RunSummary(run).exitStatus(), ExitStatus::Clean);
        // An output that was not written whole fails the run, whatever it analysed.
        QCOMPARE(RunSummary(run).exitStatus(false), ExitStatus::Failed);
        run.issues = {{QStringLiteral("/run/broken.pt"), {}, QStringLiteral("not a zip archive"), true}};
        QCOMPARE(RunSummary(run).exitStatus(), ExitStatus::Skipped);
        run.results.clear();
        QCOMPARE(RunSummary(run).exitStatus(), ExitStatus::Failed);
        QCOMPARE(int(ExitStatus::Clean), 0);
        QCOMPARE(int(ExitStatus::Failed), 1);
        QCOMPARE(int(ExitStatus::Skipped), 2);
    }

    void whyARunShowsNothing()
    {
        RunAnalysis run;
        QVERIFY(RunSummary(run).foundNothing());
        QCOMPARE(RunSummary(run).empty(), RunSummary::Empty::NoCheckpoints);
        run.runs = {QStringLiteral("/runs/seed0")};
        QCOMPARE(RunSummary(run).empty(), RunSummary::Empty::OnlyRuns);
        run.issues = {{QStringLiteral("/runs/fifo.pt"), {}, QStringLiteral("not a regular file"), true}};
        QCOMPARE(RunSummary(run).empty(), RunSummary::Empty::NothingReadable);
        QVERIFY(RunSummary(run).foundNothing()); // the command line's "no checkpoints found" still
        run.pending = {QStringLiteral("/runs/model_1.pt")};
        QCOMPARE(RunSummary(run).empty(), RunSummary::Empty::StillBeingWritten);
        QVERIFY(!RunSummary(run).foundNothing());

        RunAnalysis read = analysedRun(0);
        QCOMPARE(RunSummary(read).empty(), RunSummary::Empty::NoMatrices);
        read.cancelled = true;
        QCOMPARE(RunSummary(read).empty(), RunSummary::Empty::Cancelled);
    }

    void runsCombineIntoOneStatus()
    {
        QCOMPARE(combinedExitStatus({ExitStatus::Clean, ExitStatus::Clean}), ExitStatus::Clean);
        QCOMPARE(combinedExitStatus({ExitStatus::Failed, ExitStatus::Failed}), ExitStatus::Failed);
        QCOMPARE(combinedExitStatus({ExitStatus::Clean, ExitStatus::Failed}), ExitStatus::Skipped);
        QCOMPARE(combinedExitStatus({ExitStatus::Clean, ExitStatus::Skipped}), ExitStatus::Skipped);
    }
};

RANKSCOPE_TEST_APPLESS_MAIN(TestRunSummary)
} // namespace tst_runsummary

#include "tst_RunSummary.moc"
