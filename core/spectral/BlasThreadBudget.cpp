#include "spectral/BlasThreadBudget.h"

#include "spectral/SingularValueSolver.h"

#include <algorithm>

namespace rankscope {

BlasThreadBudget::BlasThreadBudget(int cores) : m_cores(std::max(1, cores)) { apply(1); }

BlasThreadBudget::~BlasThreadBudget() { apply(1); }

void BlasThreadBudget::enter()
{
    QMutexLocker lock(&m_mutex);
    ++m_inFlight;
    // Set under the lock, before this caller's first BLAS call: a second caller never shares the pool.
    apply(m_tail && m_inFlight == 1 ? m_cores : 1);
}

void BlasThreadBudget::allHandedOut()
{
    QMutexLocker lock(&m_mutex);
    m_tail = true;
    apply(m_inFlight == 1 ? m_cores : 1);
}

void BlasThreadBudget::leave()
{
    QMutexLocker lock(&m_mutex);
    --m_inFlight;
    // At the tail, the one left (if any) gets every core from its next BLAS call on.
    apply(m_tail && m_inFlight == 1 ? m_cores : 1);
}

void BlasThreadBudget::apply(int threads)
{
    if (threads != m_threads) {
        SingularValueSolver::setBlasThreads(threads);
        m_threads = threads;
    }
}

} // namespace rankscope
