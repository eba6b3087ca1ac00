#include "analysis/RunAnalyzer.h"

#include "analysis/MatrixPartExtractor.h"
#include "io/CheckpointReader.h"

#include <QFileInfo>
#include <QMutex>
#include <QThread>
#include <QThreadPool>
#include <QtConcurrent>
#include <deque>

namespace rankscope {

QString AnalysisIssue::text() const
{
    const QString file = QFileInfo(path).fileName();
    return tensor.isEmpty() ? QStringLiteral("%1: %2").arg(file, message)
                            : QStringLiteral("%1: %2: %3").arg(file, tensor, message);
}

RunAnalyzer::RunAnalyzer(AnalysisSettings settings) : m_settings(settings)
{
    if (m_settings.jobs <= 0)
        m_settings.jobs = std::max(1, QThread::idealThreadCount());
}

RunAnalysis RunAnalyzer::analyzeFolder(const QString &folder, const ProgressCallback &onProgress)
{
    SingularValueSolver::setBlasThreads(1); // one matrix per worker beats threads inside one call
    RunAnalysis run;
    run.folder = folder;
    if (!QFileInfo(folder).isDir()) {
        run.issues.append({folder, {}, QStringLiteral("not a folder"), true});
        return run;
    }
    const CheckpointListing listing = CheckpointDiscovery::scan(folder);
    run.sidecars = listing.skipped;
    run.checkpointsFound = int(listing.checkpoints.size());
    AnalysisProgress progress{0, run.checkpointsFound, {}};
    int stepsFromOrder = 0;
    for (const CheckpointFile &file : listing.checkpoints) {
        if (m_cancelled) {
            run.cancelled = true;
            break;
        }
        progress.currentFile = file.path;
        bool fileOk = false, stepFromOrder = false;
        QList<MatrixResult> results = analyzeCheckpoint(file, progress.checkpointsDone, run.issues, fileOk, stepFromOrder);
        stepsFromOrder += stepFromOrder;
        if (fileOk)
            ++run.checkpointsAnalysed;
        ++progress.checkpointsDone;
        sortResults(results);
        if (onProgress)
            onProgress(progress, results);
        run.results.append(results);
    }
    if (m_cancelled)
        run.cancelled = true;
    if (stepsFromOrder > 0)
        run.notes << QStringLiteral("%1 checkpoint(s) record no step (no trainer_state.json, meta file, iter_num, "
                                    "step attribute or step in the name): they are ordered by name and numbered by position")
                         .arg(stepsFromOrder);
    sortResults(run.results);
    return run;
}

QList<MatrixResult> RunAnalyzer::analyzeCheckpoint(const CheckpointFile &file, int position, QList<AnalysisIssue> &issues,
                                                   bool &fileOk, bool &stepFromOrder)
{
    QString error;
    std::unique_ptr<CheckpointReader> reader = openCheckpoint(file.path, &error);
    if (!reader) {
        issues.append({file.path, {}, error, true});
        return {};
    }
    std::optional<qint64> step = file.stepFromSidecar ? file.stepFromSidecar : reader->step() ? reader->step() : file.stepFromName;
    stepFromOrder = !step.has_value();
    if (!step)
        step = position;
    AttentionHeads heads = AttentionHeads::fromConfig(reader->modelConfig());
    if (heads.heads == 0)
        heads = AttentionHeads::fromConfig(file.sidecarConfig);

    QThreadPool pool;
    pool.setMaxThreadCount(m_settings.jobs);
    QMutex mutex;
    QList<MatrixResult> results;
    std::deque<QFuture<void>> inFlight;
    const SingularValueSolver solver(m_settings.method);
    const double energy = m_settings.energy;

    for (const TensorInfo &tensor : reader->tensors()) {
        if (m_cancelled)
            break;
        if (tensor.shape.size() != 2)
            continue; // biases, norms and scalars are never matrix types
        const TensorAssignment assignment = m_rules.assign(tensor.name, tensor.shape, heads);
        if (assignment.parts.isEmpty())
            continue;
        MatrixRead read = reader->readMatrix(tensor.name);
        if (!read.ok()) {
            QMutexLocker lock(&mutex);
            issues.append({file.path, tensor.name, read.error, false});
            continue;
        }
        // Bound the matrices held in memory: wait for the oldest when the workers are all busy.
        while (int(inFlight.size()) > m_settings.jobs) {
            inFlight.front().waitForFinished();
            inFlight.pop_front();
        }
        for (const MatrixPart &part : assignment.parts) {
            auto matrix = std::make_shared<RowMajorMatrix>(extractMatrixPart(read.values, part));
            MatrixResult base;
            base.step = *step;
            base.layer = part.layer;
            base.type = part.type;
            base.tensor = part.label;
            base.checkpointPath = file.path;
            base.dtype = tensor.dtype;
            base.rows = matrix->rows();
            base.cols = matrix->cols();
            inFlight.push_back(QtConcurrent::run(&pool, [&, matrix, base]() mutable {
                // A row-major W read as column-major is Wᵀ: same spectrum, no copy.
                const Eigen::Map<const Eigen::MatrixXd> transposed(matrix->data(), matrix->cols(), matrix->rows());
                const Spectrum spectrum = solver.compute(transposed);
                matrix.reset();
                QMutexLocker lock(&mutex);
                if (!spectrum.ok()) {
                    issues.append({file.path, base.tensor, spectrum.error, false});
                    return;
                }
                base.singularValues = spectrum.singularValues;
                base.metrics = computeSpectralMetrics(base.singularValues, base.rows, base.cols, energy);
                results.append(std::move(base));
            }));
        }
    }
    for (auto &future : inFlight)
        future.waitForFinished();
    if (results.isEmpty() && !m_cancelled) {
        const bool tensorErrors = std::any_of(issues.begin(), issues.end(), [&](const AnalysisIssue &i) { return i.path == file.path; });
        if (!tensorErrors)
            issues.append({file.path, {}, QStringLiteral("no attention or MLP matrices recognised among %1 tensors").arg(reader->tensors().size()), true});
    }
    fileOk = !results.isEmpty();
    return results;
}

} // namespace rankscope
