#include "analysis/execution/RunAnalyzer.h"

#include "analysis/execution/HeadSpectra.h"
#include "analysis/execution/MatrixSolve.h"
#include "analysis/execution/MergeBase.h"
#include "analysis/execution/PlannedTensorRead.h"
#include "analysis/planning/CheckpointPlan.h"
#include "analysis/execution/DeltaPlan.h"
#include "analysis/planning/SubspaceOverlapPlan.h"
#include "analysis/results/ResultsFile.h"
#include "base/PrintableText.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "spectral/AlphaInterval.h"
#include "spectral/BlasThreadBudget.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QSet>
#include <QThread>
#include <QThreadPool>
#include <QWaitCondition>
#include <algorithm>
#include <functional>

namespace rankscope {

namespace {

AnalysisSettings withWorkers(AnalysisSettings settings)
{
    if (settings.jobs <= 0)
        settings.jobs = std::max(1, QThread::idealThreadCount());
    return settings;
}

// A 3-D tensor of experts is read one slice (one expert) at a time: the work items are the
// (tensor, slice) reads, each with the parts it holds.
QList<qint64> slicesOf(const PlannedTensor &tensor)
{
    QList<qint64> slices;
    for (const MatrixPart &part : tensor.parts)
        if (!slices.contains(part.slice))
            slices << part.slice;
    return slices;
}

// A part's shape from its tensor's, as the file declares it (no tensor is read for it).
MatrixShape partShape(const PlannedTensor &tensor, const MatrixPart &part)
{
    const QList<qint64> &shape = tensor.shape;
    const qint64 rows = shape.size() >= 2 ? shape[shape.size() - 2] : 0, cols = shape.size() >= 2 ? shape.back() : 0;
    return part.axis == MatrixPart::Axis::Rows ? MatrixShape{part.extent(), cols} : MatrixShape{rows, part.extent()};
}

} // namespace

// One pass over a folder's checkpoints, in step order.
struct RunAnalyzer::FolderPass {
    const StepPlan &steps;
    const CacheReusePlan &cache;
    SubspaceOverlapPlan &subspace;
    const DeltaPlan &delta;
    RunAnalysis &run;
    const ProgressCallback &onProgress;
    AnalysisProgress progress;
    QElapsedTimer sinceSave;
};

// One checkpoint being analysed: read on this thread, its matrices solved by the pool.
struct RunAnalyzer::CheckpointJob {
    // What the solves of one checkpoint share. Each solve holds it too: a cancelled analysis stops
    // waiting for the solves still running (one large matrix takes minutes) and they finish into
    // this instead of into a stack frame that is gone.
    struct Solves {
        explicit Solves(int cores) : blasThreads(cores) {}
        QMutex mutex; // guards all below
        QWaitCondition finished;
        int inFlight = 0, completed = 0;
        double doneSeconds = 0; // the cost model's seconds of the matrices done
        QList<MatrixResult> results;
        QList<AnalysisIssue> issues;
        double spectraSeconds = 0, metricsSeconds = 0;
        int onDevice = 0, onCpu = 0;
        QStringList deviceNotes; // why a matrix went to the CPU with a GPU set
        BlasThreadBudget blasThreads;
    };

    CheckpointJob(const CheckpointFile &file, CheckpointRecord &record, RunAnalysis &run, AnalysisProgress &progress,
                  const ProgressCallback &onProgress, AnalysisOptIns missing, bool ownSpectrum)
        : file(file), record(record), run(run), progress(progress), onProgress(onProgress), missing(missing), ownSpectrum(ownSpectrum)
    {
    }

    const CheckpointFile &file;
    CheckpointRecord &record;
    RunAnalysis &run;
    AnalysisProgress &progress;
    const ProgressCallback &onProgress;
    const AnalysisOptIns missing; // what the earlier results of it lack
    const bool ownSpectrum;       // W decomposed again, for its vectors, where an earlier spectrum serves
    QHash<MatrixIdentity, const MatrixResult *> earlierOf;
    qsizetype ownIssuesFrom = 0;
    qsizetype issuesBefore = 0; // after the reader's warnings: the plan's left-out tensors follow
    RunAnalysis::Timings timingsBefore;
    int matricesBefore = 0;
    QElapsedTimer readClock;
    std::unique_ptr<CheckpointReader> reader;
    CheckpointPlan plan;
    QList<qint64> blockSize;
    // Released rather than destroyed when cancelled: destroying a pool waits for its solves.
    std::unique_ptr<QThreadPool> pool;
    std::shared_ptr<Solves> solves;
    std::optional<MatrixSolve> solve;
    HeadPlan heads; // --heads: how each attention matrix is cut into heads
};

RunAnalyzer::RunAnalyzer(AnalysisSettings settings) : m_settings(withWorkers(std::move(settings))) {}

QString RunAnalyzer::settingsKey() const
{
    return AnalysisSettingsKey::of(m_settings, m_rules.identity(), m_settings.mergeBase.isEmpty() ? QString() : MergeBase::identity(m_settings.mergeBase),
                                   ResultsFile::kSchemaVersion).toString();
}

RunAnalysis RunAnalyzer::analyzeFolder(const QString &folder, const ProgressCallback &onProgress, const RunAnalysis *previous)
{
    m_progressModel.start();
    m_team.start();
    RunAnalysis run;
    run.folder = QFileInfo(folder).absoluteFilePath();
    run.settingsKey = settingsKey();
    if (!QFileInfo(folder).isDir()) {
        run.issues.append({folder, {}, QStringLiteral("not a folder"), true});
        return run;
    }
    const CheckpointListing listing = CheckpointDiscovery::scan(folder);
    const StepPlan steps = settledCheckpoints(listing, run);

    // --delta: the checkpoint every matrix is compared with, open for the whole run.
    DeltaPlan delta(m_settings.delta);
    if (delta.enabled() && !steps.checkpoints.isEmpty() && !delta.open(steps.checkpoints, m_settings.referenceStep, m_rules, run))
        return run;
    m_delta = &delta;
    // --base: the model the run's updates are merged into, open for the whole run.
    std::unique_ptr<MergeBase> merge;
    if (!m_settings.mergeBase.isEmpty()) {
        QString problem;
        merge = MergeBase::open(m_settings.mergeBase, m_rules, &problem);
        if (!merge) {
            run.issues.append({m_settings.mergeBase, {}, problem, true});
            m_delta = nullptr;
            return run;
        }
    }
    m_merge = merge.get();
    // What an earlier analysis with the same settings already knows, by checkpoint path.
    const CacheReusePlan cache(previous, run.settingsKey, steps.checkpoints);
    SubspaceOverlapPlan subspace = m_settings.subspace
                                       ? SubspaceOverlapPlan(m_settings.subspaceK, cache.identities(), cache.reusable(), cache.knownResults())
                                       : SubspaceOverlapPlan();

    FolderPass pass{steps, cache, subspace, delta, run, onProgress, {}, {}};
    pass.progress.checkpointsTotal = run.checkpointsFound;
    pass.sinceSave.start();
    for (qsizetype i = 0; i < steps.checkpoints.size(); ++i)
        if (cancelled() || takeCheckpoint(pass, i) == Outcome::Cancelled)
            break;
    m_delta = nullptr;
    m_merge = nullptr;
    run.cancelled = cancelled();
    sortResults(run.results);
    sortResults(run.headResults);
    if (savesResults())
        saveResults(run.cancelled ? cache.withUnvisited(run) : run, run);
    return run;
}

StepPlan RunAnalyzer::settledCheckpoints(const CheckpointListing &listing, RunAnalysis &run) const
{
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
    if (m_settings.settleSeconds > 0)
        run.pending.append(listing.beingWritten);
    StepPlan steps = CheckpointSteps::decide(settled);
    run.sidecars.append(steps.duplicates);
    run.notes.append(steps.notes);
    run.checkpointsFound = int(steps.checkpoints.size());
    return steps;
}

RunAnalyzer::Outcome RunAnalyzer::takeCheckpoint(FolderPass &pass, qsizetype i)
{
    const PlacedCheckpoint &placed = pass.steps.checkpoints[i];
    CheckpointRecord record = pass.cache.identities()[i];
    pass.progress.currentFile = placed.file->path;
    const CheckpointReuse reuse = pass.cache.reuseOf(i, pass.delta.isStale(pass.cache.reusable()[i]), pass.subspace.recomputes(i));
    QList<MatrixResult> results, heads;
    if (reuse.whole) {
        record = *reuse.cached;
        record.fromCache = true;
        results = pass.cache.knownResults().value(record.path);
        heads = pass.cache.knownHeadResults(record.path);
        applyEnergy(results, m_settings.energy);
        if (reuse.missing.alphaCi)
            for (MatrixResult &r : results)
                setAlphaInterval(r.metrics, r.singularValues);
        applyEnergy(heads, m_settings.energy);
        pass.run.issues.append(pass.cache.knownIssues(record.path));
        pass.progress.matricesDone += int(results.size());
    } else if (const Outcome outcome = computeCheckpoint(pass, i, reuse, record, results, heads); outcome != Outcome::Analysed) {
        return outcome;
    }
    pass.subspace.apply(i, pass.steps.checkpoints.size(), record, results, reuse.cached, pass.cache.knownResults().value(record.path));
    CacheReusePlan::place(record, results, placed);
    CacheReusePlan::place(record, heads, placed);
    if (!results.isEmpty())
        ++pass.run.checkpointsAnalysed;
    m_progressModel.finishCheckpoint(pass.progress, !record.fromCache);
    sortResults(results);
    sortResults(heads);
    pass.run.checkpoints.append(record);
    // The per-head rows reach the window beside the whole matrices; it keeps them apart (ViewState).
    if (pass.onProgress)
        pass.onProgress(pass.progress, results + heads);
    pass.run.results.append(results);
    pass.run.headResults.append(heads);
    if (savesResults() && pass.sinceSave.elapsed() >= m_settings.autosaveSeconds * 1000) {
        saveResults(pass.cache.withUnvisited(pass.run), pass.run);
        pass.sinceSave.restart();
    }
    return Outcome::Analysed;
}

RunAnalyzer::Outcome RunAnalyzer::computeCheckpoint(FolderPass &pass, qsizetype i, const CheckpointReuse &reuse,
                                                    CheckpointRecord &record, QList<MatrixResult> &results, QList<MatrixResult> &heads)
{
    RunAnalysis &run = pass.run;
    const qsizetype issuesBefore = run.issues.size();
    // Earlier results of it, with some opt-in metric missing or its vectors needed: only what is
    // missing is computed (W's own spectrum again only for its vectors).
    const bool ownSpectrum = m_settings.subspace && (reuse.missing.subspace || pass.subspace.recomputes(i));
    const QList<MatrixResult> earlier = reuse.cached ? pass.cache.knownResults().value(record.path) : QList<MatrixResult>();
    CheckpointJob job(*pass.steps.checkpoints[i].file, record, run, pass.progress, pass.onProgress, reuse.missing, ownSpectrum);
    for (const MatrixResult &r : earlier)
        job.earlierOf.insert(r.identity(), &r);
    results = analyzeCheckpoint(job);
    if (cancelled())
        return Outcome::Cancelled; // a checkpoint cut short is not recorded as analysed
    heads = takeHeadRows(results);
    if (reuse.cached)
        keepEarlierHeads(heads, pass.cache.knownHeadResults(record.path));
    // Every delta is now against the reference in force; without --delta, those kept are still
    // against the one they were computed with, and so are the subspace metrics kept.
    pass.delta.stamp(record, reuse.cached);
    if (!m_settings.subspace)
        SubspaceOverlapPlan::keepUnasked(record, reuse.cached);
    // Watching: a recent file of a known format that cannot be read at all is most likely still
    // being written (a writer that paused longer than the settle time): try again later, and cache
    // nothing about it. Bytes no format recognises are said at once.
    const qint64 age = QDateTime::currentMSecsSinceEpoch() - record.mtimeMs;
    if (m_settings.settleSeconds > 0 && !record.error.isEmpty() && record.error != kUnrecognisedFormat &&
        age < qint64(std::max(30.0, 10 * m_settings.settleSeconds) * 1000)) {
        run.issues.resize(issuesBefore);
        run.pending.append(record.path);
        --run.checkpointsFound;
        --pass.progress.checkpointsTotal;
        return Outcome::Pending;
    }
    return Outcome::Analysed;
}

bool RunAnalyzer::savesResults() const
{
    return !m_settings.resultsPath.isEmpty() && m_team.leads();
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

QList<MatrixResult> RunAnalyzer::analyzeCheckpoint(CheckpointJob &job)
{
    job.ownIssuesFrom = job.run.issues.size();
    job.timingsBefore = job.run.timings;
    job.readClock.start();
    if (!openCheckpoint(job)) {
        QList<MatrixResult> none;
        m_team.gather(none, job.run, {job.ownIssuesFrom, 0, 0, job.timingsBefore}, job.progress, m_progressModel);
        return none;
    }
    const QList<std::pair<const PlannedTensor *, qint64>> work = planWork(job);
    job.pool = std::make_unique<QThreadPool>();
    job.pool->setMaxThreadCount(m_settings.jobs);
    job.solves = std::make_shared<CheckpointJob::Solves>(m_settings.jobs);
    SingularValueSolver solver(m_settings.method, m_settings.eigensolver);
    solver.setDevice(m_settings.device);
    // W's own decomposition also gives its top right singular vectors with --subspace.
    SingularValueSolver ownSolver = solver;
    ownSolver.setTopVectors(m_settings.subspace ? m_settings.subspaceK : 0);
    job.solve.emplace(solver, ownSolver);
    job.blockSize = PlannedTensorRead::blockSizeOf(job.plan.config);
    for (const auto &[tensor, slice] : work) {
        if (cancelled())
            break;
        // Bound what is held: the stored tensors of the matrices in flight plus this one.
        waitUntil(job, [&] { return job.solves->inFlight <= m_settings.jobs; });
        if (cancelled())
            break;
        if (readWorkItem(job, *tensor, slice))
            reportProgress(job);
    }
    return finishCheckpoint(job);
}

bool RunAnalyzer::openCheckpoint(CheckpointJob &job)
{
    QList<AnalysisIssue> &issues = job.run.issues;
    QString error;
    job.reader = job.file.open(&error);
    if (!job.reader) {
        job.record.error = error;
        issues.append({job.record.path, {}, error, true});
        return false;
    }
    job.record.format = job.reader->formatName();
    for (const QString &warning : job.reader->warnings())
        issues.append({job.record.path, {}, warning, true});
    job.issuesBefore = issues.size();
    job.plan = CheckpointPlan::make(job.file, *job.reader, m_rules);
    if (!m_settings.onlyMatrices.isEmpty()) {
        // The chosen matrices alone (--base: the adapted ones of the base); the rest is not this run's to name.
        QList<PlannedTensor> &typed = job.plan.layout.typed;
        for (PlannedTensor &tensor : typed)
            tensor.parts.removeIf([&](const MatrixPart &part) { return !m_settings.onlyMatrices.contains(part.id); });
        typed.removeIf([](const PlannedTensor &tensor) { return tensor.parts.isEmpty(); });
        job.plan.layout.leftOut.clear();
    }
    for (const LeftOutTensor &left : job.plan.layout.reported())
        issues.append({job.record.path, left.tensor, left.reason, false});
    // What the typing assumed is said once per run, not per checkpoint.
    for (const QString &note : job.plan.layout.notes)
        if (!job.run.notes.contains(note))
            job.run.notes << note;
    if (m_merge) {
        // Merged weights are W₀ + ΔW of the run's LoRA updates: a checkpoint without any, or whose
        // adapter does not merge so, is said and has none.
        const bool updates = std::any_of(job.plan.layout.typed.begin(), job.plan.layout.typed.end(), [](const PlannedTensor &t) { return bool(t.update); });
        QString refusal = MergeBase::refusal(job.file.adapterConfig);
        if (!updates)
            refusal = QStringLiteral("holds no LoRA update to merge into --base %1").arg(printableText(m_merge->path()));
        if (!refusal.isEmpty()) {
            issues.append({job.record.path, {}, QStringLiteral("no merged weights: ") + refusal, true});
            job.plan.layout.typed.clear();
        }
    }
    if (m_settings.heads)
        planHeads(job);
    return true;
}

void RunAnalyzer::planHeads(CheckpointJob &job) const
{
    QList<AttentionPart> attention;
    for (const PlannedTensor &tensor : job.plan.layout.typed)
        for (const MatrixPart &part : tensor.parts)
            if (int(part.id.type) <= int(MatrixType::O))
                attention.append({part.id, part.label, partShape(tensor, part), part.axis});
    job.heads = HeadPlan::of(attention, job.plan.config);
    for (const auto &[tensor, reason] : job.heads.problems)
        job.run.issues.append({job.record.path, tensor, reason, false});
}

// Heads of a matrix not computed again (its spectrum served from the earlier analysis, or
// --heads not asked this time) keep what the earlier analysis found of them, circuits included.
void RunAnalyzer::keepEarlierHeads(QList<MatrixResult> &heads, const QList<MatrixResult> &earlier)
{
    QSet<std::pair<QString, int>> fresh;
    for (const MatrixResult &r : heads)
        fresh.insert({r.block + QLatin1Char('\n') + r.expert, r.layer});
    for (const MatrixResult &r : earlier)
        if (!fresh.contains({r.block + QLatin1Char('\n') + r.expert, r.layer}))
            heads.append(r);
}

QList<std::pair<const PlannedTensor *, qint64>> RunAnalyzer::planWork(CheckpointJob &job)
{
    // What this checkpoint will cost, from the shapes alone (no tensor is read for it): the ETA,
    // and in a team who reads which (tensor, slice).
    QList<MatrixShape> shapes;
    QList<std::pair<const PlannedTensor *, qint64>> items;
    QList<double> itemCosts;
    for (const PlannedTensor &tensor : job.plan.layout.typed) {
        for (const MatrixPart &part : tensor.parts)
            shapes << partShape(tensor, part);
        for (const qint64 slice : slicesOf(tensor)) {
            double cost = 0;
            for (const MatrixPart &part : tensor.parts)
                if (part.slice == slice)
                    cost += m_progressModel.costModel().matrixSeconds(partShape(tensor, part));
            items.append({&tensor, slice});
            itemCosts << cost;
        }
    }
    job.matricesBefore = job.progress.matricesDone;
    m_progressModel.openCheckpoint(job.progress, shapes);
    const QList<bool> own = m_team.ownItems(itemCosts);
    QList<std::pair<const PlannedTensor *, qint64>> mine;
    for (qsizetype i = 0; i < items.size(); ++i)
        if (own[i])
            mine << items[i];
    return mine;
}

bool RunAnalyzer::readWorkItem(CheckpointJob &job, const PlannedTensor &tensor, qint64 slice)
{
    job.readClock.restart();
    PlannedTensorRead read = PlannedTensorRead::read(*job.reader, tensor, slice, job.blockSize);
    if (m_merge && tensor.update && read.ok())
        read = m_merge->merged(tensor, read); // W₀ + ΔW, whole, in place of the update's factors
    job.run.timings.readSeconds += job.readClock.nsecsElapsed() * 1e-9;
    if (!read.ok()) {
        job.run.issues.append({job.record.path, tensor.tensor, read.error, false});
        QMutexLocker lock(&job.solves->mutex);
        job.solves->completed += int(std::count_if(tensor.parts.begin(), tensor.parts.end(), [&](const MatrixPart &p) { return p.slice == slice; }));
        return false;
    }
    // Shared by the parts of a fused tensor; freed when the last of them is done.
    for (const MatrixPart &part : tensor.parts)
        if (part.slice == slice)
            queueMatrix(job, tensor, part, read);
    return true;
}

namespace {

// What a matrix's result starts from: which part of which tensor of which checkpoint, as stored.
MatrixResult resultOf(const CheckpointRecord &record, const PlannedTensor &tensor, const MatrixPart &part, qint64 rows, qint64 cols)
{
    MatrixResult base;
    base.step = record.step;
    base.block = part.id.block;
    base.layer = part.id.layer;
    base.type = part.id.type;
    base.expert = part.id.expert;
    base.tensor = part.label;
    base.checkpointPath = record.path;
    base.dtype = tensor.dtype;
    base.rows = rows;
    base.cols = cols;
    return base;
}

} // namespace

void RunAnalyzer::queueMatrix(CheckpointJob &job, const PlannedTensor &tensor, const MatrixPart &part, const PlannedTensorRead &read)
{
    const std::shared_ptr<CheckpointJob::Solves> solves = job.solves;
    const double cost = m_progressModel.costModel().matrixSeconds(partShape(tensor, part));
    MatrixSolveTask task;
    task.source = read.partSource(part);
    // Said here, as stored: a part that does not fit its tensor is an empty matrix.
    const qint64 partRows = task.source ? task.source->rows() : 0, partCols = task.source ? task.source->cols() : 0;
    if (partRows == 0 || partCols == 0) {
        QMutexLocker lock(&solves->mutex);
        job.run.issues.append({job.record.path, part.label, QStringLiteral("is empty (shape %1×%2)").arg(partRows).arg(partCols), false});
        ++solves->completed;
        solves->doneSeconds += cost;
        return;
    }
    task.base = resultOf(job.record, tensor, part, partRows, partCols);
    if (m_merge) {
        task.base.weights = QStringLiteral("merged"); // the fine-tuned model's: W₀ + ΔW, or a module trained whole
    } else if (tensor.update) {
        task.base.weights = QStringLiteral("update");
        task.base.updateRank = tensor.update->rank;
        task.unscaled = !tensor.update->scale;
    }
    // What an earlier analysis of this checkpoint knows of the matrix: then only the opt-in
    // metrics it lacks are computed.
    const MatrixResult *before = job.earlierOf.value(part.id);
    if (before && before->rows == partRows && before->cols == partCols && before->singularValues.size() > 0)
        task.known = *before;
    task.ownSpectrum = !task.known || job.ownSpectrum;
    // Without a reference that can be read, the deltas set are NaN (a note says why).
    task.withChange = m_settings.delta && (!task.known || job.missing.delta);
    task.withShuffle = m_settings.randDistance && (!task.known || job.missing.randDistance);
    task.withAlphaCi = m_settings.alphaCi;
    task.energy = m_settings.energy;
    if (const HeadCut *cut = job.heads.cutOf(part.id); cut && m_settings.heads && (!task.known || job.missing.heads))
        task.heads = *cut;
    // --delta: the namesake in the reference checkpoint, read here as this tensor was.
    if (task.withChange && m_delta->hasReference()) {
        job.readClock.restart();
        task.reference = m_delta->namesakeOf(part.id, partRows, partCols, job.run.notes);
        job.run.timings.readSeconds += job.readClock.nsecsElapsed() * 1e-9;
    }
    task.referenceStep = m_delta->referenceStep();
    {
        QMutexLocker lock(&solves->mutex);
        ++solves->inFlight;
    }
    // The solve holds what it shares with this thread, never this stack frame: a cancelled
    // analysis returns without waiting for it.
    job.pool->start([solves, solve = *job.solve, task = std::move(task), cost]() mutable {
        MatrixSolveOutcome outcome = solve.run(std::move(task), solves->blasThreads);
        QMutexLocker lock(&solves->mutex);
        solves->spectraSeconds += outcome.spectrumSeconds;
        solves->metricsSeconds += outcome.metricsSeconds;
        if (outcome.ownSolved) {
            ++(outcome.place.onDevice ? solves->onDevice : solves->onCpu);
            if (!outcome.place.note.isEmpty())
                solves->deviceNotes << QStringLiteral("%1 (%2): its spectrum was computed on the CPU: %3")
                                           .arg(outcome.result.tensor, outcome.result.checkpointPath, outcome.place.note);
        }
        if (!outcome.ok()) {
            solves->issues.append({outcome.result.checkpointPath, outcome.result.tensor, outcome.error, false});
        } else {
            if (!outcome.changeProblem.isEmpty())
                solves->issues.append({outcome.result.checkpointPath, outcome.result.tensor, outcome.changeProblem, false});
            solves->results.append(std::move(outcome.result));
            solves->results.append(std::move(outcome.headRows));
        }
        // Work counts when it is done, not when it is queued.
        --solves->inFlight;
        ++solves->completed;
        solves->doneSeconds += cost;
        solves->finished.wakeAll();
    });
}

QList<MatrixResult> RunAnalyzer::finishCheckpoint(CheckpointJob &job)
{
    CheckpointJob::Solves &solves = *job.solves;
    solves.blasThreads.allHandedOut();
    waitUntil(job, [&] { return solves.inFlight == 0; });
    if (cancelled()) {
        (void)job.pool.release(); // its threads end with their solves, or with the process
        return {};
    }
    job.pool.reset();
    RunAnalysis &run = job.run;
    QList<MatrixResult> results = std::move(solves.results);
    run.issues.append(solves.issues);
    run.timings.spectraSeconds += solves.spectraSeconds;
    run.timings.metricsSeconds += solves.metricsSeconds;
    run.timings.matricesOnDevice += solves.onDevice;
    run.timings.matricesOnCpu += solves.onCpu;
    // A checkpoint analysed again (--watch, a cache rebuilt) keeps one note per matrix.
    for (const QString &note : solves.deviceNotes)
        if (!run.notes.contains(note))
            run.notes << note;
    m_progressModel.addDone(solves.doneSeconds);
    job.progress.matricesDone = job.matricesBefore + solves.completed;
    m_team.gather(results, run, {job.ownIssuesFrom, solves.completed, solves.doneSeconds, job.timingsBefore}, job.progress, m_progressModel);
    // Every member's heads are here now: the circuits pair a query head with its key/value head,
    // whoever read them.
    if (m_team.leads() && m_settings.heads)
        HeadSpectra::addCircuits(results, m_settings.energy);
    // Another member's results are a share only: the leader says what the checkpoint lacks.
    if (m_team.leads() && results.isEmpty() && !cancelled() && run.issues.size() == job.issuesBefore + job.plan.layout.reported().size()) {
        const QString model = job.plan.config.describeModel();
        job.record.error = QStringLiteral("no attention or MLP matrices recognised among %1 tensors%2 (see rankscope info)")
                               .arg(job.reader->tensors().size()).arg(model.isEmpty() ? QString() : QStringLiteral(" of a model with ") + model);
        run.issues.append({job.record.path, {}, job.record.error, true});
    }
    job.record.matrices = int(std::count_if(results.begin(), results.end(), [](const MatrixResult &r) { return !r.isHead(); }));
    return results;
}

void RunAnalyzer::reportProgress(CheckpointJob &job)
{
    double doneSeconds = 0;
    {
        QMutexLocker lock(&job.solves->mutex);
        job.progress.matricesDone = job.matricesBefore + job.solves->completed;
        doneSeconds = m_progressModel.doneSeconds() + job.solves->doneSeconds;
    }
    m_progressModel.updateEta(job.progress, doneSeconds);
    if (job.onProgress)
        job.onProgress(job.progress, {});
}

void RunAnalyzer::waitUntil(CheckpointJob &job, const std::function<bool()> &done)
{
    QMutexLocker lock(&job.solves->mutex);
    for (int ticks = 0; !done() && !cancelled(); ++ticks) {
        // Woken by a finished matrix, or every 100 ms to notice a cancel (progress every 500 ms).
        const bool woken = job.solves->finished.wait(&job.solves->mutex, 100);
        if (!woken && ticks % 5 != 4)
            continue;
        lock.unlock();
        reportProgress(job);
        lock.relock();
    }
}

} // namespace rankscope
