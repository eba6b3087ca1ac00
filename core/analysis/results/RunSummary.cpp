#include "analysis/results/RunSummary.h"

#include <algorithm>

namespace rankscope {

ExitStatus combinedExitStatus(const QList<ExitStatus> &statuses)
{
    auto all = [&](ExitStatus status) { return std::all_of(statuses.begin(), statuses.end(), [&](ExitStatus s) { return s == status; }); };
    if (all(ExitStatus::Clean))
        return ExitStatus::Clean;
    return all(ExitStatus::Failed) ? ExitStatus::Failed : ExitStatus::Skipped;
}

RunSummary::RunSummary(const RunAnalysis &run)
    : m_found(run.checkpointsFound)
    , m_analysed(run.checkpointsAnalysed)
    , m_fromResultsFile(int(std::count_if(run.checkpoints.begin(), run.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; })))
    , m_headRows(run.headResults.size())
    , m_matrices(run.results.size())
    , m_notAnalysed(run.issues.size())
    , m_leftOut(run.sidecars.size())
    , m_notes(run.notes.size())
    , m_pending(run.pending.size())
    , m_cancelled(run.cancelled)
    , m_noCheckpointRecords(run.checkpoints.isEmpty())
    , m_runsBelow(!run.runs.isEmpty())
    , m_trajectory(TrajectoryCheck::of(run.results))
{
}

RunSummary::Empty RunSummary::empty() const
{
    if (m_matrices > 0)
        return Empty::No;
    if (m_pending > 0 && m_found == 0)
        return Empty::StillBeingWritten;
    if (m_notAnalysed > 0)
        return Empty::NothingReadable;
    if (m_noCheckpointRecords)
        return m_runsBelow ? Empty::OnlyRuns : Empty::NoCheckpoints;
    return m_cancelled ? Empty::Cancelled : Empty::NoMatrices;
}

ExitStatus RunSummary::exitStatus(bool outputsWritten) const
{
    if (!outputsWritten || m_matrices == 0)
        return ExitStatus::Failed;
    return m_notAnalysed == 0 ? ExitStatus::Clean : ExitStatus::Skipped;
}

QString RunSummary::countsText() const
{
    const QString counts = QStringLiteral("%1 of %2 checkpoints analysed (%3 from the results file), %4 matrices")
                               .arg(m_analysed).arg(m_found).arg(m_fromResultsFile).arg(m_matrices);
    return m_headRows == 0 ? counts : counts + QStringLiteral(", %1 heads and circuits").arg(m_headRows);
}

QString RunSummary::skippedText() const
{
    return m_notAnalysed == 0 ? QStringLiteral("%1 skipped or noted").arg(skippedOrNoted())
                              : QStringLiteral("⚠ %1 not analysed").arg(m_notAnalysed);
}

} // namespace rankscope
