// --delta: the change of every matrix from a reference checkpoint, D = W − W_ref. Checked in closed
// form, on a run whose changes have known singular values (different for each part of a fused
// QKV, so a wrong split or a wrong namesake fails), against Eigen's exact SVD of the raw tensors of
// the demo run, through the results file and the cache (which recomputes deltas against another
// reference); a --reference naming no checkpoint, and a reference holding NaN, are said.
#include "analysis/execution/DeltaReference.h"
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/ResultsFile.h"
#include "FormatWriters.h"
#include "Hdf5TestFiles.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "SmallGpt2Run.h"
#include "spectral/SpectralMetrics.h"
#include "TestMatrices.h"
#include "TestSuite.h"
#include "TorchCheckpointWriter.h"

#include <Eigen/Dense>
#include <QDir>
#include <QFileInfo>
#include <hdf5.h>
#include <QTemporaryDir>
#include <cmath>
#include <limits>

namespace tst_deltametrics {

using namespace rankscope;
using namespace rankscope::test;
using namespace rankscope::test::gpt2;

namespace {

// A rank-s.size() matrix with singular values s along random orthonormal directions.
Eigen::MatrixXd change(int rows, int cols, const Eigen::VectorXd &s, std::mt19937_64 &rng)
{
    Eigen::VectorXd all = Eigen::VectorXd::Zero(std::min(rows, cols));
    all.head(s.size()) = s;
    return test::withSingularValues(rows, cols, all, rng);
}

RunAnalysis analyseWithDelta(const QString &folder)
{
    AnalysisSettings settings;
    settings.delta = true;
    return RunAnalyzer(settings).analyzeFolder(folder);
}

bool close(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)) + 1e-14; }

// Overwrites the stored α of every matrix of a results file: a marker that survives only where
// W's own analysis is not done again.
bool plantAlpha(const QString &results, qsizetype matrices, double value)
{
    const hid_t file = H5Fopen(results.toUtf8().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t data = file >= 0 ? H5Dopen2(file, "matrices/alpha", H5P_DEFAULT) : -1;
    const std::vector<double> marker(size_t(matrices), value);
    const bool written = data >= 0 && H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, marker.data()) >= 0;
    if (data >= 0)
        H5Dclose(data);
    if (file >= 0)
        H5Fclose(file);
    test::clearResultsSeal(results);
    return written;
}

std::optional<RunAnalysis> loadResults(const QString &path)
{
    QString error;
    std::optional<RunAnalysis> loaded = ResultsFile::load(path, &error);
    if (!loaded)
        qWarning("%s", qPrintable(error));
    return loaded;
}

const CheckpointRecord *recordAt(const RunAnalysis &run, qint64 step)
{
    for (const CheckpointRecord &c : run.checkpoints)
        if (c.step == step)
            return &c;
    return nullptr;
}

double effectiveRank(const Eigen::VectorXd &sigma)
{
    const double total = sigma.sum();
    double entropy = 0;
    for (double s : sigma)
        if (s > 0)
            entropy -= s / total * std::log(s / total);
    return std::exp(entropy);
}

} // namespace

class TestDeltaMetrics : public QObject {
    Q_OBJECT
private slots:
    void closedForm()
    {
        SpectralMetrics m{};
        setDeltaMetrics(m, Eigen::Vector3d(4, 3, 0), 10.0);
        QCOMPARE(m.deltaRelFrobenius, 0.5);
        QCOMPARE(m.deltaSpectralNorm, 4.0);
        QCOMPARE(m.deltaStableRank, 25.0 / 16.0);
        QVERIFY(close(m.deltaEffectiveRank, std::exp(-(4.0 / 7 * std::log(4.0 / 7) + 3.0 / 7 * std::log(3.0 / 7))), 1e-15));
        // No change: a zero norm, no rank; a zero reference: no relative change.
        setDeltaMetrics(m, Eigen::Vector3d::Zero(), 10.0);
        QCOMPARE(m.deltaRelFrobenius, 0.0);
        QCOMPARE(m.deltaSpectralNorm, 0.0);
        QVERIFY(std::isnan(m.deltaStableRank) && std::isnan(m.deltaEffectiveRank));
        setDeltaMetrics(m, Eigen::Vector3d(1, 0, 0), 0.0);
        QVERIFY(std::isnan(m.deltaRelFrobenius));
        // Computed without --delta: NaN, never 0.
        const SpectralMetrics plain = computeSpectralMetrics(Eigen::Vector3d(3, 2, 1), 3, 3);
        QVERIFY(std::isnan(plain.deltaRelFrobenius) && std::isnan(plain.deltaSpectralNorm) && std::isnan(plain.deltaStableRank) &&
                std::isnan(plain.deltaEffectiveRank));
    }

    // Steps 0, 100, 200: W₁₀₀ = W₀ + D₁ and W₂₀₀ = W₀ + D₂, each part of the fused QKV (and O, the MLP)
    // changed by a low-rank D of its own singular values.
    void changesOfKnownRankAndSize()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(7);
        const Gpt2Layer w0 = randomLayer(rng);
        const QList<std::pair<MatrixType, Eigen::VectorXd>> d1 = {
            {MatrixType::Q, Eigen::Vector2d(3, 1)}, {MatrixType::K, Eigen::Vector2d(5, 2)}, {MatrixType::V, Eigen::Vector3d(7, 4, 0.5)},
            {MatrixType::O, Eigen::VectorXd::Constant(1, 2)}, {MatrixType::MlpUp, Eigen::Vector2d(6, 6)}, {MatrixType::MlpDown, Eigen::Vector4d(1, 1, 1, 1)}};
        auto changed = [&](const Gpt2Layer &base, const QList<std::pair<MatrixType, Eigen::VectorXd>> &d, QHash<MatrixType, Eigen::MatrixXd> &applied) {
            Gpt2Layer w = base;
            for (const auto &[type, s] : d) {
                Eigen::MatrixXd *m = type == MatrixType::Q ? &w.q : type == MatrixType::K ? &w.k : type == MatrixType::V ? &w.v
                                   : type == MatrixType::O ? &w.o : type == MatrixType::MlpUp ? &w.up : &w.down;
                applied[type] = change(int(m->rows()), int(m->cols()), s, rng);
                *m += applied[type];
            }
            return w;
        };
        QHash<MatrixType, Eigen::MatrixXd> applied1, applied2;
        const Gpt2Layer w100 = changed(w0, d1, applied1);
        QList<std::pair<MatrixType, Eigen::VectorXd>> d2 = d1;
        for (auto &[type, s] : d2)
            s *= 2;
        const Gpt2Layer w200 = changed(w0, d2, applied2);
        writeRun(dir.path(), {{0, w0}, {100, w100}, {200, w200}});
        const RunAnalysis run = analyseWithDelta(dir.path());
        QVERIFY2(run.issues.isEmpty() && run.notes.isEmpty(), qPrintable(run.issueLines().join('\n') + run.notes.join('\n')));
        QCOMPARE(run.results.size(), 18);
        auto stored = [](const Gpt2Layer &l, MatrixType type) {
            const Eigen::MatrixXd &m = type == MatrixType::Q ? l.q : type == MatrixType::K ? l.k : type == MatrixType::V ? l.v
                                     : type == MatrixType::O ? l.o : type == MatrixType::MlpUp ? l.up : l.down;
            return asStored(m);
        };
        for (const auto &[type, s] : d1) {
            // The reference against itself: no change.
            const MatrixResult *first = find(run, 0, type);
            QVERIFY(first);
            QCOMPARE(first->metrics.deltaSpectralNorm, 0.0);
            QCOMPARE(first->metrics.deltaRelFrobenius, 0.0);
            QVERIFY(std::isnan(first->metrics.deltaStableRank));
            for (const auto &[step, layer, scale] : {std::tuple{qint64(100), &w100, 1.0}, std::tuple{qint64(200), &w200, 2.0}}) {
                const MatrixResult *r = find(run, step, type);
                QVERIFY(r);
                const QString where = QStringLiteral("%1 at step %2").arg(csvName(type)).arg(step);
                // The planted singular values, to float32's rounding of W and W_ref.
                const Eigen::VectorXd planted = s * scale;
                QCOMPARE(r->deltaSingularValues.size(), std::min(r->rows, r->cols));
                for (Eigen::Index i = 0; i < planted.size(); ++i)
                    QVERIFY2(close(r->deltaSingularValues[i], planted[i], 1e-5), qPrintable(where + QStringLiteral(": σ%1 %2, planted %3").arg(i + 1).arg(r->deltaSingularValues[i]).arg(planted[i])));
                QVERIFY2(r->deltaSingularValues[planted.size()] < 1e-5 * planted[0], qPrintable(where));
                // Every metric from Eigen's exact SVD of the stored difference.
                const Eigen::MatrixXd d = stored(*layer, type) - stored(w0, type);
                const Eigen::VectorXd exact = exactSingularValues(d);
                for (Eigen::Index i = 0; i < planted.size(); ++i)
                    QVERIFY2(close(r->deltaSingularValues[i], exact[i], 1e-10), qPrintable(where));
                QVERIFY(close(r->metrics.deltaSpectralNorm, exact[0], 1e-10));
                QVERIFY(close(r->metrics.deltaRelFrobenius, d.norm() / stored(w0, type).norm(), 1e-10));
                QVERIFY(close(r->metrics.deltaStableRank, d.squaredNorm() / (exact[0] * exact[0]), 1e-9));
                // Effective rank counts every σ: the rounding's tiny ones are part of D as stored.
                QVERIFY(close(r->metrics.deltaEffectiveRank, effectiveRank(r->deltaSingularValues), 1e-12));
                QVERIFY2(std::abs(r->metrics.deltaEffectiveRank - effectiveRank(planted)) < 0.05, qPrintable(where));
            }
        }

        // --reference 100: step 200 is compared with step 100, and step 0 with it too.
        AnalysisSettings settings;
        settings.referenceStep = 100;
        settings.delta = true;
        const RunAnalysis fromMiddle = RunAnalyzer(settings).analyzeFolder(dir.path());
        for (const auto &[type, s] : d1) {
            const Eigen::VectorXd exact = exactSingularValues(stored(w200, type) - stored(w100, type));
            QVERIFY(close(find(fromMiddle, 200, type)->metrics.deltaSpectralNorm, exact[0], 1e-10));
            QCOMPARE(find(fromMiddle, 100, type)->metrics.deltaSpectralNorm, 0.0);
            QVERIFY(close(find(fromMiddle, 0, type)->metrics.deltaSpectralNorm, exactSingularValues(stored(w0, type) - stored(w100, type))[0], 1e-10));
        }
    }

    // --reference naming no checkpoint is an error that lists the steps there are: nothing is
    // analysed (the CLI's exit 1: no results) and no results file is written, rather than a run of
    // NaN deltas with a note.
    void referenceNamingNoCheckpointIsAnError()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(17);
        writeRun(dir.path(), {{0, randomLayer(rng)}, {100, randomLayer(rng)}, {200, randomLayer(rng)}});
        AnalysisSettings settings;
        settings.delta = true;
        settings.referenceStep = 50;
        settings.resultsPath = out.filePath("run.h5");
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path());
        QVERIFY(run.results.isEmpty());
        QCOMPARE(run.issues.size(), 1);
        QVERIFY(run.issues.first().wholeFile);
        QCOMPARE(run.issueLines().first(),
                 QFileInfo(dir.path()).fileName() + QStringLiteral(": --reference 50: no checkpoint at step 50; the run's 3 steps are 0, 100, 200"));
        QVERIFY(!QFileInfo::exists(settings.resultsPath));
        // A long run is named by its ends; one without steps says so.
        QList<PlacedCheckpoint> many;
        for (qint64 step = 0; step < 40; ++step)
            many.append({nullptr, step * 10, false, {}});
        QCOMPARE(DeltaReference::noCheckpointAt(5, many),
                 QStringLiteral("--reference 5: no checkpoint at step 5; the run's 40 steps are 0, 10, 20, 30, 40, \u2026, 350, 360, 370, 380, 390"));
        QCOMPARE(DeltaReference::noCheckpointAt(0, {{nullptr, 0, true, {}}}),
                 QStringLiteral("--reference 0: no checkpoint at step 0; none of the run's checkpoints records a step"));
        QVERIFY(!DeltaReference::choose({{nullptr, 0, true, {}}}, 0)); // an unnumbered placement is no step
    }

    // A NaN or Inf in the reference's matrix makes that matrix's deltas NaN everywhere: said per
    // matrix, among its other problems, and the rest of the checkpoint is compared.
    void nonFiniteReferenceIsNamed()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(19);
        Gpt2Layer w0 = randomLayer(rng);
        w0.q(2, 3) = std::numeric_limits<double>::quiet_NaN();
        w0.up(5, 40) = std::numeric_limits<double>::infinity();
        writeRun(dir.path(), {{0, w0}, {100, randomLayer(rng)}});
        const RunAnalysis run = analyseWithDelta(dir.path());
        const QString lines = run.issueLines().join('\n');
        const QString said = QStringLiteral("delta: the reference checkpoint (step 0) holds non-finite values in this tensor: its delta metrics are NaN");
        for (const QString &tensor : {QStringLiteral("h.0.attn.c_attn.weight[Q]"), QStringLiteral("h.0.mlp.c_fc.weight")})
            QVERIFY2(lines.contains(QStringLiteral("step_000100.safetensors: %1: %2").arg(tensor, said)), qPrintable(lines));
        QCOMPARE(lines.count(said), 2); // K, V, O and MLP↓ are compared
        QVERIFY(std::isnan(find(run, 100, MatrixType::Q)->metrics.deltaSpectralNorm));
        QVERIFY(std::isnan(find(run, 100, MatrixType::MlpUp)->metrics.deltaSpectralNorm));
        QVERIFY(find(run, 100, MatrixType::K)->metrics.deltaSpectralNorm > 0);
        for (const AnalysisIssue &issue : run.issues)
            QVERIFY(!issue.wholeFile);
    }

    // Deltas are kept with the identity of the reference they were computed against (step and
    // content fingerprint): an earlier checkpoint that arrives later is the new reference, and
    // the checkpoints already analysed have their deltas computed again, only those (a marker in
    // their stored α survives), to what a fresh analysis gives.
    void anEarlierCheckpointArrivingIsTheNewReference()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(23);
        Gpt2Layer w0 = randomLayer(rng), w100 = randomLayer(rng), w200 = randomLayer(rng);
        writeRun(dir.path(), {{100, w100}, {200, w200}});
        AnalysisSettings settings;
        settings.delta = true;
        settings.resultsPath = out.filePath("run.h5");
        RunAnalyzer(settings).analyzeFolder(dir.path());
        QVERIFY(plantAlpha(settings.resultsPath, 12, 123.0));
        std::optional<RunAnalysis> previous = loadResults(settings.resultsPath);
        QVERIFY(previous);
        QCOMPARE(recordAt(*previous, 200)->deltaReference, DeltaReference::identityOf(100, recordAt(*previous, 100)->fingerprint));

        writeCheckpoint(QDir(dir.path()).filePath("step_000000.safetensors"), w0);
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*previous);
        QVERIFY2(run.issues.isEmpty(), qPrintable(run.issueLines().join('\n')));
        QCOMPARE(run.results.size(), 18);
        for (const MatrixType type : kGpt2Types) {
            QCOMPARE(find(run, 0, type)->metrics.deltaSpectralNorm, 0.0);
            for (const auto &[step, layer] : {std::pair{qint64(100), &w100}, std::pair{qint64(200), &w200}}) {
                const MatrixResult *r = find(run, step, type);
                QCOMPARE(r->metrics.alpha, 123.0); // only the change was computed again
                const Eigen::MatrixXd d = asStored(matrixOf(*layer, type)) - asStored(matrixOf(w0, type));
                QVERIFY2(close(r->metrics.deltaSpectralNorm, exactSingularValues(d)[0], 1e-10),
                         qPrintable(QStringLiteral("%1 at %2: %3").arg(csvName(type)).arg(step).arg(r->metrics.deltaSpectralNorm)));
                QVERIFY(close(r->metrics.deltaRelFrobenius, d.norm() / asStored(matrixOf(w0, type)).norm(), 1e-10));
            }
        }
        // Saved with the new reference's identity, and then served whole.
        previous = loadResults(settings.resultsPath);
        QVERIFY(previous);
        const QString identity = DeltaReference::identityOf(0, recordAt(*previous, 0)->fingerprint);
        for (const CheckpointRecord &c : previous->checkpoints)
            QCOMPARE(c.deltaReference, identity);
        const RunAnalysis again = RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*previous);
        QVERIFY(std::all_of(again.checkpoints.begin(), again.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }));
    }

    // The --reference checkpoint's file replaced by other weights (same name, same size): it is
    // analysed again for its new content, and every other checkpoint's deltas are computed again
    // against it, though their own content is unchanged.
    void aReplacedReferenceIsComparedAgain()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(29);
        Gpt2Layer w0 = randomLayer(rng), w100 = randomLayer(rng), replacement = randomLayer(rng);
        writeRun(dir.path(), {{0, w0}, {100, w100}});
        AnalysisSettings settings;
        settings.referenceStep = 0;
        settings.delta = true;
        settings.resultsPath = out.filePath("run.h5");
        RunAnalyzer(settings).analyzeFolder(dir.path());
        QVERIFY(plantAlpha(settings.resultsPath, 12, 123.0));
        const std::optional<RunAnalysis> previous = loadResults(settings.resultsPath);
        QVERIFY(previous);

        writeCheckpoint(QDir(dir.path()).filePath("step_000000.safetensors"), replacement);
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*previous);
        QVERIFY2(run.issues.isEmpty(), qPrintable(run.issueLines().join('\n')));
        for (const MatrixType type : kGpt2Types) {
            QVERIFY(find(run, 0, type)->metrics.alpha != 123.0); // its own content is new
            const MatrixResult *r = find(run, 100, type);
            QCOMPARE(r->metrics.alpha, 123.0);
            const Eigen::MatrixXd d = asStored(matrixOf(w100, type)) - asStored(matrixOf(replacement, type));
            const Eigen::VectorXd exact = exactSingularValues(d);
            QCOMPARE(r->deltaSingularValues.size(), exact.size());
            QVERIFY2(close(r->metrics.deltaSpectralNorm, exact[0], 1e-10), qPrintable(csvName(type)));
        }
        QCOMPARE(recordAt(run, 100)->deltaReference, DeltaReference::identityOf(0, recordAt(run, 0)->fingerprint));
        QVERIFY(recordAt(run, 100)->deltaReference != recordAt(*previous, 100)->deltaReference);
    }

    // A matrix whose namesake has another shape, or none, gets NaN and a note naming it; the rest
    // of the checkpoint is compared.
    void mismatchesAreNamed()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(9);
        Gpt2Layer w0 = randomLayer(rng);
        const Gpt2Layer w1 = randomLayer(rng);
        w0.up = test::gaussianMatrix(H, 2 * H, rng, 0.2);
        w0.down = test::gaussianMatrix(2 * H, H, rng, 0.2);
        writeRun(dir.path(), {{0, w0}, {100, w1}});
        const RunAnalysis run = analyseWithDelta(dir.path());
        QVERIFY(run.issues.isEmpty());
        const QString notes = run.notes.join('\n');
        QVERIFY2(notes.contains("layer 0 MLP\u2191 (16\u00d764) is 16\u00d732 there (step 0): its delta metrics are NaN"), qPrintable(notes));
        QVERIFY2(notes.contains("MLP\u2193"), qPrintable(notes));
        QVERIFY(std::isnan(find(run, 100, MatrixType::MlpUp)->metrics.deltaSpectralNorm));
        QVERIFY(std::isfinite(find(run, 100, MatrixType::Q)->metrics.deltaSpectralNorm));
        QVERIFY(find(run, 100, MatrixType::Q)->metrics.deltaSpectralNorm > 0);
    }

    // D's spectra and the delta columns are kept in the results file; an analysis with --delta
    // serves one without it, and one without it is analysed again when --delta is asked for.
    void keptInTheResultsFileAndCache()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(11);
        const Gpt2Layer w0 = randomLayer(rng), w1 = randomLayer(rng);
        writeRun(dir.path(), {{0, w0}, {100, w1}});
        const QString results = out.filePath("run.h5");

        AnalysisSettings plain;
        plain.resultsPath = results;
        const RunAnalysis first = RunAnalyzer(plain).analyzeFolder(dir.path());
        QString error;
        std::optional<RunAnalysis> loaded = ResultsFile::load(results, &error);
        QVERIFY2(loaded, qPrintable(error));

        AnalysisSettings delta = plain;
        delta.delta = true;
        const RunAnalysis withDelta = RunAnalyzer(delta).analyzeFolder(dir.path(), {}, &*loaded);
        QVERIFY(std::none_of(withDelta.checkpoints.begin(), withDelta.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }));
        loaded = ResultsFile::load(results, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->results.size(), withDelta.results.size());
        for (qsizetype i = 0; i < withDelta.results.size(); ++i) {
            const MatrixResult &a = withDelta.results[i], &b = loaded->results[i];
            QCOMPARE(b.deltaSingularValues.size(), a.deltaSingularValues.size());
            QVERIFY(a.deltaSingularValues.size() > 0);
            QVERIFY(b.deltaSingularValues == a.deltaSingularValues);
            QCOMPARE(b.metrics.deltaSpectralNorm, a.metrics.deltaSpectralNorm);
            QCOMPARE(b.metrics.deltaRelFrobenius, a.metrics.deltaRelFrobenius);
            QCOMPARE(b.metrics.deltaStableRank, a.metrics.deltaStableRank); // QCOMPARE takes NaN as equal to NaN
            QCOMPARE(b.metrics.deltaEffectiveRank, a.metrics.deltaEffectiveRank);
        }
        // Without --delta now: everything from the results file, the change kept.
        const RunAnalysis again = RunAnalyzer(plain).analyzeFolder(dir.path(), {}, &*loaded);
        QVERIFY(std::all_of(again.checkpoints.begin(), again.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }));
        QCOMPARE(find(again, 100, MatrixType::Q)->metrics.deltaSpectralNorm, find(withDelta, 100, MatrixType::Q)->metrics.deltaSpectralNorm);
        // Another reference is another analysis.
        delta.referenceStep = 100;
        QVERIFY(!RunAnalysis::settingsCover(loaded->settingsKey, RunAnalyzer(delta).settingsKey()));
        QVERIFY(RunAnalysis::settingsCover(loaded->settingsKey + QStringLiteral(";rand_distance=1"), loaded->settingsKey));
        QVERIFY(!RunAnalysis::settingsCover(RunAnalyzer(plain).settingsKey(), loaded->settingsKey));
        QCOMPARE(first.results.size(), again.results.size());
    }

    // An opt-in metric turned on later is the only thing computed: the stored spectra and metrics
    // serve (a marker planted in the stored α survives), and opt-in metrics stored earlier are kept.
    void turningOptInsOnComputesOnlyWhatIsMissing()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(13);
        writeRun(dir.path(), {{0, randomLayer(rng)}, {100, randomLayer(rng)}});
        AnalysisSettings settings;
        settings.resultsPath = out.filePath("run.h5");
        RunAnalyzer(settings).analyzeFolder(dir.path());
        QVERIFY(plantAlpha(settings.resultsPath, 12, 123.0));
        auto analyse = [&] {
            QString error;
            const std::optional<RunAnalysis> previous = ResultsFile::load(settings.resultsPath, &error);
            if (!previous)
                qFatal("%s", qPrintable(error));
            return RunAnalyzer(settings).analyzeFolder(dir.path(), {}, &*previous);
        };
        settings.delta = true;
        const RunAnalysis withDelta = analyse();
        QVERIFY(withDelta.issues.isEmpty());
        QCOMPARE(withDelta.results.size(), 12);
        for (const MatrixResult &r : withDelta.results) {
            QCOMPARE(r.metrics.alpha, 123.0); // W's own analysis was not done again
            QVERIFY(r.step == 0 ? r.metrics.deltaSpectralNorm == 0 : r.metrics.deltaSpectralNorm > 0);
            QCOMPARE(r.deltaSingularValues.size(), std::min(r.rows, r.cols));
            QVERIFY(std::isnan(r.metrics.randDistance));
        }
        settings.randDistance = true;
        const RunAnalysis withBoth = analyse();
        for (qsizetype i = 0; i < withBoth.results.size(); ++i) {
            const MatrixResult &r = withBoth.results[i];
            QCOMPARE(r.metrics.alpha, 123.0);
            QVERIFY(std::isfinite(r.metrics.randDistance));
            QCOMPARE(r.metrics.deltaSpectralNorm, withDelta.results[i].metrics.deltaSpectralNorm); // kept, not computed again
            QCOMPARE(r.deltaSingularValues.size(), withDelta.results[i].deltaSingularValues.size());
            QVERIFY(r.deltaSingularValues == withDelta.results[i].deltaSingularValues);
        }
        // --subspace needs W's own vectors: its decomposition is done again (α is real again), and
        // the opt-in metrics stored are kept.
        settings.subspace = true;
        const RunAnalysis withAll = analyse();
        for (qsizetype i = 0; i < withAll.results.size(); ++i) {
            const MatrixResult &r = withAll.results[i];
            QVERIFY(r.metrics.alpha != 123.0);
            QCOMPARE(r.metrics.randDistance, withBoth.results[i].metrics.randDistance);
            QCOMPARE(r.metrics.deltaSpectralNorm, withDelta.results[i].metrics.deltaSpectralNorm);
            QCOMPARE(r.deltaSingularValues.size(), withDelta.results[i].deltaSingularValues.size());
            QVERIFY(r.step == 0 ? std::isnan(r.metrics.subspaceOverlap) : r.metrics.subspaceOverlap > 0);
        }
        // Everything there now: nothing is read.
        const RunAnalysis again = analyse();
        QVERIFY(std::all_of(again.checkpoints.begin(), again.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }));
    }

    // The demo run (nanoGPT, fused c_attn [3C, C]): every matrix's change from step 0, against
    // Eigen's exact SVD of the difference of the raw tensors read from the two checkpoints.
    void demoRunAgainstTheExactSvd()
    {
        AnalysisSettings settings;
        settings.delta = true;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(RANKSCOPE_DEMO_RUN);
        QCOMPARE(run.results.size(), 144);
        QString error;
        const auto first = openCheckpoint(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), &error);
        const auto last = openCheckpoint(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_001500.pt"), &error);
        QVERIFY2(first && last, qPrintable(error));
        int checked = 0;
        for (const MatrixResult &r : run.results) {
            if (r.step != 1500)
                continue;
            // The part as stored: c_attn's rows Q | K | V, the others whole.
            const QString tensor = r.tensor.section('[', 0, 0);
            const MatrixRead a = last->readMatrix(tensor), b = first->readMatrix(tensor);
            QVERIFY(a.ok() && b.ok());
            const int part = r.type == MatrixType::Q ? 0 : r.type == MatrixType::K ? 1 : r.type == MatrixType::V ? 2 : -1;
            const Eigen::MatrixXd d = part < 0 ? Eigen::MatrixXd(a.values - b.values)
                                               : Eigen::MatrixXd((a.values - b.values).middleRows(part * r.rows, r.rows));
            const Eigen::MatrixXd w0 = part < 0 ? Eigen::MatrixXd(b.values) : Eigen::MatrixXd(b.values.middleRows(part * r.rows, r.rows));
            const Eigen::VectorXd exact = exactSingularValues(d);
            QCOMPARE(r.deltaSingularValues.size(), exact.size());
            // The Gram path resolves σᵢ to about ελ₁·max(m, n)/σᵢ: tight above 10⁻³σ₁, looser below.
            for (Eigen::Index i = 0; i < exact.size(); ++i)
                QVERIFY2(std::abs(r.deltaSingularValues[i] - exact[i]) <= (exact[i] > 1e-3 * exact[0] ? 1e-9 : 1e-6) * exact[0], qPrintable(r.tensor));
            QVERIFY(close(r.metrics.deltaRelFrobenius, d.norm() / w0.norm(), 1e-12));
            QVERIFY(close(r.metrics.deltaSpectralNorm, exact[0], 1e-9));
            QVERIFY(close(r.metrics.deltaStableRank, d.squaredNorm() / (exact[0] * exact[0]), 1e-9));
            QVERIFY(close(r.metrics.deltaEffectiveRank, effectiveRank(exact), 1e-7));
            ++checked;
        }
        QCOMPARE(checked, 24);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestDeltaMetrics)
} // namespace tst_deltametrics

#include "tst_DeltaMetrics.moc"
