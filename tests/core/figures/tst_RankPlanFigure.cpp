// The Rank plan figure's numbers from spectra known by hand: each cell the rank the planner
// chooses (a cell of two experts their mean), rows by block and type, the curve and the mark the
// planner's, and a budget below the smallest plan drawn as the smallest.
#include "figures/RankPlanFigure.h"
#include "KnownMatrices.h"
#include "TestSuite.h"

namespace tst_rankplanfigure {

using namespace rankscope;
using test::knownMatrix;

class TestRankPlanFigure : public QObject {
    Q_OBJECT
private slots:
    void cellsAreTheChosenRanks()
    {
        RunAnalysis run;
        // τ = 0.5 of Σσ²: Q layer 0 (4 + 7·1 = 11) takes rank 3 (6 ≥ 5.5); K layer 1 (9 + 1) rank 1;
        // MLP↑ layer 1's experts rank 1 (1 of 1) and rank 2 (2 of 3): the cell shows 1.5.
        run.results = {knownMatrix(10, 0, MatrixType::Q, {2, 1, 1, 1, 1, 1, 1, 1}, "decoder"),
                       knownMatrix(10, 1, MatrixType::K, {3, 1, 0, 0, 0, 0, 0, 0}, "decoder"),
                       knownMatrix(10, 1, MatrixType::MlpUp, {1, 0, 0, 0, 0, 0, 0, 0}, "decoder", "0"),
                       knownMatrix(10, 1, MatrixType::MlpUp, {1, 1, 1, 0, 0, 0, 0, 0}, "decoder", "1"),
                       knownMatrix(10, 0, MatrixType::Q, {1, 1, 1, 1, 1, 1, 1, 1}, "encoder")};
        for (MatrixResult &r : run.results)
            r.tensor = QStringLiteral("%1.%2.%3.%4.weight").arg(r.block).arg(r.layer).arg(csvName(r.type)).arg(r.expert);
        ViewState state;
        state.setRun(run, "known");
        const RankPlanFigure f = RankPlanFigureBuilder(state, {RankTarget::Kind::Energy, 0.5}).build();
        QVERIFY(f.noData.isEmpty());
        QCOMPARE(f.ranks.columns, (QList<int>{0, 1}));
        QList<HeatmapRow> expectedRows;
        for (const QString &block : state.blocks())
            for (MatrixType type : {MatrixType::Q, MatrixType::K, MatrixType::MlpUp})
                if (block == "decoder" || type == MatrixType::Q)
                    expectedRows << HeatmapRow{block, type};
        QCOMPARE(f.ranks.rows, expectedRows);
        auto cell = [&](const QString &block, MatrixType type, int layer) {
            return f.ranks.value(int(f.ranks.rows.indexOf(HeatmapRow{block, type})), int(f.ranks.columns.indexOf(layer)));
        };
        QCOMPARE(cell("decoder", MatrixType::Q, 0), 3.0);
        QCOMPARE(cell("decoder", MatrixType::K, 1), 1.0);
        QCOMPARE(cell("decoder", MatrixType::MlpUp, 1), 1.5);
        QCOMPARE(cell("encoder", MatrixType::Q, 0), 8.0); // flat: τ takes rank 4, whose 4·16 = 64 parameters are mn: kept dense
        QVERIFY(std::isnan(cell("decoder", MatrixType::Q, 1)));
        QCOMPARE(f.ranks.blockStarts.size(), 1);
        QCOMPARE(f.ranks.rowLabels.first(), state.blocks().first() + " · Q");
        QCOMPARE(f.ranks.colours.range->lower, 1.0);
        QCOMPARE(f.ranks.colours.range->upper, 8.0);
        const PlannedRank *expert = f.matrixAt(int(f.ranks.rows.indexOf(HeatmapRow{"decoder", MatrixType::MlpUp})), 1);
        QVERIFY(expert && expert->id.expert == "0"); // a cell of several experts: the first

        const RankPlanner planner = RankPlanner::forStep(run, 10);
        QCOMPARE(f.curve.size(), planner.budgetCurve().size());
        QCOMPARE(f.marked.keptFraction, planner.plan({RankTarget::Kind::Energy, 0.5}).keptFraction());
        QCOMPARE(f.smallestKeep, planner.smallestKeep());

        // A budget below rank 1 everywhere is drawn as rank 1 everywhere.
        const RankPlanFigure low = RankPlanFigureBuilder(state, {RankTarget::Kind::Keep, 0.001}).build();
        QCOMPARE(low.plan.target.value, planner.smallestKeep());
        QCOMPARE(low.plan.keptFraction(), planner.smallestKeep());
    }

    void nothingToPlan()
    {
        ViewState state;
        QCOMPARE(RankPlanFigureBuilder(state, {}).build().noData, QStringLiteral("No matrices at this step to plan ranks for"));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestRankPlanFigure)
} // namespace tst_rankplanfigure

#include "tst_RankPlanFigure.moc"
