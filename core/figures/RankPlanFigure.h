// What the window's Rank plan tab shows, as numbers and words, computed from the view state and a
// target without a widget: the chosen ranks as a type × layer heatmap (HeatmapFigure, a cell of
// several experts their mean rank) and the error-vs-budget curve with the target's plan marked.
// RankPlanHeatmap and RankPlanCurve draw it; tests read it directly.
#pragma once

#include "analysis/results/RankPlanner.h"
#include "figures/HeatmapFigure.h"
#include "figures/ViewState.h"

#include <QCoreApplication>

namespace rankscope {

struct RankPlanFigure {
    RankPlan plan;            // the target's plan at the shown step of the run (run 0)
    HeatmapFigure ranks;      // values: the rank of each cell's matrix
    QList<BudgetPoint> curve; // the budget greedy's plans, fraction kept → total relative error
    BudgetPoint marked;       // the target's plan on the curve's axes
    QString curveTitle, curveXLabel, curveYLabel;
    QString summary;          // "40.0 % of 393216 parameters kept · total relative error 0.231 · …"
    QString noData;           // why nothing is planned, empty when something is
    QString targetProblem;    // why the target itself has no plan (RankPlanner::targetProblem); the smallest plan is shown
    double smallestKeep = 1;  // the smallest --keep of this step

    // The planned matrix of a cell, or null (a cell of several experts: the first).
    const PlannedRank *matrixAt(int row, int column) const;
};

class RankPlanFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(RankPlanFigure)
public:
    RankPlanFigureBuilder(const ViewState &state, const RankTarget &target) : m_state(state), m_target(target) {}
    RankPlanFigure build() const;

private:
    void addRanks(RankPlanFigure &figure) const;
    QString summary(const RankPlanFigure &figure) const;

    const ViewState &m_state;
    RankTarget m_target;
};

} // namespace rankscope
