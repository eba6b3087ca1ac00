// A whole analysis with a GPU set (the stand-in device, which computes for real on the CPU): the
// demo run's every matrix is computed on the device, with the CPU path's metrics within the
// contract and the count of matrices on each in the timings; when the device fails, every matrix
// is computed on the CPU, with exactly the CPU path's results and the reason in the run's notes.
#include "analysis/execution/RunAnalyzer.h"
#include "core/spectral/StandInGramDevice.h"
#include "spectral/DeviceGramSolver.h"
#include "TestSuite.h"

#include <cmath>
#include <cstring>

namespace tst_deviceanalysis {

using namespace rankscope;
using rankscope::test::StandInGramDevice;
using rankscope::test::StandInLedger;

namespace {

// jobs: 1 where results are compared bit for bit (the same BLAS threads in both runs).
RunAnalysis analyse(std::shared_ptr<DeviceGramSolver> device, bool subspace = false, int jobs = 2)
{
    AnalysisSettings settings;
    settings.jobs = jobs;
    settings.subspace = subspace;
    settings.device = std::move(device);
    return RunAnalyzer(settings).analyzeFolder(RANKSCOPE_DEMO_RUN);
}

std::shared_ptr<DeviceGramSolver> standIn(const std::shared_ptr<StandInLedger> &ledger)
{
    return std::make_shared<DeviceGramSolver>(std::make_unique<StandInGramDevice>(qint64(8) << 30, ledger), 2);
}

// The contract's tolerance: 1e-6 relative for the norms and ranks, exact compression (none of
// the demo's partial sums lies near τ·Σλ), alpha within 1e-3.
bool withinContract(const SpectralMetrics &a, const SpectralMetrics &b, QString *why)
{
    const std::pair<const char *, std::pair<double, double>> relative[] = {
        {"stable_rank", {a.stableRank, b.stableRank}},       {"effective_rank", {a.effectiveRank, b.effectiveRank}},
        {"spectral_norm", {a.spectralNorm, b.spectralNorm}}, {"frobenius_norm", {a.frobeniusNorm, b.frobeniusNorm}},
    };
    for (const auto &[name, values] : relative)
        if (!(std::abs(values.first - values.second) <= 1e-6 * std::abs(values.second))) {
            *why = QStringLiteral("%1: %2 vs %3").arg(name).arg(values.first, 0, 'g', 17).arg(values.second, 0, 'g', 17);
            return false;
        }
    if (a.compressionPct != b.compressionPct || !(std::abs(a.alpha - b.alpha) <= 1e-3)) {
        *why = QStringLiteral("compression %1 vs %2, alpha %3 vs %4").arg(a.compressionPct).arg(b.compressionPct).arg(a.alpha).arg(b.alpha);
        return false;
    }
    return true;
}

} // namespace

class TestDeviceAnalysis : public QObject {
    Q_OBJECT
private slots:
    void everyMatrixOnTheDeviceWithinTheContract()
    {
        auto ledger = std::make_shared<StandInLedger>();
        const RunAnalysis onDevice = analyse(standIn(ledger), true);
        const RunAnalysis onCpu = analyse(nullptr, true);
        QVERIFY(!onCpu.results.isEmpty());
        QCOMPARE(onDevice.results.size(), onCpu.results.size());
        QCOMPARE(onDevice.timings.matricesOnDevice, int(onCpu.results.size()));
        QCOMPARE(onDevice.timings.matricesOnCpu, 0);
        QCOMPARE(onCpu.timings.matricesOnDevice, 0);
        QCOMPARE(onCpu.timings.matricesOnCpu, int(onCpu.results.size()));
        QCOMPARE(ledger->solves, int(onCpu.results.size()));
        QCOMPARE(onDevice.notes, onCpu.notes);
        for (qsizetype i = 0; i < onCpu.results.size(); ++i) {
            const MatrixResult &d = onDevice.results[i], &c = onCpu.results[i];
            QCOMPARE(d.tensor, c.tensor);
            QCOMPARE(d.step, c.step);
            QString why;
            QVERIFY2(withinContract(d.metrics, c.metrics, &why), qPrintable(c.tensor + ": " + why));
            // --subspace: the top vectors agree up to sign, so the overlaps do.
            QCOMPARE(d.topVectors.cols(), c.topVectors.cols());
            QVERIFY2(std::abs(d.metrics.subspaceOverlap - c.metrics.subspaceOverlap) <= 1e-4 || (std::isnan(d.metrics.subspaceOverlap) && std::isnan(c.metrics.subspaceOverlap)),
                     qPrintable(QStringLiteral("%1: overlap %2 vs %3").arg(c.tensor).arg(d.metrics.subspaceOverlap).arg(c.metrics.subspaceOverlap)));
        }
    }

    void aFailingDeviceLeavesExactlyTheCpuResults()
    {
        auto ledger = std::make_shared<StandInLedger>();
        ledger->failSolve = true;
        const RunAnalysis fallen = analyse(standIn(ledger), false, 1);
        const RunAnalysis onCpu = analyse(nullptr, false, 1);
        QCOMPARE(fallen.results.size(), onCpu.results.size());
        QCOMPARE(fallen.timings.matricesOnDevice, 0);
        QCOMPARE(fallen.timings.matricesOnCpu, int(onCpu.results.size()));
        for (qsizetype i = 0; i < onCpu.results.size(); ++i) {
            QVERIFY(fallen.results[i].singularValues == onCpu.results[i].singularValues);
            QVERIFY(std::memcmp(&fallen.results[i].metrics, &onCpu.results[i].metrics, sizeof(SpectralMetrics)) == 0);
        }
        // Each matrix is named with why it went to the CPU.
        const QStringList notes = fallen.notes.filter(QStringLiteral("its spectrum was computed on the CPU"));
        QCOMPARE(notes.size(), onCpu.results.size());
        QVERIFY2(notes.filter(QStringLiteral("the eigensolver failed")).size() >= 1, qPrintable(notes.join('\n')));
        QVERIFY(fallen.issues.size() == onCpu.issues.size()); // a fallback is not a problem of the run
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestDeviceAnalysis)
} // namespace tst_deviceanalysis

#include "tst_DeviceAnalysis.moc"
