#include "figures/RankPlanFigure.h"

#include <QSet>
#include <algorithm>
#include <cmath>

namespace rankscope {

const PlannedRank *RankPlanFigure::matrixAt(int row, int column) const
{
    if (row < 0 || column < 0 || row >= ranks.rows.size() || column >= ranks.columns.size())
        return nullptr;
    for (const PlannedRank &r : plan.matrices)
        if (r.id.block == ranks.rows[row].block && r.id.type == ranks.rows[row].type && r.id.layer == ranks.columns[column])
            return &r;
    return nullptr;
}

RankPlanFigure RankPlanFigureBuilder::build() const
{
    RankPlanFigure figure;
    const RunAnalysis &run = m_state.run();
    const bool anyResults = std::any_of(run.results.begin(), run.results.end(), [&](const MatrixResult &r) { return r.step == m_state.currentStep(); });
    if (!anyResults) {
        figure.noData = tr("No matrices at this step to plan ranks for");
        return figure;
    }
    const RankPlanner planner = RankPlanner::forStep(run, m_state.currentStep());
    if (planner.isEmpty()) {
        figure.noData = tr("No matrix of this step has a spectrum to plan from");
        return figure;
    }
    figure.smallestKeep = planner.smallestKeep();
    figure.targetProblem = planner.targetProblem(m_target);
    RankTarget target = m_target;
    if (target.kind == RankTarget::Kind::Keep)
        target.value = std::max(target.value, figure.smallestKeep); // below it no plan exists: the smallest
    figure.plan = planner.plan(target);
    figure.curve = planner.budgetCurve();
    figure.marked = {figure.plan.keptFraction(), figure.plan.totalRelativeError()};
    figure.curveTitle = tr("Error vs budget · step %1").arg(stepLabel(figure.plan.step, figure.plan.unnumbered));
    figure.curveXLabel = tr("Fraction of attention and MLP parameters kept");
    figure.curveYLabel = tr("Total relative Frobenius error");
    addRanks(figure);
    figure.summary = summary(figure);
    return figure;
}

void RankPlanFigureBuilder::addRanks(RankPlanFigure &figure) const
{
    HeatmapFigure &h = figure.ranks;
    const RankPlan &plan = figure.plan;
    h.step = plan.step;
    QSet<int> layers;
    for (const PlannedRank &r : plan.matrices) {
        layers.insert(r.id.layer);
        const HeatmapRow row{r.id.block, r.id.type};
        if (!h.rows.contains(row))
            h.rows << row;
    }
    // Blocks in the run's order, types in the contract's, Q at the top.
    std::stable_sort(h.rows.begin(), h.rows.end(), [&](const HeatmapRow &a, const HeatmapRow &b) {
        const qsizetype ba = m_state.blocks().indexOf(a.block), bb = m_state.blocks().indexOf(b.block);
        return ba != bb ? ba < bb : int(a.type) < int(b.type);
    });
    h.columns = QList<int>(layers.begin(), layers.end());
    std::sort(h.columns.begin(), h.columns.end());
    for (int layer : h.columns)
        h.columnLabels << QString::number(layer);
    const bool blocks = m_state.blocks().size() > 1;
    for (qsizetype y = 0; y < h.rows.size(); ++y) {
        h.rowLabels << (blocks && !h.rows[y].block.isEmpty() ? h.rows[y].block + QStringLiteral(" · ") : QString()) + displayLabel(h.rows[y].type);
        if (y > 0 && h.rows[y].block != h.rows[y - 1].block)
            h.blockStarts << int(y);
    }
    // A cell of several experts shows their mean rank.
    h.values = QList<QList<double>>(h.rows.size(), QList<double>(h.columns.size(), std::nan("")));
    QList<QList<int>> counts(h.rows.size(), QList<int>(h.columns.size(), 0));
    double lowest = INFINITY, highest = -INFINITY;
    for (const PlannedRank &r : plan.matrices) {
        const qsizetype y = h.rows.indexOf(HeatmapRow{r.id.block, r.id.type}), x = h.columns.indexOf(r.id.layer);
        double &cell = h.values[y][x];
        cell = counts[y][x] == 0 ? r.rank : (cell * counts[y][x] + r.rank) / (counts[y][x] + 1);
        ++counts[y][x];
    }
    for (const QList<double> &row : h.values)
        for (double v : row)
            if (std::isfinite(v)) {
                lowest = std::min(lowest, v);
                highest = std::max(highest, v);
            }
    h.colours.map = HeatmapColourScale::Map::Viridis;
    h.colours.range = highest > lowest ? AxisRange{lowest, highest} : AxisRange{lowest - 0.5, highest + 0.5};
    h.colours.shortLabel = tr("Rank");
    h.colours.label = tr("Rank chosen (a matrix kept dense: its full rank)");
    h.xLabel = tr("Layer");
    h.yLabel = blocks ? tr("Block · matrix type") : tr("Matrix type");
    h.title = tr("Ranks %1 · step %2").arg(plan.target.words(), stepLabel(plan.step, plan.unnumbered));
}

QString RankPlanFigureBuilder::summary(const RankPlanFigure &figure) const
{
    const RankPlan &plan = figure.plan;
    QString text = tr("%1 matrices · %2 of %3 parameters kept (%4 %) · energy kept %5 · total relative error %6")
                       .arg(plan.matrices.size())
                       .arg(plan.paramsAfter)
                       .arg(plan.paramsBefore)
                       .arg(100 * plan.keptFraction(), 0, 'f', 1)
                       .arg(plan.energy > 0 ? 1 - plan.energyLost / plan.energy : 1.0, 0, 'f', 4)
                       .arg(plan.totalRelativeError(), 0, 'f', 4);
    if (std::isfinite(plan.optimumEnergyBound) && plan.energy > 0)
        text += tr(" · no plan in the budget keeps more than %1").arg(plan.optimumEnergyBound / plan.energy, 0, 'f', 4);
    if (!plan.notes.isEmpty())
        text += tr(" · %1 matrices left out (no usable spectrum)").arg(plan.notes.size());
    return text;
}

} // namespace rankscope
