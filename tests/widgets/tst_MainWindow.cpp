// The window as a user meets it: it opens the demo run in the background, fills every view,
// and its step controls, drop target and settings work.
#include "DemoFixture.h"
#include "LayerBarChart.h"
#include "MainWindow.h"
#include "MetricLineChart.h"
#include "SpectrumView.h"
#include "ViewState.h"

#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace rankscope;

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
        QCOMPARE(window.tabs()->count(), 4);
        QCOMPARE(window.lineChart()->visibleLines().size(), 6);
        QCOMPARE(window.barChart()->group()->size(), 6);
        QCOMPARE(window.stepSlider()->maximum(), 5);
        QCOMPARE(window.stepSlider()->value(), 5);
        window.stepSlider()->setValue(2);
        QCOMPARE(window.state()->currentStep(), 300);
        QVERIFY(window.barChart()->title().contains("step 300"));

        // A click request switches to the spectrum tab.
        window.state()->requestSpectrum({300, 1, MatrixType::K});
        QCOMPARE(window.tabs()->currentWidget(), window.spectrumView());
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

QTEST_MAIN(TestMainWindow)
#include "tst_MainWindow.moc"
