// Who computes what when several processes share one analysis (AnalysisTeam), and how their parts
// of a checkpoint come together. Every member hands out each checkpoint's work items (the
// (tensor, slice) reads) by cost with AnalysisTeam::assignByCost, carrying the load over the run,
// and so decides alike without talking; after its part, a member sends it to the leader, which
// adds every member's share to its own. Alone, every item is this process's and nothing travels.
#pragma once

#include "analysis/planning/AnalysisProgressModel.h"
#include "analysis/results/RunAnalysis.h"

#include <QList>

namespace rankscope {

class AnalysisTeam;

class TeamSchedule {
public:
    explicit TeamSchedule(AnalysisTeam *team = nullptr) : m_team(team) {}

    bool alone() const { return !m_team; }
    bool leads() const;
    // Every member's cores count for the ETA.
    int size() const;
    // The analysis starts: no load yet. Every member has read the earlier results before the
    // leader may replace them: all decide alike which checkpoints are still to do.
    void start();
    // Of a checkpoint's work items, by their costs (in order), which are this member's.
    QList<bool> ownItems(const QList<double> &itemCosts);

    // What this member did of the checkpoint: its results, the run's issues from issuesFrom on,
    // and its matrices, cost and timings since timingsBefore.
    struct OwnPart {
        qsizetype issuesFrom = 0;
        int matricesDone = 0;
        double costSeconds = 0;
        RunAnalysis::Timings timingsBefore;
    };
    // After this member's part of a checkpoint: the leader adds every other member's share to
    // results, run, progress and the progress model (the issues every member reports, such as a
    // left-out tensor, once); another member sends its own.
    void gather(QList<MatrixResult> &results, RunAnalysis &run, const OwnPart &own, AnalysisProgress &progress,
                AnalysisProgressModel &model) const;

private:
    AnalysisTeam *m_team;
    QList<double> m_load; // each member's work so far (AnalysisTeam::assignByCost)
};

} // namespace rankscope
