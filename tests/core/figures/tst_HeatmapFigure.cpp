// One heatmap as numbers, without a widget: a two-block model at one step whose stable ranks are
// known by hand (stable rank = Σσ² / σ₁²).
#include "figures/HeatmapFigure.h"
#include "KnownMatrices.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_heatmapfigure {

using namespace rankscope;

namespace {

MatrixResult matrix(const QString &block, int layer, MatrixType type, std::initializer_list<double> sigma)
{
    return test::knownMatrix(100, layer, type, sigma, block);
}

// encoder: Q 2, 3 and K 1 (layer 1 only); decoder: Q 4 (layer 0 only).
RunAnalysis twoBlocks()
{
    RunAnalysis run;
    run.results = {matrix("encoder", 0, MatrixType::Q, {1, 1}), matrix("encoder", 1, MatrixType::Q, {1, 1, 1}),
                   matrix("encoder", 1, MatrixType::K, {2, 0}), matrix("decoder", 0, MatrixType::Q, {1, 1, 1, 1})};
    sortResults(run.results);
    return run;
}

} // namespace

class TestHeatmapFigure : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

    HeatmapFigure build(Metric metric = Metric::StableRank) const { return HeatmapFigureBuilder(*m_state, metric, 0).build(); }

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(twoBlocks(), QStringLiteral("small"));
    }
    void cleanup() { delete m_state; }

    // Without a title (under a paper's caption) the layer axis says the step shown.
    void untitledHeatmapSaysTheStepOnTheLayerAxis()
    {
        QCOMPARE(HeatmapFigureBuilder(*m_state, Metric::StableRank, 0, {}, {false, false}).build().xLabel, QStringLiteral("Layer (final step)"));
        QCOMPARE(HeatmapFigureBuilder(*m_state, Metric::StableRank, 0, {}, {false, true}).build().xLabel, QStringLiteral("Layer"));
    }

    // Rows are each block's visible types (blocks in the order a model runs them), columns the
    // layers of any block; a cell without a matrix is NaN; a rule goes above each block's first row.
    void cellsByBlockTypeAndLayer()
    {
        const HeatmapFigure figure = build();
        QCOMPARE(figure.rows, (QList<HeatmapRow>{{"encoder", MatrixType::Q}, {"encoder", MatrixType::K}, {"decoder", MatrixType::Q}}));
        QCOMPARE(figure.columns, (QList<int>{0, 1}));
        QCOMPARE(figure.rowLabels, (QList<QString>{"encoder · Q", "encoder · K", "decoder · Q"}));
        QCOMPARE(figure.columnLabels, (QList<QString>{"0", "1"}));
        QCOMPARE(figure.value(0, 0), 2.0);
        QCOMPARE(figure.value(0, 1), 3.0);
        QVERIFY(std::isnan(figure.value(1, 0)));
        QCOMPARE(figure.value(1, 1), 1.0);
        QCOMPARE(figure.value(2, 0), 4.0);
        QVERIFY(std::isnan(figure.value(2, 1)));
        QCOMPARE(figure.blockStarts, QList<int>{2});
        QCOMPARE(figure.yLabel, QStringLiteral("Block · matrix type"));
        QCOMPARE(figure.title, QStringLiteral("Stable rank at final step 100 — small"));
    }

    // One colour scale over every cell shown; compression % gets its own map; a hidden type's row goes.
    void colourScaleSpansTheShownCells()
    {
        HeatmapFigure figure = build();
        QCOMPARE(figure.colours.range, (AxisRange{1, 4}));
        QCOMPARE(figure.colours.map, HeatmapColourScale::Map::Viridis);
        QCOMPARE(build(Metric::CompressionPct).colours.map, HeatmapColourScale::Map::YellowOrangeRed);
        m_state->setTypeVisible(MatrixType::K, false);
        figure = build();
        QCOMPARE(figure.rows.size(), 2);
        QCOMPARE(figure.colours.range, (AxisRange{2, 4}));
        QCOMPARE(figure.blockStarts, QList<int>{1});
    }

    // By default the colours span the step shown, each metric its own range (the last step's
    // weighted α is never a flat block in a range of every step); every step of the run when
    // asked, so that a colour is one value at every step; ends set by hand replace the fitted
    // ones. The colour bar names the metric only, whatever its range spans.
    void colourRangeFollowsTheStepShown()
    {
        RunAnalysis run = twoBlocks();
        // Step 200: encoder Q 1.25 and 5 (layers 0, 1), K 1; decoder Q 1.
        run.results << test::knownMatrix(200, 0, MatrixType::Q, {2, 1}, "encoder") << test::knownMatrix(200, 1, MatrixType::Q, {1, 1, 1, 1, 1}, "encoder")
                    << test::knownMatrix(200, 1, MatrixType::K, {2, 0}, "encoder") << test::knownMatrix(200, 0, MatrixType::Q, {3, 0}, "decoder");
        sortResults(run.results);
        m_state->setRun(run, QStringLiteral("two steps"));
        QList<AxisRange> ranges, allSteps;
        const HeatmapColourRange everyStep{HeatmapColourRange::Fit::AllSteps, {}, {}};
        for (qint64 step : m_state->steps()) {
            m_state->setCurrentStep(step);
            const HeatmapFigure figure = build();
            QCOMPARE(figure.step, step);
            ranges << *figure.colours.range;
            allSteps << *HeatmapFigureBuilder(*m_state, Metric::StableRank, 0, everyStep).build().colours.range;
            QCOMPARE(figure.colours.label, QStringLiteral("Stable rank"));
        }
        QCOMPARE(ranges, (QList<AxisRange>{{1, 4}, {1, 5}}));
        QCOMPARE(allSteps, (QList<AxisRange>{{1, 5}, {1, 5}}));
        QCOMPARE(HeatmapColourRange{}.fit, HeatmapColourRange::Fit::ShownStep);
        const HeatmapFigure byHand = HeatmapFigureBuilder(*m_state, Metric::StableRank, 0, {HeatmapColourRange::Fit::AllSteps, 0.0, 10.0}).build();
        QCOMPARE(byHand.colours.range, (AxisRange{0, 10}));
        QCOMPARE(byHand.colours.label, QStringLiteral("Stable rank"));
        QCOMPARE(HeatmapFigureBuilder(*m_state, Metric::StableRank, 0, {HeatmapColourRange::Fit::AllSteps, {}, 3.0}).build().colours.range, (AxisRange{1, 3}));
        const HeatmapFigure compression = build(Metric::CompressionPct);
        QCOMPARE(compression.colours.label, QStringLiteral("Compression % (τ = 0.90)"));
        QCOMPARE(compression.colours.shortLabel, QStringLiteral("Compression %"));
        QVERIFY(build(Metric::DeltaStableRank).noData.startsWith(QStringLiteral("W \u2212 W\u2080 was not computed")));
        QVERIFY(build().noData.isEmpty());
    }

    // The highlighted matrix's cell, as (column, row); none for a matrix not shown.
    void highlightedCell()
    {
        QVERIFY(!build().highlighted);
        m_state->setHighlighted(MatrixKey{0, 100, {"encoder", 1, MatrixType::K, {}}});
        QCOMPARE(build().highlighted, (std::optional<std::pair<int, int>>{{1, 1}}));
        m_state->setHighlighted(MatrixKey{1, 100, {"encoder", 1, MatrixType::K, {}}});
        QVERIFY(!build().highlighted);
        // On paper nothing marks what was clicked in the window.
        m_state->setHighlighted(MatrixKey{0, 100, {"encoder", 1, MatrixType::K, {}}});
        QVERIFY(!HeatmapFigureBuilder(*m_state, Metric::StableRank, 0, {}, {false, true}).build().highlighted);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestHeatmapFigure)
} // namespace tst_heatmapfigure

#include "tst_HeatmapFigure.moc"
