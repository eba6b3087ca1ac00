// The progress and ETA of an analysis, from the cost model of the shapes and the pace measured.
#include "analysis/planning/AnalysisProgressModel.h"
#include "TestSuite.h"

namespace tst_analysisprogressmodel {

using namespace rankscope;

class TestAnalysisProgressModel : public QObject {
    Q_OBJECT

private slots:
    // Before anything is done, the model's own estimate on these workers, counting down.
    void etaFromTheModelBeforeAnyWorkIsDone()
    {
        AnalysisProgressModel model(SvdMethod::FastGram, 2);
        model.start();
        AnalysisProgress progress;
        progress.checkpointsTotal = 1;
        const QList<MatrixShape> shapes{{512, 512}, {512, 512}};
        model.openCheckpoint(progress, shapes);
        QCOMPARE(progress.matricesTotal, 2);
        const double planned = 2 * model.costModel().matrixSeconds({512, 512});
        const double wall = model.costModel().wallSeconds(shapes, 2);
        model.updateEta(progress, 0, 0);
        QVERIFY(progress.etaSeconds > 0);
        QCOMPARE(progress.etaSeconds, planned / (planned / wall));
        model.updateEta(progress, 0, wall / 4);
        QCOMPARE(progress.etaSeconds, wall - wall / 4);
        model.updateEta(progress, 0, 10 * wall);
        QCOMPARE(progress.etaSeconds, 0.0);
    }

    // Once work is done: what is left at the pace measured.
    void etaFromThePaceMeasured()
    {
        AnalysisProgressModel model(SvdMethod::FastGram, 1);
        model.start();
        AnalysisProgress progress;
        progress.checkpointsTotal = 1;
        model.openCheckpoint(progress, {{1024, 256}});
        const double planned = model.costModel().matrixSeconds({1024, 256});
        model.updateEta(progress, planned / 4, 3);
        QCOMPARE(progress.elapsedSeconds, 3.0);
        QCOMPARE(progress.etaSeconds, 9.0);
    }

    void unknownWithNothingPlanned()
    {
        AnalysisProgressModel model(SvdMethod::FastGram, 4);
        model.start();
        AnalysisProgress progress;
        model.updateEta(progress, 0, 1);
        QCOMPARE(progress.etaSeconds, -1.0);
    }

    // After a checkpoint, the ones not yet opened are assumed like the average one computed:
    // matrices like all seen, seconds like those computed (not those taken from earlier results).
    void finishedCheckpointsPlanTheRest()
    {
        AnalysisProgressModel model(SvdMethod::FastGram, 1);
        model.start();
        AnalysisProgress progress;
        progress.checkpointsTotal = 4;
        model.openCheckpoint(progress, {{256, 256}, {256, 256}});
        const double cost = 2 * model.costModel().matrixSeconds({256, 256});
        model.addDone(cost);
        progress.matricesDone = 2;
        model.finishCheckpoint(progress, true);
        QCOMPARE(progress.checkpointsDone, 1);
        QCOMPARE(progress.matricesTotal, 2 + 3 * 2);
        QCOMPARE(model.doneSeconds(), cost);
        model.updateEta(progress, model.doneSeconds(), 5);
        QCOMPARE(progress.etaSeconds, 3 * 5.0);
        // A checkpoint from earlier results adds matrices, not seconds, and is no computed one.
        progress.matricesDone += 2;
        model.finishCheckpoint(progress, false);
        QCOMPARE(progress.matricesTotal, 4 + 2 * 2);
        model.updateEta(progress, model.doneSeconds(), 5);
        QCOMPARE(progress.etaSeconds, 2 * 5.0);
    }

    // Opening a checkpoint never lowers what is planned.
    void openingNeverLowersThePlan()
    {
        AnalysisProgressModel model(SvdMethod::FastGram, 1);
        model.start();
        AnalysisProgress progress;
        progress.checkpointsTotal = 3;
        progress.matricesTotal = 10;
        model.openCheckpoint(progress, {{64, 64}});
        QCOMPARE(progress.matricesTotal, 10);
        progress.matricesDone = 10;
        progress.checkpointsDone = 2;
        model.openCheckpoint(progress, {{64, 64}, {64, 64}});
        QCOMPARE(progress.matricesTotal, 12);
    }

    // Issue #29: the first checkpoint is not the whole run. From the first checkpoint opened on,
    // the checkpoints not yet opened count as the average one so far, so the share done never
    // falls back when a checkpoint ends ("0/4 checkpoints" at two thirds, then a third), and the
    // ETA covers the whole run instead of growing fourfold after the first checkpoint.
    void progressNeverGoesBack()
    {
        AnalysisProgressModel model(SvdMethod::FastGram, 1);
        model.start();
        AnalysisProgress progress;
        progress.checkpointsTotal = 4;
        const QList<MatrixShape> shapes{{128, 128}, {128, 512}, {512, 128}};
        double share = 0, elapsed = 0, eta = -1;
        for (int checkpoint = 0; checkpoint < 4; ++checkpoint) {
            model.openCheckpoint(progress, shapes);
            QCOMPARE(progress.matricesTotal, 12);
            double doneHere = 0;
            for (const MatrixShape &shape : shapes) {
                ++progress.matricesDone;
                doneHere += model.costModel().matrixSeconds(shape);
                elapsed += 2 * model.costModel().matrixSeconds(shape); // a steady pace
                model.updateEta(progress, model.doneSeconds() + doneHere, elapsed);
                const double now = double(progress.matricesDone) / progress.matricesTotal;
                QVERIFY2(now >= share, qPrintable(QStringLiteral("%1 after %2").arg(now).arg(share)));
                share = now;
                // At a steady pace, what is left only shrinks.
                if (eta >= 0)
                    QVERIFY2(progress.etaSeconds <= eta + 1e-9, qPrintable(QStringLiteral("ETA %1 after %2").arg(progress.etaSeconds).arg(eta)));
                eta = progress.etaSeconds;
            }
            model.addDone(doneHere);
            model.finishCheckpoint(progress, true);
            QCOMPARE(progress.matricesTotal, 12);
            QCOMPARE(double(progress.matricesDone) / progress.matricesTotal, share);
        }
        QCOMPARE(share, 1.0);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestAnalysisProgressModel)
} // namespace tst_analysisprogressmodel

#include "tst_AnalysisProgressModel.moc"
