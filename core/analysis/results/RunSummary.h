// What one analysis of a run came to: the checkpoints and matrices analysed, how many came from
// the results file, what was skipped, why nothing was analysed when nothing was, and the exit
// status that follows. The command line and the window read a run through it, so that both count,
// word and judge it alike.
#pragma once

#include "analysis/results/RunAnalysis.h"
#include "analysis/results/TrajectoryCheck.h"

#include <QList>
#include <QString>

namespace rankscope {

// Every command's exit status: 0 when all that was asked was done, 2 when files or tensors were
// skipped (the run has issues), 1 when there is nothing to show or an output (or the usage) failed.
enum class ExitStatus : int { Clean = 0, Failed = 1, Skipped = 2 };

// Several runs' statuses as one: clean when every run was, failed when every run failed, and
// skipped otherwise (some runs gave something, not all of it clean).
ExitStatus combinedExitStatus(const QList<ExitStatus> &statuses);

class RunSummary {
public:
    // Why a run shows nothing: the first of these that holds, in this order.
    enum class Empty {
        No,                 // there are results
        StillBeingWritten,  // no checkpoint yet, only some still being written
        NothingReadable,    // every checkpoint or tensor found failed to read
        OnlyRuns,           // no checkpoints of its own, but runs in its subfolders
        NoCheckpoints,
        Cancelled,          // before the first checkpoint was done
        NoMatrices,         // checkpoints, but no attention or MLP matrix in them
    };

    explicit RunSummary(const RunAnalysis &run);

    int checkpointsFound() const { return m_found; }
    int checkpointsAnalysed() const { return m_analysed; }
    int checkpointsFromResultsFile() const { return m_fromResultsFile; }
    qsizetype matrices() const { return m_matrices; }
    // Files and tensors that could not be read (the run's issues).
    qsizetype notAnalysed() const { return m_notAnalysed; }
    // Those, and the files left out (sidecars, duplicates), the notes on how the run was read, and
    // the checkpoints the trajectory check names.
    qsizetype skippedOrNoted() const { return m_notAnalysed + m_leftOut + m_notes + m_trajectory.size(); }
    // Checkpoints that are another step's weights again or out of line with their neighbours
    // (TrajectoryCheck), as every command and the window word them: analysed and shown all the same.
    QList<TrajectoryFinding> trajectoryFindings() const { return m_trajectory; }
    qsizetype stillBeingWritten() const { return m_pending; }
    bool cancelled() const { return m_cancelled; }
    // Nothing analysed, no checkpoint found and none still being written: the folder holds none.
    bool foundNothing() const { return m_matrices == 0 && m_found == 0 && m_pending == 0; }
    Empty empty() const;

    // Failed when nothing was analysed or an output was not written whole, skipped when the run
    // has issues, clean otherwise.
    ExitStatus exitStatus(bool outputsWritten = true) const;

    // "3 of 4 checkpoints analysed (2 from the results file), 144 matrices".
    QString countsText() const;
    // What was left out, as the window's issues button says it: "⚠ 2 not analysed" when files or
    // tensors failed, else "3 skipped or noted".
    QString skippedText() const;

private:
    int m_found = 0, m_analysed = 0, m_fromResultsFile = 0;
    qsizetype m_headRows = 0; // --heads: heads and circuits, counted apart from the matrices
    qsizetype m_matrices = 0, m_notAnalysed = 0, m_leftOut = 0, m_notes = 0, m_pending = 0;
    bool m_cancelled = false, m_noCheckpointRecords = true, m_runsBelow = false;
    QList<TrajectoryFinding> m_trajectory;
};

} // namespace rankscope
