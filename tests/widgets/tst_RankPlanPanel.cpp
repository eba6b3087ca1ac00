// The window's Rank plan tab on the demo run, offscreen: the heatmap's cells are the planner's
// ranks for the target, the curve is the budget greedy's with the target's plan marked, the
// controls take the command's ranges, the tooltip names the matrix, and the export is the plan.
#include "analysis/results/RankPlanTable.h"
#include "DemoFixture.h"
#include "RankPlanCurve.h"
#include "RankPlanHeatmap.h"
#include "RankPlanPanel.h"
#include "TestSuite.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

namespace tst_rankplanpanel {

using namespace rankscope;

class TestRankPlanPanel : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

    // Every cell of the heatmap against the plan the planner makes for the target at step 1500.
    static void compareCells(const RankPlanHeatmap &heatmap, const RankTarget &target)
    {
        const RankPlan plan = RankPlanner::forStep(test::demoRun(), 1500).plan(target);
        const HeatmapFigure &f = heatmap.figure().ranks;
        QCOMPARE(f.rows.size(), 6);
        QCOMPARE(f.columns, (QList<int>{0, 1, 2, 3}));
        QCOMPARE(plan.matrices.size(), 24);
        for (const PlannedRank &r : plan.matrices) {
            const qsizetype y = f.rows.indexOf(HeatmapRow{r.id.block, r.id.type}), x = f.columns.indexOf(r.id.layer);
            QVERIFY(y >= 0 && x >= 0);
            QCOMPARE(f.value(int(y), int(x)), double(r.rank));
        }
    }

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
    }
    void cleanup() { delete m_state; }

    void heatmapAndCurveShowThePlan()
    {
        RankPlanPanel panel(m_state);
        panel.resize(1400, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(m_state->currentStep(), 1500);
        compareCells(*panel.heatmap(), {RankTarget::Kind::Keep, 0.5});
        QVERIFY(panel.heatmap()->cellTextCount() == 24);
        const RankPlanner planner = RankPlanner::forStep(test::demoRun(), 1500);
        QCOMPARE(panel.curve()->curveGraph()->dataCount(), int(planner.budgetCurve().size()));
        const RankPlan plan = planner.plan({RankTarget::Kind::Keep, 0.5});
        QCOMPARE(panel.curve()->markGraph()->data()->at(0)->key, plan.keptFraction());
        QCOMPARE(panel.curve()->markGraph()->data()->at(0)->value, plan.totalRelativeError());
        QVERIFY2(panel.summary().contains(QStringLiteral("24 matrices · %1 of %2 parameters kept").arg(plan.paramsAfter).arg(plan.paramsBefore)),
                 qPrintable(panel.summary()));
        QVERIFY(std::abs(panel.valueBox()->minimum() - planner.smallestKeep()) <= 0.0005); // to the box's 3 decimals

        // Another target: the cells follow.
        panel.setTarget({RankTarget::Kind::Energy, 0.9});
        compareCells(*panel.heatmap(), {RankTarget::Kind::Energy, 0.9});
        QCOMPARE(panel.kindBox()->currentIndex(), int(RankTarget::Kind::Energy));
        QVERIFY(panel.heatmap()->title().contains("keeping 90% of each matrix's energy · step 1500"));

        const QPoint cell = panel.heatmap()->cellCentre(MatrixType::MlpUp, 2);
        const QString tip = panel.heatmap()->tooltipAt(cell);
        QVERIFY2(tip.startsWith("transformer.h.2.mlp.c_fc.weight\n256 × 64 · rank "), qPrintable(tip));
        QCOMPARE(panel.heatmap()->matrixAt(cell)->id.type, MatrixType::MlpUp);

        // Another step: the plan is of that step.
        m_state->setCurrentStep(300);
        QVERIFY(panel.heatmap()->title().contains("step 300"));
        QCOMPARE(panel.heatmap()->figure().plan.step, 300);
    }

    void exportWritesThePlan()
    {
        RankPlanPanel panel(m_state);
        QTemporaryDir dir;
        QString error;
        QVERIFY2(panel.exportPlan(dir.filePath("p.json"), &error), qPrintable(error));
        QFile json(dir.filePath("p.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject plan = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(plan["rank_pattern"].toObject().size(), 16);
        QCOMPARE(plan["target"].toObject()["option"].toString(), QStringLiteral("keep"));
        QVERIFY(panel.exportPlan(dir.filePath("p.csv"), &error));
        QFile csv(dir.filePath("p.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll(), RankPlanTable::toCsv(panel.heatmap()->figure().plan));
        QCOMPARE(panel.heatmap()->dataCsv().toUtf8(), RankPlanTable::toCsv(panel.heatmap()->figure().plan));
    }

    void nothingToPlanIsSaid()
    {
        ViewState empty;
        RankPlanPanel panel(&empty);
        QCOMPARE(panel.summary(), QStringLiteral("No matrices at this step to plan ranks for"));
        QCOMPARE(panel.heatmap()->noDataMessage(), panel.summary());
        QString error;
        QVERIFY(!panel.exportPlan("/nonexistent/p.json", &error));
    }
};

RANKSCOPE_TEST_MAIN(TestRankPlanPanel)
} // namespace tst_rankplanpanel

#include "tst_RankPlanPanel.moc"
