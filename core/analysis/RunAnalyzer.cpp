#include "analysis/RunAnalyzer.h"

#include "analysis/DeltaReference.h"
#include "analysis/PlannedTensorRead.h"

#include "analysis/AnalysisTeam.h"
#include "analysis/CheckpointPlan.h"
#include "analysis/CheckpointSteps.h"
#include "analysis/ContentFingerprint.h"
#include "analysis/MatrixPartSource.h"
#include "analysis/ResultsFile.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "spectral/WeightWatcherMetrics.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QMutex>
#include <QThread>
#include <QThreadPool>
#include <QWaitCondition>
#include <functional>
#include <new>
#include "spectral/BlasThreadBudget.h"

namespace rankscope {

namespace {

// What the solves of one checkpoint share. Each solve holds it too: a cancelled analysis stops
// waiting for the solves still running (one large matrix takes minutes) and they finish into this
// instead of into a stack frame that is gone.
struct CheckpointSolves {
    explicit CheckpointSolves(int cores) : blasThreads(cores) {}
    QMutex mutex; // guards all below
    QWaitCondition finished;
    int inFlight = 0, completed = 0;
    double doneSeconds = 0; // the cost model's seconds of the matrices done
    QList<MatrixResult> results;
    QList<AnalysisIssue> issues;
    double spectraSeconds = 0, metricsSeconds = 0;
    BlasThreadBudget blasThreads;
};

// --subspace: which checkpoints compare their vectors with the one before them now (never compared,
// or the one before them changed), and which of those held by earlier results are read again
// all the same, for vectors not kept: only the newest checkpoint's are (in its results).
struct SubspacePlan {
    QList<bool> compare, recompute;
};

SubspacePlan planSubspace(const QList<CheckpointRecord> &identities, const QList<const CheckpointRecord *> &reusable,
                          const QHash<QString, QList<MatrixResult>> &knownResults, int k)
{
    const qsizetype count = identities.size();
    SubspacePlan plan{QList<bool>(count, false), QList<bool>(count, false)};
    // Vectors of another k are no V_k of this one.
    auto keepsVectors = [&](qsizetype i) {
        const QList<MatrixResult> results = knownResults.value(identities[i].path);
        return reusable[i] && reusable[i]->subspaceK == k &&
               std::any_of(results.begin(), results.end(), [](const MatrixResult &r) { return r.topVectors.size() > 0; }) &&
               std::all_of(results.begin(), results.end(), [&](const MatrixResult &r) {
                   return r.topVectors.size() == 0 || r.topVectors.cols() == std::min<qint64>(k, std::min(r.rows, r.cols));
               });
    };
    for (qsizetype i = 0; i < count; ++i) {
        const QString before = i > 0 ? identities[i - 1].subspaceKey() : QString();
        plan.compare[i] = !reusable[i] || reusable[i]->subspacePrevious != before || reusable[i]->subspaceK != k;
        if (!plan.compare[i])
            continue;
        plan.recompute[i] = plan.recompute[i] || !keepsVectors(i);
        if (i > 0 && !keepsVectors(i - 1))
            plan.recompute[i - 1] = true;
    }
    return plan;
}

// A checkpoint analysed again only for its vectors keeps the agreement it had with its predecessor.
void keepSubspaceMetrics(QList<MatrixResult> &results, const QList<MatrixResult> &earlier)
{
    QHash<MatrixIdentity, const SpectralMetrics *> before;
    for (const MatrixResult &r : earlier)
        before.insert(r.identity(), &r.metrics);
    for (MatrixResult &r : results) {
        if (const SpectralMetrics *metrics = before.value(r.identity())) {
            r.metrics.subspaceOverlap = metrics->subspaceOverlap;
            r.metrics.topVectorCosine = metrics->topVectorCosine;
        } else {
            clearSubspaceMetrics(r.metrics);
        }
    }
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
           (m_settings.randDistance ? QStringLiteral(";rand_distance=1") : QString()) +
           (m_settings.delta ? QStringLiteral(";delta=%1").arg(m_settings.referenceStep ? QString::number(*m_settings.referenceStep) : QStringLiteral("first"))
                             : QString()) +
           (m_settings.subspace ? QStringLiteral(";subspace=%1").arg(m_settings.subspaceK) : QString());
}

void RunAnalyzer::updateEta(AnalysisProgress &progress, double doneSeconds) const
{
    progress.elapsedSeconds = m_clock.elapsed() / 1000.0;
    const double remaining = std::max(0.0, m_plannedSeconds - doneSeconds);
    if (m_plannedSeconds <= 0) {
        progress.etaSeconds = -1;
    } else if (doneSeconds > 0 && progress.elapsedSeconds > 0) {
        // The pace measured so far (reading, scheduling and this machine's speed included).
        progress.etaSeconds = remaining / (doneSeconds / progress.elapsedSeconds);
    } else {
        // Nothing finished yet (e.g. one huge matrix): the model's estimate, counting down.
        progress.etaSeconds = std::max(0.0, remaining / m_modelPace - progress.elapsedSeconds);
    }
}

RunAnalysis RunAnalyzer::analyzeFolder(const QString &folder, const ProgressCallback &onProgress, const RunAnalysis *previous)
{
    m_clock.start();
    m_plannedSeconds = m_doneSeconds = 0;
    m_checkpointsComputed = 0;
    m_teamLoad = QList<double>(m_settings.team ? m_settings.team->size() : 1, 0.0);
    // Every member has read the earlier results before the leader may replace them: all decide
    // alike which checkpoints are still to do.
    if (m_settings.team)
        m_settings.team->barrier();
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
    // What looks like a checkpoint and cannot be read at all (a FIFO named like weights, a folder
    // without permission, an index whose shards are missing) is an error, not a quiet omission.
    for (const SkippedFile &skipped : listing.skipped)
        if (skipped.problem)
            run.issues.append({skipped.path, {}, skipped.reason, true});

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

    // --delta: the checkpoint every matrix is compared with, open for the whole run.
    std::unique_ptr<DeltaReference> reference;
    QString referenceIdentity; // what each checkpoint's deltas must have been computed against
    if (m_settings.delta && !steps.checkpoints.isEmpty()) {
        const PlacedCheckpoint *chosen = DeltaReference::choose(steps.checkpoints, m_settings.referenceStep);
        // A --reference that names no checkpoint is a mistake, not a run of NaN: nothing is
        // analysed, and the steps there are say what it could have been.
        if (!chosen) {
            run.issues.append({run.folder, {}, DeltaReference::noCheckpointAt(*m_settings.referenceStep, steps.checkpoints), true});
            return run;
        }
        QString problem;
        reference = DeltaReference::open(*chosen, m_rules, &problem);
        if (!reference)
            run.notes << QStringLiteral("--delta: the reference checkpoint %1 cannot be read (%2): every delta metric is NaN")
                             .arg(QFileInfo(chosen->file->path).fileName(), problem);
        referenceIdentity = reference ? reference->identity() : DeltaReference::unreadableIdentity();
    }
    m_reference = reference.get();

    // What an earlier analysis with the same settings already knows, by checkpoint path.
    QHash<QString, const CheckpointRecord *> known;
    QHash<QString, QList<MatrixResult>> knownResults;
    QHash<QString, QList<AnalysisIssue>> knownIssues;
    // Results made without some opt-in metric asked for now serve for all the rest: only the
    // missing metrics are computed (m_missing).
    const std::optional<QStringList> missing = previous ? RunAnalysis::missingOptIns(previous->settingsKey, run.settingsKey) : std::nullopt;
    m_missing = {};
    for (const QString &item : missing.value_or(QStringList())) {
        m_missing.randDistance |= item.startsWith(QLatin1String("rand_distance="));
        m_missing.delta |= item.startsWith(QLatin1String("delta="));
        m_missing.subspace |= item.startsWith(QLatin1String("subspace="));
    }
    const bool servesWhole = missing && missing->isEmpty();
    if (missing) {
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

    // Each checkpoint's identity now, and the earlier analysis of it that still holds.
    const qsizetype count = steps.checkpoints.size();
    QList<CheckpointRecord> identities(count);
    QList<const CheckpointRecord *> reusable(count, nullptr);
    for (qsizetype i = 0; i < count; ++i) {
        const CheckpointFile &file = *steps.checkpoints[i].file;
        CheckpointRecord &identity = identities[i];
        identity.path = QFileInfo(file.path).absoluteFilePath();
        RunAnalysis::identify(identity, file.files);
        identity.fingerprint = ContentFingerprint::of(file);
        const CheckpointRecord *cached = known.value(identity.path);
        if (cached && cached->size == identity.size && cached->mtimeMs == identity.mtimeMs && cached->fingerprint == identity.fingerprint)
            reusable[i] = cached;
    }
    const SubspacePlan subspace = m_settings.subspace ? planSubspace(identities, reusable, knownResults, m_settings.subspaceK) : SubspacePlan{};
    // --delta: a checkpoint unchanged itself whose deltas were computed against another reference
    // (an earlier checkpoint arrived, the reference's file was replaced) has them computed again.
    auto staleDelta = [&](const CheckpointRecord *cached) {
        return m_settings.delta && cached && cached->deltaReference != referenceIdentity;
    };
    const OptIns missingForRun = m_missing;
    QHash<MatrixIdentity, Eigen::MatrixXf> previousVectors; // of the checkpoint subspace metrics compare with
    QString previousKey;

    AnalysisProgress progress;
    progress.checkpointsTotal = run.checkpointsFound;
    QElapsedTimer sinceSave;
    sinceSave.start();
    for (qsizetype i = 0; i < count; ++i) {
        if (cancelled())
            break;
        const PlacedCheckpoint &placed = steps.checkpoints[i];
        const CheckpointFile &file = *placed.file;
        CheckpointRecord record = identities[i];
        progress.currentFile = file.path;
        QList<MatrixResult> results;
        const CheckpointRecord *cached = reusable[i];
        const bool deltaStale = staleDelta(cached);
        if (cached && servesWhole && !subspace.recompute.value(i) && !deltaStale) {
            record = *cached;
            record.fromCache = true;
            results = knownResults.value(record.path);
            applyEnergy(results, m_settings.energy);
            run.issues.append(knownIssues.value(record.path));
            progress.matricesDone += int(results.size());
        } else {
            const qsizetype issuesBefore = run.issues.size();
            // Earlier results of it, with some opt-in metric missing or its vectors needed: only
            // what is missing is computed (W's own spectrum again only for its vectors). Deltas
            // against another reference are missing too, for this checkpoint.
            m_missing = missingForRun;
            m_missing.delta |= deltaStale;
            const bool ownSpectrum = m_settings.subspace && (m_missing.subspace || subspace.recompute.value(i));
            const QList<MatrixResult> earlier = cached ? knownResults.value(record.path) : QList<MatrixResult>();
            results = analyzeCheckpoint(file, record, run, progress, onProgress, cached ? &earlier : nullptr, ownSpectrum);
            if (cancelled())
                break; // a checkpoint cut short is not recorded as analysed
            // Every delta is now against the reference in force; without --delta, those kept are
            // still against the one they were computed with, and so are the subspace metrics kept.
            if (m_settings.delta)
                record.deltaReference = referenceIdentity;
            else if (cached)
                record.deltaReference = cached->deltaReference;
            if (!m_settings.subspace && cached) {
                record.subspacePrevious = cached->subspacePrevious;
                record.subspaceK = cached->subspaceK;
            }
            // Watching: a recent file of a known format that cannot be read at all is most likely
            // still being written (a writer that paused longer than the settle time): try again
            // later, and cache nothing about it. Bytes no format recognises are said at once.
            const qint64 age = QDateTime::currentMSecsSinceEpoch() - record.mtimeMs;
            if (m_settings.settleSeconds > 0 && !record.error.isEmpty() && record.error != kUnrecognisedFormat &&
                age < qint64(std::max(30.0, 10 * m_settings.settleSeconds) * 1000)) {
                run.issues.resize(issuesBefore);
                run.pending.append(record.path);
                --run.checkpointsFound;
                --progress.checkpointsTotal;
                continue;
            }
        }
        if (m_settings.subspace) {
            if (subspace.compare.value(i)) {
                for (MatrixResult &r : results) {
                    const auto previous = previousVectors.constFind(r.identity());
                    if (previous != previousVectors.constEnd() && r.topVectors.size() > 0)
                        setSubspaceMetrics(r.metrics, r.topVectors, *previous);
                    else
                        clearSubspaceMetrics(r.metrics);
                }
                record.subspacePrevious = previousKey;
                record.subspaceK = m_settings.subspaceK;
            } else if (cached && !record.fromCache) {
                // Read again only for its vectors (the checkpoint after it needs them): its own
                // agreement with the one before it (at this k: planSubspace) still holds.
                record.subspacePrevious = cached->subspacePrevious;
                record.subspaceK = cached->subspaceK;
                keepSubspaceMetrics(results, knownResults.value(record.path));
            }
            // Only the newest checkpoint's vectors are kept past the next one.
            previousVectors.clear();
            for (MatrixResult &r : results) {
                if (r.topVectors.size() > 0)
                    previousVectors.insert(r.identity(), i + 1 < count ? std::move(r.topVectors) : r.topVectors);
                if (i + 1 < count)
                    r.topVectors = {};
            }
            previousKey = record.subspaceKey();
        }
        place(record, results, placed);
        if (!results.isEmpty())
            ++run.checkpointsAnalysed;
        ++progress.checkpointsDone;
        // Until every checkpoint is open, assume the rest hold as many matrices, and cost as much, as
        // those seen.
        const int checkpointsLeft = progress.checkpointsTotal - progress.checkpointsDone;
        progress.matricesTotal = progress.matricesDone + checkpointsLeft * (progress.matricesDone / std::max(1, progress.checkpointsDone));
        if (!record.fromCache)
            ++m_checkpointsComputed;
        m_plannedSeconds = m_doneSeconds + checkpointsLeft * (m_doneSeconds / std::max(1, m_checkpointsComputed));
        updateEta(progress, m_doneSeconds);
        sortResults(results);
        run.checkpoints.append(record);
        if (onProgress)
            onProgress(progress, results);
        run.results.append(results);
        if (savesResults() && sinceSave.elapsed() >= m_settings.autosaveSeconds * 1000) {
            saveResults(withUnvisited(run), run);
            sinceSave.restart();
        }
    }
    m_reference = nullptr;
    run.cancelled = cancelled();
    sortResults(run.results);
    if (savesResults())
        saveResults(run.cancelled ? withUnvisited(run) : run, run);
    return run;
}

bool RunAnalyzer::savesResults() const
{
    return !m_settings.resultsPath.isEmpty() && (!m_settings.team || m_settings.team->leads());
}

void RunAnalyzer::gatherShares(QList<MatrixResult> &results, RunAnalysis &run, qsizetype ownIssuesFrom, int ownDone,
                               double ownCost, const RunAnalysis::Timings &timingsBefore, AnalysisProgress &progress)
{
    AnalysisTeam &team = *m_settings.team;
    if (!team.leads()) {
        CheckpointShare share;
        share.results = results;
        share.issues = run.issues.mid(ownIssuesFrom);
        share.matricesDone = ownDone;
        share.costSeconds = ownCost;
        share.timings = run.timings - timingsBefore;
        team.sendToLeader(share.serialized());
        return;
    }
    // Every member opens the checkpoint and plans it, so each reports the same file-level problems
    // and left-out tensors: said once.
    QSet<QString> said;
    for (qsizetype i = ownIssuesFrom; i < run.issues.size(); ++i)
        said.insert(run.issues[i].text());
    for (int member = 1; member < team.size(); ++member) {
        const std::optional<CheckpointShare> share = CheckpointShare::fromBytes(team.receiveFrom(member));
        if (!share) {
            run.issues.append({progress.currentFile, {}, QStringLiteral("rank %1 sent results this build cannot read (is every rank running the same rankscope?)").arg(member), true});
            continue;
        }
        results.append(share->results);
        for (const AnalysisIssue &issue : share->issues)
            if (!said.contains(issue.text())) {
                said.insert(issue.text());
                run.issues.append(issue);
            }
        progress.matricesDone += share->matricesDone;
        m_doneSeconds += share->costSeconds;
        run.timings += share->timings;
    }
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
                                                   AnalysisProgress &progress, const ProgressCallback &onProgress,
                                                   const QList<MatrixResult> *earlier, bool ownSpectrum)
{
    QHash<MatrixIdentity, const MatrixResult *> earlierOf;
    if (earlier)
        for (const MatrixResult &r : *earlier)
            earlierOf.insert(r.identity(), &r);
    QList<AnalysisIssue> &issues = run.issues;
    const qsizetype ownIssuesFrom = issues.size();
    const RunAnalysis::Timings timingsBefore = run.timings;
    QElapsedTimer readClock;
    readClock.start();
    QString error;
    std::unique_ptr<CheckpointReader> reader = file.open(&error);
    if (!reader) {
        record.error = error;
        issues.append({record.path, {}, error, true});
        QList<MatrixResult> none;
        if (m_settings.team)
            gatherShares(none, run, ownIssuesFrom, 0, 0, timingsBefore, progress);
        return none;
    }
    record.format = reader->formatName();
    for (const QString &warning : reader->warnings())
        issues.append({record.path, {}, warning, true});
    const qsizetype issuesBefore = issues.size();
    const CheckpointPlan plan = CheckpointPlan::make(file, *reader, m_rules);
    for (const LeftOutTensor &left : plan.layout.reported())
        issues.append({record.path, left.tensor, left.reason, false});
    // What the typing assumed is said once per run, not per checkpoint.
    for (const QString &note : plan.layout.notes)
        if (!run.notes.contains(note))
            run.notes << note;

    // What this checkpoint will cost, from the shapes alone (no tensor is read for it): the ETA.
    const QList<TensorInfo> tensorList = reader->tensors();
    QHash<QString, TensorInfo> tensorInfo;
    for (const TensorInfo &t : tensorList)
        tensorInfo.insert(t.name, t);
    auto partShape = [&](const PlannedTensor &tensor, const MatrixPart &part) {
        const QList<qint64> shape = tensorInfo.value(tensor.tensor).shape;
        const qint64 rows = shape.size() >= 2 ? shape[shape.size() - 2] : 0, cols = shape.size() >= 2 ? shape.back() : 0;
        return part.axis == MatrixPart::Axis::Rows ? MatrixShape{part.extent(), cols} : MatrixShape{rows, part.extent()};
    };
    int plannedMatrices = 0;
    double plannedSeconds = 0;
    for (const PlannedTensor &tensor : plan.layout.typed)
        for (const MatrixPart &part : tensor.parts) {
            ++plannedMatrices;
            plannedSeconds += m_costModel.matrixSeconds(partShape(tensor, part));
        }
    const int matricesBefore = progress.matricesDone;
    progress.matricesTotal = std::max(progress.matricesTotal, matricesBefore + plannedMatrices);
    m_plannedSeconds = std::max(m_plannedSeconds, m_doneSeconds + plannedSeconds);
    // The model's own pace for this checkpoint (core-seconds per wall second), until work is done.
    QList<MatrixShape> shapes;
    for (const PlannedTensor &tensor : plan.layout.typed)
        for (const MatrixPart &part : tensor.parts)
            shapes << partShape(tensor, part);
    const int teamSize = m_settings.team ? m_settings.team->size() : 1;
    const double plannedWall = m_costModel.wallSeconds(shapes, m_settings.jobs * teamSize);
    m_modelPace = plannedWall > 0 ? plannedSeconds / plannedWall : m_settings.jobs * teamSize;

    // A 3-D tensor of experts is read one slice (one expert) at a time: the work items are the
    // (tensor, slice) reads, each with the parts it holds. In a team, each member reads only its own.
    auto slicesOf = [](const PlannedTensor &tensor) {
        QList<qint64> slices;
        for (const MatrixPart &part : tensor.parts)
            if (!slices.contains(part.slice))
                slices << part.slice;
        return slices;
    };
    QList<int> owners;
    if (m_settings.team) {
        QList<double> itemCosts;
        for (const PlannedTensor &tensor : plan.layout.typed)
            for (const qint64 slice : slicesOf(tensor)) {
                double cost = 0;
                for (const MatrixPart &part : tensor.parts)
                    if (part.slice == slice)
                        cost += m_costModel.matrixSeconds(partShape(tensor, part));
                itemCosts << cost;
            }
        owners = AnalysisTeam::assignByCost(itemCosts, m_teamLoad);
    }
    qsizetype item = 0;

    // Released rather than destroyed when cancelled: destroying a pool waits for its solves.
    auto pool = std::make_unique<QThreadPool>();
    pool->setMaxThreadCount(m_settings.jobs);
    const auto solves = std::make_shared<CheckpointSolves>(m_settings.jobs);
    QMutex &mutex = solves->mutex;
    const SingularValueSolver solver(m_settings.method, m_settings.eigensolver);
    // W's own decomposition also gives its top right singular vectors with --subspace.
    SingularValueSolver ownSolver = solver;
    ownSolver.setTopVectors(m_settings.subspace ? m_settings.subspaceK : 0);
    const double energy = m_settings.energy;
    const bool withRandDistance = m_settings.randDistance;
    const QList<qint64> blockSize = PlannedTensorRead::blockSizeOf(plan.config);

    // Progress on this thread, from what the workers finished.
    auto reportProgress = [&] {
        double doneSeconds = 0;
        {
            QMutexLocker lock(&mutex);
            progress.matricesDone = matricesBefore + solves->completed;
            doneSeconds = m_doneSeconds + solves->doneSeconds;
        }
        updateEta(progress, doneSeconds);
        if (onProgress)
            onProgress(progress, {});
    };
    // Waits until `done` holds or the analysis is cancelled, reporting progress as matrices
    // complete and every half second meanwhile, so that one long matrix still moves the ETA.
    auto waitUntil = [&](const std::function<bool()> &done) {
        QMutexLocker lock(&mutex);
        for (int ticks = 0; !done() && !cancelled(); ++ticks) {
            // Woken by a finished matrix, or every 100 ms to notice a cancel (progress every 500 ms).
            const bool woken = solves->finished.wait(&mutex, 100);
            if (!woken && ticks % 5 != 4)
                continue;
            lock.unlock();
            reportProgress();
            lock.relock();
        }
    };

    for (const PlannedTensor &tensor : plan.layout.typed) {
        for (const qint64 slice : slicesOf(tensor)) {
            if (!owners.isEmpty() && owners[item++] != m_settings.team->rank())
                continue;
            if (cancelled())
                break;
            // Bound what is held: the stored tensors of the matrices in flight plus this one.
            waitUntil([&] { return solves->inFlight <= m_settings.jobs; });
            if (cancelled())
                break;
            readClock.restart();
            PlannedTensorRead read = PlannedTensorRead::read(*reader, tensor, slice, blockSize);
            run.timings.readSeconds += readClock.nsecsElapsed() * 1e-9;
            if (!read.ok()) {
                issues.append({record.path, tensor.tensor, read.error, false});
                QMutexLocker lock(&mutex);
                solves->completed += int(std::count_if(tensor.parts.begin(), tensor.parts.end(), [&](const MatrixPart &p) { return p.slice == slice; }));
                continue;
            }
            // Shared by the parts of a fused tensor; freed when the last of them is done.
            const std::shared_ptr<const StoredMatrix> stored = std::move(read.tensor);
            const std::shared_ptr<const MatrixPartSource::BlockScales> scales = std::move(read.scales);
            for (const MatrixPart &part : tensor.parts) {
                if (part.slice != slice)
                    continue;
                const bool rowsAxis = part.axis == MatrixPart::Axis::Rows;
                const double cost = m_costModel.matrixSeconds(partShape(tensor, part));
                auto source = part.fits(rowsAxis ? stored->rows() : stored->cols())
                                  ? std::make_shared<MatrixPartSource>(stored, part, scales)
                                  : nullptr;
                // Said here, as stored: a part that does not fit its tensor is an empty matrix.
                const qint64 partRows = source ? source->rows() : 0, partCols = source ? source->cols() : 0;
                if (partRows == 0 || partCols == 0) {
                    QMutexLocker lock(&mutex);
                    issues.append({record.path, part.label, QStringLiteral("is empty (shape %1×%2)").arg(partRows).arg(partCols), false});
                    ++solves->completed;
                    solves->doneSeconds += cost;
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
                base.rows = source->rows();
                base.cols = source->cols();
                // What an earlier analysis of this checkpoint knows of the matrix: then only the
                // opt-in metrics it lacks are computed.
                const MatrixResult *before = earlierOf.value(part.id);
                if (before && (before->rows != partRows || before->cols != partCols || before->singularValues.size() == 0))
                    before = nullptr;
                std::optional<MatrixResult> known;
                if (before)
                    known = *before;
                const bool own = !known || ownSpectrum;
                // Without a reference that can be read, the deltas set are NaN (a note says why).
                const bool withChange = m_settings.delta && (!known || m_missing.delta);
                const bool withShuffle = withRandDistance && (!known || m_missing.randDistance);
                // --delta: the namesake in the reference checkpoint, read here as this tensor was.
                std::shared_ptr<MatrixPartSource> referenceSource;
                if (withChange && m_reference) {
                    readClock.restart();
                    QString problem;
                    referenceSource = m_reference->partFor(part.id, &problem);
                    if (referenceSource && (referenceSource->rows() != partRows || referenceSource->cols() != partCols)) {
                        problem = QStringLiteral("is %1×%2 there").arg(referenceSource->rows()).arg(referenceSource->cols());
                        referenceSource.reset();
                    }
                    run.timings.readSeconds += readClock.nsecsElapsed() * 1e-9;
                    if (!problem.isEmpty()) {
                        const QString note = QStringLiteral("--delta: %1 (%2×%3) %4 (step %5): its delta metrics are NaN")
                                                 .arg(part.id.text()).arg(partRows).arg(partCols).arg(problem).arg(m_reference->step());
                        if (!run.notes.contains(note))
                            run.notes << note;
                    }
                }
                {
                    QMutexLocker lock(&mutex);
                    ++solves->inFlight;
                }
                // The solve holds what it shares with this thread, never this stack frame: a
                // cancelled analysis returns without waiting for it.
                const qint64 referenceStep = m_reference ? m_reference->step() : 0;
                pool->start([solves, solver, ownSolver, energy, own, withChange, withShuffle, known, source, referenceSource, referenceStep, base, cost]() mutable {
                    QElapsedTimer clock;
                    clock.start();
                    Spectrum spectrum;
                    double spectrumSeconds = 0, metricsSeconds = 0;
                    QString changeProblem; // why its deltas are NaN, said beside the tensor's other problems
                    // The solver's Gram matrix and block can still fail to be allocated: that matrix
                    // fails, not the run.
                    try {
                        const bool keepMatrix = withShuffle || referenceSource;
                        if (own) {
                            const BlasThreadBudget::Claim claim(solves->blasThreads);
                            // The tensor is let go once read: while the eigensolver runs, the
                            // worker holds only its Gram matrix (rand_distance and --delta still need it).
                            spectrum = ownSolver.compute(*source, [&] {
                                if (!keepMatrix)
                                    source.reset();
                            });
                        } else {
                            spectrum.singularValues = known->singularValues;
                        }
                        // The change and the shuffle need the entries: only then is the matrix widened whole.
                        RowMajorMatrix widened;
                        if (keepMatrix && spectrum.ok())
                            widened = source->widened();
                        source.reset();
                        // D = W − W_ref, decomposed as W is (its transpose, column-major: the same σ).
                        Spectrum change;
                        double referenceNorm = 0;
                        const bool compared = referenceSource && spectrum.ok();
                        if (compared) {
                            RowMajorMatrix difference = referenceSource->widened();
                            referenceSource.reset();
                            // A NaN or Inf there makes every σ of D NaN: said as the reference's,
                            // not left as an unexplained NaN (W itself was checked by its own solve).
                            if (!difference.allFinite()) {
                                changeProblem = QStringLiteral("delta: the reference checkpoint (step %1) holds non-finite values in this tensor: "
                                                               "its delta metrics are NaN").arg(referenceStep);
                            } else {
                                referenceNorm = difference.norm();
                                difference = widened - difference;
                                change = solver.compute(Eigen::Map<const Eigen::MatrixXd>(difference.data(), difference.cols(), difference.rows()));
                                if (!change.ok())
                                    changeProblem = QStringLiteral("delta: its change from the reference checkpoint (step %1) cannot be decomposed (%2): "
                                                                   "its delta metrics are NaN").arg(referenceStep).arg(change.error);
                            }
                        }
                        referenceSource.reset();
                        // rand_distance shuffles the entries in place: last.
                        double shuffledDistance = std::numeric_limits<double>::quiet_NaN();
                        if (withShuffle && spectrum.ok())
                            shuffledDistance = randDistance(Eigen::Map<Eigen::MatrixXd>(widened.data(), widened.cols(), widened.rows()),
                                                            spectrum.singularValues, solver);
                        widened = {};
                        spectrumSeconds = clock.nsecsElapsed() * 1e-9;
                        clock.restart();
                        if (spectrum.ok()) {
                            base.singularValues = spectrum.singularValues;
                            base.topVectors = own ? std::move(spectrum.topRightVectors) : known->topVectors;
                            if (own) {
                                base.metrics = computeSpectralMetrics(base.singularValues, base.rows, base.cols, energy);
                            } else {
                                base.metrics = known->metrics;
                                applyEnergy(base.metrics, base.singularValues, base.rows, base.cols, energy);
                            }
                            // What the earlier analysis computed and this one does not is kept.
                            if (known) {
                                if (!withShuffle)
                                    base.metrics.randDistance = known->metrics.randDistance;
                                if (!withChange) {
                                    base.deltaSingularValues = known->deltaSingularValues;
                                    base.metrics.deltaRelFrobenius = known->metrics.deltaRelFrobenius;
                                    base.metrics.deltaSpectralNorm = known->metrics.deltaSpectralNorm;
                                    base.metrics.deltaStableRank = known->metrics.deltaStableRank;
                                    base.metrics.deltaEffectiveRank = known->metrics.deltaEffectiveRank;
                                }
                            }
                            if (withShuffle)
                                base.metrics.randDistance = shuffledDistance;
                            if (withChange) {
                                base.deltaSingularValues = {};
                                clearDeltaMetrics(base.metrics);
                                if (compared && changeProblem.isEmpty() && change.ok()) {
                                    base.deltaSingularValues = change.singularValues;
                                    setDeltaMetrics(base.metrics, change.singularValues, referenceNorm);
                                }
                            }
                        }
                        metricsSeconds = clock.nsecsElapsed() * 1e-9;
                    } catch (const std::bad_alloc &) {
                        source.reset();
                        spectrum = {{}, QStringLiteral("there was not enough memory to compute its spectrum"), {}};
                    }
                    QMutexLocker lock(&solves->mutex);
                    solves->spectraSeconds += spectrumSeconds;
                    solves->metricsSeconds += metricsSeconds;
                    if (!spectrum.ok()) {
                        solves->issues.append({base.checkpointPath, base.tensor, spectrum.error, false});
                    } else {
                        if (!changeProblem.isEmpty())
                            solves->issues.append({base.checkpointPath, base.tensor, changeProblem, false});
                        solves->results.append(std::move(base));
                    }
                    // Work counts when it is done, not when it is queued.
                    --solves->inFlight;
                    ++solves->completed;
                    solves->doneSeconds += cost;
                    solves->finished.wakeAll();
                });
            }
            reportProgress();
        }
    }
    solves->blasThreads.allHandedOut();
    waitUntil([&] { return solves->inFlight == 0; });
    if (cancelled()) {
        (void)pool.release(); // its threads end with their solves, or with the process
        return {};
    }
    pool.reset();
    QList<MatrixResult> results = std::move(solves->results);
    issues.append(solves->issues);
    run.timings.spectraSeconds += solves->spectraSeconds;
    run.timings.metricsSeconds += solves->metricsSeconds;
    m_doneSeconds += solves->doneSeconds;
    progress.matricesDone = matricesBefore + solves->completed;
    if (m_settings.team)
        gatherShares(results, run, ownIssuesFrom, solves->completed, solves->doneSeconds, timingsBefore, progress);
    const bool leads = !m_settings.team || m_settings.team->leads(); // another member's results are a share only
    if (leads && results.isEmpty() && !cancelled() && issues.size() == issuesBefore + plan.layout.reported().size()) {
        const QString model = plan.config.describeModel();
        record.error = QStringLiteral("no attention or MLP matrices recognised among %1 tensors%2 (see rankscope info)")
                           .arg(reader->tensors().size()).arg(model.isEmpty() ? QString() : QStringLiteral(" of a model with ") + model);
        issues.append({record.path, {}, record.error, true});
    }
    record.matrices = int(results.size());
    return results;
}

} // namespace rankscope
