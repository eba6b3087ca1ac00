// The window's small things, each as a user meets it and as a test can see it: which controls
// act on which tab, the comparison's title, dock, band and panels, the legend of hidden types,
// contrast on the dark theme, the keys wherever the focus is, the demo said to be the demo, the
// help, the skipped list by path within the run, exports that start where the last one went.
#include "DemoBanner.h"
#include "DemoFixture.h"
#include "ExportDialog.h"
#include "FigureExporter.h"
#include "figures/ViewState.h"
#include "FigureView.h"
#include "HeadView.h"
#include "HelpDialogs.h"
#include "LayerBarChart.h"
#include "MainWindow.h"
#include "MetricLineChart.h"
#include "RankPlanPanel.h"
#include "SkippedFilesDialog.h"
#include "SpectrumView.h"
#include "TestSuite.h"
#include "TypeFilterChips.h"
#include "TypeStyle.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyleOptionButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTextBlock>
#include <QTextLayout>
#include <QTimer>
#include <QToolButton>

namespace tst_windowdetails {

using namespace rankscope;

namespace {

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy finished(window.controller(), &AnalysisController::finished);
    window.openPath(path);
    return finished.wait(30000);
}

// A copy of the demo run under another name, as a second run to compare.
QString copyOfDemo(const QTemporaryDir &dir, const QString &name)
{
    const QDir demo(RANKSCOPE_DEMO_RUN);
    QDir(dir.path()).mkpath(name);
    for (const QString &file : demo.entryList({"*.pt"}, QDir::Files))
        QFile::copy(demo.filePath(file), QDir(dir.filePath(name)).filePath(file));
    return dir.filePath(name);
}

// The demo run with only its first `layers` layers: a shallower model to compare with.
RunAnalysis shallowDemo(int layers)
{
    RunAnalysis run = test::demoRun();
    run.results.removeIf([layers](const MatrixResult &r) { return r.layer >= layers; });
    return run;
}

QCPPlottableLegendItem *legendItemNamed(QCustomPlot *plot, const QString &name)
{
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(plot->legend->item(i)); item && item->plottable()->name() == name)
            return item;
    return nullptr;
}

// The colour of the most opaque pixels of an icon.
QColor inkOf(const QIcon &icon)
{
    const QImage image = icon.pixmap(16, 16).toImage().convertToFormat(QImage::Format_ARGB32);
    QColor ink;
    int alpha = -1;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (const QColor c = image.pixelColor(x, y); c.alpha() > alpha) {
                ink = c;
                alpha = c.alpha();
            }
    return ink;
}

// Closes the modal dialog that opens next, after handing it to `look`.
void whenADialogOpens(std::function<void(QWidget *)> look)
{
    QTimer::singleShot(100, [look] {
        if (QWidget *dialog = QApplication::activeModalWidget()) {
            look(dialog);
            dialog->close();
        }
    });
}

} // namespace

class TestWindowDetails : public QObject {
    Q_OBJECT

private slots:
    // The window's tabs are the catalog's figures that have one, in its order, and View's Ctrl+1…
    // go to each by what it shows, not by its position.
    void tabsAndTheirShortcutsFollowTheFigureCatalog()
    {
        MainWindow window;
        QStringList titles;
        for (FigureKind figure : allFigures())
            if (figure.info().tabTitle)
                titles << QString::fromUtf8(figure.info().tabTitle);
        QCOMPARE(window.tabs()->count(), titles.size());
        for (int tab = 0; tab < window.tabs()->count(); ++tab) {
            QCOMPARE(window.tabs()->tabText(tab), titles[tab]);
            const std::optional<FigureKind> kind = window.tabKind(tab);
            QVERIFY(kind && kind->info().tabTitle == titles[tab]);
        }
        for (int tab = window.tabs()->count() - 1; tab >= 0; --tab) {
            const QKeySequence keys(Qt::CTRL | Qt::Key(Qt::Key_1 + tab));
            QAction *go = nullptr;
            for (QAction *action : window.menuBar()->findChildren<QAction *>())
                if (action->shortcut() == keys)
                    go = action;
            QVERIFY2(go, qPrintable(keys.toString()));
            go->trigger();
            QCOMPARE(window.tabs()->currentIndex(), tab);
            QCOMPARE(go->text(), QString::fromUtf8(window.tabKind(tab)->info().menuTitle));
        }
        // The Rank plan's tab is a figure like the others, its target's controls inside it.
        const int plan = window.tabs()->indexOf(window.figure(FigureKind::RankPlan));
        QCOMPARE(window.tabKind(plan), std::optional(FigureKind::RankPlan));
        QVERIFY(window.rankPlanPanel() && window.tabs()->widget(plan)->isAncestorOf(window.rankPlanPanel()));
    }

    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RankScopeTest");
        QCoreApplication::setApplicationName("RankScopeWindowDetails");
        QSettings().clear();
    }
    void cleanup() { QSettings().clear(); }

    // A type switched off stays in the legend, greyed (text, line and marker), so a click turns it on again.
    void hiddenTypesAreGreyInTheLegend()
    {
        ViewState state;
        state.setRun(test::demoRun(), "demo");
        MetricLineChart lines(&state);
        LayerBarChart bars(&state);
        state.setTypeVisible(MatrixType::O, false);
        const QColor muted = PlotStyle::Theme::paper().muted;
        QCPPlottableLegendItem *o = legendItemNamed(lines.plot(), "O");
        QVERIFY(o);
        QCOMPARE(o->textColor(), muted);
        auto *graph = qobject_cast<QCPGraph *>(o->plottable());
        QCOMPARE(graph->pen().color(), muted);
        QCOMPARE(graph->scatterStyle().brush().color(), muted);
        QCOMPARE(qobject_cast<QCPGraph *>(legendItemNamed(lines.plot(), "K")->plottable())->pen().color(), typeColour(MatrixType::K));
        QCPPlottableLegendItem *oBars = legendItemNamed(bars.plot(), "O");
        QVERIFY(oBars);
        QCOMPARE(oBars->plottable()->brush().color(), muted);
        QCOMPARE(legendItemNamed(bars.plot(), "V")->plottable()->brush().color(), typeColour(MatrixType::V));
    }

    // Each display control is enabled on the tabs it changes, and only there.
    void controlsAreEnabledWhereTheyAct()
    {
        MainWindow window;
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        auto enabled = [&window](const char *name) { return window.findChild<QWidget *>(name)->isEnabled(); };
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Lines));
        QVERIFY(enabled("aggregate") && enabled("band") && enabled("relativeStep") && !enabled("relativeDepth"));
        QVERIFY(window.firstLayerBox()->isEnabled());
        // One line per layer of a type: no mean over layers, no band round it.
        window.lineChart()->setPerLayerType(MatrixType::MlpUp);
        QVERIFY(!enabled("aggregate") && !enabled("band") && enabled("relativeStep"));
        window.lineChart()->setPerLayerType(std::nullopt);
        QVERIFY(enabled("aggregate") && enabled("band"));
        for (FigureKind kind : {FigureKind::Bars, FigureKind::Heatmaps}) {
            window.tabs()->setCurrentWidget(window.figure(kind));
            // Comparing runs of different length, the per-layer views need steps as fractions most.
            QVERIFY(!enabled("aggregate") && !enabled("band") && enabled("relativeStep") && enabled("relativeDepth"));
            QVERIFY(window.firstLayerBox()->isEnabled());
        }
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Spectrum));
        QVERIFY(!enabled("aggregate") && !enabled("band") && !enabled("relativeStep") && !enabled("relativeDepth"));
        QVERIFY(!window.firstLayerBox()->isEnabled() && !window.lastLayerBox()->isEnabled());
        // Heads: the range picks the heatmap's layers; its lines and spectrum are of one layer.
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Heads));
        HeadView *heads = window.figure(FigureKind::Heads)->view<HeadView>();
        QVERIFY(window.firstLayerBox()->isEnabled());
        for (HeadView::Mode mode : {HeadView::Mode::Lines, HeadView::Mode::Spectrum}) {
            heads->setMode(mode);
            QVERIFY(!window.firstLayerBox()->isEnabled() && !window.lastLayerBox()->isEnabled());
        }
        heads->setMode(HeadView::Mode::Heatmap);
        QVERIFY(window.firstLayerBox()->isEnabled());
    }

    // A comparison names itself in the title and has the Runs dock; the line chart draws no band
    // then, and its box says so unchecked; both go with the comparison.
    void aComparisonHasItsTitleDockAndBand()
    {
        QTemporaryDir dir;
        const QString seed1 = copyOfDemo(dir, "seed1");
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        auto *dock = window.findChild<QDockWidget *>("runs");
        auto *band = window.findChild<QCheckBox *>("band");
        QVERIFY(dock->isHidden());
        QVERIFY(band->isEnabled() && band->isChecked());
        window.addComparedRun(seed1);
        QTRY_COMPARE_WITH_TIMEOUT(window.state()->runCount(), 2, 30000);
        QCOMPARE(window.windowTitle(), QString("nanogpt-d4 vs seed1 — RankScope"));
        QVERIFY(!dock->isHidden());
        QCOMPARE(window.findChild<QLabel *>("status")->text(), QString("Comparing 2 runs"));
        // The comparison fits a 1024-pixel screen on every tab, the Runs dock beside it.
        window.resize(1024, 700);
        for (int tab = 0; tab < window.tabs()->count(); ++tab) {
            window.tabs()->setCurrentIndex(tab);
            QCoreApplication::processEvents();
            QVERIFY2(window.minimumSizeHint().width() <= 1024, qPrintable(window.tabs()->tabText(tab) + QString(": %1").arg(window.minimumSizeHint().width())));
            // What the tab's own header asks for too (the Spectrum's Run, matrix and tail boxes).
            QVERIFY2(window.tabs()->currentWidget()->minimumSizeHint().width() <= 1024 - dock->width(),
                     qPrintable(window.tabs()->tabText(tab) + QString(": %1 beside a dock of %2").arg(window.tabs()->currentWidget()->minimumSizeHint().width()).arg(dock->width())));
        }
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Lines));
        QVERIFY(!band->isEnabled() && !band->isChecked());
        QVERIFY(window.state()->showBand()); // the choice is kept for when one run is shown again
        QVERIFY(!window.lineChart()->figure().bands);
        window.state()->setRunVisible(1, false);
        QVERIFY(band->isEnabled() && band->isChecked());
        window.state()->setRunVisible(1, true);
        window.state()->removeComparedRun(1);
        QVERIFY(dock->isHidden());
        QCOMPARE(window.windowTitle(), QString("nanogpt-d4 — RankScope"));
        // The status line no longer counts a comparison.
        QCOMPARE(window.findChild<QLabel *>("status")->text(), QString("Comparison closed: nanogpt-d4 alone"));
    }

    // Compared runs' bar panels share one legend and are as wide as their layers: a 2-layer run
    // beside the 4-layer demo gets half its share.
    void comparedPanelsShareALegendAndAreSizedByLayers()
    {
        MainWindow window;
        window.resize(1500, 900);
        window.show();
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        window.state()->addComparedRun(shallowDemo(2), "shallow");
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Bars));
        QList<LayerBarChart *> panels = window.figure(FigureKind::Bars)->viewsOf<LayerBarChart>();
        QCOMPARE(panels.size(), 2);
        QCOMPARE(panels[0]->plot()->legend->itemCount(), 0);
        QVERIFY(!panels[0]->plot()->legend->visible());
        QCOMPARE(panels[1]->plot()->legend->itemCount(), 6);
        auto *grid = qobject_cast<QGridLayout *>(window.figure(FigureKind::Bars)->layout());
        QCOMPARE(grid->columnStretch(0), 4);
        QCOMPARE(grid->columnStretch(1), 2);
        QTRY_VERIFY(panels[0]->width() > panels[1]->width());
        // Each panel names its run, on two lines if need be.
        QVERIFY2(panels[0]->titleNamesRun() && panels[1]->titleNamesRun(), qPrintable(panels[0]->titleRun()));
        // Level plots, though the legend sits above the last panel only.
        QTRY_COMPARE(panels[0]->plot()->axisRect()->rect().top(), panels[1]->plot()->axisRect()->rect().top());
        QVERIFY(panels[1]->plot()->legend->visible());
        // Exported, the panels keep those shares: 4 layers beside 2, a layer as wide in each.
        const FigureSize paper = *FigureSize::preset(QStringLiteral("two-column"));
        const FigureExporter::PaperFigure exportedFigure = FigureExporter::layOut(window.figure(FigureKind::Bars)->panels(paper.layoutSize()), paper);
        const FigureExporter::PaperPanels &exported = exportedFigure.panels;
        QCOMPARE(exported[0].size(), size_t(2));
        QCOMPARE(exported[0][0]->plot()->viewport().width(), 2 * exported[0][1]->plot()->viewport().width());
        // One legend over both, in the figure's own row: the plots start and end level.
        QVERIFY(exportedFigure.legend);
        QCOMPARE(exportedFigure.legend->entries().size(), 6);
        QVERIFY(!exported[0][1]->plot()->legend->visible());
        QCOMPARE(exported[0][0]->plot()->axisRect()->rect().top(), exported[0][1]->plot()->axisRect()->rect().top());
        QCOMPARE(exported[0][0]->plot()->axisRect()->rect().bottom(), exported[0][1]->plot()->axisRect()->rect().bottom());
        // Relative depth puts both on 0–1: equal shares.
        window.findChild<QCheckBox *>("relativeDepth")->setChecked(true);
        QCOMPARE(grid->columnStretch(0), grid->columnStretch(1));
    }

    // On the dark theme the Play icon, an unchecked box and Q's dark-blue bars stand out of the
    // background (WCAG: 4.5:1 for what must be read, 3:1 for a control's edge).
    void theDarkThemeHasContrast()
    {
        QSettings().setValue("view/theme", "dark");
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        const QPalette palette = QApplication::palette();
        QVERIFY(palette.color(QPalette::Window).lightness() < 128);
        QVERIFY2(contrastRatio(inkOf(window.playAction()->icon()), palette.color(QPalette::Button)) >= 4.5,
                 qPrintable(inkOf(window.playAction()->icon()).name()));

        auto *box = window.findChild<QCheckBox *>("relativeDepth");
        QVERIFY(!box->isChecked());
        box->setEnabled(true);
        const QImage image = box->grab().toImage();
        QStyleOptionButton option;
        option.initFrom(box);
        const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box);
        double edge = 0;
        const double ratio = image.width() / double(box->width());
        for (int x = indicator.left(); x <= indicator.right(); ++x)
            for (int y : {indicator.top(), indicator.top() + 1, indicator.bottom() - 1, indicator.bottom()})
                edge = std::max(edge, contrastRatio(image.pixelColor(int(x * ratio), int(y * ratio)), palette.color(QPalette::Window)));
        QVERIFY2(edge >= 3, qPrintable(QString::number(edge)));

        // A hidden type's chip is dark with muted text, never a white chip brighter than the shown ones.
        QToolButton *chip = window.findChild<TypeFilterChips *>()->chip(MatrixType::Q);
        window.tabs()->setCurrentWidget(window.figure(FigureKind::Lines));
        chip->setChecked(false);
        const QImage chipImage = chip->grab().toImage();
        const QColor inside = chipImage.pixelColor(chipImage.width() / 8 + 2, chipImage.height() / 2);
        QVERIFY2(inside.lightness() < 100, qPrintable(inside.name()));
        chip->setChecked(true);

        window.tabs()->setCurrentWidget(window.figure(FigureKind::Bars));
        const QColor background = PlotStyle::Theme::darkTheme().background;
        for (QCPBars *bars : window.barChart()->bars()) {
            const double fill = contrastRatio(bars->brush().color(), background), outline = contrastRatio(bars->pen().color(), background);
            QVERIFY2(std::max(fill, outline) >= 4.5, qPrintable(bars->name() + QString(": %1, %2").arg(fill).arg(outline)));
        }
        // Back to the desktop's look for the tests after this one.
        for (QAction *action : window.findChildren<QAction *>())
            if (action->text() == "Follow the &desktop")
                action->trigger();
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() >= 128);
    }

    // Naming rules are loaded from File, with the other things that open files.
    void namingRulesAreUnderFile()
    {
        MainWindow window;
        auto titles = [&window](int menu) {
            QStringList texts;
            for (QAction *action : window.menuBar()->actions().at(menu)->menu()->actions())
                texts << action->text();
            return texts;
        };
        QVERIFY(titles(0).contains("Load naming &rules…"));
        QVERIFY(!titles(1).contains("Load naming &rules…"));
        QVERIFY(window.logYAction()->isCheckable());
    }

    // The lines selector is as wide as its longest choice; Play and Pause take the same room.
    void selectorsAndPlayKeepTheirSize()
    {
        MainWindow window;
        window.resize(1024, 700);
        window.show();
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        QComboBox *mode = nullptr;
        for (QComboBox *box : window.lineChart()->findChildren<QComboBox *>())
            if (box->findText("MLP↑ by layer") >= 0)
                mode = box;
        QVERIFY(mode);
        window.lineChart()->setPerLayerType(MatrixType::MlpUp);
        QTRY_VERIFY(mode->width() >= mode->fontMetrics().horizontalAdvance("MLP↑ by layer") + 20);

        const int sliderX = window.stepSlider()->mapTo(&window, QPoint(0, 0)).x();
        window.playAction()->setChecked(true);
        QCOMPARE(window.playAction()->text(), QString("Pause"));
        QApplication::processEvents();
        QCOMPARE(window.stepSlider()->mapTo(&window, QPoint(0, 0)).x(), sliderX);
        window.playAction()->setChecked(false);
    }

    // ←/→, Space and Ctrl+E work right after the run opens, and with a spin box focused (whose
    // ↑/↓ still change its number).
    void keysWorkWhereverTheFocusIs()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        QCOMPARE(window.state()->currentStep(), 1500);
        QWidget *focus = QApplication::focusWidget() ? QApplication::focusWidget() : &window;
        QTest::keyClick(focus, Qt::Key_Left);
        QCOMPARE(window.state()->currentStep(), 1000);

        window.firstLayerBox()->setFocus();
        QTRY_VERIFY(window.firstLayerBox()->hasFocus() || window.firstLayerBox()->isAncestorOf(QApplication::focusWidget()));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Left);
        QCOMPARE(window.state()->currentStep(), 600);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Right);
        QCOMPARE(window.state()->currentStep(), 1000);
        QCOMPARE(window.firstLayerBox()->value(), 0);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
        QCOMPARE(window.firstLayerBox()->value(), 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QVERIFY(window.playAction()->isChecked());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
        QVERIFY(!window.playAction()->isChecked());

        QString opened;
        whenADialogOpens([&opened](QWidget *dialog) { opened = dialog->windowTitle(); });
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_E, Qt::ControlModifier);
        QCOMPARE(opened, QString("Export figure"));
    }

    // The demo says it is the demo, offers the user's own runs and is not watched; the user's
    // folder is.
    void theDemoSaysItIsTheDemo()
    {
        QTemporaryDir dir;
        const QString own = copyOfDemo(dir, "own-run");
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        QVERIFY(!window.demoBanner()->isHidden());
        QVERIFY2(window.demoBanner()->text().contains("bundled demo run"), qPrintable(window.demoBanner()->text()));
        QStringList buttons;
        for (QPushButton *button : window.demoBanner()->findChildren<QPushButton *>())
            buttons << button->text();
        QCOMPARE(buttons, (QStringList{"Open folder…", "Open results file…"}));
        QVERIFY(window.demoBanner()->findChild<QToolButton *>()->menu());
        QVERIFY(!window.controller()->isWatching());
        const QString status = window.statusBar()->findChild<QLabel *>()->text();
        QVERIFY2(!status.contains("watching") && status.contains("demo"), qPrintable(status));

        window.controller()->setSettleSeconds(0);
        QVERIFY(openAndWait(window, own));
        QVERIFY(window.demoBanner()->isHidden());
        QVERIFY(window.controller()->isWatching());
    }

    // Help lists the shortcuts from the actions themselves, and the metric definitions from docs/metrics.md.
    void helpHasTheShortcutsAndTheDefinitions()
    {
        MainWindow window;
        const QString shortcuts = shortcutsHtml(&window);
        for (const char *expected : {"Ctrl+E", "Export figure", "Next step", "Space", "Play"})
            QVERIFY2(shortcuts.contains(expected), expected);
        const QString definitions = metricDefinitionsMarkdown();
        QVERIFY(definitions.contains("`stable_rank` | Σλᵢ / λ₁"));
        QVERIFY(definitions.contains("compression_pct"));
        QStringList help;
        for (QAction *action : window.menuBar()->actions().last()->menu()->actions())
            help << action->text();
        QVERIFY(help.contains("&Keyboard shortcuts") && help.contains("&Metric definitions"));
    }

    // The skipped list names files by their path in the run and keeps what failed apart from the
    // sidecars left out as expected; a folder of only text files says what it holds.
    void skippedFilesAreListedByPathAndKind()
    {
        QTemporaryDir dir;
        // A Hugging Face checkpoint folder whose weights are junk: a failure named by its path in the run.
        QDir(dir.path()).mkpath("checkpoint-100");
        QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), dir.filePath("ckpt_000000.pt"));
        QFile junk(dir.filePath("checkpoint-100/model.safetensors"));
        QVERIFY(junk.open(QIODevice::WriteOnly) && junk.write("not a checkpoint at all") > 0 && junk.flush());
        QVERIFY(junk.setFileTime(QDateTime::currentDateTime().addSecs(-60), QFileDevice::FileModificationTime));
        junk.close();
        QFile config(dir.filePath("config.json"));
        QVERIFY(config.open(QIODevice::WriteOnly) && config.write("{\"n_layer\": 4}") > 0);
        config.close();
        QFile args(dir.filePath("checkpoint-100/training_args.bin"));
        QVERIFY(args.open(QIODevice::WriteOnly) && args.write("pickled TrainingArguments") > 0);
        args.close();
        RunAnalyzer analyzer;
        const RunAnalysis run = analyzer.analyzeFolder(dir.path());
        const QList<SkippedGroup> groups = skippedGroups(run);
        QVERIFY(!groups.isEmpty());
        QCOMPARE(groups.first().kind, SkippedGroup::Kind::Failures);
        QStringList failed;
        for (const SkippedRow &row : groups.first().rows)
            failed << row.file;
        QVERIFY2(std::any_of(failed.begin(), failed.end(), [](const QString &file) { return file.startsWith("checkpoint-100"); }),
                 qPrintable(failed.join(", ")));
        for (const SkippedGroup &group : groups)
            for (const SkippedRow &row : group.rows)
                QVERIFY2(!QFileInfo(row.file).isAbsolute(), qPrintable(row.file));
        const auto leftOut = std::find_if(groups.begin(), groups.end(), [](const SkippedGroup &g) { return g.kind == SkippedGroup::Kind::LeftOut; });
        QVERIFY(leftOut != groups.end());
        QVERIFY(std::any_of(leftOut->rows.begin(), leftOut->rows.end(), [](const SkippedRow &row) {
            return row.file == QDir::toNativeSeparators("checkpoint-100/training_args.bin");
        }));
        QCOMPARE(pathWithinRun("/elsewhere/x.pt", dir.path()), QDir::toNativeSeparators("/elsewhere/x.pt"));

        QTemporaryDir text;
        QDir(text.path()).mkpath("logs");
        for (const char *name : {"README.txt", "notes.md"}) {
            QFile file(text.filePath(name));
            QVERIFY(file.open(QIODevice::WriteOnly) && file.write("words\n") > 0);
        }
        MainWindow window;
        QVERIFY(openAndWait(window, text.path()));
        QVERIFY2(window.centralMessage().contains("It holds 2 files (notes.md, README.txt) and 1 folder (logs), none of them a checkpoint."),
                 qPrintable(window.centralMessage()));
    }

    // The export dialog starts in the folder of the last export, in a field wide enough to read it.
    void exportsStartWhereTheLastOneWent()
    {
        QTemporaryDir out;
        QSettings().setValue("export/folder", out.path());
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        QString path;
        int width = 0, needed = 0;
        whenADialogOpens([&](QWidget *dialog) {
            for (QLineEdit *edit : dialog->findChildren<QLineEdit *>())
                if (edit->text().endsWith(".png")) {
                    path = edit->text();
                    width = edit->width();
                    needed = std::max(edit->fontMetrics().horizontalAdvance(path), 50 * edit->fontMetrics().averageCharWidth());
                }
        });
        window.findChild<QAction *>("exportFigure")->trigger();
        QVERIFY2(path.startsWith(out.path() + "/nanogpt-d4-"), qPrintable(path));
        QVERIFY2(width >= needed, qPrintable(QString("%1 < %2").arg(width).arg(needed)));
    }

    // Export all writes the spectrum of the matrix shown (the picker's, before any was clicked),
    // drawn, with the matrix named in its title.
    void exportAllWritesNoBlankSpectrum()
    {
        QTemporaryDir out;
        MainWindow window;
        QVERIFY(openAndWait(window, RANKSCOPE_DEMO_RUN));
        QString error;
        const QStringList written = window.exportAllFigures(out.path(), "png", FigureSize::fromPixels(900, 560, 1), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString spectrum = out.filePath("nanogpt-d4-spectrum.png");
        QVERIFY(written.contains(spectrum));
        const MatrixResult *shown = window.state()->find(*window.spectrumView()->matrix());
        QVERIFY(shown);
        QVERIFY2(window.spectrumView()->title().contains(shown->tensor), qPrintable(window.spectrumView()->title()));
        // Drawn: the curves' colour is in the image, not only the frame.
        const QImage image(spectrum);
        const QColor curve = typeColour(*window.spectrumView()->figure().type);
        int curvePixels = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                curvePixels += std::abs(c.red() - curve.red()) + std::abs(c.green() - curve.green()) + std::abs(c.blue() - curve.blue()) < 40;
            }
        QVERIFY2(curvePixels > 200, qPrintable(QString::number(curvePixels)));
    }

    // A tooltip wraps between words, never inside a tensor name, and rounds as the axis does.
    void tooltipsWrapAtWordsAndRoundAsTheAxis()
    {
        ViewState state;
        state.setRun(test::demoRun(), "demo");
        // A name with slashes, where a line may otherwise break.
        MatrixResult r = test::demoRun().results.first();
        r.tensor = "model/decoder/layer_0/self_attention/query/kernel";
        MatrixCell cell;
        cell.matrices = {&r};
        const QString html = describeCell(cell, Metric::StableRank);
        QTextDocument document;
        document.setHtml(html);
        document.setTextWidth(90); // narrower than the name, and than "Q · layer 0 · step 0"
        document.documentLayout();
        const QString plain = document.toPlainText();
        const int start = int(plain.indexOf(r.tensor));
        QVERIFY(start >= 0);
        int wrapped = 0;
        for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
            QTextLayout *layout = block.layout();
            wrapped += layout->lineCount() > 2; // past the <br>: the words wrapped
            const int from = start - block.position(), to = from + int(r.tensor.size()) - 1;
            if (from < 0 || from >= block.length())
                continue;
            QCOMPARE(layout->lineForTextPosition(from).lineNumber(), layout->lineForTextPosition(to).lineNumber());
        }
        QVERIFY(wrapped > 0); // the words around it do wrap

        LayerBarChart bars(&state);
        bars.resize(800, 500);
        bars.show();
        QVERIFY(QTest::qWaitForWindowExposed(&bars));
        QCPBars *q = bars.barsOf(MatrixType::Q);
        const auto first = q->data()->begin();
        const QPointF top = q->dataPixelPosition(0);
        const QString tip = bars.tooltipAt(QPoint(int(top.x()), int(top.y()) + 4));
        const double value = first->mainValue() + q->baseValue();
        const QCPRange axis = bars.plot()->yAxis->range();
        // Four significant digits, as every tooltip gives them (a 0–100 axis would round to integers).
        QVERIFY2(tip.contains(valueNumber(value)) && !tip.contains(axisNumber(value, {axis.lower, axis.upper}, false) + "<"), qPrintable(tip));
    }
};

RANKSCOPE_TEST_MAIN(TestWindowDetails)
} // namespace tst_windowdetails

#include "tst_WindowDetails.moc"
