// Gives a lone spectral computation the cores the other workers left idle. Workers run one matrix
// each with one BLAS thread; at the tail of the work (the end of a run, one huge matrix, a d = 4096
// layer of 6 matrices on 2 workers) fewer matrices than workers remain, and the cores of the
// finished workers would idle.
//
// OpenBLAS has one thread count for the whole process, read at the start of every BLAS call, and
// two calls that each use its thread pool at once are not safe. So the count is raised only while
// exactly one computation is in flight, and set back to 1 (under the same lock) before a second one
// starts: at most one caller ever runs a multi-threaded BLAS call, and the one in flight picks the
// new count up at its next BLAS call (the Gram matrix is formed in many dsyrk calls; the
// eigensolvers make many BLAS calls too). A single-threaded call running beside a multi-threaded
// one never touches OpenBLAS's thread pool, so that overlap is safe.
//
// Only at the tail, once every computation of the batch has been handed out: between two matrices
// of a busy pool, one worker is briefly alone, and OpenBLAS's pool threads spin for a while after a
// multi-threaded call, stealing the core the next matrix needs.
#pragma once

#include <QMutex>

namespace rankscope {

class BlasThreadBudget {
public:
    // cores: what the whole process may use (the analysis's --jobs).
    explicit BlasThreadBudget(int cores);
    ~BlasThreadBudget();

    // Held by a worker for the whole of one computation.
    class Claim {
    public:
        explicit Claim(BlasThreadBudget &budget) : m_budget(budget) { m_budget.enter(); }
        ~Claim() { m_budget.leave(); }
        Claim(const Claim &) = delete;
        Claim &operator=(const Claim &) = delete;

    private:
        BlasThreadBudget &m_budget;
    };

    // Every computation of the batch has been handed out: from now on, a lone one gets all cores.
    void allHandedOut();

private:
    void enter();
    void leave();
    void apply(int threads);

    QMutex m_mutex;
    const int m_cores;
    int m_inFlight = 0;
    bool m_tail = false;
    int m_threads = 0; // 0: not set by RankScope yet
};

} // namespace rankscope
