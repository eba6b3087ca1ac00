#include "analysis/planning/AnalysisProgressModel.h"

#include <algorithm>

namespace rankscope {

void AnalysisProgressModel::start()
{
    m_clock.start();
    m_plannedSeconds = m_doneSeconds = 0;
    m_checkpointsComputed = 0;
}

void AnalysisProgressModel::openCheckpoint(AnalysisProgress &progress, const QList<MatrixShape> &shapes)
{
    double plannedSeconds = 0;
    for (const MatrixShape &shape : shapes)
        plannedSeconds += m_costModel.matrixSeconds(shape);
    // The checkpoints not opened yet are assumed like the average one so far, this one included,
    // as finishCheckpoint assumes them: the open checkpoint alone is not the whole run.
    const int unopened = std::max(0, progress.checkpointsTotal - progress.checkpointsDone - 1);
    const int matrices = progress.matricesDone + int(shapes.size());
    progress.matricesTotal = std::max(progress.matricesTotal, matrices + unopened * (matrices / (progress.checkpointsDone + 1)));
    const double seconds = m_doneSeconds + plannedSeconds;
    m_plannedSeconds = std::max(m_plannedSeconds, seconds + unopened * (seconds / (m_checkpointsComputed + 1)));
    // The model's own pace for this checkpoint (core-seconds per wall second), until work is done.
    const double plannedWall = m_costModel.wallSeconds(shapes, m_workers);
    m_modelPace = plannedWall > 0 ? plannedSeconds / plannedWall : m_workers;
}

void AnalysisProgressModel::finishCheckpoint(AnalysisProgress &progress, bool computed)
{
    ++progress.checkpointsDone;
    const int checkpointsLeft = progress.checkpointsTotal - progress.checkpointsDone;
    progress.matricesTotal = progress.matricesDone + checkpointsLeft * (progress.matricesDone / std::max(1, progress.checkpointsDone));
    if (computed)
        ++m_checkpointsComputed;
    m_plannedSeconds = m_doneSeconds + checkpointsLeft * (m_doneSeconds / std::max(1, m_checkpointsComputed));
    updateEta(progress, m_doneSeconds);
}

void AnalysisProgressModel::updateEta(AnalysisProgress &progress, double doneSeconds, double elapsedSeconds) const
{
    progress.elapsedSeconds = elapsedSeconds;
    const double remaining = std::max(0.0, m_plannedSeconds - doneSeconds);
    if (m_plannedSeconds <= 0) {
        progress.etaSeconds = -1;
    } else if (doneSeconds > 0 && progress.elapsedSeconds > 0) {
        // The pace measured so far (reading, scheduling and this machine's speed included).
        progress.etaSeconds = remaining / (doneSeconds / progress.elapsedSeconds);
    } else {
        // Nothing finished yet (e.g. one huge matrix): the model's estimate, counting down.
        progress.etaSeconds = std::max(0.0, remaining / m_modelPace - progress.elapsedSeconds);
    }
}

} // namespace rankscope
