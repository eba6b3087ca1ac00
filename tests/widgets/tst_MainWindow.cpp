// The window as a user meets it: it opens the demo run in the background, fills every view,
// and its step controls, drop target and settings work.
#include "analysis/results/ResultsFile.h"
#include "ChartView.h"
#include "DemoFixture.h"
#include "figures/ViewState.h"
#include "LayerBarChart.h"
#include "MainWindow.h"
#include "MetricLineChart.h"
#include "RankPlanPanel.h"
#include "SpectrumView.h"
#include "TensorBoardEventWriter.h"
#include "TinyLoraRun.h"
#include "TestSuite.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSettings>
#include <QSignalSpy>
#include <QAction>
#include <QCheckBox>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>

namespace tst_mainwindow {

using namespace rankscope;

namespace {

// Naming rules that ignore the O projections (attn.c_proj): 120 of the demo run's 144 matrices.
void writeRulesIgnoringO(const QString &path)
{
    QFile rules(path);
    QVERIFY(rules.open(QIODevice::WriteOnly));
    rules.write("{\"rules\": [{\"pattern\": \"attn\\\\.c_proj\", \"ignore\": true}]}");
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // settings and cache in a test location
        QCoreApplication::setOrganizationName("RankScopeTest");
        QCoreApplication::setApplicationName("RankScopeTest");
        QSettings().clear();
    }

    void opensTheDemoRunAndFillsEveryView()
    {
        MainWindow window;
        window.show();
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.state()->results().size(), 144);
        QVERIFY(window.windowTitle().startsWith("nanogpt-d4"));
        // A tab per figure of the catalog that has one, the rank plan's among them.
        const auto tabbed = std::count_if(allFigures().begin(), allFigures().end(), [](FigureKind f) { return f.info().tabTitle != nullptr; });
        QCOMPARE(window.tabs()->count(), tabbed);
        const int plan = window.tabs()->indexOf(window.figure(FigureKind::RankPlan));
        QVERIFY(plan >= 0);
        QCOMPARE(window.viewsOfTab(plan).size(), 2); // its heatmap and its curve: their data, and File ▸ Export figure
        {
            QTemporaryDir out;
            QString error;
            QVERIFY2(window.exportFigure(plan, out.filePath("plan.png"), FigureSize::fromPixels(1200, 600), &error), qPrintable(error));
            QVERIFY(QImage(out.filePath("plan.png")).width() > 0);
        }
        QCOMPARE(window.lineChart()->visibleLines().size(), 6);
        QCOMPARE(window.barChart()->group()->size(), 6);
        QCOMPARE(window.stepSlider()->maximum(), 5);
        QCOMPARE(window.stepSlider()->value(), 5);
        window.stepSlider()->setValue(2);
        QCOMPARE(window.state()->currentStep(), 300);
        QVERIFY(window.barChart()->title().contains("step 300"));

        // A click request switches to the spectrum tab.
        window.state()->requestSpectrum({0, 300, {{}, 1, MatrixType::K, {}}});
        QCOMPARE(window.tabs()->currentWidget(), window.figure(FigureKind::Spectrum));
    }

    // Nothing to draw is said in words where the figures would be, not as empty 0–5 axes; the
    // figures come back with the first results.
    void emptyFolderAndMissingPathAreSaidInThePlotArea()
    {
        QTemporaryDir empty;
        MainWindow window;
        window.show();
        window.openPath(empty.filePath("no-such-run"));
        QVERIFY2(window.centralMessage().contains("no-such-run does not exist"), qPrintable(window.centralMessage()));

        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(empty.path());
        QVERIFY(finished.wait(30000));
        QVERIFY2(window.centralMessage().startsWith("No checkpoints in " + empty.path()), qPrintable(window.centralMessage()));

        // Written 10 s ago, past the settle time but recent: a file no format recognises is said to be
        // one at once, not waited for as if it were still being written.
        QFile junk(QDir(empty.path()).filePath("ckpt_000100.pt"));
        QVERIFY(junk.open(QIODevice::WriteOnly) && junk.write("definitely not a checkpoint") > 0 && junk.flush());
        QVERIFY(junk.setFileTime(QDateTime::currentDateTime().addSecs(-10), QFileDevice::FileModificationTime));
        junk.close();
        window.openPath(empty.path());
        QVERIFY(finished.wait(30000));
        QVERIFY2(window.centralMessage().startsWith("Nothing in " + empty.path() + " could be analysed"), qPrintable(window.centralMessage()));

        window.openPath(RANKSCOPE_DEMO_RUN);
        QTRY_VERIFY_WITH_TIMEOUT(window.centralMessage().isEmpty(), 30000);
        QCOMPARE(window.centralWidget()->findChild<QTabWidget *>(), window.tabs());
    }

    void reopeningComesFromTheCache()
    {
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        const RunAnalysis run = finished.first().first().value<RunAnalysis>();
        QCOMPARE(std::count_if(run.checkpoints.begin(), run.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }), 6);
    }

    void droppingACheckpointOpensItsFolder()
    {
        MainWindow window;
        QSignalSpy started(window.controller(), &AnalysisController::started);
        QVERIFY(window.acceptDrops());
        QVERIFY(window.openDropped({QUrl::fromLocalFile(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000100.pt"))}));
        QCOMPARE(started.count(), 1);
        QCOMPARE(QDir(started.first().first().toString()).canonicalPath(), QDir(RANKSCOPE_DEMO_RUN).canonicalPath());
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        QVERIFY(finished.wait(30000));
    }

    // The window watches the folder it opened: a checkpoint copied in later appears once.
    void watchedFolderGrowsLive()
    {
        QTemporaryDir run;
        const QDir demo(RANKSCOPE_DEMO_RUN);
        QVERIFY(QFile::copy(demo.filePath("ckpt_000000.pt"), run.filePath("ckpt_000000.pt")));
        MainWindow window;
        window.controller()->setSettleSeconds(0.3);
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        QSignalSpy updated(window.controller(), &AnalysisController::updated);
        window.openPath(run.path());
        QVERIFY(finished.wait(20000));
        // Just copied, it may still be settling: it arrives in a watch pass if not in the first.
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->results().size(), 24, 20000);
        QVERIFY(window.controller()->isWatching());
        window.state()->setCurrentStep(0);
        QVERIFY(QFile::copy(demo.filePath("ckpt_001000.pt"), run.filePath("ckpt_001000.pt")));
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->results().size(), 48, 20000);
        QCOMPARE(window.state()->steps(), (QList<qint64>{0, 1000}));
        QCOMPARE(window.stepSlider()->maximum(), 1);
        const QStringList arrived = updated.last().at(1).toStringList();
        QVERIFY(arrived.contains(QFileInfo(run.filePath("ckpt_001000.pt")).absoluteFilePath()));

        // Its TensorBoard log followed as training writes it: a half-written last record waits,
        // the points before it shown; once whole, its point is drawn too.
        QDir(run.path()).mkpath("runs/exp");
        const test::LogFile log = test::lossAndRate({0, 500, 1000});
        QFile events(run.filePath("runs/exp/events.out.tfevents.1700000000.host.1.0"));
        QVERIFY(events.open(QIODevice::WriteOnly));
        const qint64 half = log.offsets[2] + 10;
        events.write(log.bytes.left(half));
        events.flush();
        QTRY_VERIFY_WITH_TIMEOUT(window.state()->scalarLog().find("loss"), 10000);
        QCOMPARE(window.state()->scalarLog().find("loss")->points.size(), 2);
        events.write(log.bytes.mid(half));
        events.close();
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->scalarLog().find("loss")->points.size(), 3, 10000);
    }

    // File ▸ Add run to compare: a second run gets its own bar panel and two heatmaps.
    void comparingAddsPanels()
    {
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        window.addComparedRun(RANKSCOPE_DEMO_RUN); // the same run twice is a valid (if dull) comparison
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->runCount(), 2, 30000);
        QCOMPARE(window.comparedBarPanels().size(), 1);
        QCOMPARE(window.comparedBarPanels().first()->runIndex(), 1);
        QCOMPARE(window.viewsOfTab(1).size(), 2);
        QCOMPARE(window.viewsOfTab(2).size(), 4); // both metrics of both runs, as the window shows them
        QCOMPARE(window.lineChart()->visibleLines().size(), 12);
        window.state()->setRunVisible(1, false);
        QCOMPARE(window.comparedBarPanels().size(), 0);
        QCOMPARE(window.lineChart()->visibleLines().size(), 6);
        // Opening another run starts a new comparison.
        window.openPath(RANKSCOPE_DEMO_RUN);
        QCOMPARE(window.state()->runCount(), 1);
    }

    // File ▸ Add base model…: beside an adapter run's updates, its merged weights and the base's
    // own W₀ of the adapted matrix arrive as two runs compared with it, named for what they are.
    void baseModelBesideAnAdapterRun()
    {
        QTemporaryDir run, base;
        test::writeTinyLoraRun(run.path(), base.path());
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(run.path());
        QVERIFY(finished.wait(30000));
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->results().size(), 2, 20000);
        window.addBaseModel(base.path());
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->runCount(), 3, 30000);
        const QString name = window.state()->runName();
        QCOMPARE(window.state()->runNameAt(1), name + QStringLiteral(" \u00b7 merged"));
        QCOMPARE(window.state()->runNameAt(2), QFileInfo(base.path()).fileName() + QStringLiteral(" \u00b7 base"));
        QCOMPARE(window.state()->resultsAt(1).size(), 2); // q_proj merged at both steps
        QCOMPARE(window.state()->resultsAt(1).first().weights, QStringLiteral("merged"));
        QCOMPARE(window.state()->resultsAt(2).size(), 1); // the base's q_proj alone: v_proj is not adapted
        QCOMPARE(window.state()->resultsAt(2).first().weights, QStringLiteral("base"));
        // A run that is not an adapter run is told so, and nothing is added.
        window.openPath(RANKSCOPE_DEMO_RUN);
        QTRY_VERIFY_WITH_TIMEOUT(!window.state()->results().isEmpty(), 30000);
        window.addBaseModel(base.path());
        QCOMPARE(window.state()->runCount(), 1);
    }

    // A compared run brings its own training logs: its curve is drawn beside the first run's.
    void comparedRunsBringTheirLogs()
    {
        QTemporaryDir other;
        for (const char *name : {"ckpt_000000.pt", "ckpt_001000.pt"})
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), other.filePath(name)));
        QFile state(other.filePath("trainer_state.json"));
        QVERIFY(state.open(QIODevice::WriteOnly));
        state.write(R"({"global_step": 1000, "log_history": [{"loss": 5.5, "step": 0}, {"loss": 2.75, "step": 1000}]})");
        state.close();
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        QVERIFY(!window.state()->hasScalars()); // the demo run logs nothing
        window.addComparedRun(other.path());
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->runCount(), 2, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(window.state()->scalarLogAt(1).find("loss"), 10000);
        QCOMPARE(window.state()->scalarLogAt(1).find("loss")->points.size(), 2);
        QVERIFY(window.state()->scalarLog().isEmpty());
        window.state()->removeComparedRun(1);
        QVERIFY(!window.state()->hasScalars());
    }

    // Rules that ignore the O projections: loading them re-analyses the run without those matrices.
    void namingRulesLoadInTheWindow()
    {
        QTemporaryDir dir;
        writeRulesIgnoringO(dir.filePath("rules.json"));
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.state()->results().size(), 144);
        QVERIFY(window.loadNamingRules(dir.filePath("rules.json")));
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.state()->results().size(), 120); // 4 layers × 6 steps of O are gone
        QVERIFY(!window.state()->presentTypes().contains(MatrixType::O));
    }

    // A compared run is opened as the first one is: under the user's naming rules, with what went
    // wrong said, and never joining the comparison of a run opened after it was asked for.
    void comparisonsAreOpenedLikeTheRun()
    {
        QTemporaryDir dir;
        writeRulesIgnoringO(dir.filePath("rules.json"));
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        QVERIFY(window.loadNamingRules(dir.filePath("rules.json")));
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        QCOMPARE(window.state()->results().size(), 120);
        window.addComparedRun(RANKSCOPE_DEMO_RUN);
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->runCount(), 2, 30000);
        QCOMPARE(window.state()->resultsAt(1).size(), 120); // the same rules: no O matrices

        QSignalSpy problems(window.controller(), &AnalysisController::problem);
        window.addComparedRun(dir.filePath("no-such-run"));
        QVERIFY(problems.wait(30000));
        QVERIFY2(problems.first().first().toString().contains("no-such-run: no such folder or results file"), qPrintable(problems.first().first().toString()));
        QCOMPARE(window.state()->runCount(), 2);

        // Asked for, then another run is opened at once: the late comparison is dropped. (A results
        // file: opening the next run cancels an analysis, but a file's loading runs to its end.)
        QString error;
        QVERIFY2(ResultsFile::save(window.state()->run(), dir.filePath("demo.h5"), &error), qPrintable(error));
        window.addComparedRun(dir.filePath("demo.h5"));
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        QTest::qWait(500); // any queued comparison has arrived by now
        QCOMPARE(window.state()->runCount(), 1);
    }

    // Analysis ▸ rand_distance on an open folder analyses it again with rand_distance (every other
    // metric as it was), and the next opening takes it all from the cache.
    void randDistanceIsAnalysedOnRequest()
    {
        QTemporaryDir copy;
        for (const QString &name : QDir(RANKSCOPE_DEMO_RUN).entryList({"*.pt"}, QDir::Files))
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), QDir(copy.path()).filePath(name)));
        MainWindow window;
        window.controller()->setSettleSeconds(0); // the copies are complete: read them at once
        QVERIFY(!window.randDistanceAction()->isChecked());
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(copy.path());
        QVERIFY(finished.wait(30000));
        const RunAnalysis plain = finished.takeFirst().first().value<RunAnalysis>();
        QCOMPARE(plain.results.size(), 144);
        for (const MatrixResult &r : plain.results)
            QVERIFY(std::isnan(r.metrics.randDistance));

        // The user is looking at step 600: the re-read keeps it, never passing through another step.
        window.state()->setCurrentStep(600);
        QList<qint64> shown;
        connect(window.state(), &ViewState::currentStepChanged, this, [&shown](qint64 step) { shown << step; });
        window.randDistanceAction()->setChecked(true);
        QVERIFY(finished.wait(60000));
        QCOMPARE(window.state()->currentStep(), 600);
        for (qint64 step : std::as_const(shown))
            QCOMPARE(step, 600);
        const RunAnalysis withDistance = finished.takeFirst().first().value<RunAnalysis>();
        QCOMPARE(withDistance.results.size(), 144);
        for (qsizetype i = 0; i < withDistance.results.size(); ++i) {
            const MatrixResult &r = withDistance.results[i];
            QVERIFY2(std::isfinite(r.metrics.randDistance) && r.metrics.randDistance >= 0, qPrintable(r.tensor));
            QCOMPARE(r.metrics.stableRank, plain.results[i].metrics.stableRank);
        }
        QCOMPARE(window.state()->results().size(), 144);
        QVERIFY(std::isfinite(window.state()->results().first().metrics.randDistance));

        window.openPath(copy.path());
        QVERIFY(finished.wait(30000));
        const RunAnalysis again = finished.takeFirst().first().value<RunAnalysis>();
        QCOMPARE(std::count_if(again.checkpoints.begin(), again.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }), 6);
        QCOMPARE(again.results.first().metrics.randDistance, withDistance.results.first().metrics.randDistance);

        // Analysis ▸ change from the first checkpoint: the same, for --delta (rand_distance kept on).
        QVERIFY(!window.deltaAction()->isChecked());
        window.deltaAction()->setChecked(true);
        QVERIFY(finished.wait(60000));
        const RunAnalysis withDelta = finished.takeFirst().first().value<RunAnalysis>();
        QCOMPARE(withDelta.results.size(), 144);
        for (const MatrixResult &r : withDelta.results) {
            QVERIFY(std::isfinite(r.metrics.randDistance));
            QCOMPARE(r.deltaSingularValues.size(), std::min(r.rows, r.cols));
            QVERIFY(r.step == 0 ? r.metrics.deltaSpectralNorm == 0 : r.metrics.deltaSpectralNorm > 0);
        }
        window.deltaAction()->setChecked(false);
        window.randDistanceAction()->setChecked(false);
        // Turned off, they leave the open run at once, the folder not read again (#42).
        QCOMPARE(window.state()->results().size(), 144);
        for (const MatrixResult &r : window.state()->results())
            QVERIFY2(std::isnan(r.metrics.randDistance) && std::isnan(r.metrics.deltaSpectralNorm) && r.deltaSingularValues.size() == 0,
                     qPrintable(r.tensor));

        // Analysis ▸ subspace agreement: --subspace, NaN at the first step only; remembered.
        QVERIFY(!window.subspaceAction()->isChecked());
        window.subspaceAction()->setChecked(true);
        QVERIFY(finished.wait(60000));
        const RunAnalysis withSubspace = finished.takeFirst().first().value<RunAnalysis>();
        QCOMPARE(withSubspace.results.size(), 144);
        for (const MatrixResult &r : withSubspace.results) {
            QVERIFY2(r.step == 0 ? std::isnan(r.metrics.subspaceOverlap)
                                 : r.metrics.subspaceOverlap > 0 && r.metrics.subspaceOverlap <= 1 && r.metrics.topVectorCosine <= 1,
                     qPrintable(r.tensor));
            // Kept by the results file that served it, not asked for: not shown.
            QVERIFY(std::isnan(r.metrics.randDistance) && std::isnan(r.metrics.deltaSpectralNorm));
        }

        // Per-head spectra ticked, then unticked: no per-head row is left, and none on opening again.
        window.headsAction()->setChecked(true);
        QVERIFY(finished.wait(60000));
        QVERIFY(!finished.takeFirst().first().value<RunAnalysis>().headResults.isEmpty());
        QVERIFY(!window.state()->headResults().isEmpty());
        window.headsAction()->setChecked(false);
        QVERIFY(window.state()->headResults().isEmpty());
        QCOMPARE(window.state()->results().size(), 144);
        window.openPath(copy.path());
        QVERIFY(finished.wait(30000));
        QVERIFY(finished.takeFirst().first().value<RunAnalysis>().headResults.isEmpty());
        QVERIFY(window.state()->headResults().isEmpty());
        window.close();
        QVERIFY(QSettings().value("analysis/subspace").toBool());
        window.subspaceAction()->setChecked(false);
        QSettings().clear();
    }

    // Opening another run: the layer boxes let go of the previous run's range at once and show
    // the new run's when it is in. Log y is the tab's own (lines, bars), and View ▸ Log y is
    // checked with it.
    void layerBoxesAndLogYFollowTheRunAndTheTab()
    {
        MainWindow window;
        window.show();
        window.controller()->setSettleSeconds(0.3);
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(RANKSCOPE_DEMO_RUN);
        QVERIFY(finished.wait(30000));
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Lines));
        window.firstLayerBox()->setValue(1);
        window.lastLayerBox()->setValue(2);
        QCOMPARE(window.state()->layerRange(LayerView::Lines).first, 1); // the lines' own range
        QTemporaryDir copy;
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), copy.filePath("ckpt_000000.pt")));
        QSignalSpy started(window.controller(), &AnalysisController::started);
        window.openPath(copy.path());
        QVERIFY(started.count() == 1 || started.wait(5000));
        QVERIFY(!window.firstLayerBox()->isEnabled() && window.firstLayerBox()->maximum() == 0 && window.lastLayerBox()->value() == 0);
        // Just copied, the checkpoint settles first and arrives in a watch pass.
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->results().size(), 24, 20000);
        QVERIFY(window.firstLayerBox()->isEnabled());
        QCOMPARE(window.firstLayerBox()->value(), 0);
        QCOMPARE(window.lastLayerBox()->value(), 3);
        QCOMPARE(window.state()->visibleLayers(), (QList<int>{0, 1, 2, 3}));
        QVERIFY(!window.state()->hasOwnLayerRange(LayerView::Lines));

        window.tabs()->setCurrentWidget(window.figure(FigureKind::Lines));
        window.logYBox()->setChecked(true);
        QVERIFY(window.state()->logY() && !window.state()->logYBars());
        QVERIFY(window.logYAction()->isCheckable() && window.logYAction()->isChecked());
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Bars));
        QVERIFY(!window.logYBox()->isChecked() && !window.logYAction()->isChecked());
        window.logYAction()->trigger();
        QVERIFY(window.state()->logYBars() && window.state()->logY() && window.logYBox()->isChecked());
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Heatmaps));
        QVERIFY(!window.logYBox()->isEnabled() && !window.logYAction()->isEnabled());
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Lines));
        window.logYAction()->trigger();
        QVERIFY(!window.state()->logY() && window.state()->logYBars() && !window.logYBox()->isChecked());
        window.close();
        QSettings().clear();
    }

    void settingsPersist()
    {
        {
            MainWindow window;
            window.lineChart()->setMetric(Metric::EffectiveRank);
            window.state()->setTypeVisible(MatrixType::O, false);
            window.close();
        }
        MainWindow again;
        QCOMPARE(again.lineChart()->metric(), Metric::EffectiveRank);
        QVERIFY(!again.state()->isTypeVisible(MatrixType::O));
        QSettings().clear();
    }
};

RANKSCOPE_TEST_MAIN(TestMainWindow)
} // namespace tst_mainwindow

#include "tst_MainWindow.moc"
