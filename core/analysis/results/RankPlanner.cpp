#include "analysis/results/RankPlanner.h"

#include "spectral/SpectralMetrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rankscope {

namespace {

// A corner of a matrix's (parameters, energy kept) curve: the rank it stands for.
struct CurvePoint {
    double cost = 0;
    double energy = 0;
    int rank = 0;
};

// Whether b lies strictly below the chord from a to c, so that it is no corner of the upper hull.
// Collinear corners are kept: the greedy can then stop between them.
bool belowChord(const CurvePoint &a, const CurvePoint &b, const CurvePoint &c)
{
    return (b.energy - a.energy) * (c.cost - b.cost) < (c.energy - b.energy) * (b.cost - a.cost);
}

} // namespace

QString RankTarget::optionName(Kind kind)
{
    switch (kind) {
    case Kind::Keep: return QStringLiteral("keep");
    case Kind::Energy: return QStringLiteral("energy");
    case Kind::MaxError: return QStringLiteral("max-error");
    }
    return {};
}

QString RankTarget::text() const
{
    return QStringLiteral("--%1 %2").arg(optionName(kind)).arg(value, 0, 'g', 12);
}

QString RankTarget::words() const
{
    const QString percent = QString::number(100 * value, 'g', 4) + QLatin1Char('%');
    switch (kind) {
    case Kind::Keep: return QStringLiteral("keeping %1 of the parameters").arg(percent);
    case Kind::Energy: return QStringLiteral("keeping %1 of each matrix's energy").arg(percent);
    case Kind::MaxError: return QStringLiteral("each within a relative error of %1").arg(value, 0, 'g', 4);
    }
    return {};
}

double RankPlan::totalRelativeError() const
{
    return energy > 0 ? std::sqrt(std::max(0.0, energyLost) / energy) : 0.0;
}

QString RankPlanner::ruleText(RankTarget::Kind kind)
{
    switch (kind) {
    case RankTarget::Kind::Keep:
        return QStringLiteral(
            "budget greedy: every matrix starts at rank 1; the rest of the budget goes, one step at a time, to the step that keeps "
            "the most energy per parameter among each matrix's next step along the upper concave hull of its (parameters, energy kept) "
            "points: sigma_i^2/(m+n) for one more rank, or the energy added over the parameters added for a step that keeps the "
            "matrix dense (a rank-r factorisation costs r(m+n), capped at mn); a step that does not fit closes its matrix, steps that "
            "keep no energy are not taken. Optimal at every budget the steps use up exactly; otherwise no plan within the budget "
            "keeps more energy than optimum_energy_bound");
    case RankTarget::Kind::Energy:
        return QStringLiteral("per matrix, the smallest rank whose sum of sigma_i^2 is at least tau of the matrix's (its energy_rank); "
                              "a matrix whose rank-r factors would cost mn or more is kept dense");
    case RankTarget::Kind::MaxError:
        return QStringLiteral("per matrix, the smallest rank whose truncation has a relative Frobenius error sqrt(1 - energy kept) "
                              "of at most E; a matrix whose rank-r factors would cost mn or more is kept dense");
    }
    return {};
}

qint64 RankPlanner::Prepared::cost(int rank) const
{
    const qint64 dense = matrix.rows * matrix.cols;
    return rank >= firstDenseRank ? dense : qint64(rank) * (matrix.rows + matrix.cols);
}

RankPlanner::Prepared RankPlanner::prepare(const PlanMatrix &matrix)
{
    Prepared p;
    p.matrix = matrix;
    p.fullRank = int(std::min(matrix.rows, matrix.cols));
    const qint64 side = matrix.rows + matrix.cols, dense = matrix.rows * matrix.cols;
    p.firstDenseRank = int((dense + side - 1) / side);
    QList<double> lambda(p.fullRank, 0.0);
    for (int i = 0; i < p.fullRank && i < matrix.singularValues.size(); ++i)
        lambda[i] = matrix.singularValues[i] * matrix.singularValues[i];
    p.kept.resize(p.fullRank + 1);
    p.lost.resize(p.fullRank + 1);
    p.kept[0] = 0;
    for (int k = 1; k <= p.fullRank; ++k)
        p.kept[k] = p.kept[k - 1] + lambda[k - 1];
    // The tail from the smallest value up: the error of a high rank is not the difference of two
    // nearly equal sums.
    p.lost[p.fullRank] = 0;
    for (int k = p.fullRank - 1; k >= 0; --k)
        p.lost[k] = p.lost[k + 1] + lambda[k];
    return p;
}

RankPlanner::RankPlanner(const QList<PlanMatrix> &matrices)
{
    for (const PlanMatrix &m : matrices) {
        m_matrices << prepare(m);
        m_parameters += m.rows * m.cols;
    }
}

RankPlanner RankPlanner::forStep(const RunAnalysis &run, std::optional<qint64> step)
{
    if (!step && !run.results.isEmpty())
        step = std::max_element(run.results.begin(), run.results.end(), [](const MatrixResult &a, const MatrixResult &b) {
                   return a.step < b.step;
               })->step;
    QList<PlanMatrix> matrices;
    QStringList notes;
    bool unnumbered = false;
    for (const MatrixResult &r : run.results) {
        if (!step || r.step != *step)
            continue;
        unnumbered = r.unnumbered;
        QString problem = r.singularValues.size() == 0 ? QStringLiteral("no spectrum stored") : spectrumProblem(r.singularValues);
        if (problem.isEmpty() && (r.rows <= 0 || r.cols <= 0))
            problem = QStringLiteral("no shape");
        if (!problem.isEmpty()) {
            notes << QStringLiteral("%1: left out of the plan: %2").arg(r.tensor, problem);
            continue;
        }
        matrices << PlanMatrix{r.identity(), r.tensor, r.rows, r.cols, r.singularValues};
    }
    RankPlanner planner(matrices);
    planner.m_notes = notes;
    planner.m_step = step.value_or(0);
    planner.m_unnumbered = unnumbered;
    return planner;
}

int RankPlanner::startRank(const Prepared &p) const
{
    return p.firstDenseRank <= 1 ? p.fullRank : 1;
}

double RankPlanner::smallestKeep() const
{
    qint64 cost = 0;
    for (const Prepared &p : m_matrices)
        cost += p.cost(startRank(p));
    return m_parameters > 0 ? double(cost) / double(m_parameters) : 1.0;
}

QString RankPlanner::targetProblem(const RankTarget &target) const
{
    if (target.kind != RankTarget::Kind::Keep || target.value >= smallestKeep())
        return {};
    return QStringLiteral("--keep %1 is below the smallest plan of step %2: rank 1 for every matrix keeps %3 of the parameters; "
                          "give --keep from %3 to 1")
        .arg(target.value).arg(stepLabel(m_step, m_unnumbered)).arg(smallestKeep(), 0, 'g', 6);
}

PlannedRank RankPlanner::planned(const Prepared &p, int rank) const
{
    PlannedRank out;
    out.id = p.matrix.id;
    out.tensor = p.matrix.tensor;
    out.rows = p.matrix.rows;
    out.cols = p.matrix.cols;
    out.paramsBefore = p.matrix.rows * p.matrix.cols;
    out.energy = p.total();
    out.dense = rank >= p.firstDenseRank;
    out.rank = out.dense ? p.fullRank : rank;
    out.paramsAfter = p.cost(out.rank);
    out.energyLost = p.lost[out.rank];
    // A zero matrix loses nothing at any rank: its truncation is exact.
    out.energyKept = out.energy > 0 ? p.kept[out.rank] / out.energy : 1.0;
    out.relativeError = out.energy > 0 ? std::sqrt(out.energyLost / out.energy) : 0.0;
    return out;
}

int RankPlanner::energyRankOf(const Prepared &p, double energy) const
{
    // The analysis' own k_τ (energy_rank), so that a plan at τ and the metric agree.
    return std::max(1, energyRank(p.matrix.singularValues.head(std::min<Eigen::Index>(p.fullRank, p.matrix.singularValues.size())), energy));
}

int RankPlanner::errorRankOf(const Prepared &p, double maxError) const
{
    const double allowed = maxError * maxError * p.total() * (1.0 + 1e-12);
    for (int k = 1; k < p.fullRank; ++k)
        if (p.lost[k] <= allowed)
            return k;
    return std::max(1, p.fullRank);
}

QList<RankPlanner::HullStep> RankPlanner::sortedHullSteps() const
{
    QList<HullStep> steps;
    for (int m = 0; m < int(m_matrices.size()); ++m) {
        const Prepared &p = m_matrices[m];
        const int start = startRank(p);
        if (start >= p.firstDenseRank)
            continue; // dense from the start
        QList<CurvePoint> hull;
        auto add = [&](const CurvePoint &point) {
            while (hull.size() >= 2 && belowChord(hull[hull.size() - 2], hull.last(), point))
                hull.removeLast();
            hull << point;
        };
        for (int k = start; k < p.firstDenseRank; ++k)
            add({double(p.cost(k)), p.kept[k], k});
        add({double(p.cost(p.fullRank)), p.total(), p.fullRank});
        for (qsizetype i = 1; i < hull.size(); ++i) {
            const qint64 cost = p.cost(hull[i].rank) - p.cost(hull[i - 1].rank);
            const double energy = hull[i].energy - hull[i - 1].energy;
            steps << HullStep{m, hull[i].rank, cost, energy, energy / double(cost)};
        }
    }
    // Stable: equal ratios keep the matrices' order, and each matrix's steps their own.
    std::stable_sort(steps.begin(), steps.end(), [](const HullStep &a, const HullStep &b) { return a.ratio > b.ratio; });
    return steps;
}

QList<int> RankPlanner::budgetRanks(double budget, double *optimumBound) const
{
    QList<int> ranks;
    double left = budget, kept = 0;
    for (const Prepared &p : m_matrices) {
        ranks << startRank(p);
        left -= double(p.cost(ranks.last()));
        kept += p.kept[std::min(ranks.last(), p.fullRank)];
    }
    std::optional<double> bound;
    QList<bool> closed(m_matrices.size(), false);
    for (const HullStep &step : sortedHullSteps()) {
        if (!(step.energy > 0))
            break; // sorted: no step after it keeps energy either
        if (closed[step.matrix])
            continue;
        if (double(step.cost) <= left) {
            ranks[step.matrix] = step.toRank;
            left -= double(step.cost);
            kept += step.energy;
            continue;
        }
        closed[step.matrix] = true;
        // Up to here every step was taken in order: the relaxation would fill what is left with
        // this step's ratio, and no later step has a higher one.
        if (!bound)
            bound = kept + std::max(0.0, left) * step.ratio;
    }
    *optimumBound = bound.value_or(kept);
    return ranks;
}

RankPlan RankPlanner::plan(const RankTarget &target) const
{
    RankPlan plan;
    plan.target = target;
    plan.step = m_step;
    plan.unnumbered = m_unnumbered;
    plan.rule = ruleText(target.kind);
    plan.notes = m_notes;
    plan.budget = kNaN;
    plan.optimumEnergyBound = kNaN;
    QList<int> ranks;
    switch (target.kind) {
    case RankTarget::Kind::Keep:
        // Whole parameters; a millionth of one absorbs the fraction's rounding (48/72 of 72 is 48).
        plan.budget = std::floor(target.value * double(m_parameters) + 1e-6);
        ranks = budgetRanks(plan.budget, &plan.optimumEnergyBound);
        break;
    case RankTarget::Kind::Energy:
        for (const Prepared &p : m_matrices)
            ranks << energyRankOf(p, target.value);
        break;
    case RankTarget::Kind::MaxError:
        for (const Prepared &p : m_matrices)
            ranks << errorRankOf(p, target.value);
        break;
    }
    for (qsizetype i = 0; i < m_matrices.size(); ++i) {
        const PlannedRank r = planned(m_matrices[i], ranks[i]);
        plan.matrices << r;
        plan.paramsBefore += r.paramsBefore;
        plan.paramsAfter += r.paramsAfter;
        plan.energy += r.energy;
        plan.energyLost += r.energyLost;
    }
    return plan;
}

QList<BudgetPoint> RankPlanner::budgetCurve(int maxPoints) const
{
    if (m_matrices.isEmpty() || m_parameters <= 0)
        return {};
    QList<HullStep> steps = sortedHullSteps();
    steps.erase(std::find_if(steps.begin(), steps.end(), [](const HullStep &s) { return !(s.energy > 0); }), steps.end());
    // The points kept: every one, or maxPoints evenly spread with both ends.
    const qsizetype count = steps.size() + 1;
    const bool all = maxPoints < 2 || count <= maxPoints;
    QList<qsizetype> kept;
    for (qsizetype i = 0; i < (all ? count : qsizetype(maxPoints)); ++i)
        kept << (all ? i : qsizetype(double(i) * double(count - 1) / double(maxPoints - 1) + 0.5));
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    QList<int> ranks;
    double cost = 0, total = 0;
    for (const Prepared &p : m_matrices) {
        ranks << startRank(p);
        cost += double(p.cost(ranks.last()));
        total += p.total();
    }
    // Each point's error summed over the matrices as plan() sums it, so that a point and the plan
    // at its budget agree to the last bit (a running difference would leave ~1e-8 at every matrix dense).
    auto point = [&] {
        double lost = 0;
        for (qsizetype m = 0; m < m_matrices.size(); ++m)
            lost += m_matrices[m].lost[ranks[m]];
        return BudgetPoint{cost / double(m_parameters), total > 0 ? std::sqrt(lost / total) : 0.0};
    };
    QList<BudgetPoint> curve;
    qsizetype next = 0;
    for (qsizetype i = 0; i < count; ++i) {
        if (i > 0) {
            ranks[steps[i - 1].matrix] = steps[i - 1].toRank;
            cost += double(steps[i - 1].cost);
        }
        if (next < kept.size() && kept[next] == i) {
            curve << point();
            ++next;
        }
    }
    if (curve.last().keptFraction < 1.0)
        curve << BudgetPoint{1.0, curve.last().relativeError}; // more budget keeps no more energy
    return curve;
}

} // namespace rankscope
