// The rank planner against spectra worked out by hand, against a brute-force optimum over every
// plan of a small case, and read back from the CSV and JSON it writes; and end to end from a
// GPT-2 checkpoint whose matrices have known singular values.
#include "analysis/execution/RunLoader.h"
#include "analysis/results/RankPlanner.h"
#include "analysis/results/RankPlanTable.h"
#include "core/SmallGpt2Run.h"
#include "TestSuite.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>
#include <functional>

namespace tst_rankplanner {

using namespace rankscope;

namespace {

PlanMatrix matrix(int layer, MatrixType type, qint64 rows, qint64 cols, std::initializer_list<double> sigma, const QString &tensor = {})
{
    Eigen::VectorXd s(Eigen::Index(sigma.size()));
    Eigen::Index i = 0;
    for (double v : sigma)
        s[i++] = v;
    const QString name = tensor.isEmpty() ? QStringLiteral("h.%1.%2.weight").arg(layer).arg(csvName(type)) : tensor;
    return {{QString(), layer, type, QString()}, name, rows, cols, s};
}

// The small case the brute force runs on: three shapes with distinct spectra, each with rank 1,
// rank 2 and the dense matrix as its choices (8×3: rank 2 lies under the hull, see gapBetweenBreakpoints).
QList<PlanMatrix> smallCase()
{
    return {matrix(0, MatrixType::Q, 6, 4, {3.0, 2.0, 1.0, 0.5}), matrix(0, MatrixType::K, 5, 5, {2.5, 2.4, 0.3, 0.2, 0.1}),
            matrix(0, MatrixType::V, 8, 3, {4.0, 1.0, 0.7})};
}

double keptEnergy(const RankPlan &plan) { return plan.energy - plan.energyLost; }

// Every plan of the matrices: each at a rank from 1 to the last below the dense cost, or dense.
// The largest energy any of them keeps within `budget` parameters.
double bruteForceOptimum(const QList<PlanMatrix> &matrices, qint64 budget)
{
    struct Choice {
        qint64 cost;
        double energy;
    };
    QList<QList<Choice>> choices;
    for (const PlanMatrix &m : matrices) {
        QList<Choice> of;
        double kept = 0;
        const qint64 r = std::min(m.rows, m.cols);
        for (qint64 k = 1; k <= r; ++k) {
            kept += m.singularValues[k - 1] * m.singularValues[k - 1];
            const qint64 cost = k * (m.rows + m.cols);
            if (cost >= m.rows * m.cols)
                break;
            of << Choice{cost, kept};
        }
        of << Choice{m.rows * m.cols, m.singularValues.squaredNorm()};
        choices << of;
    }
    double best = -1;
    std::function<void(qsizetype, qint64, double)> walk = [&](qsizetype i, qint64 cost, double energy) {
        if (cost > budget)
            return;
        if (i == choices.size()) {
            best = std::max(best, energy);
            return;
        }
        for (const Choice &c : choices[i])
            walk(i + 1, cost + c.cost, energy + c.energy);
    };
    walk(0, 0, 0);
    return best;
}

const PlannedRank *plannedFor(const RankPlan &plan, MatrixType type)
{
    for (const PlannedRank &r : plan.matrices)
        if (r.id.type == type)
            return &r;
    return nullptr;
}

} // namespace

class TestRankPlanner : public QObject {
    Q_OBJECT
private slots:
    // σ = (4, 3, 2, 1) of an 8 × 4 matrix: Σσ² = 30; kept 16, 25, 29, 30; rank r costs 12r, dense 32,
    // so rank 3 (36) is kept dense.
    void energyAndErrorTargetsFromAKnownSpectrum()
    {
        const RankPlanner planner({matrix(0, MatrixType::Q, 8, 4, {4, 3, 2, 1})});
        RankPlan plan = planner.plan({RankTarget::Kind::Energy, 0.8});
        QCOMPARE(plan.matrices.size(), 1);
        PlannedRank r = plan.matrices.first();
        QCOMPARE(r.rank, 2);
        QVERIFY(!r.dense);
        QCOMPARE(r.energyKept, 25.0 / 30.0);
        QCOMPARE(r.relativeError, std::sqrt(5.0 / 30.0));
        QCOMPARE(r.paramsBefore, 32);
        QCOMPARE(r.paramsAfter, 24);
        QCOMPARE(r.paramsSaved(), 8);

        r = planner.plan({RankTarget::Kind::Energy, 0.9}).matrices.first(); // rank 3 keeps 29/30, but costs 36 > 32
        QVERIFY(r.dense);
        QCOMPARE(r.rank, 4);
        QCOMPARE(r.energyKept, 1.0);
        QCOMPARE(r.relativeError, 0.0);
        QCOMPARE(r.paramsAfter, 32);
        QCOMPARE(r.paramsSaved(), 0);

        // Errors sqrt(14/30) = 0.683, sqrt(5/30) = 0.408: 0.5 takes rank 2, 0.7 rank 1, exactly sqrt(5/30) rank 2.
        QCOMPARE(planner.plan({RankTarget::Kind::MaxError, 0.5}).matrices.first().rank, 2);
        QCOMPARE(planner.plan({RankTarget::Kind::MaxError, 0.7}).matrices.first().rank, 1);
        QCOMPARE(planner.plan({RankTarget::Kind::MaxError, std::sqrt(5.0 / 30.0)}).matrices.first().rank, 2);
        QCOMPARE(planner.plan({RankTarget::Kind::MaxError, 0.4}).matrices.first().rank, 4); // rank 3 (0.18) is dense
        plan = planner.plan({RankTarget::Kind::Energy, 0.8});
        QVERIFY(std::isnan(plan.optimumEnergyBound));
        QCOMPARE(plan.totalRelativeError(), std::sqrt(5.0 / 30.0));
    }

    // A flat spectrum of a 6 × 6 matrix: rank 1 costs 12, rank 2 24 for one more unit, dense 36
    // for four more. The step to dense (5 units for 24) beats rank 2 (1 for 12): the greedy goes
    // along the hull, from rank 1 straight to dense, and never stops at rank 2.
    void theDenseStepIsTakenAlongTheHull()
    {
        const RankPlanner planner({matrix(0, MatrixType::Q, 6, 6, {1, 1, 1, 1, 1, 1}), matrix(0, MatrixType::K, 6, 6, {1, 1, 1, 1, 1, 1})});
        QCOMPARE(planner.parameters(), 72);
        QCOMPARE(planner.smallestKeep(), 24.0 / 72.0);
        RankPlan plan = planner.plan({RankTarget::Kind::Keep, 48.0 / 72.0}); // 24 left: one matrix goes dense
        QCOMPARE(plan.matrices[0].rank, 6);
        QVERIFY(plan.matrices[0].dense);
        QCOMPARE(plan.matrices[1].rank, 1);
        QCOMPARE(plan.paramsAfter, 48);
        QCOMPARE(keptEnergy(plan), 7.0);
        QCOMPARE(plan.optimumEnergyBound, 7.0); // the budget is used up at a breakpoint: optimal
        plan = planner.plan({RankTarget::Kind::Keep, 47.0 / 72.0}); // 23 left: nothing fits
        QCOMPARE(plan.matrices[0].rank, 1);
        QCOMPARE(plan.matrices[1].rank, 1);
        QCOMPARE(plan.optimumEnergyBound, 2.0 + 23.0 * 5.0 / 24.0);
        QCOMPARE(bruteForceOptimum({matrix(0, MatrixType::Q, 6, 6, {1, 1, 1, 1, 1, 1}), matrix(0, MatrixType::K, 6, 6, {1, 1, 1, 1, 1, 1})}, 47),
                 3.0); // one matrix at rank 2
        plan = planner.plan({RankTarget::Kind::Keep, 1.0});
        QCOMPARE(plan.paramsAfter, 72);
        QCOMPARE(plan.totalRelativeError(), 0.0);
    }

    // At every budget from the smallest to all of it: the plan fits the budget, keeps no more than
    // the optimum and no less than the bound says; at the budgets the greedy's steps use up exactly
    // (the curve's points) it is the optimum.
    void budgetPlansAgainstTheBruteForceOptimum()
    {
        const QList<PlanMatrix> matrices = smallCase();
        const RankPlanner planner(matrices);
        QCOMPARE(planner.parameters(), 73);
        QSet<qint64> breakpoints;
        for (const BudgetPoint &p : planner.budgetCurve())
            breakpoints.insert(std::llround(p.keptFraction * 73));
        QCOMPARE(breakpoints, (QSet<qint64>{31, 41, 51, 55, 68, 73}));
        int gaps = 0;
        for (qint64 budget = 31; budget <= 73; ++budget) {
            const RankPlan plan = planner.plan({RankTarget::Kind::Keep, double(budget) / 73.0});
            const double optimum = bruteForceOptimum(matrices, budget);
            QVERIFY(plan.paramsAfter <= budget);
            QVERIFY2(keptEnergy(plan) <= optimum + 1e-12, qPrintable(QString::number(budget)));
            QVERIFY2(optimum <= plan.optimumEnergyBound + 1e-12, qPrintable(QString::number(budget)));
            if (breakpoints.contains(budget))
                QVERIFY2(std::abs(keptEnergy(plan) - optimum) < 1e-12, qPrintable(QString::number(budget)));
            gaps += keptEnergy(plan) < optimum - 1e-12;
        }
        QCOMPARE(gaps, 4); // budgets 64 to 67: gapBetweenBreakpoints
    }

    // The gap docs/metrics.md gives: at 66 of 73 parameters the greedy keeps 42.40 of 43.89, the
    // optimum 43.26 (8×3 at rank 2, a corner under its hull, which the greedy passes over), and
    // the bound is 42.26 + 11·1.49/13: the energy when the 8×3's step (13 parameters for 1.49)
    // did not fit the 11 left, and those 11 filled at its ratio.
    void gapBetweenBreakpoints()
    {
        const RankPlanner planner(smallCase());
        const RankPlan plan = planner.plan({RankTarget::Kind::Keep, 66.0 / 73.0});
        QVERIFY(std::abs(keptEnergy(plan) - 42.40) < 1e-12);
        QVERIFY(std::abs(bruteForceOptimum(smallCase(), 66) - 43.26) < 1e-12);
        QVERIFY(std::abs(plan.optimumEnergyBound - (42.26 + 11.0 * 1.49 / 13.0)) < 1e-12);
        QCOMPARE(plannedFor(plan, MatrixType::Q)->rank, 4);
        QVERIFY(plannedFor(plan, MatrixType::Q)->dense);
        QCOMPARE(plannedFor(plan, MatrixType::K)->rank, 5);
        QCOMPARE(plannedFor(plan, MatrixType::V)->rank, 1);
        QCOMPARE(plan.paramsAfter, 24 + 25 + 11);
    }

    // The curve runs from rank 1 everywhere to every matrix dense, each point the plan at its budget.
    void theBudgetCurveIsTheGreedysPlans()
    {
        const RankPlanner planner(smallCase());
        const QList<BudgetPoint> curve = planner.budgetCurve();
        QCOMPARE(curve.first().keptFraction, planner.smallestKeep());
        QCOMPARE(curve.last().keptFraction, 1.0);
        QVERIFY(curve.last().relativeError < 1e-7);
        for (qsizetype i = 1; i < curve.size(); ++i) {
            QVERIFY(curve[i].keptFraction > curve[i - 1].keptFraction);
            QVERIFY(curve[i].relativeError <= curve[i - 1].relativeError);
            const RankPlan plan = planner.plan({RankTarget::Kind::Keep, curve[i].keptFraction});
            QVERIFY(std::abs(plan.totalRelativeError() - curve[i].relativeError) < 1e-9);
        }
        QCOMPARE(planner.budgetCurve(3).size(), 3);
    }

    // A zero matrix is exact at rank 1; a spectrum that is no spectrum is left out and named.
    void zeroMatricesAndBadSpectra()
    {
        const RankPlanner planner({matrix(0, MatrixType::Q, 4, 4, {0, 0, 0, 0})});
        const PlannedRank r = planner.plan({RankTarget::Kind::Energy, 0.9}).matrices.first();
        QCOMPARE(r.rank, 1);
        QCOMPARE(r.energyKept, 1.0);
        QCOMPARE(r.relativeError, 0.0);
        RunAnalysis run;
        MatrixResult good, bad;
        good.step = bad.step = 5;
        good.rows = good.cols = bad.rows = bad.cols = 4;
        good.tensor = "h.0.q.weight";
        bad.tensor = "h.0.k.weight";
        bad.type = MatrixType::K;
        good.singularValues = Eigen::Vector4d(2, 1, 1, 0);
        bad.singularValues = Eigen::Vector4d(std::nan(""), 1, 1, 0);
        run.results = {good, bad};
        const RankPlanner fromRun = RankPlanner::forStep(run);
        QCOMPARE(fromRun.step(), 5);
        QCOMPARE(fromRun.plan({RankTarget::Kind::Energy, 0.5}).matrices.size(), 1);
        QCOMPARE(fromRun.notes().size(), 1);
        QVERIFY2(fromRun.notes().first().startsWith("h.0.k.weight: left out of the plan: "), qPrintable(fromRun.notes().first()));
    }

    void moduleAndPartNames()
    {
        QCOMPARE(RankPlanTable::moduleName("transformer.h.0.attn.c_attn.weight[Q]"), QStringLiteral("transformer.h.0.attn.c_attn"));
        QCOMPARE(RankPlanTable::partName("transformer.h.0.attn.c_attn.weight[Q]"), QStringLiteral("Q"));
        QCOMPARE(RankPlanTable::moduleName("model.layers.0.mlp.o_proj.weight"), QStringLiteral("model.layers.0.mlp.o_proj"));
        QCOMPARE(RankPlanTable::partName("model.layers.0.mlp.o_proj.weight"), QString());
        QCOMPARE(RankPlanTable::moduleName("model.layers.0.mlp.experts.gate_up_proj[3][MLP_UP]"), QStringLiteral("model.layers.0.mlp.experts.gate_up_proj"));
        QCOMPARE(RankPlanTable::partName("model.layers.0.mlp.experts.gate_up_proj[3][MLP_UP]"), QStringLiteral("3.MLP_UP"));
    }

    // A GPT-2 layer written as a checkpoint with Q, K and V of known singular values in one
    // c_attn: analysed, planned from the stored spectra, and written as CSV and JSON whose
    // rank_pattern gives c_attn the largest of its parts' ranks.
    void planOfACheckpointWrittenAndReadBack()
    {
        using namespace rankscope::test;
        std::mt19937_64 rng(7);
        gpt2::Gpt2Layer layer = gpt2::randomLayer(rng);
        Eigen::VectorXd q = Eigen::VectorXd::Zero(gpt2::H), k = q, v = q;
        q.head(3) << 4, 2, 1;  // Σ 21: 0.9 takes rank 2 (20/21)
        k.head(3) << 3, 3, 3;  // Σ 27: rank 3 (1.0), kept dense? 3·32 = 96 < 256: no
        v.head(2) << 5, 0.5;   // Σ 25.25: rank 1 (25/25.25)
        layer.q = withSingularValues(gpt2::H, gpt2::H, q, rng);
        layer.k = withSingularValues(gpt2::H, gpt2::H, k, rng);
        layer.v = withSingularValues(gpt2::H, gpt2::H, v, rng);
        QTemporaryDir dir;
        gpt2::writeRun(dir.path(), {{100, layer}});
        RunLoadOptions options;
        options.useCache = false;
        const LoadedRun loaded = loadRun(dir.path(), options);
        QVERIFY(loaded.run);
        const RankPlan plan = RankPlanner::forStep(*loaded.run).plan({RankTarget::Kind::Energy, 0.9});
        QCOMPARE(plan.step, 100);
        QCOMPARE(plan.matrices.size(), 6);
        QCOMPARE(plannedFor(plan, MatrixType::Q)->rank, 2);
        QVERIFY(std::abs(plannedFor(plan, MatrixType::Q)->energyKept - 20.0 / 21.0) < 1e-6);
        QVERIFY(std::abs(plannedFor(plan, MatrixType::Q)->relativeError - std::sqrt(1.0 / 21.0)) < 1e-6);
        QCOMPARE(plannedFor(plan, MatrixType::K)->rank, 3);
        QCOMPARE(plannedFor(plan, MatrixType::V)->rank, 1);
        QVERIFY(std::abs(plannedFor(plan, MatrixType::V)->relativeError - std::sqrt(0.25 / 25.25)) < 1e-6);
        QCOMPARE(plannedFor(plan, MatrixType::V)->paramsSaved(), 256 - 32);

        const QJsonObject json = RankPlanTable::toJson(plan, dir.path()).object();
        const QJsonObject pattern = json["rank_pattern"].toObject();
        QCOMPARE(pattern["h.0.attn.c_attn"].toInt(), 3); // max(2, 3, 1)
        QCOMPARE(pattern.size(), 4);
        QCOMPARE(pattern["h.0.mlp.c_fc"].toInt(), plannedFor(plan, MatrixType::MlpUp)->rank);
        const QJsonObject parts = json["rank_pattern_parts"].toObject()["h.0.attn.c_attn"].toObject();
        QCOMPARE(parts["Q"].toInt(), 2);
        QCOMPARE(parts["K"].toInt(), 3);
        QCOMPARE(parts["V"].toInt(), 1);
        QCOMPARE(json["rank_pattern_parts"].toObject().size(), 1);
        QCOMPARE(json["target"].toObject()["option"].toString(), QStringLiteral("energy"));
        QCOMPARE(json["matrices"].toArray().size(), 6);
        QCOMPARE(json["totals"].toObject()["params_after"].toInteger(), plan.paramsAfter);
        QVERIFY(json["totals"].toObject()["optimum_energy_bound"].isNull());

        const QStringList lines = QString::fromUtf8(RankPlanTable::toCsv(plan)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 7);
        QCOMPARE(lines.first(), RankPlanTable::csvColumns().join(','));
        const QStringList v0 = lines[3].split(','); // Q, K, V, … in the contract's order
        QCOMPARE(v0[RankPlanTable::csvColumns().indexOf("tensor")], QStringLiteral("h.0.attn.c_attn.weight[V]"));
        QCOMPARE(v0[RankPlanTable::csvColumns().indexOf("part")], QStringLiteral("V"));
        QCOMPARE(v0[RankPlanTable::csvColumns().indexOf("rank")], QStringLiteral("1"));
        QCOMPARE(v0[RankPlanTable::csvColumns().indexOf("dense")], QStringLiteral("false"));
        QVERIFY(std::abs(v0[RankPlanTable::csvColumns().indexOf("relative_error")].toDouble() - std::sqrt(0.25 / 25.25)) < 1e-6);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestRankPlanner)
} // namespace tst_rankplanner

#include "tst_RankPlanner.moc"
