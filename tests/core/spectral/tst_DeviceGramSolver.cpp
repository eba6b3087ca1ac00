// The GPU path of the spectral solve, on a stand-in device that computes for real on the CPU: its
// spectra equal the CPU path's within the metric contract; a matrix too large for the device's
// memory budget, and every device failure, gives the CPU path's own answer with the reason said;
// after a failure the device is not used again; the memory planner never plans more than the
// budget, nor more host memory than the CPU path holds; the budget lets a solve wait for memory
// others hold and refuses one that can never fit; --device's choice of device.
#include "core/TestMatrices.h"
#include "spectral/CudaGramDevice.h"
#include "spectral/DenseBlockSource.h"
#include "spectral/DeviceGramSolver.h"
#include "spectral/GramDeviceChoice.h"
#include "StandInGramDevice.h"
#include "TestSuite.h"

#include <QThread>
#include <cmath>
#include <random>

namespace tst_devicegramsolver {

using namespace rankscope;
using rankscope::test::StandInGramDevice;
using rankscope::test::StandInLedger;

namespace {

constexpr qint64 kMiB = qint64(1) << 20;

// Free device bytes that leave exactly `budget` bytes to the solves.
qint64 freeBytesForBudget(qint64 budget)
{
    qint64 free = (budget + 512 * kMiB) / 9 * 10;
    while (DeviceMemoryBudget::fromFreeBytes(free) < budget)
        ++free;
    return free;
}

struct Rig {
    std::shared_ptr<StandInLedger> ledger = std::make_shared<StandInLedger>();
    std::shared_ptr<DeviceGramSolver> device;
    explicit Rig(qint64 budget = 64 * kMiB, int sessions = 4)
        : device(std::make_shared<DeviceGramSolver>(std::make_unique<StandInGramDevice>(freeBytesForBudget(budget), ledger), sessions))
    {
    }
};

// Distinct known singular values 1, 2, …, so that a lost or doubled block shows.
Eigen::MatrixXd knownMatrix(int rows, int cols, unsigned seed)
{
    std::mt19937_64 rng(seed);
    const int r = std::min(rows, cols);
    Eigen::VectorXd s(r);
    for (int i = 0; i < r; ++i)
        s[i] = 1.0 + i;
    return test::withSingularValues(rows, cols, s, rng);
}

struct Solved {
    Spectrum spectrum;
    SolvePlace place;
    int allReadCalls = 0;
};

// W (row-major rows × cols: the column-major matrix given transposed) through `solver`.
Solved solve(const SingularValueSolver &solver, const Eigen::MatrixXd &columnMajor)
{
    Solved solved;
    solved.spectrum = solver.compute(DenseBlockSource(columnMajor), [&] { ++solved.allReadCalls; }, &solved.place);
    return solved;
}

SingularValueSolver smallBlocks(std::shared_ptr<DeviceGramSolver> device, int topVectors = 0)
{
    SingularValueSolver solver;
    solver.setGramBlockBytes(8 * 64 * 7); // a few lines per block: many blocks, and a last one short
    solver.setTopVectors(topVectors);
    solver.setDevice(std::move(device));
    return solver;
}

void compareWithinContract(const Spectrum &device, const Spectrum &cpu)
{
    QVERIFY2(device.ok(), qPrintable(device.error));
    QCOMPARE(device.singularValues.size(), cpu.singularValues.size());
    for (Eigen::Index i = 0; i < cpu.singularValues.size(); ++i)
        QVERIFY2(std::abs(device.singularValues[i] - cpu.singularValues[i]) <= 1e-9 * cpu.singularValues[0],
                 qPrintable(QStringLiteral("σ%1: %2 vs %3").arg(i).arg(device.singularValues[i], 0, 'g', 17).arg(cpu.singularValues[i], 0, 'g', 17)));
    QCOMPARE(device.topRightVectors.cols(), cpu.topRightVectors.cols());
    QCOMPARE(device.topRightVectors.rows(), cpu.topRightVectors.rows());
    // Each vector up to its sign.
    for (Eigen::Index j = 0; j < cpu.topRightVectors.cols(); ++j) {
        const double cosine = std::abs(double(device.topRightVectors.col(j).dot(cpu.topRightVectors.col(j))));
        QVERIFY2(cosine > 1 - 1e-5, qPrintable(QStringLiteral("v%1: |cos| %2").arg(j).arg(cosine, 0, 'g', 9)));
    }
}

void compareExactly(const Spectrum &fallback, const Spectrum &cpu)
{
    QCOMPARE(fallback.error, cpu.error);
    QVERIFY(fallback.singularValues == cpu.singularValues);
    QVERIFY(fallback.topRightVectors == cpu.topRightVectors);
}

} // namespace

class TestDeviceGramSolver : public QObject {
    Q_OBJECT
private slots:
    void deviceSpectrumEqualsTheCpuPath_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("topVectors");
        QTest::newRow("tall, WᵀW") << 90 << 40 << 0;
        QTest::newRow("wide, WWᵀ") << 40 << 75 << 0;
        QTest::newRow("square") << 48 << 48 << 0;
        QTest::newRow("tall with top vectors") << 90 << 40 << 5;
        QTest::newRow("wide with top vectors (V = WᵀUΣ⁻¹)") << 40 << 75 << 5;
        QTest::newRow("one row") << 1 << 30 << 1;
    }
    void deviceSpectrumEqualsTheCpuPath()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, topVectors);
        Rig rig;
        const Eigen::MatrixXd w = knownMatrix(cols, rows, 7); // column-major cols × rows: W is rows × cols
        const Solved onDevice = solve(smallBlocks(rig.device, topVectors), w);
        const Solved onCpu = solve(smallBlocks(nullptr, topVectors), w);
        QVERIFY(onDevice.place.onDevice);
        QVERIFY(onDevice.place.note.isEmpty());
        QCOMPARE(onDevice.allReadCalls, 1);
        compareWithinContract(onDevice.spectrum, onCpu.spectrum);
        QCOMPARE(rig.ledger->solves, 1);
        QCOMPARE(rig.ledger->open, 0);
        QCOMPARE(rig.device->budget().inUse(), qint64(0));
    }

    // The blocks are the CPU path's (here 7 lines of 64 doubles), every line of W uploaded once:
    // ⌈200 / 7⌉ blocks.
    void blocksCoverWOnce()
    {
        Rig rig;
        const Eigen::MatrixXd w = knownMatrix(64, 200, 3); // W is 200 × 64: G = WᵀW of order 64
        const Solved solved = solve(smallBlocks(rig.device), w);
        QVERIFY(solved.place.onDevice);
        QCOMPARE(rig.ledger->shapes.size(), 1);
        QCOMPARE(rig.ledger->shapes[0].order, 64);
        QCOMPARE(rig.ledger->shapes[0].blockLines, qint64(7));
        QCOMPARE(rig.ledger->accumulates, (200 + 6) / 7);
    }

    void plannerStaysWithinTheBudgetAndTheCpuPathsHostMemory()
    {
        constexpr qint64 kBlock = SingularValueSolver::kGramBlockBytes;
        // A d = 4096 layer with room to spare: the CPU path's 32 MB blocks (1024 lines of 4096).
        const DeviceMemoryPlan roomy = DeviceMemoryPlan::make(4096, 4096, 10 * kMiB, kBlock, 100 * 1024 * kMiB);
        QVERIFY(roomy.fits);
        QCOMPARE(roomy.blockLines, qint64(1024));
        QCOMPARE(roomy.bytes, 8 * 4096 * qint64(4096) + 10 * kMiB + 8 * 4096 + 256 + 2 * 8 * 1024 * qint64(4096));
        // A 768 × 3072 matrix: the CPU path holds one 3072-line block and a 768² Gram; the two
        // device blocks hold no more than that.
        const DeviceMemoryPlan gpt2 = DeviceMemoryPlan::make(768, 3072, kMiB, kBlock, 100 * 1024 * kMiB);
        QVERIFY(gpt2.fits);
        QVERIFY(2 * gpt2.blockLines * 768 <= 3072 * 768 + 768 * 768);
        // A tight budget: smaller blocks, down to what fits.
        const qint64 tight = 8 * 4096 * qint64(4096) + 10 * kMiB + 8 * 4096 + 256 + 2 * 8 * 100 * qint64(4096);
        const DeviceMemoryPlan shrunk = DeviceMemoryPlan::make(4096, 4096, 10 * kMiB, kBlock, tight);
        QVERIFY(shrunk.fits);
        QCOMPARE(shrunk.blockLines, qint64(100));
        QCOMPARE(shrunk.bytes, tight);
        // Not even one-line blocks fit beside G and the workspace.
        const DeviceMemoryPlan refused = DeviceMemoryPlan::make(4096, 4096, 10 * kMiB, kBlock, shrunk.leastBytes - 1);
        QVERIFY(!refused.fits);
        QCOMPARE(DeviceMemoryPlan::make(4096, 4096, 10 * kMiB, kBlock, shrunk.leastBytes).blockLines, qint64(1));
    }

    void matrixTooLargeForTheBudgetIsComputedOnTheCpu()
    {
        Rig rig(40 * 1024); // 40 KiB: a 64² Gram (32 KiB) and its workspace (4 KiB) fit, a 96² one does not
        const Eigen::MatrixXd small = knownMatrix(64, 100, 5), large = knownMatrix(96, 100, 6);
        const SingularValueSolver solver = smallBlocks(rig.device);
        QVERIFY(solve(solver, small).place.onDevice);
        const Solved solved = solve(solver, large);
        QVERIFY(!solved.place.onDevice);
        QVERIFY2(solved.place.note.contains(QLatin1String("GPU memory")), qPrintable(solved.place.note));
        QCOMPARE(solved.allReadCalls, 1);
        compareExactly(solved.spectrum, solve(smallBlocks(nullptr), large).spectrum);
        QCOMPARE(rig.ledger->shapes.size(), 1); // never begun on the device
        // The device stays in use for what fits.
        QVERIFY(solve(solver, small).place.onDevice);
    }

    void deviceFailureFallsBackAndRetiresTheDevice_data()
    {
        QTest::addColumn<QString>("failure");
        QTest::addColumn<QString>("said");
        QTest::newRow("begin") << "begin" << "out of device memory";
        QTest::newRow("second block") << "accumulate" << "accumulate failed";
        QTest::newRow("eigensolver") << "solve" << "the eigensolver failed";
        QTest::newRow("workspace query") << "workspace" << "no workspace size";
    }
    void deviceFailureFallsBackAndRetiresTheDevice()
    {
        QFETCH(QString, failure);
        QFETCH(QString, said);
        Rig rig;
        rig.ledger->failBegin = failure == "begin";
        rig.ledger->failAccumulate = failure == "accumulate" ? 1 : -1;
        rig.ledger->failSolve = failure == "solve";
        rig.ledger->failWorkspace = failure == "workspace";
        const Eigen::MatrixXd w = knownMatrix(40, 90, 11);
        for (int topVectors : {3, 0}) {
            const Solved solved = solve(smallBlocks(rig.device, topVectors), w);
            QVERIFY(!solved.place.onDevice);
            QCOMPARE(solved.allReadCalls, 1);
            compareExactly(solved.spectrum, solve(smallBlocks(nullptr, topVectors), w).spectrum);
            QVERIFY2(solved.place.note.contains(said), qPrintable(solved.place.note));
        }
        // The second matrix was not tried: the device is retired after its first failure.
        const Solved later = solve(smallBlocks(rig.device), w);
        QVERIFY2(later.place.note.contains(QLatin1String("failed on an earlier matrix")), qPrintable(later.place.note));
        QVERIFY(rig.ledger->shapes.size() <= 1);
        QCOMPARE(rig.ledger->open, 0);
        QCOMPARE(rig.device->budget().inUse(), qint64(0));
    }

    // NaN, Inf and values whose squares overflow: the CPU path's own errors, found on the host
    // before the eigensolver runs, and no fallback.
    void badValuesGiveTheCpuPathsErrors()
    {
        Rig rig;
        Eigen::MatrixXd nan = knownMatrix(40, 60, 2);
        nan(3, 50) = std::nan("");
        nan(30, 2) = INFINITY;
        Eigen::MatrixXd huge = knownMatrix(40, 60, 2) * 1e160;
        for (const Eigen::MatrixXd *w : {&nan, &huge}) {
            const Solved solved = solve(smallBlocks(rig.device), *w);
            const Solved cpu = solve(smallBlocks(nullptr), *w);
            QVERIFY(!cpu.spectrum.ok());
            QCOMPARE(solved.spectrum.error, cpu.spectrum.error);
            QVERIFY(solved.place.onDevice && solved.place.note.isEmpty());
            QCOMPARE(solved.allReadCalls, 1);
        }
        QCOMPARE(rig.ledger->solves, 0);
    }

    void budgetWaitsForMemoryAndRefusesWhatNeverFits()
    {
        DeviceMemoryBudget budget(100, 2);
        QVERIFY(!budget.reserve(101));
        QVERIFY(budget.reserve(60));
        std::atomic<bool> reserved{false};
        std::unique_ptr<QThread> waiter(QThread::create([&] {
            budget.reserve(60);
            reserved = true;
        }));
        waiter->start();
        QThread::msleep(50);
        QVERIFY(!reserved); // 120 > 100: it waits
        budget.release(60);
        QVERIFY(waiter->wait(5000));
        QVERIFY(reserved);
        QCOMPARE(budget.inUse(), qint64(60));
        // And for a session: two at most, whatever the bytes.
        QVERIFY(budget.reserve(1));
        std::unique_ptr<QThread> third(QThread::create([&] { budget.reserve(1); }));
        third->start();
        QVERIFY(!third->wait(50));
        budget.release(1);
        QVERIFY(third->wait(5000));
        budget.release(1);
        budget.release(60);
        QCOMPARE(budget.inUse(), qint64(0));
        QCOMPARE(DeviceMemoryBudget::fromFreeBytes(100 * kMiB), qint64(0));
        QCOMPARE(DeviceMemoryBudget::fromFreeBytes(10240 * kMiB), 9216 * kMiB - 512 * kMiB);
    }

    // Matrices from several workers at once share the device within its session limit.
    void concurrentSolvesStayWithinTheSessions()
    {
        Rig rig(64 * kMiB, 2);
        const SingularValueSolver solver = smallBlocks(rig.device);
        const Eigen::MatrixXd w = knownMatrix(64, 120, 9);
        const Spectrum cpu = solve(smallBlocks(nullptr), w).spectrum;
        std::vector<std::unique_ptr<QThread>> workers;
        std::atomic<int> good{0};
        for (int i = 0; i < 6; ++i)
            workers.emplace_back(QThread::create([&] {
                const Solved solved = solve(solver, w);
                if (solved.place.onDevice && solved.spectrum.ok() && (solved.spectrum.singularValues - cpu.singularValues).cwiseAbs().maxCoeff() < 1e-9 * cpu.singularValues[0])
                    ++good;
            }));
        for (auto &worker : workers)
            worker->start();
        for (auto &worker : workers)
            QVERIFY(worker->wait(10000));
        QCOMPARE(good.load(), 6);
        QVERIFY(rig.ledger->mostOpen <= 2);
    }

    void deviceChoice()
    {
        int opened = 0, ordinal = -1;
        auto working = [&](int at, QString *) -> std::unique_ptr<GramDevice> {
            ++opened;
            ordinal = at;
            return std::make_unique<StandInGramDevice>(freeBytesForBudget(kMiB), std::make_shared<StandInLedger>());
        };
        auto missing = [&](int, QString *why) -> std::unique_ptr<GramDevice> {
            ++opened;
            *why = QStringLiteral("libcublas.so.13 not found");
            return nullptr;
        };
        const DeviceChoice cpu = chooseGramDevice(DeviceRequest::Cpu, 4, working);
        QVERIFY(!cpu.device && !cpu.refused);
        QCOMPARE(opened, 0);
        const DeviceChoice autoWithout = chooseGramDevice(DeviceRequest::Auto, 4, missing);
        QVERIFY(!autoWithout.device && !autoWithout.refused);
        QCOMPARE(autoWithout.why, QStringLiteral("no usable GPU: libcublas.so.13 not found"));
        const DeviceChoice cudaWithout = chooseGramDevice(DeviceRequest::Cuda, 4, missing);
        QVERIFY(!cudaWithout.device && cudaWithout.refused);
        QVERIFY(cudaWithout.why.contains(QLatin1String("libcublas.so.13")));
        qputenv("OMPI_COMM_WORLD_LOCAL_RANK", "3");
        const DeviceChoice autoWith = chooseGramDevice(DeviceRequest::Auto, 4, working);
        qunsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
        QVERIFY(autoWith.device && !autoWith.refused);
        QCOMPARE(ordinal, 3); // this rank's GPU on its machine
        QCOMPARE(autoWith.device->description(), QStringLiteral("stand-in device"));
        QVERIFY(chooseGramDevice(DeviceRequest::Cuda, 4, working).device);
        QVERIFY(parseDeviceRequest("CUDA") == DeviceRequest::Cuda);
        QVERIFY(parseDeviceRequest("auto") == DeviceRequest::Auto);
        QVERIFY(!parseDeviceRequest("gpu"));
    }

    // The real backend, as far as a machine without a GPU lets it run: it loads or says why not,
    // and never crashes. With a GPU here this says nothing (bench/gpu_check.sh checks that).
    void cudaBackendSaysWhyThereIsNoGpu()
    {
        const QString description = describeCuda();
        QVERIFY(!description.isEmpty());
        QString why;
        std::unique_ptr<GramDevice> device = openCudaGramDevice(0, &why);
        if (device)
            QSKIP("a usable GPU is here");
        QVERIFY(!why.isEmpty());
        if (!cudaBuiltIn())
            QVERIFY(why.contains(QLatin1String("no CUDA support")));
        qInfo().noquote() << "CUDA:" << description << "|" << why;
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestDeviceGramSolver)
} // namespace tst_devicegramsolver

#include "tst_DeviceGramSolver.moc"
