// How far an analysis is and how long the rest will take. Work is counted in the cost model's
// core-seconds (SpectrumCostModel, from the shapes alone, before a tensor is read): the whole run as
// planned so far (the checkpoints opened, and as much again as the average computed one for each
// not yet opened), and what is done. The ETA divides what is left by the pace measured so far
// (reading, scheduling and this machine's speed included); before anything has finished (one huge
// matrix), by the pace the model expects of the open checkpoint on these workers.
#pragma once

#include "analysis/planning/SpectrumCostModel.h"

#include <QElapsedTimer>
#include <QString>

namespace rankscope {

struct AnalysisProgress {
    int checkpointsDone = 0;
    int checkpointsTotal = 0;
    int matricesDone = 0;
    int matricesTotal = 0; // an estimate until the last checkpoint is open
    QString currentFile;
    double elapsedSeconds = 0;
    double etaSeconds = -1; // unknown until some work is done
};

class AnalysisProgressModel {
public:
    // workers: every worker of every member (--jobs times the team's size).
    AnalysisProgressModel(SvdMethod method, int workers) : m_costModel(method), m_workers(workers) {}

    const SpectrumCostModel &costModel() const { return m_costModel; }
    // The analysis starts: the clock, and nothing planned or done.
    void start();
    // A checkpoint is open and these are its matrices (progress.matricesDone: those before it).
    void openCheckpoint(AnalysisProgress &progress, const QList<MatrixShape> &shapes);
    // Matrices done, of the open checkpoint (this member's and the others'), in the model's seconds.
    void addDone(double seconds) { m_doneSeconds += seconds; }
    double doneSeconds() const { return m_doneSeconds; }
    // A checkpoint is done (computed: not taken whole from earlier results). Until every checkpoint
    // is open, the rest are assumed to hold as many matrices, and to cost as much, as those seen.
    void finishCheckpoint(AnalysisProgress &progress, bool computed);
    // The elapsed time and the ETA, with doneSeconds done (the open checkpoint's finished
    // matrices included).
    void updateEta(AnalysisProgress &progress, double doneSeconds) const { updateEta(progress, doneSeconds, m_clock.elapsed() / 1000.0); }
    void updateEta(AnalysisProgress &progress, double doneSeconds, double elapsedSeconds) const;

private:
    SpectrumCostModel m_costModel;
    int m_workers;
    QElapsedTimer m_clock;
    double m_plannedSeconds = 0;
    // Written only on the analysing thread: the workers' seconds are added when their checkpoint ends.
    double m_doneSeconds = 0;
    double m_modelPace = 1; // core-seconds per wall second the model expects for the open checkpoint
    int m_checkpointsComputed = 0;
};

} // namespace rankscope
