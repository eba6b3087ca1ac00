// The values printed in heatmap cells, one code for the type × layer heatmaps, the rank plan's and
// the Heads tab's head × layer heatmap: rounded by size, never "-0.00", and never wider than their
// cell (a smaller font, or none, rather than values running into each other); and the window's type
// chips, which choose the types of the lines, bars and heatmaps, are disabled on the tabs they do
// not change.
#include "../core/figures/KnownMatrices.h"
#include "AnalysisController.h"
#include "HeadView.h"
#include "HeatmapCells.h"
#include "MainWindow.h"
#include "TestSuite.h"

#include <QSignalSpy>
#include <QTabWidget>
#include <QRegularExpression>

namespace tst_heatmapcells {

using namespace rankscope;

namespace {

// A QK head of its own stable rank (set after the spectrum's, to reach values no spectrum gives).
MatrixResult head(int layer, int h, double stableRank)
{
    MatrixResult r = test::knownMatrix(100, layer, MatrixType::QK, {2, 1});
    r.head = h;
    r.kvHead = 0;
    r.metrics.stableRank = stableRank;
    return r;
}

RunAnalysis runOf(const QList<double> &values)
{
    RunAnalysis run;
    for (qsizetype i = 0; i < values.size(); ++i) {
        if (i % 2 == 0) // the layer's whole matrix: the run's layers are the whole matrices'
            run.results << test::knownMatrix(100, int(i / 2), MatrixType::Q, {1, 1});
        run.headResults << head(int(i / 2), int(i % 2), values[i]);
    }
    sortResults(run.headResults);
    return run;
}

QList<QCPItemText *> cellTexts(QCustomPlot *plot)
{
    QList<QCPItemText *> texts;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto *text = qobject_cast<QCPItemText *>(plot->item(i)))
            texts << text;
    return texts;
}

} // namespace

class TestHeatmapCells : public QObject {
    Q_OBJECT
private slots:
    void valueText_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("small") << 1.2345 << "1.23";
        QTest::newRow("tens") << 12.345 << "12.3";
        QTest::newRow("hundreds") << -123.4 << "-123";
        QTest::newRow("negative zero") << -0.0 << "0.00";
        QTest::newRow("rounds to -0.00") << -0.004 << "0.00";
        QTest::newRow("rounds to 0.00") << 0.004 << "0.00";
        QTest::newRow("none") << std::nan("") << "–";
    }
    void valueText()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(HeatmapCellTexts::valueText(value), text);
    }

    // The Heads tab's heatmap prints every cell's value as the type × layer heatmaps do, each text
    // inside its cell.
    void headHeatmapPrintsItsValues_data()
    {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("printed");
        QTest::newRow("roomy") << QList<double>{1.2345, -0.004, 12.5, 3} << QSize(700, 450) << 4;
        QTest::newRow("wide values") << QList<double>{-12345.6, 99999, 1, 2} << QSize(300, 260) << 4;
        QTest::newRow("wider than 88.8") << QList<double>(16, -12345.6) << QSize(500, 300) << 16; // 8 layers
        QTest::newRow("no room") << QList<double>(40, -12345.6) << QSize(400, 260) << 0; // 20 layers
    }
    void headHeatmapPrintsItsValues()
    {
        QFETCH(QList<double>, values);
        QFETCH(QSize, size);
        QFETCH(int, printed);
        ViewState state;
        state.setRun(runOf(values), QStringLiteral("heads"));
        HeadView view(&state);
        view.resize(size);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.plot()->replot();
        QCOMPARE(view.cellTextCount(), printed);
        const QList<QCPItemText *> texts = cellTexts(view.plot());
        QCOMPARE(texts.size(), printed);
        const QSizeF cell = HeatmapCellTexts::cellSize(view.plot());
        const HeadHeatmap &f = view.heatmap();
        for (QCPItemText *text : texts) {
            const int x = int(std::lround(text->position->coords().x())), y = int(std::lround(text->position->coords().y()));
            const double v = f.values[y][x]; // as printed, or rounded to fewer decimals to fit
            QVERIFY2(text->text() == HeatmapCellTexts::valueText(v) || text->text() == HeatmapCellTexts::valueText(v, 1)
                         || text->text() == HeatmapCellTexts::valueText(v, 2),
                     qPrintable(text->text()));
            QVERIFY(!QRegularExpression(QStringLiteral(R"(^-0(\.0*)?$)")).match(text->text()).hasMatch());
            QVERIFY2(QFontMetricsF(text->font()).horizontalAdvance(text->text()) < cell.width(), qPrintable(text->text()));
        }
        // Another mode takes the values off.
        view.setMode(HeadView::Mode::Lines);
        QCOMPARE(view.cellTextCount(), 0);
        QCOMPARE(cellTexts(view.plot()).size(), 0);
    }

    void typeChipsOnlyWhereTheyAct()
    {
        MainWindow window;
        QSignalSpy finished(window.controller(), &AnalysisController::finished);
        window.openPath(QStringLiteral(RANKSCOPE_DEMO_RUN));
        QVERIFY(finished.wait(30000));
        auto *chips = window.findChild<QWidget *>("typeChips");
        QVERIFY(chips);
        for (int tab = 0; tab < window.tabs()->count(); ++tab) {
            window.tabs()->setCurrentIndex(tab);
            const std::optional<FigureKind> kind = window.tabKind(tab);
            const bool acts = kind == FigureKind::Lines || kind == FigureKind::Bars || kind == FigureKind::Heatmaps;
            QVERIFY2(chips->isEnabled() == acts, qPrintable(window.tabs()->tabText(tab)));
        }
    }
};

RANKSCOPE_TEST_MAIN(TestHeatmapCells)
} // namespace tst_heatmapcells

#include "tst_HeatmapCells.moc"
