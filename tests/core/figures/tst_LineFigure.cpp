// The line chart's figure as numbers, without a widget: a small run whose stable ranks are known
// by hand (stable rank = Σσ² / σ₁²), two steps, two layers, two types.
#include "figures/LineFigure.h"
#include "KnownMatrices.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_linefigure {

using namespace rankscope;

namespace {

MatrixResult matrix(qint64 step, int layer, MatrixType type, std::initializer_list<double> sigma)
{
    return test::knownMatrix(step, layer, type, sigma);
}

// Stable ranks: Q 2, 1.25 at step 0 and 3, 1.25 at step 100 (layers 0, 1); K 1, 2 and 4, 1.
RunAnalysis smallRun()
{
    RunAnalysis run;
    run.results = {matrix(0, 0, MatrixType::Q, {1, 1}),       matrix(0, 1, MatrixType::Q, {2, 1}),
                   matrix(0, 0, MatrixType::K, {2, 0}),       matrix(0, 1, MatrixType::K, {1, 1}),
                   matrix(100, 0, MatrixType::Q, {1, 1, 1}),  matrix(100, 1, MatrixType::Q, {2, 1}),
                   matrix(100, 0, MatrixType::K, {1, 1, 1, 1}), matrix(100, 1, MatrixType::K, {2, 0})};
    sortResults(run.results);
    return run;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

const LineSeries *seriesOf(const LineFigure &figure, MatrixType type, int run = 0, int layer = -1)
{
    for (const LineSeries &s : figure.series)
        if (s.type == type && s.run == run && s.layer == layer)
            return &s;
    return nullptr;
}

} // namespace

class TestLineFigure : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

    LineFigure build(LineFigureOptions options = {}) const { return LineFigureBuilder(*m_state, options).build(); }

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(smallRun(), QStringLiteral("small"));
    }
    void cleanup() { delete m_state; }

    // One line per type: the mean over the layers at each step, with its min and max, at the step on x.
    void typeLinesAreTheMeanOverLayers()
    {
        const LineFigure figure = build();
        QCOMPARE(figure.series.size(), 2);
        const LineSeries *q = seriesOf(figure, MatrixType::Q), *k = seriesOf(figure, MatrixType::K);
        QVERIFY(q && k);
        QCOMPARE(q->x, (QList<double>{0, 100}));
        QVERIFY(near(q->points[0].value, 1.625) && near(q->points[0].min, 1.25) && near(q->points[0].max, 2));
        QVERIFY(near(q->points[1].value, 2.125) && near(q->points[1].max, 3));
        QVERIFY(near(k->points[0].value, 1.5) && near(k->points[1].value, 2.5) && near(k->points[1].max, 4));
        QVERIFY(q->inLegend && q->visible && !q->highlighted);
        QVERIFY(figure.legendShown && figure.bands && figure.runKeys.isEmpty() && !figure.layerScale);
        QCOMPARE(figure.title, QStringLiteral("Stable rank vs training step, mean of layers 0–1 — small"));
        QCOMPARE(figure.xLabel, QStringLiteral("Training step"));
    }

    // The axes fit what is drawn: the steps padded 3 % each side; values (bands included) padded 6 %,
    // never below zero for a non-negative metric; a hidden type's values leave the range.
    void rangesFitTheVisibleLinesAndBands()
    {
        LineFigure figure = build();
        QCOMPARE(figure.xRange, (AxisRange{-3, 103}));
        QVERIFY(figure.yRange && near(figure.yRange->lower, 1 - 0.18) && near(figure.yRange->upper, 4 + 0.18));
        m_state->setTypeVisible(MatrixType::K, false);
        figure = build();
        QVERIFY(!seriesOf(figure, MatrixType::K)->visible);
        QVERIFY(near(figure.yRange->lower, 1.25 - 0.105) && near(figure.yRange->upper, 3 + 0.105));
        m_state->setShowBand(false);
        figure = build();
        QVERIFY(!figure.bands);
        QVERIFY(near(figure.yRange->lower, 1.625 - 0.03) && near(figure.yRange->upper, 2.125 + 0.03));
        m_state->setRelativeStep(true);
        figure = build();
        QCOMPARE(seriesOf(figure, MatrixType::Q)->x, (QList<double>{0, 1}));
        QVERIFY(near(figure.xRange->lower, -0.03) && near(figure.xRange->upper, 1.03));
        QCOMPARE(figure.xLabel, QStringLiteral("Fraction of training (step / last step)"));
    }

    // A logarithmic axis pads by a factor, and turns values it cannot show into gaps.
    void logAxisPadsByAFactor()
    {
        m_state->setLogY(true);
        const LineFigure figure = build();
        QVERIFY(figure.logY);
        QVERIFY(near(figure.yRange->lower, 1 / 1.3) && near(figure.yRange->upper, 4 * 1.3));
        QVERIFY(std::isnan(plottedValue(0, true)) && std::isnan(plottedValue(-1, true)));
        QCOMPARE(plottedValue(0, false), 0.0);
    }

    // One type's layers: a line per layer of the first run, no legend but a colour scale over the layers.
    void perLayerLinesHaveAColourScale()
    {
        LineFigureOptions options;
        options.perLayerType = MatrixType::Q;
        const LineFigure figure = build(options);
        QCOMPARE(figure.series.size(), 2);
        const LineSeries *layer0 = seriesOf(figure, MatrixType::Q, 0, 0), *layer1 = seriesOf(figure, MatrixType::Q, 0, 1);
        QVERIFY(layer0 && layer1);
        QVERIFY(near(layer0->points[0].value, 2) && near(layer0->points[1].value, 3));
        QVERIFY(near(layer1->points[0].value, 1.25) && near(layer1->points[1].value, 1.25));
        QVERIFY(!figure.legendShown && figure.layerScale);
        QCOMPARE(figure.layerScale->range, (AxisRange{-0.5, 1.5}));
        QCOMPARE(figure.title, QStringLiteral("Stable rank of Q by layer vs training step — small"));
        QVERIFY(near(figure.yRange->lower, 1.25 - 0.105) && near(figure.yRange->upper, 3 + 0.105));
        QCOMPARE(figure.csv(*m_state).count('\n'), 1 + 4);
        QVERIFY(figure.csv(*m_state).startsWith(QStringLiteral("step,block,layer,type,stable_rank\n0,,0,Q,2\n")));
    }

    // Compared runs: each run's lines in its own dash pattern, the types listed once, a key per run,
    // no bands, and both names in the title.
    void comparedRunsGetAKeyEach()
    {
        m_state->addComparedRun(smallRun(), QStringLiteral("other"));
        const LineFigure figure = build();
        QCOMPARE(figure.series.size(), 4);
        const LineSeries *theirs = seriesOf(figure, MatrixType::K, 1);
        QVERIFY(theirs && theirs->runOrder == 1 && !theirs->inLegend);
        QVERIFY(seriesOf(figure, MatrixType::K, 0)->inLegend);
        QCOMPARE(figure.runKeys.size(), 2);
        QCOMPARE(figure.runKeys[1].name, QStringLiteral("other"));
        QCOMPARE(figure.runKeys[1].runOrder, 1);
        QVERIFY(!figure.bands);
        QCOMPARE(figure.title, QStringLiteral("Stable rank vs training step, mean of each run's layers — small vs other"));
    }

    // α gets WeightWatcher's band 2 ≤ α ≤ 6 unless it is turned off; no other metric does.
    void alphaGuideBandIsTwoToSix()
    {
        QVERIFY(!build().guideBand);
        LineFigureOptions options;
        options.metric = Metric::Alpha;
        const LineFigure alpha = build(options);
        QCOMPARE(alpha.guideBand, (AxisRange{2, 6}));
        QVERIFY(!alpha.guideLabel.isEmpty());
        options.alphaGuide = false;
        QVERIFY(!build(options).guideBand);
    }

    // On paper the bands are as visible as matplotlib's fill_between(alpha=0.2), however many types
    // share the plot; the window keeps them lighter when many do.
    void paperBandsAreAsVisibleAsMatplotlibs()
    {
        QVERIFY(build().bandAlpha < 51);
        m_state->setShowBand(true);
        LineFigureOptions paper;
        paper.interactive = false;
        for (const bool titled : {true, false}) {
            paper.titled = titled;
            const LineFigure figure = build(paper);
            QVERIFY(figure.bands);
            QVERIFY2(figure.bandAlpha >= 51, qPrintable(QString::number(figure.bandAlpha)));
        }
    }

    // What marks the interactive state (the highlighted matrix's line, the current step) is left
    // out of a figure on paper.
    void paperFiguresLeaveOutTheInteraction()
    {
        m_state->setHighlighted(MatrixKey{0, 100, {{}, 1, MatrixType::K, {}}});
        LineFigure figure = build();
        QVERIFY(seriesOf(figure, MatrixType::K)->highlighted && !seriesOf(figure, MatrixType::Q)->highlighted);
        QCOMPARE(figure.stepMarker, std::optional<double>(100));
        LineFigureOptions paper;
        paper.interactive = false;
        figure = build(paper);
        QVERIFY(!seriesOf(figure, MatrixType::K)->highlighted);
        QVERIFY(!figure.stepMarker);
    }

    // Under a paper's caption there is no title: the value axis says what it said (the layers
    // averaged, or the type whose layers the lines are).
    void untitledFiguresSayTheirScopeOnTheValueAxis()
    {
        const LineFigure window = build();
        QCOMPARE(window.yLabel, QStringLiteral("Stable rank"));
        LineFigureOptions paper;
        paper.interactive = false;
        paper.titled = false;
        LineFigure figure = build(paper);
        QCOMPARE(figure.yLabel, QStringLiteral("Stable rank (mean of layers 0–1)"));
        QCOMPARE(figure.compactYLabel, QStringLiteral("Stable rank (mean)")); // every layer: for a narrow panel
        QCOMPARE(figure.xLabel, QStringLiteral("Training step"));
        m_state->setLayerRange(LayerRange{1, 1});
        QCOMPARE(build(paper).yLabel, QStringLiteral("Stable rank (layer 1)"));
        QVERIFY(build(paper).compactYLabel.isEmpty()); // a layer range is never left unsaid
        m_state->setLayerRange(LayerRange{0, 1});
        paper.metric = Metric::CompressionPct;
        QCOMPARE(build(paper).yLabel, QStringLiteral("Compression % (τ = 0.90, mean of layers 0–1)"));
        paper.metric = Metric::StableRank;
        paper.perLayerType = MatrixType::Q;
        QCOMPARE(build(paper).yLabel, QStringLiteral("Stable rank (Q)"));
        // On paper with a title (a slide) the axis says only the metric.
        LineFigureOptions slide;
        slide.interactive = false;
        QCOMPARE(build(slide).yLabel, QStringLiteral("Stable rank"));
        QVERIFY(build(slide).compactYLabel.isEmpty());
    }

    // The CSV lists the visible types' points: a hidden type leaves it.
    // The crosshair's readout snaps to the nearest checkpoint and lists each visible line's value
    // there, rounded to one digit finer than the ticks of the axis shown; never "-0.00".
    void readoutNamesTheNearestStepsValues()
    {
        const LineFigure figure = build();
        QCOMPARE(figure.readoutAt(48.99, *m_state)->step, 0);
        const auto readout = figure.readoutAt(51, *m_state, AxisRange{0, 10});
        QVERIFY(readout);
        QCOMPARE(readout->x, 100.0);
        QCOMPARE(readout->text(), QStringLiteral("step 100\nQ  2.1\nK  2.5")); // means 2.125 and 2.5, ticks by 2
        QCOMPARE(figure.readoutAt(51, *m_state, AxisRange{0, 1})->entries[1].value, QStringLiteral("2.50")); // ticks by 0.2
        m_state->setTypeVisible(MatrixType::K, false);
        QCOMPARE(build().readoutAt(1e6, *m_state, AxisRange{0, 10})->text(), QStringLiteral("step 100\nQ  2.1"));
        LineFigure tiny;
        LineSeries line;
        line.points = {AggregatePoint{7, -0.0001, -0.0001, -0.0001, 1, 0}};
        line.x = {7};
        tiny.series = {line};
        QCOMPARE(tiny.readoutAt(7, *m_state, AxisRange{-1, 1})->entries.first().value, QStringLiteral("0"));
        QVERIFY(!LineFigure().readoutAt(7, *m_state));
    }

    // A figure with nothing to draw says why and how to get it: an opt-in metric the run was not
    // analysed for names the menu item and the option that compute it.
    void noDataSaysWhyAndHowToGetIt()
    {
        QVERIFY(build().noData.isEmpty());
        const LineFigure delta = build({Metric::DeltaStableRank, std::nullopt, true, true});
        QVERIFY(!delta.yRange);
        QCOMPARE(delta.noData, QStringLiteral("W \u2212 W\u2080 was not computed: Analysis \u25b8 Also compute the change from the first checkpoint "
                                              "(W \u2212 W\u2080, a second decomposition), or rankscope analyze --delta."));
        QVERIFY(build({Metric::RandDistance, std::nullopt, true, true}).noData.startsWith("rand_distance was not computed: Analysis \u25b8 Also compute rand_distance"));
        QVERIFY(build({Metric::SubspaceOverlap, std::nullopt, true, true}).noData.contains("rankscope analyze --subspace"));
        m_state->setTypeVisible(MatrixType::Q, false);
        m_state->setTypeVisible(MatrixType::K, false);
        QCOMPARE(build().noData, QStringLiteral("Every matrix type is hidden: choose one under Types."));
        m_state->setTypeVisible(MatrixType::Q, true);
        m_state->setLayerRange({5, 6});
        QCOMPARE(build().noData, QStringLiteral("No layer of small is in the layer range (layers 5–6): widen it under Layers."));
    }

    void csvListsTheVisibleLines()
    {
        m_state->setTypeVisible(MatrixType::K, false);
        const QString csv = build().csv(*m_state);
        QCOMPARE(csv.count('\n'), 1 + 2);
        QVERIFY2(csv.startsWith(QStringLiteral("run,step,block,type,stable_rank_mean,stable_rank_min,stable_rank_max,matrices,nan_matrices\n"
                                               "small,0,,Q,1.625,1.25,2,2,0\n")),
                 qPrintable(csv));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestLineFigure)
} // namespace tst_linefigure

#include "tst_LineFigure.moc"
