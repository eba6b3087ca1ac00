#include "AnalysisController.h"

#include "analysis/execution/BaseModelRuns.h"
#include "analysis/results/ResultsFile.h"
#include "spectral/CudaGramDevice.h"
#include "spectral/GramDeviceChoice.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>
#include <QtConcurrent>
#include <algorithm>

namespace rankscope {

AnalysisController::AnalysisController(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<rankscope::AnalysisProgress>();
    qRegisterMetaType<rankscope::RunAnalysis>();
}

AnalysisController::~AnalysisController()
{
    waitForPrevious();
}

bool AnalysisController::isRunning() const { return m_future.isRunning(); }

void AnalysisController::cancel()
{
    if (m_passCancel)
        *m_passCancel = true;
}

void AnalysisController::waitForPrevious()
{
    cancel();
    *m_comparisonsCancel = true;
    // Cancellation takes effect after the matrices in flight.
    m_future.waitForFinished();
    for (QFuture<void> &comparison : m_comparisons)
        comparison.waitForFinished();
    m_comparisons.clear();
    m_comparisonsCancel = std::make_shared<std::atomic<bool>>(false);
    ++m_generation;
}

void AnalysisController::openFolder(const QString &folder)
{
    waitForPrevious();
    m_watch.reset();
    m_lastRun.reset();
    m_folder = folder;
    m_watchOpened = true;
    emit started(folder);
    startAnalysis(folder, std::nullopt, true);
}

namespace {

// The window computes its spectra on the GPU when one is usable, as `analyze --device auto` does;
// the device is opened once, when the first analysis starts.
const DeviceChoice &windowDevice()
{
    static const DeviceChoice choice = chooseGramDevice(DeviceRequest::Auto, std::clamp(QThread::idealThreadCount(), 1, kMaxDeviceSessions),
                                                        openCudaGramDevice);
    return choice;
}

} // namespace

QString AnalysisController::gpuDescription(QString *whyNone)
{
    *whyNone = windowDevice().why;
    return windowDevice().device ? windowDevice().device->description() : QString();
}

void AnalysisController::openFolderOnce(const QString &folder)
{
    openFolder(folder);
    m_watchOpened = false; // read by the first pass's end, on this thread
}

void AnalysisController::applyOptInMetrics(AnalysisSettings &settings) const
{
    settings.device = m_useGpu ? windowDevice().device : nullptr;
    settings.deviceNote = m_useGpu ? windowDevice().why : QStringLiteral("the GPU is switched off in the Analysis menu");
    settings.randDistance = m_optIns.randDistance;
    settings.delta = m_optIns.delta;
    settings.subspace = m_optIns.subspace;
    settings.alphaCi = m_optIns.alphaCi;
    settings.heads = m_optIns.heads;
}

void AnalysisController::setOptIn(bool AnalysisOptIns::*optIn, bool on)
{
    const bool turnedOff = m_optIns.*optIn && !on;
    m_optIns.*optIn = on;
    // At once for the open folder's last pass; a pass under way leaves it out when it ends.
    if (turnedOff && m_lastRun)
        emit updated(lastRunAsAsked(), {});
}

RunAnalysis AnalysisController::lastRunAsAsked() const
{
    RunAnalysis run = *m_lastRun;
    run.dropUnasked(m_optIns);
    return run;
}

void AnalysisController::startAnalysis(const QString &folder, std::optional<RunAnalysis> previous, bool initial)
{
    RunLoadOptions options;
    options.settings.settleSeconds = m_settleSeconds;
    applyOptInMetrics(options.settings);
    options.rules = m_rules;
    options.cancel = m_passCancel = std::make_shared<std::atomic<bool>>(false);
    const int generation = m_generation;
    // Everything below runs on a pool thread; results come back as queued calls on this object.
    m_future = QtConcurrent::run([this, folder, options, generation, initial, previous]() mutable {
        auto post = [this, generation](auto function) {
            QMetaObject::invokeMethod(this, [this, generation, function] {
                if (generation == m_generation)
                    function();
            }, Qt::QueuedConnection);
        };
        options.previous = previous ? &*previous : nullptr; // a watch pass: the last pass, not the file
        QElapsedTimer sinceProgress;
        sinceProgress.start();
        LoadedRun loaded = loadRun(folder, options, [&](const AnalysisProgress &p, const QList<MatrixResult> &results) {
            // A first pass fills the views as checkpoints complete; a watch pass replaces the run at its end.
            if (initial && !results.isEmpty())
                post([this, results] { emit checkpointArrived(results); });
            // Progress at most 20 times a second: the UI thread is never flooded.
            if (!results.isEmpty() || sinceProgress.elapsed() > 50) {
                sinceProgress.restart();
                post([this, p] { emit progressed(p); });
            }
        });
        for (const QString &message : loaded.messages)
            post([this, message] { emit problem(message); });
        if (!loaded.run) { // the folder went away: said in the messages
            post([this] {
                if (m_watch)
                    m_watch->passFinished({});
            });
            return;
        }
        // What was asked for, and all the results hold for the next pass (loadRun).
        RunAnalysis asAsked = *loaded.run;
        std::optional<RunAnalysis> whole = loaded.takeForNextPass();
        post([this, shown = std::move(asAsked), whole = std::move(whole), asked = AnalysisOptIns::of(options.settings), initial, folder] {
            QStringList arrived;
            for (const CheckpointRecord &c : shown.checkpoints)
                if (!c.fromCache) // new, or replaced since the last pass
                    arrived << c.path;
            m_lastRun = whole;
            // An opt-in metric turned off while the pass ran is left out now.
            const RunAnalysis run = asked.within(m_optIns) ? shown : lastRunAsAsked();
            if (initial)
                emit finished(run);
            else
                emit updated(run, arrived);
            // Watched once the first pass completes; a cancelled watch pass leaves the watch on.
            if (!m_watch && (run.cancelled || !m_watchOpened))
                return;
            if (!m_watch)
                m_watch = std::make_unique<RunWatch>(folder, m_settleSeconds, [this, folder] { startAnalysis(folder, m_lastRun, false); });
            m_watch->passFinished(run);
        });
    });
}

void AnalysisController::openResultsFile(const QString &path)
{
    waitForPrevious();
    m_watch.reset(); // a results file does not change under us
    m_lastRun.reset();
    emit started(path);
    const int generation = m_generation;
    m_future = QtConcurrent::run([this, path, generation] {
        const LoadedRun loaded = loadRun(path, {});
        QMetaObject::invokeMethod(this, [this, generation, loaded] {
            if (generation != m_generation)
                return;
            if (loaded.run)
                emit finished(*loaded.run);
            for (const QString &message : loaded.messages)
                emit problem(message);
        }, Qt::QueuedConnection);
    });
}

RunLoadOptions AnalysisController::comparisonOptions()
{
    RunLoadOptions options;
    applyOptInMetrics(options.settings);
    options.rules = m_rules;
    options.cancel = m_comparisonsCancel;
    m_comparisons.removeIf([](const QFuture<void> &f) { return f.isFinished(); });
    return options;
}

void AnalysisController::openForComparison(const QString &path)
{
    const RunLoadOptions options = comparisonOptions();
    const int generation = m_generation;
    m_comparisons << QtConcurrent::run([this, path, options, generation] {
        const LoadedRun loaded = loadRun(path, options);
        QMetaObject::invokeMethod(this, [this, generation, loaded, path] {
            if (generation != m_generation)
                return; // another run was opened meanwhile
            for (const QString &message : loaded.messages)
                emit problem(message);
            if (loaded.run && !loaded.run->cancelled)
                emit comparisonReady(*loaded.run, path);
        }, Qt::QueuedConnection);
    });
}

void AnalysisController::openBaseModel(const QString &base, const RunAnalysis &updates)
{
    const RunLoadOptions options = comparisonOptions();
    const RunLoadOptions baseOptions = BaseModelRuns::baseOptions(options, m_folder, base, updates);
    const int generation = m_generation;
    const QString folder = m_folder;
    m_comparisons << QtConcurrent::run([this, folder, base, options, baseOptions, generation] {
        const LoadedRun merged = loadRun(folder, BaseModelRuns::mergedOptions(options, folder, base));
        const LoadedRun own = loadRun(base, baseOptions);
        QMetaObject::invokeMethod(this, [this, generation, merged, own, base] {
            if (generation != m_generation)
                return; // another run was opened meanwhile
            for (const QString &message : merged.messages + own.messages)
                emit problem(message);
            if (merged.run && own.run && !merged.run->cancelled && !own.run->cancelled)
                emit baseRunsReady(*merged.run, *own.run, base);
        }, Qt::QueuedConnection);
    });
}

} // namespace rankscope
