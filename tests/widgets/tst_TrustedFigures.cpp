// The pictures a researcher is to trust, checked by geometry and values on the demo run: bars on a
// log axis reach their values, the crosshair reads the data at the nearest step and goes when what
// it read goes, a new run is fitted anew, a figure without data says why, the heatmaps' colours
// follow the step shown (one range at every step when asked), and each heatmap panel keeps its own title.
#include "DemoFixture.h"
#include "figures/ViewState.h"
#include "FigureView.h"
#include "HeadView.h"
#include "LayerBarChart.h"
#include "MetricLineChart.h"
#include "TestSuite.h"
#include "TypeLayerHeatmap.h"

#include <QImage>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <cmath>

namespace tst_trustedfigures {

using namespace rankscope;

namespace {

bool near(double a, double b, double rel = 1e-6) { return std::abs(a - b) <= rel * std::max(1.0, std::abs(b)); }

// Each visible bar's top, mapped back through the value axis, against the value it stands for.
void checkBarTops(const LayerBarChart &chart)
{
    QCPAxis *y = chart.plot()->yAxis;
    for (const BarSeries &series : chart.figure().series) {
        QCPBars *bars = chart.barsOf(series.type);
        if (!series.visible)
            continue;
        for (int i = 0; i < int(series.values.size()); ++i) {
            const double value = series.values[i].value;
            const double top = bars->dataPixelPosition(i).y();
            QVERIFY2(near(y->pixelToCoord(top), value), qPrintable(QStringLiteral("%1 layer %2: top at %3, value %4").arg(displayLabel(series.type)).arg(i).arg(y->pixelToCoord(top)).arg(value)));
            // Compression is at most 100 %: its bar stays under the 100 gridline.
            QVERIFY(top >= y->coordToPixel(100) - 0.5);
        }
    }
}

void show(ChartView &view)
{
    view.resize(1000, 650);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.plot()->replot();
}

QPoint pixelAt(const ChartView &view, double x)
{
    return QPoint(int(std::lround(view.plot()->xAxis->coordToPixel(x))), view.plot()->axisRect()->rect().center().y());
}

} // namespace

class TestTrustedFigures : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
    }
    void cleanup() { delete m_state; }

    // A run of one checkpoint whose stable ranks differ in their 7th digit: the step stands inside
    // an axis of whole steps, and every y tick label differs from its neighbours.
    void nearlyConstantValuesGetDistinctTicks()
    {
        RunAnalysis run = test::demoRun();
        run.results.removeIf([](const MatrixResult &r) { return r.step != 1500; });
        for (MatrixResult &r : run.results)
            r.metrics.stableRank = 1.0 + 1e-7 * (r.layer + 1) * (int(r.type) + 1);
        m_state->setRun(run, QStringLiteral("one step"));
        MetricLineChart lines(m_state);
        show(lines);
        const QCPRange x = lines.plot()->xAxis->range();
        QVERIFY2(x.lower <= 1500 - 1 && x.upper >= 1500 + 1, qPrintable(QStringLiteral("%1 … %2").arg(x.lower).arg(x.upper)));
        const QVector<QString> labels = lines.plot()->yAxis->tickVectorLabels();
        QVERIFY(labels.size() >= 2);
        for (int i = 1; i < labels.size(); ++i)
            QVERIFY2(labels[i] != labels[i - 1], qPrintable(QStringList(labels.begin(), labels.end()).join(", ")));
    }

    // On a log axis each bar stands on the axis' lower bound and its top is its value, at any zoom;
    // the lines' log switch leaves the bars linear, and the other way round.
    void logBarsReachTheirValues()
    {
        LayerBarChart bars(m_state);
        MetricLineChart lines(m_state);
        show(bars);
        m_state->setLogY(true);
        QVERIFY(lines.figure().logY && !bars.figure().logY);
        QCOMPARE(bars.plot()->yAxis->scaleType(), QCPAxis::stLinear);
        m_state->setLogY(false);
        m_state->setLogYBars(true);
        bars.plot()->replot();
        QVERIFY(bars.figure().logY && !lines.figure().logY);
        QCOMPARE(bars.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
        checkBarTops(bars);
        QCPBars *q = bars.barsOf(MatrixType::Q);
        QCOMPARE(q->baseValue(), bars.plot()->yAxis->range().lower);
        // Zoomed out, the bars still stand on the (lower) axis bound and still reach their values.
        const QCPRange range = bars.plot()->yAxis->range();
        bars.plot()->yAxis->setRange(range.lower / 4, range.upper * 2);
        bars.plot()->replot();
        QCOMPARE(q->baseValue(), range.lower / 4);
        checkBarTops(bars);
        m_state->setLogYBars(false);
        bars.plot()->replot();
        QCOMPARE(bars.barsOf(MatrixType::Q)->baseValue(), 0.0); // the rebuild drew new bars
        checkBarTops(bars);
    }

    // The readout snaps to the nearest checkpoint and lists every visible line's value there, as
    // the figure computes it at the axis shown; it goes when the mouse leaves, and on a new run,
    // metric, step or zoom.
    void crosshairReadsTheNearestStepAndClears()
    {
        MetricLineChart chart(m_state);
        show(chart);
        auto readoutAt = [&](double x) {
            QTest::mouseMove(chart.plot(), pixelAt(chart, x));
            return chart.crosshairText();
        };
        const QString text = readoutAt(898.99);
        QVERIFY2(text.startsWith("step 1000\nQ  "), qPrintable(text));
        QVERIFY(!text.contains("898"));
        const QCPRange y = chart.plot()->yAxis->range();
        QCOMPARE(text, chart.figure().readoutAt(1000, *m_state, AxisRange{y.lower, y.upper})->text());
        QCOMPARE(text.count('\n'), 6); // the step and six types

        RunAnalysis other = test::demoRun();
        other.results.erase(std::remove_if(other.results.begin(), other.results.end(), [](const MatrixResult &r) { return r.step > 300; }),
                            other.results.end());
        m_state->setRun(other, QStringLiteral("shorter"));
        QVERIFY2(chart.crosshairText().isEmpty(), qPrintable(chart.crosshairText()));
        QVERIFY(readoutAt(250).startsWith("step 300\n")); // the new run's steps

        chart.setMetric(Metric::EffectiveRank);
        QVERIFY(chart.crosshairText().isEmpty());
        QVERIFY(!readoutAt(150).isEmpty());
        m_state->setCurrentStep(100);
        QVERIFY(chart.crosshairText().isEmpty());
        QVERIFY(!readoutAt(160).isEmpty()); // another pixel: a move to the same one is no move
        chart.plot()->xAxis->setRange(0, 200);
        QVERIFY(chart.crosshairText().isEmpty());
        QVERIFY(!readoutAt(150).isEmpty());
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(chart.plot(), &leave);
        QVERIFY(chart.crosshairText().isEmpty());
    }

    // A new run drops the old one's zoom: its axes fit the new data.
    void aNewRunIsFittedAnew()
    {
        MetricLineChart chart(m_state);
        show(chart);
        const QPoint centre = chart.plot()->axisRect()->rect().center();
        QWheelEvent wheel(centre, chart.plot()->mapToGlobal(centre), {}, {0, 120}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chart.plot(), &wheel);
        QCoreApplication::processEvents();
        QVERIFY(chart.isZoomed());
        m_state->setRun(test::demoRun(), QStringLiteral("another"));
        QVERIFY(!chart.isZoomed());
        const AxisRange fitted = *chart.figure().yRange;
        QCOMPARE(chart.plot()->yAxis->range().lower, fitted.lower);
        QCOMPARE(chart.plot()->yAxis->range().upper, fitted.upper);
    }

    // A run of one checkpoint: its step axis is labelled at whole steps (never "-0.9 … 1" around
    // step 0), and at step 0 only that step is labelled.
    void oneCheckpointIsLabelledAtWholeSteps()
    {
        for (const qint64 step : {qint64(0), qint64(1500)}) {
            RunAnalysis one = test::demoRun();
            one.results.removeIf([step](const MatrixResult &r) { return r.step != step; });
            m_state->setRun(one, QStringLiteral("one"));
            MetricLineChart chart(m_state);
            show(chart);
            QStringList labels;
            const QVector<double> ticks = chart.plot()->xAxis->tickVector();
            for (qsizetype i = 0; i < ticks.size(); ++i)
                if (chart.plot()->xAxis->range().contains(ticks[i])) {
                    QCOMPARE(ticks[i], std::round(ticks[i]));
                    labels << chart.plot()->xAxis->tickVectorLabels()[i];
                }
            if (step == 0)
                QCOMPARE(labels, QStringList{"0"});
            else
                QVERIFY2(labels.contains("1500"), qPrintable(labels.join(' ')));
        }
    }

    // A metric the run was not analysed for: no empty axes, colour bars or legend, but the reason
    // and the menu item that computes it, in the plot; the next metric draws as usual.
    void aFigureWithoutDataSaysWhy()
    {
        MetricLineChart chart(m_state);
        TypeLayerHeatmap heatmap(m_state, Metric::DeltaStableRank);
        LayerBarChart bars(m_state);
        show(chart);
        chart.setMetric(Metric::DeltaStableRank);
        bars.setMetric(Metric::DeltaStableRank);
        for (ChartView *view : std::initializer_list<ChartView *>{&chart, &heatmap, &bars}) {
            QVERIFY2(view->noDataMessage().startsWith(QStringLiteral("W \u2212 W\u2080 was not computed: Analysis \u25b8 Also compute the change from the first checkpoint")),
                     qPrintable(view->noDataMessage()));
            QVERIFY(!view->plot()->xAxis->visible() && !view->plot()->yAxis->visible());
            QVERIFY(!view->plot()->legend->visible());
        }
        QVERIFY(!heatmap.colorScale()->visible());
        // Nor a plottable over the message: a colour map without data draws its NaN grey there.
        HeadView heads(m_state);
        QVERIFY(heads.noDataMessage().startsWith(QStringLiteral("Per-head spectra were not computed")));
        for (ChartView *view : std::initializer_list<ChartView *>{&heatmap, &heads})
            for (int i = 0; i < view->plot()->plottableCount(); ++i)
                QVERIFY(!view->plot()->plottable(i)->visible());
        chart.setMetric(Metric::StableRank);
        QVERIFY(chart.noDataMessage().isEmpty());
        QVERIFY(chart.plot()->xAxis->visible() && chart.plot()->yAxis->visible() && chart.plot()->legend->visible());
        heatmap.setMetric(Metric::Alpha);
        QVERIFY(heatmap.colorScale()->visible());
        QVERIFY(heatmap.plot()->plottable(0)->visible());
    }

    // The colours span the step shown by default: each step fits its own range; "all steps"
    // keeps one range at every step; ends set by hand are the bar's ends. Whatever they span, the
    // colour bar names the metric only (the header's choice says what the range is).
    void heatmapColoursFollowTheStepShown()
    {
        TypeLayerHeatmap heatmap(m_state, Metric::StableRank);
        show(heatmap);
        QCOMPARE(heatmap.colourRange().fit, HeatmapColourRange::Fit::ShownStep);
        QSet<double> uppers;
        for (qint64 step : m_state->steps()) {
            m_state->setCurrentStep(step);
            uppers << heatmap.colorMap()->dataRange().upper;
            QCOMPARE(heatmap.colorScale()->axis()->label(), QStringLiteral("Stable rank"));
        }
        QVERIFY(uppers.size() > 1);
        heatmap.setColourRange({HeatmapColourRange::Fit::AllSteps, {}, {}});
        QList<QCPRange> ranges;
        for (qint64 step : m_state->steps()) {
            m_state->setCurrentStep(step);
            ranges << heatmap.colorMap()->dataRange();
            QCOMPARE(heatmap.colorScale()->axis()->label(), QStringLiteral("Stable rank"));
        }
        for (const QCPRange &range : ranges)
            QVERIFY(range == ranges.first());
        for (double upper : uppers)
            QVERIFY(upper <= ranges.first().upper);
        heatmap.setColourRange({HeatmapColourRange::Fit::AllSteps, 1.0, 20.0});
        QCOMPARE(heatmap.colorMap()->dataRange(), QCPRange(1, 20));
        QCOMPARE(heatmap.colorScale()->axis()->label(), QStringLiteral("Stable rank"));
    }

    // Each heatmap panel keeps the title of its own metric; panel titles set each; a figure title
    // goes above both panels and is drawn in a strip of its own.
    void heatmapPanelsKeepTheirOwnTitles()
    {
        FigureView view(m_state, FigureKind::Heatmaps);
        const QList<TypeLayerHeatmap *> panels = view.viewsOf<TypeLayerHeatmap>();
        QCOMPARE(panels.size(), 2);
        QVERIFY(panels[0]->title().startsWith("Compression %"));
        QVERIFY(panels[1]->title().startsWith(QStringLiteral("Weighted \u03b1")));
        view.setPanelTitles({QString(), "Heavy tails"});
        QVERIFY(panels[0]->title().startsWith("Compression %"));
        QCOMPARE(panels[1]->title(), QStringLiteral("Heavy tails"));
        QTemporaryDir dir;
        QString error;
        const FigureSize size = *FigureSize::preset("two-column");
        QVERIFY2(view.exportTo(dir.filePath("plain.png"), size, &error), qPrintable(error));
        QVERIFY2(view.exportTo(dir.filePath("titled.png"), size, &error, "D4 Spectral Properties"), qPrintable(error));
        const QImage plain(dir.filePath("plain.png")), titled(dir.filePath("titled.png"));
        // The figure title's strip: ink at its centre, between the two panels, where the untitled
        // figure has none (each panel's title is centred on its own half).
        auto inkInRow = [](const QImage &image, int y) {
            int ink = 0;
            for (int x = int(image.width() * 0.495); x < int(image.width() * 0.505); ++x)
                ink += qGray(image.pixel(x, y)) < 128;
            return ink;
        };
        int titledInk = 0, plainInk = 0;
        const int strip = int(size.pixelSize().height() * 0.03);
        for (int y = 0; y < strip; ++y) {
            titledInk += inkInRow(titled, y);
            plainInk += inkInRow(plain, y);
        }
        QVERIFY2(titledInk > 5 && plainInk == 0, qPrintable(QStringLiteral("%1 %2").arg(titledInk).arg(plainInk)));
    }
};

RANKSCOPE_TEST_MAIN(TestTrustedFigures)
} // namespace tst_trustedfigures

#include "tst_TrustedFigures.moc"
