// The Heads tab's view draws what its figure model says: the head × layer colour map's cells, the
// tooltip naming layer, head and key/value head, a line per head, one head's spectrum; without
// per-head rows it says how to get them; and `--figure heads` exports like every figure.
#include "../core/figures/KnownMatrices.h"
#include "FigureView.h"
#include "HeadView.h"
#include "TestSuite.h"

#include <QImage>
#include <QTemporaryDir>

namespace tst_headview {

using namespace rankscope;

namespace {

MatrixResult head(qint64 step, int layer, MatrixType type, int h, int kv, std::initializer_list<double> sigma)
{
    MatrixResult r = test::knownMatrix(step, layer, type, sigma);
    r.head = h;
    r.kvHead = kv;
    return r;
}

RunAnalysis run()
{
    RunAnalysis run;
    run.results = {test::knownMatrix(100, 0, MatrixType::Q, {1, 1}), test::knownMatrix(100, 1, MatrixType::Q, {1, 1})};
    for (int layer = 0; layer < 2; ++layer)
        for (int h = 0; h < 2; ++h)
            run.headResults << head(100, layer, MatrixType::QK, h, 0, {double(2 + h + 2 * layer) + 0.5, 1});
    run.headResults << head(200, 1, MatrixType::QK, 0, 0, {1, 1, 1});
    sortResults(run.headResults);
    return run;
}

} // namespace

class TestHeadView : public QObject {
    Q_OBJECT
private slots:
    void heatmapCellsAndTooltip()
    {
        ViewState state;
        state.setRun(run(), QStringLiteral("heads"));
        state.setCurrentStep(100);
        HeadView view(&state);
        view.resize(700, 450);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.noDataMessage().isEmpty());
        const HeadHeatmap &f = view.heatmap();
        QCOMPARE(f.layers, (QList<int>{0, 1}));
        QCOMPARE(f.heads, (QList<int>{0, 1}));
        // Stable rank of {c, 1} is (c² + 1) / c²: c = 5.5 for layer 1, head 1.
        QCOMPARE(f.values[1][1], (5.5 * 5.5 + 1) / (5.5 * 5.5));
        QCustomPlot *plot = view.plot();
        const QPoint cell(int(plot->xAxis->coordToPixel(1)), int(plot->yAxis->coordToPixel(1)));
        QCOMPARE(view.tooltipAt(cell), QStringLiteral("layer 1 \u00b7 head 1 (K/V head 0) \u00b7 QK: Stable rank 1.033"));
    }

    void linesAndSpectrum()
    {
        ViewState state;
        state.setRun(run(), QStringLiteral("heads"));
        state.setCurrentStep(100);
        HeadView view(&state);
        view.setLayer(1);
        view.setMode(HeadView::Mode::Lines);
        QCOMPARE(view.plot()->graphCount(), 2);
        QCOMPARE(view.plot()->graph(0)->dataCount(), 2); // head 0 at steps 100 and 200
        view.setMode(HeadView::Mode::Spectrum);
        view.setHead(1);
        QVERIFY(view.spectrumRow());
        QCOMPARE(view.plot()->graph(0)->dataCount(), 2);
        QCOMPARE(view.plot()->graph(0)->data()->at(0)->value, 5.5);
    }

    void withoutHeadsSaysWhy()
    {
        ViewState state;
        RunAnalysis plain = run();
        plain.headResults.clear();
        state.setRun(plain, QStringLiteral("plain"));
        HeadView view(&state);
        QVERIFY2(view.noDataMessage().contains("--heads"), qPrintable(view.noDataMessage()));
    }

    void exportsLikeEveryFigure()
    {
        ViewState state;
        state.setRun(run(), QStringLiteral("heads"));
        QCOMPARE(*figureOfName("heads"), FigureKind::Heads);
        FigureView figure(&state, FigureKind::Heads);
        QTemporaryDir dir;
        const QString path = dir.filePath("heads.png");
        QString error;
        QVERIFY2(figure.exportTo(path, FigureSize::fromPixels(800, 500, 1), &error), qPrintable(error));
        QCOMPARE(QImage(path).size(), QSize(800, 500));
    }
};

RANKSCOPE_TEST_MAIN(TestHeadView)
} // namespace tst_headview

#include "tst_HeadView.moc"
