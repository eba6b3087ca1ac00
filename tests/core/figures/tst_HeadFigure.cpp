// The per-head figures as numbers, without a widget: a run of two steps, two layers and two query
// heads served by one key/value head, whose stable ranks are known by hand (Σσ² / σ₁²); the whole
// matrices beside them never reach a per-head cell or line, and the per-head rows never reach the
// whole-matrix heatmap.
#include "figures/HeadFigure.h"
#include "figures/HeatmapFigure.h"
#include "KnownMatrices.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_headfigure {

using namespace rankscope;

namespace {

MatrixResult head(qint64 step, int layer, MatrixType type, int h, int kv, std::initializer_list<double> sigma)
{
    MatrixResult r = test::knownMatrix(step, layer, type, sigma);
    r.head = h;
    r.kvHead = kv;
    return r;
}

// QK stable ranks: step 100: layer 0 heads 1, 2; layer 1 heads 1.25, 4 (a 3 at step 200 for layer 1 head 0).
RunAnalysis run()
{
    RunAnalysis run;
    run.results = {test::knownMatrix(100, 0, MatrixType::Q, {1, 1, 1}), test::knownMatrix(100, 1, MatrixType::Q, {1, 1, 1}),
                   test::knownMatrix(200, 0, MatrixType::Q, {1, 1, 1}), test::knownMatrix(200, 1, MatrixType::Q, {1, 1, 1})};
    run.headResults = {head(100, 0, MatrixType::QK, 0, 0, {2, 0}), head(100, 0, MatrixType::QK, 1, 0, {1, 1}),
                       head(100, 1, MatrixType::QK, 0, 0, {2, 1}), head(100, 1, MatrixType::QK, 1, 0, {1, 1, 1, 1}),
                       head(200, 1, MatrixType::QK, 0, 0, {1, 1, 1}), head(100, 0, MatrixType::K, 0, 0, {1, 1}),
                       head(100, 0, MatrixType::Q, 0, 0, {5, 5})};
    sortResults(run.results);
    sortResults(run.headResults);
    return run;
}

} // namespace

class TestHeadFigure : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(run(), QStringLiteral("heads"));
        m_state->setCurrentStep(100);
    }
    void cleanup() { delete m_state; }

    void heatmapIsHeadByLayer()
    {
        const HeadHeatmap f = HeadFigureBuilder(*m_state, Metric::StableRank, MatrixType::QK).heatmap();
        QVERIFY(f.noData.isEmpty());
        QCOMPARE(f.layers, (QList<int>{0, 1}));
        QCOMPARE(f.heads, (QList<int>{0, 1}));
        QCOMPARE(f.values[0][0], 1.0);
        QCOMPARE(f.values[1][0], 2.0);
        QCOMPARE(f.values[0][1], 1.25);
        QCOMPARE(f.values[1][1], 4.0);
        QCOMPARE(f.range->lower, 1.0);
        QCOMPARE(f.range->upper, 4.0);
        QCOMPARE(f.tooltip(1, 1), QStringLiteral("layer 1 \u00b7 head 1 (K/V head 0) \u00b7 QK: Stable rank 4"));
        // Another type shows only its own rows.
        const HeadHeatmap k = HeadFigureBuilder(*m_state, Metric::StableRank, MatrixType::K).heatmap();
        QCOMPARE(k.values, (QList<QList<double>>{{2.0}}));
        QCOMPARE(k.tooltip(0, 0), QStringLiteral("layer 0 \u00b7 K/V head 0 \u00b7 K: Stable rank 2"));
    }

    void linesArePerHeadOverSteps()
    {
        const HeadLines f = HeadFigureBuilder(*m_state, Metric::StableRank, MatrixType::QK).lines(1);
        QCOMPARE(f.lines.size(), qsizetype(2));
        QCOMPARE(f.lines[0].head, 0);
        QCOMPARE(f.lines[0].points, (QList<QPointF>{{100, 1.25}, {200, 3}}));
        QCOMPARE(f.lines[1].points, (QList<QPointF>{{100, 4}}));
    }

    // The whole-matrix heatmap holds Q alone, at its whole matrix's value (stable rank 3), never a
    // head's 1 or a circuit row.
    void wholeMatrixFiguresTakeNoHeads()
    {
        const HeatmapFigure whole = HeatmapFigureBuilder(*m_state, Metric::StableRank, 0).build();
        QCOMPARE(whole.rows.size(), qsizetype(1));
        QCOMPARE(whole.rows[0].type, MatrixType::Q);
        QCOMPARE(whole.values[0], (QList<double>{3.0, 3.0}));
        QCOMPARE(m_state->presentTypes(), QList<MatrixType>{MatrixType::Q});
    }

    void withoutHeadsSaysHowToGetThem()
    {
        RunAnalysis plain = run();
        plain.headResults.clear();
        m_state->setRun(plain, QStringLiteral("plain"));
        const HeadHeatmap f = HeadFigureBuilder(*m_state, Metric::StableRank, MatrixType::QK).heatmap();
        QVERIFY2(f.noData.contains("--heads") && f.noData.contains("Analysis"), qPrintable(f.noData));
        QVERIFY(HeadFigureBuilder(*m_state, Metric::StableRank, MatrixType::QK).lines(0).noData.contains("--heads"));
    }

    // Rows arriving while a run is analysed are split as they come.
    void addedRowsAreKeptApart()
    {
        m_state->addResults({head(300, 0, MatrixType::OV, 0, 0, {1, 1}), test::knownMatrix(300, 0, MatrixType::Q, {1, 1})});
        QCOMPARE(m_state->results().size(), qsizetype(5));
        QCOMPARE(m_state->headResults().size(), qsizetype(8));
        QVERIFY(std::none_of(m_state->results().begin(), m_state->results().end(), [](const MatrixResult &r) { return r.isHead(); }));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestHeadFigure)
} // namespace tst_headfigure

#include "tst_HeadFigure.moc"
