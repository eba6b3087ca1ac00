#include "MpiTeam.h"

#include <QtGlobal>
#include <climits>
#include <cstdio>
#include <deque>

#if RANKSCOPE_HAVE_MPI
// The C API only: MPI's C++ bindings are deprecated and live in another library.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace rankscope {

namespace {
constexpr int kShareTag = 17;
} // namespace

#if RANKSCOPE_HAVE_MPI
// A share stays alive until MPI has sent it: MPI_Isend reads the buffer later.
struct MpiTeam::Pending {
    std::deque<std::pair<QByteArray, MPI_Request>> sends;

    void reapFinished()
    {
        while (!sends.empty()) {
            int done = 0;
            MPI_Test(&sends.front().second, &done, MPI_STATUS_IGNORE);
            if (!done)
                return;
            sends.pop_front();
        }
    }
    void waitAll()
    {
        for (auto &send : sends)
            MPI_Wait(&send.second, MPI_STATUS_IGNORE);
        sends.clear();
    }
};
#else
struct MpiTeam::Pending {};
#endif

bool MpiTeam::launched()
{
    // mpirun (Open MPI), srun --mpi=pmix / pmi2, and MPICH's hydra each set one of these.
    for (const char *variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (qEnvironmentVariableIsSet(variable))
            return true;
    return false;
}

QString MpiTeam::libraryVersion()
{
#if RANKSCOPE_HAVE_MPI
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length); // allowed before MPI_Init
    // "Open MPI v4.1.4, package: Debian OpenMPI, ident: …": the first part names it.
    return QString::fromLocal8Bit(version, length).section(QLatin1Char(','), 0, 0).trimmed();
#else
    return {};
#endif
}

std::unique_ptr<MpiTeam> MpiTeam::join()
{
#if RANKSCOPE_HAVE_MPI
    if (!launched())
        return nullptr;
    // Only the analysing thread talks to MPI; the workers compute.
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return std::unique_ptr<MpiTeam>(new MpiTeam(rank, size));
#else
    return nullptr;
#endif
}

MpiTeam::MpiTeam(int rank, int size) : m_rank(rank), m_size(size), m_pending(std::make_unique<Pending>()) {}

MpiTeam::~MpiTeam()
{
#if RANKSCOPE_HAVE_MPI
    m_pending->waitAll();
    MPI_Finalize();
#endif
}

void MpiTeam::sendToLeader(const QByteArray &share)
{
#if RANKSCOPE_HAVE_MPI
    // One checkpoint's results of one rank: its spectra, a few MB even for a 7B model.
    if (share.size() > INT_MAX) {
        std::fprintf(stderr, "rankscope: rank %d: one checkpoint's results exceed 2 GB, more than one MPI message holds\n", m_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    m_pending->reapFinished();
    m_pending->sends.emplace_back(share, MPI_Request{});
    auto &send = m_pending->sends.back();
    MPI_Isend(send.first.constData(), int(send.first.size()), MPI_BYTE, 0, kShareTag, MPI_COMM_WORLD, &send.second);
#else
    Q_UNUSED(share);
#endif
}

QByteArray MpiTeam::receiveFrom(int member)
{
#if RANKSCOPE_HAVE_MPI
    MPI_Status status;
    MPI_Probe(member, kShareTag, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    QByteArray share(count, Qt::Uninitialized);
    MPI_Recv(share.data(), count, MPI_BYTE, member, kShareTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return share;
#else
    Q_UNUSED(member);
    return {};
#endif
}

void MpiTeam::barrier()
{
#if RANKSCOPE_HAVE_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
}

} // namespace rankscope
