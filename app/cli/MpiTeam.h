// The MPI ranks of `mpirun -n N rankscope analyze` (or `srun`) as an AnalysisTeam. MPI is started
// only when a launcher started this process; a plain `rankscope`, and the window, never touch it.
// Built when Debian's Open MPI development package is present (RANKSCOPE_HAVE_MPI); without it,
// a launched process says so rather than have every rank analyse the whole run.
#pragma once

#include "analysis/planning/AnalysisTeam.h"

#include <QString>
#include <memory>

namespace rankscope {

class MpiTeam : public AnalysisTeam {
public:
    // Whether an MPI launcher started this process (its environment says so).
    static bool launched();
    // Starts MPI and joins the launched job; null when not launched or MPI is not built in.
    static std::unique_ptr<MpiTeam> join();
    // "Open MPI v4.1.4", or empty when this build has no MPI support.
    static QString libraryVersion();

    ~MpiTeam() override; // waits until the leader has every share sent, then ends MPI

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    void sendToLeader(const QByteArray &share) override;
    QByteArray receiveFrom(int member) override;
    void barrier() override;

private:
    MpiTeam(int rank, int size);
    struct Pending;
    int m_rank = 0;
    int m_size = 1;
    std::unique_ptr<Pending> m_pending; // shares in flight to the leader
};

} // namespace rankscope
