// A scalar training logged, as the curves under the lines draw it: TensorBoard's smoothing
// (webapp/widgets/line_chart_v2/data_transformer.ts classicSmoothing) worked by hand, and the
// checkpoints marked on the smoothed curve at the last point logged at or before each.
#include "KnownMatrices.h"
#include "figures/CurveFigure.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_curvefigure {

using namespace rankscope;
using namespace rankscope::test;

namespace {

void show(ViewState &state, QList<qint64> steps)
{
    RunAnalysis run;
    for (qint64 step : steps)
        run.results << knownMatrix(step, 0, MatrixType::Q, {2, 1});
    sortResults(run.results);
    state.setRun(run, QStringLiteral("known"));
}

} // namespace

class TestCurveFigure : public QObject {
    Q_OBJECT

private slots:
    void smoothingAsTensorBoardDoesIt()
    {
        // w = 0.6: last = 0.4, 1.04, 1.824 over 1 − 0.6ⁿ = 0.4, 0.64, 0.784.
        const QList<double> s = debiasedSmoothing({1, 2, 3}, 0.6);
        QCOMPARE(s.size(), 3);
        QVERIFY(std::abs(s[0] - 1.0) < 1e-12);
        QVERIFY(std::abs(s[1] - 1.625) < 1e-12);
        QVERIFY(std::abs(s[2] - 1.824 / 0.784) < 1e-12);
        // A NaN passes through and does not count: the next point is the second one averaged.
        const QList<double> gap = debiasedSmoothing({1, std::nan(""), 2}, 0.6);
        QVERIFY(std::isnan(gap[1]));
        QVERIFY(std::abs(gap[2] - 1.625) < 1e-12);
        QCOMPARE(debiasedSmoothing({3, 3, 3}, 0.9), (QList<double>{3, 3, 3})); // a constant stays as it is
        QCOMPARE(debiasedSmoothing({1, 5, 2}, 0), (QList<double>{1, 5, 2}));
    }

    void checkpointsMarkedOnTheSmoothedCurve()
    {
        ViewState state;
        show(state, {0, 100, 250});
        ScalarLog log;
        log.add("loss", "trainer_state.json", {{0, 4}, {50, 3}, {100, 2}, {200, 1.5}});
        state.setScalarLog(log);
        const CurveFigure f = CurveFigureBuilder(state, "loss", 0.5, false).build();
        QVERIFY(f.noData.isEmpty());
        QCOMPARE(f.series.size(), 1);
        QVERIFY(!f.compared);
        const CurveSeries &c = f.series.first();
        QCOMPARE(c.steps, (QList<qint64>{0, 50, 100, 200}));
        QCOMPARE(c.raw, (QList<double>{4, 3, 2, 1.5}));
        QCOMPARE(c.markX, (QList<double>{0, 100, 250}));
        // Step 250 has no point of its own: the smoothed value at 200, the last before it.
        QCOMPARE(c.markY, (QList<double>{c.smoothed[0], c.smoothed[2], c.smoothed[3]}));
        QCOMPARE(f.yLabel, QStringLiteral("loss"));
        // The crosshair's readout: the nearest logged point, as logged and smoothed.
        const auto readout = f.readoutAt(140);
        QVERIFY(readout);
        QCOMPARE(readout->step, 100);
        QCOMPARE(readout->x, 100.0);
        QCOMPARE(readout->text(), QStringLiteral("step 100\nloss  2.000 (smoothed %1)").arg(valueNumber(c.smoothed[2])));
        QCOMPARE(f.readoutAt(180)->step, 200);
        QVERIFY(!CurveFigure().readoutAt(0));
        QVERIFY(f.csv().startsWith(QStringLiteral("step,tag,value,smoothed\n0,loss,4,4\n50,loss,3,")));
        // Steps as fractions of the run, as the lines have them.
        state.setRelativeStep(true);
        QCOMPARE(CurveFigureBuilder(state, "loss", 0.5, false).build().series.first().x, (QList<double>{0, 0.2, 0.4, 0.8}));
        // On a log axis a value at or below zero is a gap, and the range is of the rest.
        log.add("lr", "trainer_state.json", {{0, 0}, {100, 1e-3}, {200, 1e-4}});
        state.setScalarLog(log);
        const CurveFigure lr = CurveFigureBuilder(state, "lr", 0, true).build();
        QVERIFY(std::isnan(lr.series.first().raw[0]));
        QVERIFY(lr.yRange && lr.yRange->lower > 0);
    }

    // Runs compared: each run's own logs, its curve on its own steps with its own checkpoints, in
    // the order its lines have (its dash pattern); one value range over all; the readout gives
    // each run's point nearest the step; a run hidden or without the tag draws nothing.
    void comparedRunsEachDrawTheirOwn()
    {
        ViewState state;
        show(state, {0, 100, 200});
        RunAnalysis other;
        for (qint64 step : {0, 150})
            other.results << knownMatrix(step, 0, MatrixType::Q, {3, 1});
        sortResults(other.results);
        state.addComparedRun(other, QStringLiteral("run-b"));
        ScalarLog a, b;
        a.add("loss", "a/trainer_state.json", {{0, 4}, {100, 3}, {200, 2}});
        b.add("loss", "b/trainer_state.json", {{0, 5}, {60, 4.5}, {150, 1}});
        state.setScalarLog(a);
        state.setScalarLogAt(1, b);
        const CurveFigure f = CurveFigureBuilder(state, "loss", 0, false).build();
        QVERIFY(f.compared);
        QCOMPARE(f.series.size(), 2);
        QCOMPARE(f.series[0].runName, QStringLiteral("known"));
        QCOMPARE(f.series[1].run, 1);
        QCOMPARE(f.series[1].runOrder, 1);
        QCOMPARE(f.series[1].steps, (QList<qint64>{0, 60, 150}));
        QCOMPARE(f.series[1].markX, (QList<double>{0, 150})); // run-b's own checkpoints
        QCOMPARE(f.series[1].markY, (QList<double>{5, 1}));
        QVERIFY(f.yRange && f.yRange->lower < 1 && f.yRange->upper > 5);
        const auto readout = f.readoutAt(70);
        QVERIFY(readout);
        QCOMPARE(readout->step, 60);
        QCOMPARE(readout->text(), QStringLiteral("step 60\nloss \u00b7 known  3.000 (smoothed 3.000) at step 100\nloss \u00b7 run-b  4.500 (smoothed 4.500)"));
        QVERIFY(f.csv().startsWith(QStringLiteral("step,tag,value,smoothed,run\n0,loss,4,4,known\n")));
        QVERIFY(f.csv().contains(QStringLiteral("\n150,loss,1,1,run-b\n")));
        state.setRunVisible(1, false);
        QCOMPARE(CurveFigureBuilder(state, "loss", 0, false).build().series.size(), 1);
        state.setRunVisible(1, true);
        state.setScalarLog(ScalarLog());
        const CurveFigure onlyB = CurveFigureBuilder(state, "loss", 0, false).build();
        QCOMPARE(onlyB.series.size(), 1);
        QCOMPARE(onlyB.series.first().runName, QStringLiteral("run-b"));
        state.removeComparedRun(1);
        QVERIFY(CurveFigureBuilder(state, "loss", 0, false).build().noData.startsWith("No scalars logged"));
    }

    void saysWhyNothingIsDrawn()
    {
        ViewState state;
        show(state, {0, 100});
        QVERIFY(CurveFigureBuilder(state, "loss", 0.6, false).build().noData.startsWith("No scalars logged"));
        ScalarLog log;
        log.add("eval_loss", "x", {{100, 1}});
        state.setScalarLog(log);
        QCOMPARE(CurveFigureBuilder(state, "loss", 0.6, false).build().noData, QStringLiteral("No scalar loss in the run's logs"));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestCurveFigure)
} // namespace tst_curvefigure

#include "tst_CurveFigure.moc"
