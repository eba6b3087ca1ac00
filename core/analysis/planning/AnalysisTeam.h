// The processes that share one analysis (MPI ranks launched by mpirun or srun). Every member walks
// the same checkpoints in the same order and computes the matrices handed to it; the leader (rank
// 0) gathers each checkpoint's results from all, reports progress and writes the results file.
// The transport is the subclass's (app/cli/MpiTeam): the core links no MPI.
#pragma once

#include "analysis/results/RunAnalysis.h"

#include <QByteArray>
#include <QList>
#include <optional>

namespace rankscope {

// What one member computed of one checkpoint: its matrices, the tensors it could not analyse,
// and its share of the work and time (for progress and the timings line).
struct CheckpointShare {
    QList<MatrixResult> results;
    QList<AnalysisIssue> issues;
    int matricesDone = 0;
    double costSeconds = 0; // the cost model's seconds of its matrices
    RunAnalysis::Timings timings;

    QByteArray serialized() const;
    // nullopt for bytes that are not a share (a member of another build, say).
    static std::optional<CheckpointShare> fromBytes(const QByteArray &bytes);
};

class AnalysisTeam {
public:
    virtual ~AnalysisTeam() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    bool leads() const { return rank() == 0; }

    // Called by a member other than the leader, once per checkpoint analysed, in checkpoint order;
    // returns at once (the leader takes it when it reaches that checkpoint).
    virtual void sendToLeader(const QByteArray &share) = 0;
    // Called by the leader, once per checkpoint and member: that member's next share (waits for it).
    virtual QByteArray receiveFrom(int member) = 0;
    // Returns once every member has called it.
    virtual void barrier() = 0;

    // Which member computes each work item of a checkpoint, from the items' costs alone, so that
    // every member decides the same without talking: longest first, each to the member with the
    // least work so far. load (one entry per member) carries that work from checkpoint to
    // checkpoint, so the run is balanced, not only each checkpoint; ties go to the highest rank, as
    // the leader also gathers and saves. Balances by cost, not count: one 4096×11008 MLP matrix
    // outweighs many small ones.
    static QList<int> assignByCost(const QList<double> &costs, QList<double> &load);
};

} // namespace rankscope
