// A GramDevice that computes on the CPU, for the tests of the GPU path on machines without one:
// its Gram matrix is accumulated (Eigen's rank update) and solved (Eigen's self-adjoint
// eigensolver) for real, so the spectra it gives must equal the CPU path's within the contract.
// It records what the solver asked of it (shapes, blocks, sessions at once) and fails on request:
// at begin, at the nth accumulate, at the solve, or when asked its workspace.
#pragma once

#include "spectral/GramDevice.h"

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <QList>
#include <QMutex>
#include <QMutexLocker>
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

namespace rankscope::test {

struct StandInLedger {
    QMutex mutex;
    QList<GramSessionShape> shapes; // every session begun
    int accumulates = 0;            // blocks added, over all sessions
    int solves = 0;
    int open = 0, mostOpen = 0;     // sessions at once
    // Injected failures: -1 never; failAccumulate counts from 0 over all sessions.
    bool failBegin = false, failSolve = false, failWorkspace = false;
    int failAccumulate = -1;
    qint64 workspaceBytes = 4096;
};

class StandInGramSession : public GramSession {
public:
    StandInGramSession(const GramSessionShape &shape, std::shared_ptr<StandInLedger> ledger)
        : m_shape(shape), m_ledger(std::move(ledger)), m_gram(Eigen::MatrixXd::Zero(shape.order, shape.order))
    {
        for (auto &block : m_blocks)
            block.assign(size_t(shape.blockLines * shape.order), 0.0);
        QMutexLocker lock(&m_ledger->mutex);
        m_ledger->mostOpen = std::max(m_ledger->mostOpen, ++m_ledger->open);
    }
    ~StandInGramSession() override
    {
        QMutexLocker lock(&m_ledger->mutex);
        --m_ledger->open;
    }
    double *hostBlock(int slot) override { return m_blocks[slot].data(); }
    bool waitForSlot(int) override { return true; }
    bool accumulate(int slot, qint64 lines, bool transposed, bool first) override
    {
        {
            QMutexLocker lock(&m_ledger->mutex);
            if (m_ledger->accumulates++ == m_ledger->failAccumulate)
                return fail(QStringLiteral("stand-in: accumulate failed"));
        }
        if (lines < 1 || lines > m_shape.blockLines)
            return fail(QStringLiteral("stand-in: %1 lines in a block of %2").arg(lines).arg(m_shape.blockLines));
        if (first)
            m_gram.setZero();
        const int order = m_shape.order;
        if (transposed) // lines × order, column-major: G += AᵀA
            m_gram.selfadjointView<Eigen::Lower>().rankUpdate(Eigen::Map<const Eigen::MatrixXd>(m_blocks[slot].data(), lines, order).transpose());
        else            // order × lines: G += A·Aᵀ
            m_gram.selfadjointView<Eigen::Lower>().rankUpdate(Eigen::Map<const Eigen::MatrixXd>(m_blocks[slot].data(), order, lines));
        return true;
    }
    bool solve(double *eigenvalues, double *vectors) override
    {
        {
            QMutexLocker lock(&m_ledger->mutex);
            ++m_ledger->solves;
            if (m_ledger->failSolve)
                return fail(QStringLiteral("stand-in: the eigensolver failed"));
        }
        const Eigen::MatrixXd full = m_gram.selfadjointView<Eigen::Lower>();
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(full, vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
        Eigen::Map<Eigen::VectorXd>(eigenvalues, m_shape.order) = eigen.eigenvalues();
        const int k = m_shape.topVectors;
        if (vectors)
            Eigen::Map<Eigen::MatrixXd>(vectors, m_shape.order, k) = eigen.eigenvectors().rightCols(k);
        return true;
    }
    QString error() const override { return m_error; }

private:
    bool fail(const QString &error)
    {
        m_error = error;
        return false;
    }
    GramSessionShape m_shape;
    std::shared_ptr<StandInLedger> m_ledger;
    Eigen::MatrixXd m_gram;
    std::vector<double> m_blocks[kSlots];
    QString m_error;
};

class StandInGramDevice : public GramDevice {
public:
    StandInGramDevice(qint64 freeBytes, std::shared_ptr<StandInLedger> ledger) : m_freeBytes(freeBytes), m_ledger(std::move(ledger)) {}
    QString description() const override { return QStringLiteral("stand-in device"); }
    qint64 freeBytes() const override { return m_freeBytes; }
    qint64 eigensolverWorkspaceBytes(int, bool, QString *error) override
    {
        QMutexLocker lock(&m_ledger->mutex);
        if (m_ledger->failWorkspace) {
            *error = QStringLiteral("stand-in: no workspace size");
            return -1;
        }
        return m_ledger->workspaceBytes;
    }
    std::unique_ptr<GramSession> begin(const GramSessionShape &shape, QString *error) override
    {
        {
            QMutexLocker lock(&m_ledger->mutex);
            m_ledger->shapes << shape;
            if (m_ledger->failBegin) {
                *error = QStringLiteral("stand-in: out of device memory");
                return nullptr;
            }
        }
        return std::make_unique<StandInGramSession>(shape, m_ledger);
    }

private:
    qint64 m_freeBytes;
    std::shared_ptr<StandInLedger> m_ledger;
};

} // namespace rankscope::test
