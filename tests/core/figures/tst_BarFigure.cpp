// The per-layer bars as numbers, without a widget: a run at one step whose stable ranks are known
// by hand (stable rank = Σσ² / σ₁²), K's layer 1 split into two experts.
#include "figures/BarFigure.h"
#include "KnownMatrices.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_barfigure {

using namespace rankscope;

namespace {

MatrixResult matrix(int layer, MatrixType type, std::initializer_list<double> sigma, const QString &expert = {})
{
    return test::knownMatrix(100, layer, type, sigma, {}, expert);
}

// Stable ranks: Q 3 and 1.25 (layers 0, 1); K 1, and experts of 2 and 4 (mean 3) in layer 1.
RunAnalysis smallRun()
{
    RunAnalysis run;
    run.results = {matrix(0, MatrixType::Q, {1, 1, 1}), matrix(1, MatrixType::Q, {2, 1}), matrix(0, MatrixType::K, {2, 0}),
                   matrix(1, MatrixType::K, {1, 1}, QStringLiteral("0")), matrix(1, MatrixType::K, {1, 1, 1, 1}, QStringLiteral("1"))};
    sortResults(run.results);
    return run;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

} // namespace

class TestBarFigure : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

    BarFigure build(Metric metric = Metric::StableRank, int run = 0) const { return BarFigureBuilder(*m_state, metric, run).build(); }

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(smallRun(), QStringLiteral("small"));
    }
    void cleanup() { delete m_state; }

    // A bar per type in each layer; a layer of several experts shows their mean with whiskers to
    // the smallest and largest, which start where the first such layer is.
    void barsAreTheCellsWithTheExpertsSpread()
    {
        const BarFigure figure = build();
        QCOMPARE(figure.step, qint64(100));
        QCOMPARE(figure.series.size(), 2);
        const BarSeries &q = figure.series[0], &k = figure.series[1];
        QCOMPARE(q.type, MatrixType::Q);
        QCOMPARE(q.layers, (QList<double>{0, 1}));
        QVERIFY(near(q.values[0].value, 3) && near(q.values[1].value, 1.25));
        QVERIFY(!q.hasSpread());
        QVERIFY(near(k.values[0].value, 1) && near(k.values[1].value, 3));
        QVERIFY(k.hasSpread());
        QVERIFY(std::isnan(k.spreadBelow[0]) && std::isnan(k.spreadAbove[0]));
        QVERIFY(near(k.spreadBelow[1], 1) && near(k.spreadAbove[1], 1));
        QCOMPARE(figure.barWidth, 0.4);
        QCOMPARE(figure.title, QStringLiteral("Stable rank by layer at final step 100 — mean of experts (whiskers: min–max), small"));
        QCOMPARE(figure.xRange, (AxisRange{-0.6, 1.6}));
    }

    // The value axis holds every cell and whisker from zero, 8 % above; compression is 0–100 %; a
    // logarithmic axis pads by a factor of 1.5.
    void valueRangeHoldsCellsAndWhiskers()
    {
        BarFigure figure = build();
        QVERIFY(figure.yRange && near(figure.yRange->lower, 0) && near(figure.yRange->upper, 4 * 1.08));
        QCOMPARE(build(Metric::CompressionPct).yRange, (AxisRange{0, 100}));
        m_state->setLogY(true); // the lines' log axis leaves the bars linear
        QVERIFY(!build().logY);
        m_state->setLogYBars(true);
        figure = build();
        QVERIFY(near(figure.yRange->lower, 1 / 1.5) && near(figure.yRange->upper, 4 * 1.5));
    }

    // Bars of a metric the run was not analysed for say so, at the step shown; no range is made up.
    void barsWithoutValuesSayWhy()
    {
        const BarFigure delta = build(Metric::DeltaSpectralNorm);
        QVERIFY(!delta.yRange);
        QVERIFY2(delta.noData.startsWith(QStringLiteral("W \u2212 W\u2080 was not computed: Analysis \u25b8 Also compute the change")), qPrintable(delta.noData));
        QVERIFY(build().noData.isEmpty());
    }

    // A hidden type leaves the group (the others widen), the range and the whiskers.
    void hiddenTypesLeaveTheGroup()
    {
        m_state->setTypeVisible(MatrixType::K, false);
        const BarFigure figure = build();
        QVERIFY(!figure.series[1].visible && !figure.series[1].hasSpread());
        QCOMPARE(figure.barWidth, 0.8);
        QVERIFY(near(figure.yRange->upper, 3 * 1.08));
        QCOMPARE(figure.title, QStringLiteral("Stable rank by layer at final step 100 — small"));
    }

    // Layers are labelled by number, or by their share of depth; the highlighted matrix's type is marked.
    void ticksAndHighlight()
    {
        QCOMPARE(build().layerTicks.value(1), QStringLiteral("1"));
        m_state->setRelativeDepth(true);
        BarFigure figure = build();
        QCOMPARE(figure.layerTicks.value(0), QStringLiteral("0.00"));
        QCOMPARE(figure.layerTicks.value(1), QStringLiteral("1.00"));
        QCOMPARE(figure.xLabel, QStringLiteral("Relative depth (layer / (depth − 1))"));
        m_state->setHighlighted(MatrixKey{0, 100, {{}, 0, MatrixType::Q, {}}});
        figure = build();
        QVERIFY(figure.series[0].highlighted && !figure.series[1].highlighted);
        // On paper nothing marks what was clicked in the window.
        const BarFigure paper = BarFigureBuilder(*m_state, Metric::StableRank, 0, {false, true}).build();
        QVERIFY(!paper.series[0].highlighted && !paper.series[1].highlighted);
    }

    // Without a title (under a paper's caption) the layer axis says the step, the value axis the
    // experts' mean that the title said; with one, the axes say only what they show.
    void untitledBarsSayTheStepOnTheLayerAxis()
    {
        BarFigure figure = BarFigureBuilder(*m_state, Metric::StableRank, 0, {false, false}).build();
        QCOMPARE(figure.xLabel, QStringLiteral("Layer (final step)"));
        QCOMPARE(figure.yLabel, QStringLiteral("Stable rank (mean of experts, whiskers min–max)"));
        m_state->setTypeVisible(MatrixType::K, false); // no whiskers left
        figure = BarFigureBuilder(*m_state, Metric::CompressionPct, 0, {false, false}).build();
        QCOMPARE(figure.yLabel, QStringLiteral("Compression % (τ = 0.90)"));
        figure = BarFigureBuilder(*m_state, Metric::StableRank, 0, {false, true}).build();
        QCOMPARE(figure.xLabel, QStringLiteral("Layer"));
        QCOMPARE(figure.yLabel, QStringLiteral("Stable rank"));
    }

    // A layer's group of bars spans 80 % of its slot at any width, so no group reaches into the
    // next layer's nor past the plot's ends; its bars are a pixel apart while each keeps 3 px,
    // touching when thinner, and lose their outline under 4 px.
    void barGeometryFitsTheSlot()
    {
        for (int n = 1; n <= 8; ++n)
            for (double slot : {2.0, 4.0, 8.0, 12.0, 15.4, 20.0, 40.0, 80.0, 200.0}) {
                const BarGeometry g = BarGeometry::of(n, slot);
                const QString what = QStringLiteral("%1 bars in %2 px").arg(n).arg(slot);
                QVERIFY2(g.barWidth > 0, qPrintable(what));
                QVERIFY2(std::abs(n * g.barWidth + (n - 1) * g.spacing - 0.8) < 1e-12, qPrintable(what));
                const double barPixels = g.barWidth * slot;
                if (g.spacing > 0)
                    QVERIFY2(n > 1 && std::abs(g.spacing * slot - 1) < 1e-12 && barPixels >= 3 - 1e-12, qPrintable(what));
                else
                    QVERIFY2(n == 1 || (0.8 * slot - (n - 1)) / n < 3, qPrintable(what)); // a pixel between them would leave less than 3
                QCOMPARE(g.outlined, barPixels >= 4);
            }
        QCOMPARE(BarGeometry::of(6, 0).barWidth, 0.8 / 6); // not laid out yet: the figure's share
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestBarFigure)
} // namespace tst_barfigure

#include "tst_BarFigure.moc"
