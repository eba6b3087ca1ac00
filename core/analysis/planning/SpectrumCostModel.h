// What analysing a matrix costs, known from its shape before it is read: ~ m·n·min(m, n) for the Gram
// matrix plus min(m, n)³ for the eigensolver (m·n·min(m, n) for the exact SVD). The progress ETA and
// docs/performance.md's table of time per checkpoint against model width and --jobs both come from it. Its
// constants were measured by bench/bench_eigensolver on the 2-core development machine (docs/performance.md).
#pragma once

#include "spectral/SingularValueSolver.h"

#include <QList>

namespace rankscope {

struct MatrixShape {
    qint64 rows = 0, cols = 0;
};

class SpectrumCostModel {
public:
    explicit SpectrumCostModel(SvdMethod method = SvdMethod::FastGram) : m_method(method) {}

    // Seconds of one core for one matrix's spectrum and metrics.
    double matrixSeconds(const MatrixShape &shape) const;
    // Wall seconds for these matrices, in this order, on `jobs` workers as RunAnalyzer runs them:
    // each to the first free worker, one BLAS thread each, and all the cores for a matrix left
    // computing alone (BlasThreadBudget).
    double wallSeconds(const QList<MatrixShape> &shapes, int jobs) const;
    // How much faster one matrix runs on `threads` BLAS threads than on one.
    static double speedupOnThreads(int threads);

    // The matrices of one layer of a GPT-2-like model of width d: Q, K, V, O (d×d), MLP up (4d×d)
    // and down (d×4d).
    static QList<MatrixShape> gpt2Layer(qint64 width);

private:
    SvdMethod m_method;
};

} // namespace rankscope
