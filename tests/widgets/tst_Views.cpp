// The four views on the demo run, offscreen: what they draw, the values at known points against
// the expected CSV, filtering, hover tooltips, the step slider and click-to-spectrum.
#include "analysis/execution/RunAnalyzer.h"
#include "DemoFixture.h"
#include "figures/ViewState.h"
#include "FigureView.h"
#include "TrainingCurveChart.h"
#include "LayerBarChart.h"
#include "MatrixPicker.h"
#include "MetricLineChart.h"
#include "PlotStyle.h"
#include "spectral/WeightWatcherMetrics.h"
#include "SpectrumView.h"
#include "TestSuite.h"
#include "TypeFilterChips.h"
#include "TypeLayerHeatmap.h"

#include <QComboBox>
#include <QMenu>
#include <QSignalSpy>
#include <QWheelEvent>
#include <QToolButton>
#include <cmath>

namespace tst_views {

using namespace rankscope;

namespace {

bool near(double a, double b, double rel = 1e-6) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }

double expectedMean(const QString &metric, qint64 step, const QString &type, const QList<int> &layers = {0, 1, 2, 3})
{
    static const auto expected = test::expectedMetrics();
    double sum = 0;
    for (int layer : layers)
        sum += expected[QStringLiteral("%1/%2/%3").arg(step).arg(layer).arg(type)][metric];
    return sum / layers.size();
}

double expectedValue(const QString &metric, qint64 step, int layer, const QString &type)
{
    static const auto expected = test::expectedMetrics();
    return expected[QStringLiteral("%1/%2/%3").arg(step).arg(layer).arg(type)][metric];
}

// The figure's background, as drawn.
QColor backgroundOf(QCustomPlot *plot) { return plot->toPixmap(120, 80).toImage().pixelColor(1, 1); }

double valueAt(QCPGraph *graph, double key)
{
    const auto it = graph->data()->findBegin(key, false);
    return it != graph->data()->constEnd() && it->key == key ? it->value : std::nan("");
}

} // namespace

class TestViews : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
    }
    void cleanup() { delete m_state; }

    // α's lines are drawn over WeightWatcher's band 2 ≤ α ≤ 6, with a legend entry; no other metric
    // gets it, and it can be turned off.
    void alphaGuideBandShadesTwoToSix()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 650);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        auto legendNames = [&] {
            QStringList names;
            for (int i = 0; i < chart.plot()->legend->itemCount(); ++i)
                if (auto *item = qobject_cast<QCPPlottableLegendItem *>(chart.plot()->legend->item(i)))
                    names << item->plottable()->name();
            return names;
        };
        QVERIFY(!chart.alphaGuideDrawn());
        chart.setMetric(Metric::Alpha);
        QVERIFY(chart.alphaGuideDrawn());
        QCOMPARE(legendNames().last(), QStringLiteral("2 \u2264 \u03b1 \u2264 6"));
        QCOMPARE(chart.visibleLines().size(), 6); // the entry is not a line
        QCPItemRect *band = nullptr;
        for (int i = 0; i < chart.plot()->itemCount(); ++i)
            if (auto *rect = qobject_cast<QCPItemRect *>(chart.plot()->item(i)))
                band = rect;
        QVERIFY(band);
        QCOMPARE(band->topLeft->coords().y(), 6.0);
        QCOMPARE(band->bottomRight->coords().y(), 2.0);
        QCOMPARE(band->layer()->name(), QStringLiteral("bands")); // under the lines
        chart.setAlphaGuide(false);
        QVERIFY(!chart.alphaGuideDrawn());
        QVERIFY(!legendNames().contains(QStringLiteral("2 \u2264 \u03b1 \u2264 6")));
        chart.setAlphaGuide(true);
        // One line per layer: the band stays, the layer colour bar replaces the legend, which gets
        // no entry of its own.
        chart.setPerLayerType(MatrixType::Q);
        QVERIFY(chart.alphaGuideDrawn());
        QVERIFY(legendNames().isEmpty());
        chart.setPerLayerType(std::nullopt);
        chart.setMetric(Metric::WeightedAlpha); // α·log10 λ_max has no such range
        QVERIFY(!chart.alphaGuideDrawn());
        QCOMPARE(legendNames().size(), 6);
    }

    void lineChartDrawsOneLinePerTypeWithTheExpectedMeans()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 650);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QCOMPARE(chart.visibleLines().size(), 6);
        QCOMPARE(chart.metric(), Metric::StableRank);
        QVERIFY(chart.title().contains("Stable rank vs training step"));
        QVERIFY(chart.title().contains("nanogpt-d4"));
        QCOMPARE(chart.plot()->xAxis->label(), QStringLiteral("Training step"));
        QCOMPARE(chart.plot()->yAxis->label(), QStringLiteral("Stable rank"));
        QCPGraph *q = chart.visibleLines().first();
        QCOMPARE(q->name(), QStringLiteral("Q"));
        QCOMPARE(q->dataCount(), 6); // a marker at every checkpoint
        QVERIFY(near(valueAt(q, 1500), expectedMean("stable_rank", 1500, "Q")));
        QVERIFY(near(valueAt(q, 0), expectedMean("stable_rank", 0, "Q")));
        QCPGraph *down = chart.visibleLines().last();
        QCOMPARE(down->name(), QString::fromUtf8("MLP\u2193"));
        QCOMPARE(down->pen().color(), QColor("#F0E442"));
        QVERIFY(near(valueAt(down, 600), expectedMean("stable_rank", 600, "MLP_DOWN")));

        m_state->setAggregate(Aggregate::Median);
        static const auto expected = test::expectedMetrics();
        QList<double> v;
        for (int l = 0; l < 4; ++l)
            v << expected[QStringLiteral("1500/%1/Q").arg(l)]["stable_rank"];
        std::sort(v.begin(), v.end());
        QVERIFY(near(valueAt(chart.visibleLines().first(), 1500), 0.5 * (v[1] + v[2])));
    }

    void typeFilterRemovesALineAndRepacksBars()
    {
        MetricLineChart lines(m_state);
        LayerBarChart bars(m_state);
        QCOMPARE(bars.group()->size(), 6);
        const double fullWidth = bars.barsOf(MatrixType::Q)->width();
        m_state->setTypeVisible(MatrixType::K, false);
        QCOMPARE(lines.visibleLines().size(), 5);
        QCOMPARE(bars.group()->size(), 5);
        QVERIFY(!bars.group()->contains(bars.barsOf(MatrixType::K)));
        QVERIFY(bars.barsOf(MatrixType::Q)->width() > fullWidth); // the five remaining bars close up
        QVERIFY(near(bars.barsOf(MatrixType::Q)->width() * 5, 0.8));

        // The chips show and change the same filter.
        TypeFilterChips chips(m_state);
        QVERIFY(!chips.chip(MatrixType::K)->isChecked());
        chips.chip(MatrixType::K)->click();
        QVERIFY(m_state->isTypeVisible(MatrixType::K));
        QCOMPARE(bars.group()->size(), 6);
        chips.chip(MatrixType::V)->click();
        QCOMPARE(lines.visibleLines().size(), 5);
    }

    void hoveringAPointShowsItsValue()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 650);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.plot()->replot();
        QCPGraph *q = chart.visibleLines().first();
        const double value = expectedMean("stable_rank", 600, "Q");
        const QPoint pixel = q->coordsToPixels(600, valueAt(q, 600)).toPoint();
        QTest::mouseMove(chart.plot(), pixel);
        QVERIFY2(chart.lastTooltip().contains("<b>Q</b> · step 600"), qPrintable(chart.lastTooltip()));
        // Four significant digits, as every tooltip has them (#42).
        QVERIFY2(chart.lastTooltip().contains(QStringLiteral("<b>%1</b>").arg(valueNumber(value))), qPrintable(chart.lastTooltip()));
        QVERIFY(chart.lastTooltip().contains("4 layers"));
        QTest::mouseMove(chart.plot(), QPoint(5, 5));
        QVERIFY(chart.lastTooltip().isEmpty());

        // Per-layer mode: one line per layer, and the tooltip names the matrix.
        chart.setPerLayerType(MatrixType::MlpUp);
        QCOMPARE(chart.visibleLines().size(), 4);
        chart.plot()->replot();
        QCPGraph *layer2 = chart.visibleLines()[2];
        QCOMPARE(layer2->name(), QStringLiteral("layer 2"));
        QTest::mouseMove(chart.plot(), layer2->coordsToPixels(1000, valueAt(layer2, 1000)).toPoint());
        QVERIFY2(chart.lastTooltip().contains("transformer.h.2.mlp.c_fc.weight [256×64]"), qPrintable(chart.lastTooltip()));
        QVERIFY(chart.lastTooltip().contains(valueNumber(expectedValue("stable_rank", 1000, 2, "MLP_UP")) + "</b>"));
    }

    // A figure on paper is a fresh copy of the view: it shows what the view shows (the metric, the
    // per-layer lines, the user's zoom) without the interaction's marks, and the view on screen is
    // left as it was.
    void paperCopyShowsTheViewAndLeavesItAlone()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 650);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setMetric(Metric::Alpha);
        chart.setPerLayerType(MatrixType::MlpUp);
        chart.plot()->replot();
        const QPoint centre = chart.plot()->axisRect()->rect().center();
        QWheelEvent wheel(centre, chart.plot()->mapToGlobal(centre), {}, {0, 120}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chart.plot(), &wheel);
        QCoreApplication::processEvents();
        QVERIFY(chart.isZoomed());
        m_state->setHighlighted(MatrixKey{0, 1500, {{}, 2, MatrixType::MlpUp, {}}});
        const QRect viewport = chart.plot()->viewport();
        const QCPRange zoomed = chart.plot()->xAxis->range();
        const double highlightedWidth = chart.visibleLines()[2]->pen().widthF();
        const std::unique_ptr<ChartView> paper = chart.paperCopy({QSize(700, 400), 11});
        auto *lines = qobject_cast<MetricLineChart *>(paper.get());
        QVERIFY(lines && lines != &chart);
        QCOMPARE(lines->metric(), Metric::Alpha);
        QCOMPARE(lines->perLayerType(), std::optional<MatrixType>(MatrixType::MlpUp));
        QCOMPARE(lines->title(), chart.title());
        QCOMPARE(lines->plot()->viewport(), QRect(0, 0, 700, 400));
        QCOMPARE(lines->plot()->xAxis->range().lower, zoomed.lower);
        QCOMPARE(lines->plot()->xAxis->range().upper, zoomed.upper);
        QCOMPARE(lines->fontSize(), 11.0);
        QVERIFY(lines->visibleLines()[2]->pen().widthF() < highlightedWidth); // no highlight on paper
        QVERIFY(!lines->figure().stepMarker);
        // The view on screen: as it was.
        QCOMPARE(chart.plot()->viewport(), viewport);
        QCOMPARE(chart.fontSize(), 9.0);
        QVERIFY(chart.isZoomed() && !chart.isPaper() && lines->isPaper());
        QCOMPARE(chart.visibleLines()[2]->pen().widthF(), highlightedWidth);
        QVERIFY(chart.figure().stepMarker);
    }

    // The wheel zooms, the zoom survives a new step and is dropped for another metric; a
    // double-click fits the data again; the crosshair reads the values under the cursor.
    void zoomSurvivesRebuildsAndResets()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 650);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.plot()->replot();
        QCPAxis *x = chart.plot()->xAxis, *y = chart.plot()->yAxis;
        const QCPRange fittedX = x->range(), fittedY = y->range();
        const QPoint centre = chart.plot()->axisRect()->rect().center();
        QWheelEvent wheel(centre, chart.plot()->mapToGlobal(centre), {}, {0, 120}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chart.plot(), &wheel);
        QCoreApplication::processEvents(); // the wheel's interaction ends
        QVERIFY(chart.isZoomed());
        const QCPRange zoomedX = x->range();
        QVERIFY(zoomedX.size() < fittedX.size() * 0.9);

        m_state->setCurrentStep(300); // a rebuild keeps what the user chose
        chart.rebuild();
        QCOMPARE(x->range().lower, zoomedX.lower);
        QCOMPARE(x->range().upper, zoomedX.upper);

        QTest::mouseMove(chart.plot(), centre);
        QVERIFY2(chart.crosshairText().startsWith("step "), qPrintable(chart.crosshairText()));
        QVERIFY(chart.crosshairText().contains("\nQ  "));

        // Sent directly: QTest's own double-click leaves its mouse state pressed for later tests.
        QMouseEvent doubleClick(QEvent::MouseButtonDblClick, centre, chart.plot()->mapToGlobal(centre), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(chart.plot(), &doubleClick);
        QVERIFY(!chart.isZoomed());
        QCOMPARE(x->range().lower, fittedX.lower);
        QCOMPARE(y->range().upper, fittedY.upper);

        QCoreApplication::sendEvent(chart.plot(), &wheel);
        QCoreApplication::processEvents();
        QVERIFY(chart.isZoomed());
        chart.setMetric(Metric::WeightedAlpha); // other numbers: fitted anew
        QVERIFY(!chart.isZoomed());
        QVERIFY(y->range().upper != fittedY.upper);
    }

    // Log y over less than two decades labels 1, 2 and 5 of each decade, not only the decades.
    void shortLogAxisLabelsMoreThanDecades()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 650);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        m_state->setLogY(true);
        chart.plot()->replot();
        QCPAxis *y = chart.plot()->yAxis;
        QVERIFY2(y->range().upper / y->range().lower < 100, "the demo's stable ranks span under two decades");
        QStringList labels;
        for (const QString &label : y->tickVectorLabels())
            labels << label;
        QVERIFY2(labels.contains("2") && labels.contains("5") && labels.contains("10") && labels.contains("20"), qPrintable(labels.join(' ')));
        m_state->setLogY(false);
    }

    // The ESD carries WeightWatcher's Marchenko–Pastur bulk: its edge λ₊ (of the fit, on λ's own
    // axis), as many spikes named as the analysis counted, and a curve
    // that is the law's density on the ESD's scale.
    void spectrumDrawsTheMarchenkoPasturBulk()
    {
        ViewState state;
        SpectrumView spectrum(&state);
        spectrum.setTail(SpectrumTail::Density); // the CCDF, the default, draws only the bulk's edge
        state.setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
        const MatrixKey key{0, 1500, {{}, 2, MatrixType::MlpUp, {}}};
        spectrum.showMatrix(key);
        const MatrixResult *r = state.find(key);
        QVERIFY(r && spectrum.bulkGraph());
        const Eigen::VectorXd lambda = r->singularValues.array().square();
        const MarchenkoPasturFit fit = fitMarchenkoPastur(lambda, r->rows, r->cols);
        QCOMPARE(fit.q, 4.0);
        QVERIFY(std::abs(spectrum.bulkEdge() - fit.bulkMax / fit.scale) <= 1e-12 * spectrum.bulkEdge());
        // The edge line and the bulk: drawn where λ₊ is, and every point of the curve on the law.
        QVERIFY(lambda.maxCoeff() > spectrum.bulkEdge() && lambda.minCoeff() < spectrum.bulkEdge());
        QVERIFY2(spectrum.bulkGraph()->name().contains(QStringLiteral("%1 spikes").arg(r->metrics.numSpikes)), qPrintable(spectrum.bulkGraph()->name()));
        QVERIFY(r->metrics.numSpikes > 0);
        const auto data = spectrum.bulkGraph()->data();
        QVERIFY(data->size() > 100);
        for (auto it = data->constBegin(); it != data->constEnd(); ++it) {
            QVERIFY(it->key <= spectrum.bulkEdge() * (1 + 1e-12));
            const double expected = fit.scale * marchenkoPasturDensity(fit.scale * it->key, fit.sigma, fit.q);
            QVERIFY2(std::abs(it->value - expected) <= 1e-6 * expected, qPrintable(QStringLiteral("%1 at %2, law %3").arg(it->value).arg(it->key).arg(expected)));
        }
    }

    // What training logged, under the lines on one step axis: shown once the run's logs are read,
    // the loss chosen first; zooming either plot moves both, and their plots start at one edge.
    void trainingCurvesUnderTheLines()
    {
        ViewState state;
        state.setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
        FigureView view(&state, FigureKind::Lines);
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.panels().size(), 1); // no logs: the lines alone, in all the room there is
        QVERIFY(!view.view<TrainingCurveChart>()->isVisible());
        QTRY_VERIFY2(view.view<MetricLineChart>()->height() > 0.85 * view.height(), qPrintable(QStringLiteral("%1 of %2").arg(view.view<MetricLineChart>()->height()).arg(view.height())));
        ScalarLog log;
        log.add(QStringLiteral("learning_rate"), QStringLiteral("trainer_state.json"), {{0, 1e-3}, {1500, 1e-4}});
        log.add(QStringLiteral("loss"), QStringLiteral("trainer_state.json"), {{0, 4}, {500, 3}, {1500, 2}});
        state.setScalarLog(log);
        QCOMPARE(view.panels().size(), 2);
        QVERIFY(view.view<TrainingCurveChart>()->isVisible());
        QTRY_VERIFY(view.view<MetricLineChart>()->height() > view.view<TrainingCurveChart>()->height()); // three fifths above two
        QCOMPARE(view.view<TrainingCurveChart>()->tag(), QStringLiteral("loss"));
        QCOMPARE(view.view<TrainingCurveChart>()->figure().series.first().markX.size(), 6); // every checkpoint marked
        view.view<MetricLineChart>()->plot()->xAxis->setRange(200, 800);
        QCOMPARE(view.view<TrainingCurveChart>()->plot()->xAxis->range(), QCPRange(200, 800));
        view.view<TrainingCurveChart>()->plot()->xAxis->setRange(100, 900);
        QCOMPARE(view.view<MetricLineChart>()->plot()->xAxis->range(), QCPRange(100, 900));
        QTRY_COMPARE(view.view<TrainingCurveChart>()->plotLeft(), view.view<MetricLineChart>()->plotLeft());
        state.setCurrentStep(600); // the slider moves the curves' mark too
        QCOMPARE(view.view<TrainingCurveChart>()->stepMarkerX(), 600.0);
        QVERIFY(view.dataCsv().contains(QStringLiteral("step,tag,value,smoothed\n0,loss,4,4\n")));
        QCOMPARE(view.view<TrainingCurveChart>()->problemsText(), QString());
        log.addProblem(QStringLiteral("runs/events.out.tfevents.1.host"), QStringLiteral("damaged record (CRC mismatch) at byte 96"));
        state.setScalarLog(log);
        QCOMPARE(view.view<TrainingCurveChart>()->problemsText(),
                 QStringLiteral("\u26a0 a problem reading the logs\nruns/events.out.tfevents.1.host: damaged record (CRC mismatch) at byte 96"));

        // One crosshair: the step read out under the cursor in either plot (the lines' nearest
        // checkpoint, the curve's nearest logged step) is read out in the other at its nearest point.
        view.view<MetricLineChart>()->plot()->xAxis->setRange(-50, 1550); // every step in sight
        view.view<MetricLineChart>()->plot()->replot();
        view.view<TrainingCurveChart>()->plot()->replot();
        const auto pixelAt = [](ChartView *chart, double step) {
            return QPoint(int(chart->plot()->xAxis->coordToPixel(step)), chart->plot()->axisRect()->rect().center().y());
        };
        QTest::mouseMove(view.view<MetricLineChart>()->plot(), pixelAt(view.view<MetricLineChart>(), 520));
        QVERIFY2(view.view<MetricLineChart>()->crosshairText().startsWith("step 600\n"), qPrintable(view.view<MetricLineChart>()->crosshairText()));
        QVERIFY2(view.view<TrainingCurveChart>()->crosshairText().startsWith("step 500\nloss  3.000 (smoothed "), qPrintable(view.view<TrainingCurveChart>()->crosshairText()));
        QTest::mouseMove(view.view<TrainingCurveChart>()->plot(), pixelAt(view.view<TrainingCurveChart>(), 1100));
        QVERIFY2(view.view<TrainingCurveChart>()->crosshairText().startsWith("step 1500\nloss  2.000 (smoothed "), qPrintable(view.view<TrainingCurveChart>()->crosshairText()));
        QVERIFY2(view.view<MetricLineChart>()->crosshairText().startsWith("step 1500\n"), qPrintable(view.view<MetricLineChart>()->crosshairText()));
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(view.view<TrainingCurveChart>()->plot(), &leave);
        QVERIFY(view.view<TrainingCurveChart>()->crosshairText().isEmpty());
        QVERIFY(view.view<MetricLineChart>()->crosshairText().isEmpty());
    }

    // One step everywhere: the Spectrum tab's Step box follows the window's slider, and a step chosen
    // in the box moves the slider.
    void spectrumStepFollowsTheSlider()
    {
        ViewState state;
        SpectrumView spectrum(&state);
        state.setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
        spectrum.showMatrix({0, 1500, {{}, 2, MatrixType::MlpUp, {}}});
        state.setCurrentStep(600);
        QCOMPARE(spectrum.matrix()->step, 600);
        QCOMPARE(spectrum.matrix()->id.layer, 2); // the same matrix, at the slider's step
        spectrum.showMatrix({0, 300, {{}, 1, MatrixType::Q, {}}});
        QCOMPARE(state.currentStep(), 300);
    }

    // With --delta, W − W₀'s singular values are drawn beside W's, both named in the legend.
    void spectrumDrawsTheChangeBesideW()
    {
        AnalysisSettings settings;
        settings.delta = true;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(RANKSCOPE_DEMO_RUN);
        ViewState state;
        SpectrumView spectrum(&state);
        state.setRun(run, QStringLiteral("nanogpt-d4"));
        const MatrixKey key{0, 1500, {{}, 1, MatrixType::V, {}}};
        spectrum.showMatrix(key);
        const MatrixResult *r = state.find(key);
        QVERIFY(r && r->deltaSingularValues.size() == 64);
        QVERIFY(spectrum.deltaGraph());
        QCOMPARE(spectrum.deltaGraph()->keyAxis()->axisRect(), spectrum.rankRect());
        const auto data = spectrum.deltaGraph()->data();
        QCOMPARE(data->size(), int((r->deltaSingularValues.array() > 0).count()));
        for (auto it = data->constBegin(); it != data->constEnd(); ++it)
            QCOMPARE(it->value, r->deltaSingularValues[Eigen::Index(it->key) - 1]);
        QStringList names;
        for (int i = 0; i < spectrum.plot()->legend->itemCount(); ++i)
            if (auto *item = qobject_cast<QCPPlottableLegendItem *>(spectrum.plot()->legend->item(i)))
                names << item->plottable()->name();
        QCOMPARE(names, (QStringList{"W, step 1500", "W \u2212 W\u2080 (change from the reference)"}));
        // The run without it: nothing of the kind.
        state.setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
        spectrum.showMatrix(key);
        QVERIFY(!spectrum.deltaGraph());
    }

    // The Spectrum tab chooses its own matrix: the first one at the last step until told
    // otherwise, any type, layer and step from its boxes, and its CSV names the matrix on each row.
    void spectrumPickerChoosesAnyMatrix()
    {
        ViewState state;
        SpectrumView spectrum(&state);
        state.setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
        QVERIFY(spectrum.matrix());
        QCOMPARE(spectrum.matrix()->step, 1500);
        QCOMPARE(spectrum.matrix()->id.type, MatrixType::Q);
        QCOMPARE(spectrum.matrix()->id.layer, 0);

        const QList<QComboBox *> boxes = spectrum.picker()->boxes(); // run, block, type, layer, expert, step
        QCOMPARE(boxes[2]->count(), 6);
        QCOMPARE(boxes[3]->count(), 4);
        QCOMPARE(boxes[5]->count(), 6);
        auto choose = [](QComboBox *box, const QVariant &data) {
            box->setCurrentIndex(box->findData(data));
            emit box->activated(box->currentIndex());
        };
        choose(boxes[2], int(MatrixType::MlpDown));
        choose(boxes[3], 2);
        choose(boxes[5], 300);
        QCOMPARE(spectrum.matrix()->id.type, MatrixType::MlpDown);
        QCOMPARE(spectrum.matrix()->id.layer, 2);
        QCOMPARE(spectrum.matrix()->step, 300);
        QVERIFY2(spectrum.title().contains("transformer.h.2.mlp.c_proj.weight"), qPrintable(spectrum.title()));
        const QStringList csv = spectrum.dataCsv().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(csv.first(), QStringLiteral("step,block,layer,type,expert,tensor,rank,singular_value,eigenvalue"));
        QCOMPARE(csv.size(), 1 + 64);
        QVERIFY2(csv[1].startsWith("300,,2,MLP_DOWN,,transformer.h.2.mlp.c_proj.weight,1,"), qPrintable(csv[1]));

        // A click elsewhere shows in the boxes.
        state.requestSpectrum({0, 600, {{}, 1, MatrixType::K, {}}});
        QCOMPARE(boxes[2]->currentData().toInt(), int(MatrixType::K));
        QCOMPARE(boxes[3]->currentData().toInt(), 1);
        QCOMPARE(boxes[5]->currentData().toLongLong(), 600);
    }

    void spectrumDefaultFollowsTheNewestStepUntilAMatrixIsChosen()
    {
        // Checkpoints arrive one at a time, as while a folder is analysed.
        const RunAnalysis demo = test::demoRun();
        QList<qint64> steps;
        for (const MatrixResult &r : demo.results)
            if (!steps.contains(r.step))
                steps.append(r.step);
        std::sort(steps.begin(), steps.end());
        ViewState state;
        SpectrumView spectrum(&state);
        RunAnalysis first = demo;
        first.results.clear();
        for (const MatrixResult &r : demo.results)
            if (r.step == steps.first())
                first.results.append(r);
        state.setRun(first, QStringLiteral("nanogpt-d4"));
        QCOMPARE(spectrum.matrix()->step, steps.first());
        for (qsizetype i = 1; i < steps.size(); ++i) {
            QList<MatrixResult> more;
            for (const MatrixResult &r : demo.results)
                if (r.step == steps[i])
                    more.append(r);
            state.addResults(more);
            QCOMPARE(spectrum.matrix()->step, steps[i]);
            if (i == 2) { // a matrix the user asks for stays, whatever arrives after
                state.requestSpectrum({0, steps[1], {{}, 1, MatrixType::V, {}}});
                QCOMPARE(spectrum.matrix()->step, steps[1]);
                break;
            }
        }
        state.addResults({});
        QCOMPARE(spectrum.matrix()->step, steps[1]);
        QCOMPARE(spectrum.matrix()->id.type, MatrixType::V);
    }

    void legendGoesWhereTheStateSays()
    {
        MetricLineChart chart(m_state);
        chart.resize(1000, 600);
        QCPLegend *legend = chart.plot()->legend;
        QCPAxisRect *rect = chart.plot()->axisRect();
        auto insideAt = [&]() -> std::optional<Qt::Alignment> {
            const auto *inset = rect->insetLayout();
            for (int i = 0; i < inset->elementCount(); ++i)
                if (inset->elementAt(i) == legend)
                    return inset->insetAlignment(i);
            return std::nullopt;
        };
        QVERIFY(!insideAt()); // auto: outside the plot (a row above it)
        QVERIFY(legend->visible());
        QCOMPARE(legend->brush(), QBrush(Qt::NoBrush));
        m_state->setLegendPosition(LegendPosition::BottomLeft);
        QCOMPARE(insideAt(), std::optional<Qt::Alignment>(Qt::AlignBottom | Qt::AlignLeft));
        QVERIFY(legend->brush().style() != Qt::NoBrush); // readable over the lines
        QVERIFY(legend->visible());
        m_state->setLegendPosition(LegendPosition::Hidden);
        QVERIFY(!legend->visible());
        m_state->setLegendPosition(LegendPosition::Below);
        QVERIFY(!insideAt());
        QVERIFY(legend->visible());
        {
            const std::unique_ptr<ChartView> paper = chart.paperCopy({QSize(1000, 600), 9}); // laid out at a size
            QCPLegend *paperLegend = paper->plot()->legend;
            QVERIFY(paperLegend->outerRect().top() >= paper->plot()->axisRect()->outerRect().bottom());
            QVERIFY(paperLegend->wrap() > 1); // entries side by side under the plot
        }
        // The Legend menu (context menu, View menu) checks the state's position as it opens.
        QMenu menu;
        addLegendMenu(&menu, m_state);
        QMenu *legendMenu = menu.actions().first()->menu();
        m_state->setLegendPosition(LegendPosition::TopRight);
        emit legendMenu->aboutToShow();
        QList<QAction *> checked;
        for (QAction *action : legendMenu->actions())
            if (action->isChecked())
                checked << action;
        QCOMPARE(checked.size(), 1);
        QCOMPARE(checked.first()->text(), legendPositionLabel(LegendPosition::TopRight));
        legendMenu->actions().last()->trigger(); // "No legend"
        QCOMPARE(m_state->legendPosition(), LegendPosition::Hidden);
        QCOMPARE(parseLegendPosition("bottom-left"), std::optional<LegendPosition>(LegendPosition::BottomLeft));
        QCOMPARE(legendPositionName(LegendPosition::Hidden), QStringLiteral("none"));
        QVERIFY(!parseLegendPosition("middle"));
    }

    void darkThemeColoursTheFrameNotTheData()
    {
        MetricLineChart chart(m_state);
        LayerBarChart bars(m_state);
        const QColor qColour = chart.visibleLines().first()->pen().color();
        m_state->setDarkTheme(true);
        for (ChartView *view : std::initializer_list<ChartView *>{&chart, &bars}) {
            QCOMPARE(backgroundOf(view->plot()), PlotStyle::Theme::darkTheme().background);
            QCOMPARE(view->plot()->xAxis->tickLabelColor(), PlotStyle::Theme::darkTheme().ink);
            QCOMPARE(view->plot()->legend->item(0)->textColor(), PlotStyle::Theme::darkTheme().text);
        }
        QCOMPARE(chart.visibleLines().first()->pen().color(), qColour); // Okabe–Ito in both themes
        TypeLayerHeatmap heatmap(m_state, Metric::StableRank); // made while the theme is dark
        QCOMPARE(heatmap.colorScale()->axis()->labelColor(), PlotStyle::Theme::darkTheme().ink);
        QCOMPARE(heatmap.colorScale()->axis()->tickLabelColor(), PlotStyle::Theme::darkTheme().ink);
        QCOMPARE(heatmap.plot()->yAxis->tickLabelColor(), PlotStyle::Theme::darkTheme().ink);
        // An export is light unless it asks; the view on screen keeps the window's theme.
        const std::unique_ptr<ChartView> light = chart.paperCopy({QSize(800, 500), 9});
        QCOMPARE(backgroundOf(light->plot()), PlotStyle::Theme::paper().background);
        QCOMPARE(light->plot()->legend->item(0)->textColor(), PlotStyle::Theme::paper().text);
        QCOMPARE(backgroundOf(chart.plot()), PlotStyle::Theme::darkTheme().background);
        QCOMPARE(backgroundOf(chart.paperCopy({QSize(800, 500), 9, true})->plot()), PlotStyle::Theme::darkTheme().background);
        m_state->setDarkTheme(false);
        QCOMPARE(backgroundOf(chart.plot()), PlotStyle::Theme::paper().background);
    }

    void stepSliderChangesBarHeights()
    {
        LayerBarChart bars(m_state);
        bars.resize(900, 600);
        QCOMPARE(bars.metric(), Metric::CompressionPct);
        QCOMPARE(m_state->currentStep(), 1500);
        auto heightOf = [&](MatrixType type, int layer) { return bars.barsOf(type)->data()->at(layer)->value; };
        QCOMPARE(heightOf(MatrixType::Q, 0), expectedValue("compression_pct", 1500, 0, "Q"));
        m_state->setCurrentStep(300);
        QCOMPARE(heightOf(MatrixType::Q, 0), expectedValue("compression_pct", 300, 0, "Q"));
        QCOMPARE(heightOf(MatrixType::MlpDown, 3), expectedValue("compression_pct", 300, 3, "MLP_DOWN"));
        QVERIFY(bars.title().contains("at step 300"));
        m_state->stepBy(1);
        QCOMPARE(m_state->currentStep(), 600);
        QCOMPARE(heightOf(MatrixType::V, 2), expectedValue("compression_pct", 600, 2, "V"));

        // τ recomputes from the stored spectra: at 0.5 fewer directions are needed.
        const double before = heightOf(MatrixType::MlpUp, 1);
        m_state->setEnergy(0.5);
        QVERIFY(heightOf(MatrixType::MlpUp, 1) > before);
        QVERIFY(bars.plot()->yAxis->label().contains("0.50"));
    }

    void heatmapCellsHoldTheValuesAndAClickOpensTheSpectrum()
    {
        TypeLayerHeatmap heatmap(m_state, Metric::CompressionPct);
        SpectrumView spectrum(m_state);
        heatmap.resize(800, 600);
        heatmap.show();
        QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
        heatmap.plot()->replot();
        QCOMPARE(heatmap.colorMap()->data()->keySize(), 4);
        QCOMPARE(heatmap.colorMap()->data()->valueSize(), 6);
        QVERIFY(!heatmap.colorMap()->interpolate());
        QCOMPARE(heatmap.rowTypes().first(), MatrixType::Q);
        QCOMPARE(heatmap.colorMap()->data()->cell(2, 4), expectedValue("compression_pct", 1500, 2, "MLP_UP"));
        QCOMPARE(heatmap.cellTextCount(), 24);

        QSignalSpy requested(m_state, &ViewState::spectrumRequested);
        const QPoint cell = heatmap.cellCentre(MatrixType::V, 1);
        QTest::mouseMove(heatmap.plot(), cell);
        QVERIFY2(heatmap.lastTooltip().contains("V · layer 1 · step 1500"), qPrintable(heatmap.lastTooltip()));
        QTest::mouseClick(heatmap.plot(), Qt::LeftButton, Qt::NoModifier, cell);
        QCOMPARE(requested.count(), 1);
        const MatrixKey key = requested.first().first().value<MatrixKey>();
        QCOMPARE(key.id.layer, 1);
        QCOMPARE(key.id.type, MatrixType::V);
        QCOMPARE(spectrum.matrix()->id.layer, 1);
        QVERIFY(spectrum.title().contains("transformer.h.1.attn.c_attn.weight[V] [64×64]"));
        const double alpha = expectedValue("alpha", 1500, 1, "V");
        QVERIFY2(spectrum.fitLegendText().contains(QStringLiteral("α = %1").arg(alpha, 0, 'f', 2)), qPrintable(spectrum.fitLegendText()));
        // σ by rank, the eigenvalues' CCDF, the fitted law, and the legend entry of λ₊
        QCOMPARE(spectrum.plot()->graphCount(), 4);
        spectrum.setOverlayFirstStep(true);
        QCOMPARE(spectrum.plot()->graphCount(), 6);
        spectrum.setOverlayFirstStep(false);
        spectrum.setTail(SpectrumTail::Density); // the eigenvalue density and the MP bulk (which names λ₊) instead
        QCOMPARE(spectrum.plot()->graphCount(), 4);
    }

    void heatmapWorksForOneLayerAndShowsNaNDistinctly()
    {
        m_state->setLayerRange({2, 2});
        TypeLayerHeatmap heatmap(m_state, Metric::Alpha);
        QCOMPARE(heatmap.colorMap()->data()->keySize(), 1);
        QCOMPARE(heatmap.columnLayers(), QList<int>{2});
        QVERIFY(heatmap.colorMap()->gradient().nanHandling() == QCPColorGradient::nhNanColor);
        // A run with a zero matrix: its alpha is NaN and the cell keeps the NaN colour.
        RunAnalysis run = test::demoRun();
        for (MatrixResult &r : run.results)
            if (r.step == 1500 && r.layer == 2 && r.type == MatrixType::O) {
                r.singularValues.setZero();
                r.metrics = computeSpectralMetrics(r.singularValues, r.rows, r.cols);
            }
        m_state->setRun(run, "zeroed");
        QVERIFY(std::isnan(heatmap.colorMap()->data()->cell(0, 3)));
    }

    void selectingInOneViewHighlightsInAnother()
    {
        LayerBarChart bars(m_state);
        MetricLineChart lines(m_state);
        TypeLayerHeatmap heatmap(m_state, Metric::CompressionPct);
        const QPen normal = bars.barsOf(MatrixType::O)->pen();
        const double lineWidth = lines.visibleLines()[3]->pen().widthF();
        QVERIFY(!heatmap.isHighlightShown());
        // A click on an O cell of the heatmap selects that matrix everywhere.
        heatmap.resize(800, 600);
        heatmap.show();
        QVERIFY(QTest::qWaitForWindowExposed(&heatmap));
        heatmap.plot()->replot();
        QTest::mouseClick(heatmap.plot(), Qt::LeftButton, Qt::NoModifier, heatmap.cellCentre(MatrixType::O, 1));
        QCOMPARE(m_state->highlighted()->id.layer, 1);
        QVERIFY(heatmap.isHighlightShown());
        QVERIFY(bars.barsOf(MatrixType::O)->pen().widthF() > normal.widthF());
        QVERIFY(lines.visibleLines()[3]->pen().widthF() > lineWidth);
    }
};

RANKSCOPE_TEST_MAIN(TestViews)
} // namespace tst_views

#include "tst_Views.moc"
