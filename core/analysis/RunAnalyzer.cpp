#include "analysis/RunAnalyzer.h"

#include "analysis/CheckpointPlan.h"
#include "analysis/CheckpointSteps.h"
#include "analysis/ContentFingerprint.h"
#include "analysis/MatrixPartExtractor.h"
#include "analysis/ResultsFile.h"
#include "io/CheckpointReader.h"
#include "spectral/WeightWatcherMetrics.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QThread>
#include <QThreadPool>
#include <QtConcurrent>
#include <deque>
#include <new>

namespace rankscope {

namespace {

// What the solves of one checkpoint share. Each solve holds it too: a cancelled analysis stops
// waiting for the solves still running (one large matrix takes minutes) and they finish into this
// instead of into a stack frame that is gone.
struct CheckpointSolves {
    QMutex mutex;
    QList<MatrixResult> results;
    QList<AnalysisIssue> issues;
    double spectraSeconds = 0, metricsSeconds = 0;
};

// Waits for a solve, but no longer than the analysis is wanted.
bool finishedUnlessCancelled(const QFuture<void> &future, const std::atomic<bool> &cancelled)
{
    while (!future.isFinished()) {
        if (cancelled)
            return false;
        QThread::msleep(5);
    }
    return true;
}

} // namespace

RunAnalyzer::RunAnalyzer(AnalysisSettings settings) : m_settings(settings)
{
    if (m_settings.jobs <= 0)
        m_settings.jobs = std::max(1, QThread::idealThreadCount());
}

QString RunAnalyzer::settingsKey() const
{
    // τ is not part of it: metrics are recomputed from the stored spectra at any τ.
    // Opt-in metrics last (RunAnalysis::settingsCover).
    return QStringLiteral("solver=%1;rules=%2;schema=%3").arg(QLatin1String(svdMethodName(m_settings.method)), m_rules.identity()).arg(ResultsFile::kSchemaVersion) +
           (m_settings.randDistance ? QStringLiteral(";rand_distance=1") : QString());
}

void RunAnalyzer::updateEta(AnalysisProgress &progress) const
{
    progress.elapsedSeconds = m_clock.elapsed() / 1000.0;
    const int remaining = progress.matricesTotal - progress.matricesDone;
    progress.etaSeconds = m_matricesComputedHere > 0 && remaining >= 0
                              ? progress.elapsedSeconds / m_matricesComputedHere * remaining
                              : -1;
}

RunAnalysis RunAnalyzer::analyzeFolder(const QString &folder, const ProgressCallback &onProgress, const RunAnalysis *previous)
{
    SingularValueSolver::setBlasThreads(1); // one matrix per worker beats threads inside one call
    m_clock.start();
    m_matricesComputedHere = 0;
    RunAnalysis run;
    run.folder = QFileInfo(folder).absoluteFilePath();
    run.settingsKey = settingsKey();
    if (!QFileInfo(folder).isDir()) {
        run.issues.append({folder, {}, QStringLiteral("not a folder"), true});
        return run;
    }
    const CheckpointListing listing = CheckpointDiscovery::scan(folder);
    run.sidecars = listing.skipped;
    run.runs = listing.runs;

    // Watching: a checkpoint modified less than the settle time ago may still be being written; it
    // is left for a later pass before anything reads it.
    QList<const CheckpointFile *> settled;
    for (const CheckpointFile &file : listing.checkpoints) {
        CheckpointRecord identity;
        identity.path = file.path;
        RunAnalysis::identify(identity, file.files);
        if (m_settings.settleSeconds > 0 &&
            QDateTime::currentMSecsSinceEpoch() - identity.mtimeMs < qint64(m_settings.settleSeconds * 1000))
            run.pending.append(QFileInfo(file.path).absoluteFilePath());
        else
            settled.append(&file);
    }
    const StepPlan steps = CheckpointSteps::decide(settled);
    run.sidecars.append(steps.duplicates);
    run.notes.append(steps.notes);
    run.checkpointsFound = int(steps.checkpoints.size());

    // What an earlier analysis with the same settings already knows, by checkpoint path.
    QHash<QString, const CheckpointRecord *> known;
    QHash<QString, QList<MatrixResult>> knownResults;
    QHash<QString, QList<AnalysisIssue>> knownIssues;
    if (previous && RunAnalysis::settingsCover(previous->settingsKey, run.settingsKey)) {
        for (const CheckpointRecord &record : previous->checkpoints)
            known.insert(QFileInfo(record.path).absoluteFilePath(), &record);
        for (const MatrixResult &r : previous->results)
            knownResults[QFileInfo(r.checkpointPath).absoluteFilePath()].append(r);
        for (const AnalysisIssue &issue : previous->issues)
            knownIssues[QFileInfo(issue.path).absoluteFilePath()].append(issue);
    }
    // Every result of a checkpoint carries the step decided for it now (a checkpoint without a step
    // moves when later checkpoints arrive).
    QHash<QString, const PlacedCheckpoint *> placement;
    for (const PlacedCheckpoint &placed : steps.checkpoints)
        placement.insert(QFileInfo(placed.file->path).absoluteFilePath(), &placed);
    auto place = [](CheckpointRecord &record, QList<MatrixResult> &results, const PlacedCheckpoint &placed) {
        record.step = placed.step;
        record.unnumbered = placed.unnumbered;
        for (MatrixResult &r : results) {
            r.step = placed.step;
            r.unnumbered = placed.unnumbered;
        }
    };

    // What is done so far, plus what the earlier results know of this run's checkpoints not reached
    // yet: saved while the run goes on (or when it is cancelled), it loses no checkpoint analysed before.
    auto withUnvisited = [&](const RunAnalysis &soFar) {
        RunAnalysis snapshot = soFar;
        if (!previous || !RunAnalysis::settingsCover(previous->settingsKey, soFar.settingsKey))
            return snapshot;
        for (const CheckpointRecord &record : previous->checkpoints) {
            const QString path = QFileInfo(record.path).absoluteFilePath();
            const PlacedCheckpoint *placed = placement.value(path);
            if (placed && std::none_of(soFar.checkpoints.begin(), soFar.checkpoints.end(), [&](const CheckpointRecord &r) { return r.path == path; })) {
                CheckpointRecord unvisited = record;
                QList<MatrixResult> results = knownResults.value(path);
                place(unvisited, results, *placed);
                snapshot.checkpoints.append(unvisited);
                snapshot.results.append(results);
                snapshot.issues.append(knownIssues.value(path));
            }
        }
        sortResults(snapshot.results);
        return snapshot;
    };

    AnalysisProgress progress;
    progress.checkpointsTotal = run.checkpointsFound;
    QElapsedTimer sinceSave;
    sinceSave.start();
    for (const PlacedCheckpoint &placed : steps.checkpoints) {
        if (m_cancelled)
            break;
        const CheckpointFile &file = *placed.file;
        CheckpointRecord record;
        record.path = QFileInfo(file.path).absoluteFilePath();
        RunAnalysis::identify(record, file.files);
        progress.currentFile = file.path;
        record.fingerprint = ContentFingerprint::of(file);
        QList<MatrixResult> results;
        const CheckpointRecord *cached = known.value(record.path);
        if (cached && cached->size == record.size && cached->mtimeMs == record.mtimeMs && cached->fingerprint == record.fingerprint) {
            record = *cached;
            record.fromCache = true;
            results = knownResults.value(record.path);
            applyEnergy(results, m_settings.energy);
            run.issues.append(knownIssues.value(record.path));
            progress.matricesDone += int(results.size());
        } else {
            const qsizetype issuesBefore = run.issues.size();
            results = analyzeCheckpoint(file, record, run, progress, onProgress);
            if (m_cancelled)
                break; // a checkpoint cut short is not recorded as analysed
            // Watching: a recent file that cannot be read at all is most likely still being
            // written (a writer that paused longer than the settle time): try again later, and
            // cache nothing about it.
            const qint64 age = QDateTime::currentMSecsSinceEpoch() - record.mtimeMs;
            if (m_settings.settleSeconds > 0 && !record.error.isEmpty() &&
                age < qint64(std::max(30.0, 10 * m_settings.settleSeconds) * 1000)) {
                run.issues.resize(issuesBefore);
                run.pending.append(record.path);
                --run.checkpointsFound;
                --progress.checkpointsTotal;
                continue;
            }
        }
        place(record, results, placed);
        if (!results.isEmpty())
            ++run.checkpointsAnalysed;
        ++progress.checkpointsDone;
        // Until every checkpoint is open, assume the rest hold as many matrices as those seen.
        progress.matricesTotal = progress.matricesDone +
                                 (progress.checkpointsTotal - progress.checkpointsDone) * (progress.matricesDone / std::max(1, progress.checkpointsDone));
        updateEta(progress);
        sortResults(results);
        run.checkpoints.append(record);
        if (onProgress)
            onProgress(progress, results);
        run.results.append(results);
        if (!m_settings.resultsPath.isEmpty() && sinceSave.elapsed() > m_settings.autosaveSeconds * 1000) {
            saveResults(withUnvisited(run), run);
            sinceSave.restart();
        }
    }
    run.cancelled = m_cancelled;
    sortResults(run.results);
    if (!m_settings.resultsPath.isEmpty())
        saveResults(run.cancelled ? withUnvisited(run) : run, run);
    return run;
}

void RunAnalyzer::saveResults(const RunAnalysis &run, RunAnalysis &report)
{
    QString error;
    if (ResultsFile::save(run, m_settings.resultsPath, &error)) {
        report.resultsError.clear();
    } else if (report.resultsError != error) {
        report.resultsError = error;
        report.notes << QStringLiteral("results not saved: %1").arg(error);
    }
}

QList<MatrixResult> RunAnalyzer::analyzeCheckpoint(const CheckpointFile &file, CheckpointRecord &record, RunAnalysis &run,
                                                   AnalysisProgress &progress, const ProgressCallback &onProgress)
{
    QList<AnalysisIssue> &issues = run.issues;
    QElapsedTimer readClock;
    readClock.start();
    QString error;
    std::unique_ptr<CheckpointReader> reader = file.open(&error);
    if (!reader) {
        record.error = error;
        issues.append({record.path, {}, error, true});
        return {};
    }
    record.format = reader->formatName();
    for (const QString &warning : reader->warnings())
        issues.append({record.path, {}, warning, true});
    const qsizetype issuesBefore = issues.size();
    const CheckpointPlan plan = CheckpointPlan::make(file, *reader, m_rules);
    for (const LeftOutTensor &left : plan.layout.reported())
        issues.append({record.path, left.tensor, left.reason, false});

    // Released rather than destroyed when cancelled: destroying a pool waits for its solves.
    auto pool = std::make_unique<QThreadPool>();
    pool->setMaxThreadCount(m_settings.jobs);
    const auto solves = std::make_shared<CheckpointSolves>();
    std::deque<QFuture<void>> inFlight;
    const SingularValueSolver solver(m_settings.method);
    const double energy = m_settings.energy;
    const bool withRandDistance = m_settings.randDistance;
    const QList<qint64> blockSize = [&] {
        QList<qint64> size;
        for (const QVariant &v : plan.config.value(QStringLiteral("weight_block_size")).toList())
            size << v.toLongLong();
        return size.size() == 2 ? size : QList<qint64>{128, 128};
    }();

    for (const PlannedTensor &tensor : plan.layout.typed) {
        // A 3-D tensor of experts is read one slice (one expert) at a time.
        QList<qint64> slices;
        for (const MatrixPart &part : tensor.parts)
            if (!slices.contains(part.slice))
                slices << part.slice;
        for (const qint64 slice : slices) {
            if (m_cancelled)
                break;
            readClock.restart();
            MatrixRead read = reader->readMatrix(tensor.tensor, slice);
            if (read.ok() && !tensor.blockScales.isEmpty()) {
                const MatrixRead scales = reader->readMatrix(tensor.blockScales);
                if (!scales.ok() || !applyBlockScales(read.values, scales.values, blockSize[0], blockSize[1]))
                    read.error = QStringLiteral("its FP8 block scales %1 do not fit it (%2)")
                                     .arg(tensor.blockScales, scales.ok() ? QStringLiteral("weight_block_size %1×%2").arg(blockSize[0]).arg(blockSize[1])
                                                                          : scales.error);
            }
            run.timings.readSeconds += readClock.nsecsElapsed() * 1e-9;
            if (!read.ok()) {
                issues.append({record.path, tensor.tensor, read.error, false});
                continue;
            }
            // Bound the matrices held in memory: wait for the oldest when the workers are all busy.
            while (int(inFlight.size()) > m_settings.jobs && finishedUnlessCancelled(inFlight.front(), m_cancelled))
                inFlight.pop_front();
            if (m_cancelled)
                break;
            for (const MatrixPart &part : tensor.parts) {
                if (part.slice != slice)
                    continue;
                std::shared_ptr<RowMajorMatrix> matrix;
                QString problem;
                try {
                    matrix = std::make_shared<RowMajorMatrix>(extractMatrixPart(read.values, part));
                    // Said here, as stored: the solver is given the transpose and would say it the other way round.
                    if (matrix->size() == 0)
                        problem = QStringLiteral("is empty (shape %1×%2)").arg(matrix->rows()).arg(matrix->cols());
                } catch (const std::bad_alloc &) {
                    problem = QStringLiteral("there was not enough memory to copy it out of its tensor");
                }
                if (!problem.isEmpty()) {
                    issues.append({record.path, part.label, problem, false});
                    continue;
                }
                MatrixResult base;
                base.step = record.step;
                base.block = part.id.block;
                base.layer = part.id.layer;
                base.type = part.id.type;
                base.expert = part.id.expert;
                base.tensor = part.label;
                base.checkpointPath = record.path;
                base.dtype = tensor.dtype;
                base.rows = matrix->rows();
                base.cols = matrix->cols();
                inFlight.push_back(QtConcurrent::run(pool.get(), [solves, solver, energy, withRandDistance, matrix, base]() mutable {
                    // A row-major W read as column-major is Wᵀ: same spectrum, no copy.
                    QElapsedTimer clock;
                    clock.start();
                    const Eigen::Map<const Eigen::MatrixXd> transposed(matrix->data(), matrix->cols(), matrix->rows());
                    Spectrum spectrum;
                    double spectrumSeconds = 0, metricsSeconds = 0;
                    // The solver's workspace can still fail to be allocated: that matrix fails, not the run.
                    try {
                        spectrum = solver.compute(transposed);
                        const double shuffledDistance =
                            withRandDistance && spectrum.ok()
                                ? randDistance(Eigen::Map<Eigen::MatrixXd>(matrix->data(), matrix->cols(), matrix->rows()), spectrum.singularValues, solver)
                                : std::numeric_limits<double>::quiet_NaN();
                        matrix.reset();
                        spectrumSeconds = clock.nsecsElapsed() * 1e-9;
                        clock.restart();
                        if (spectrum.ok()) {
                            base.singularValues = spectrum.singularValues;
                            base.metrics = computeSpectralMetrics(base.singularValues, base.rows, base.cols, energy);
                            base.metrics.randDistance = shuffledDistance;
                        }
                        metricsSeconds = clock.nsecsElapsed() * 1e-9;
                    } catch (const std::bad_alloc &) {
                        matrix.reset();
                        spectrum = {{}, QStringLiteral("there was not enough memory to compute its spectrum")};
                    }
                    QMutexLocker lock(&solves->mutex);
                    solves->spectraSeconds += spectrumSeconds;
                    solves->metricsSeconds += metricsSeconds;
                    if (!spectrum.ok()) {
                        solves->issues.append({base.checkpointPath, base.tensor, spectrum.error, false});
                        return;
                    }
                    solves->results.append(std::move(base));
                }));
                ++progress.matricesDone;
                ++m_matricesComputedHere;
            }
            progress.matricesTotal = std::max(progress.matricesTotal, progress.matricesDone);
            updateEta(progress);
            if (onProgress)
                onProgress(progress, {});
        }
    }
    for (auto &future : inFlight)
        if (!finishedUnlessCancelled(future, m_cancelled)) {
            (void)pool.release(); // its threads end with their solves, or with the process
            return {};
        }
    pool.reset();
    QList<MatrixResult> results = std::move(solves->results);
    issues.append(solves->issues);
    run.timings.spectraSeconds += solves->spectraSeconds;
    run.timings.metricsSeconds += solves->metricsSeconds;
    if (results.isEmpty() && !m_cancelled && issues.size() == issuesBefore + plan.layout.reported().size()) {
        const QString model = plan.config.describeModel();
        record.error = QStringLiteral("no attention or MLP matrices recognised among %1 tensors%2 (see rankscope info)")
                           .arg(reader->tensors().size()).arg(model.isEmpty() ? QString() : QStringLiteral(" of a model with ") + model);
        issues.append({record.path, {}, record.error, true});
    }
    record.matrices = int(results.size());
    return results;
}

} // namespace rankscope
