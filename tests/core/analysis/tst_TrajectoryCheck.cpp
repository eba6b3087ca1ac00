// Checkpoints that do not belong where they stand: one that is another step's weights again (every
// matrix's stored bytes the same), and one whose metrics jump against both neighbours by more than
// the run otherwise moves (TrajectoryCheck's rule, docs/metrics.md). A smooth run, a plateau and a
// run too short to judge are never flagged; what is flagged is still analysed, and the
// fingerprints it rests on come back from the results file.
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/ResultsFile.h"
#include "analysis/results/RunSummary.h"
#include "analysis/results/TrajectoryCheck.h"
#include "SmallGpt2Run.h"
#include "TestSuite.h"

#include <QTemporaryDir>
#include <random>

namespace tst_trajectorycheck {

using namespace rankscope;
using namespace rankscope::test;

namespace {

// `matrices` matrices at each step, metric values from value(step index, matrix), fingerprints
// from hash(step index, matrix).
QList<MatrixResult> synthetic(int steps, int matrices, const std::function<double(int, int)> &value,
                              const std::function<quint64(int, int)> &hash = [](int s, int m) { return quint64(1000 * s + m + 1); })
{
    QList<MatrixResult> results;
    for (int s = 0; s < steps; ++s)
        for (int m = 0; m < matrices; ++m) {
            MatrixResult r;
            r.step = 1000 * (s + 1);
            r.layer = m;
            r.type = MatrixType::O;
            r.tensor = QStringLiteral("h.%1.attn.c_proj.weight").arg(m);
            r.dtype = QStringLiteral("float32");
            r.rows = r.cols = 8;
            r.contentHash = hash(s, m);
            const double v = value(s, m);
            r.metrics.spectralNorm = r.metrics.frobeniusNorm = r.metrics.stableRank = r.metrics.effectiveRank = v;
            results << r;
        }
    return results;
}

// A slow drift with a little noise, as training gives it late in a run.
double smooth(int s, int m) { return 2.0 + 0.1 * s + 0.01 * m + 0.003 * std::sin(3.7 * s + m); }

RunAnalysis analyse(const QString &folder, const QString &results = {})
{
    AnalysisSettings settings;
    settings.jobs = 1;
    settings.resultsPath = results;
    return RunAnalyzer(settings).analyzeFolder(folder);
}

gpt2::Gpt2Layer scaled(const gpt2::Gpt2Layer &l, double f) { return {f * l.q, f * l.k, f * l.v, f * l.o, f * l.up, f * l.down}; }

gpt2::Gpt2Layer mix(const gpt2::Gpt2Layer &a, const gpt2::Gpt2Layer &b, double t)
{
    return {a.q + t * b.q, a.k + t * b.k, a.v + t * b.v, a.o + t * b.o, a.up + t * b.up, a.down + t * b.down};
}

// Five steps of one GPT-2 layer drifting slowly from a start; `replace` changes one of them.
void writeDrift(const QString &folder, std::mt19937_64 &rng, const std::function<void(int, gpt2::Gpt2Layer &, const QList<gpt2::Gpt2Layer> &)> &replace = {})
{
    const gpt2::Gpt2Layer start = gpt2::randomLayer(rng), direction = gpt2::randomLayer(rng);
    QList<gpt2::Gpt2Layer> layers;
    for (int i = 0; i < 5; ++i) {
        gpt2::Gpt2Layer l = mix(start, direction, 0.05 * i);
        if (replace)
            replace(i, l, layers);
        layers << l;
    }
    QList<std::pair<int, gpt2::Gpt2Layer>> steps;
    for (int i = 0; i < 5; ++i)
        steps.append({100 * (i + 1), layers[i]});
    gpt2::writeRun(folder, steps);
}

} // namespace

class TestTrajectoryCheck : public QObject {
    Q_OBJECT
private slots:
    void aRepeatedCheckpointIsNamed()
    {
        // Step 3000 holds step 1000's bytes, matrix for matrix.
        const auto hash = [](int s, int m) { return quint64(1000 * (s == 2 ? 0 : s) + m + 1); };
        const QList<TrajectoryFinding> found = TrajectoryCheck::identicalCheckpoints(synthetic(4, 3, smooth, hash));
        QCOMPARE(found.size(), 1);
        QCOMPARE(found[0].step, 3000);
        QCOMPARE(found[0].text, QStringLiteral("step 3000 repeats step 1000: its 3 analysed matrices are bit-identical to those of step 1000 "
                                               "(the same fingerprint of their stored bytes; tensors that are not analysed, such as "
                                               "embeddings and heads, were not compared)"));
        // One matrix differing, or one without a fingerprint (an older results file): not identical.
        QVERIFY(TrajectoryCheck::identicalCheckpoints(synthetic(4, 3, smooth, [&](int s, int m) { return s == 2 && m == 1 ? 77 : hash(s, m); })).isEmpty());
        QVERIFY(TrajectoryCheck::identicalCheckpoints(synthetic(4, 3, smooth, [&](int s, int m) { return s == 2 && m == 1 ? 0 : hash(s, m); })).isEmpty());
    }

    void aStepOutOfLineIsNamedAndASmoothRunIsNot()
    {
        QVERIFY(TrajectoryCheck::outOfLineSteps(synthetic(6, 4, smooth)).isEmpty());
        // A plateau shift (a learning-rate drop) moves against one neighbour only: not out of line.
        QVERIFY(TrajectoryCheck::outOfLineSteps(synthetic(6, 4, [](int s, int m) { return smooth(s, m) + (s >= 3 ? 1.5 : 0); })).isEmpty());
        // A steep ramp through a checkpoint of a flat run: above one neighbour, below the other.
        QVERIFY(TrajectoryCheck::outOfLineSteps(synthetic(7, 4, [](int s, int) { return s < 3 ? 1.0 : s == 3 ? 5.0 : 9.0; })).isEmpty());
        // Step 4000 jumps against both neighbours on every matrix.
        const QList<TrajectoryFinding> found = TrajectoryCheck::outOfLineSteps(synthetic(6, 4, [](int s, int m) { return smooth(s, m) + (s == 3 ? 1.5 : 0); }));
        QCOMPARE(found.size(), 1);
        QCOMPARE(found[0].step, 4000);
        QVERIFY2(found[0].text.startsWith(QStringLiteral("step 4000 is out of line with step 3000 and step 5000: its spectral norm (4 of its 4 matrices), "
                                                         "Frobenius norm (4 of its 4 matrices)")), qPrintable(found[0].text));
        // One matrix of four out of line is not the checkpoint's: below half.
        QVERIFY(TrajectoryCheck::outOfLineSteps(synthetic(6, 4, [](int s, int m) { return smooth(s, m) + (s == 3 && m == 0 ? 1.5 : 0); })).isEmpty());
        // Just under the factor is not flagged; too few other pairs is not judged.
        const double typical = 0.1, under = TrajectoryCheck::kJumpFactor * typical * 0.9;
        QVERIFY(TrajectoryCheck::outOfLineSteps(synthetic(6, 4, [&](int s, int) { return 2.0 + 0.1 * s + (s == 3 ? under : 0); })).isEmpty());
        QVERIFY(TrajectoryCheck::outOfLineSteps(synthetic(4, 4, [](int s, int m) { return smooth(s, m) + (s == 2 ? 5.0 : 0); })).isEmpty());
    }

    // The whole path: a run whose step 300 is a byte copy of step 200, another whose step 300 is
    // scaled threefold, and the smooth one; the flagged steps are analysed like any other.
    void analysedRunsAreJudged()
    {
        std::mt19937_64 rng(11);
        QTemporaryDir smoothRun, repeated, outOfLine;
        writeDrift(smoothRun.path(), rng);
        writeDrift(repeated.path(), rng, [](int i, gpt2::Gpt2Layer &l, const QList<gpt2::Gpt2Layer> &before) { if (i == 2) l = before[1]; });
        writeDrift(outOfLine.path(), rng, [](int i, gpt2::Gpt2Layer &l, const QList<gpt2::Gpt2Layer> &) { if (i == 2) l = scaled(l, 3.0); });

        QVERIFY(RunSummary(analyse(smoothRun.path())).trajectoryFindings().isEmpty());
        const RunAnalysis copy = analyse(repeated.path());
        QCOMPARE(copy.results.size(), 30); // nothing dropped
        const QList<TrajectoryFinding> copyFound = RunSummary(copy).trajectoryFindings();
        QCOMPARE(copyFound.size(), 1);
        QCOMPARE(copyFound[0].text, QStringLiteral("step 300 repeats step 200: its 6 analysed matrices are bit-identical to those of step 200 "
                                                   "(the same fingerprint of their stored bytes; tensors that are not analysed, such as "
                                                   "embeddings and heads, were not compared)"));
        const RunAnalysis jump = analyse(outOfLine.path());
        QCOMPARE(jump.results.size(), 30);
        const QList<TrajectoryFinding> jumpFound = RunSummary(jump).trajectoryFindings();
        QCOMPARE(jumpFound.size(), 1);
        QCOMPARE(jumpFound[0].kind, TrajectoryFinding::Kind::OutOfLine);
        QCOMPARE(jumpFound[0].step, 300);
    }

    // The fingerprints survive the results file, and with them what is found from it.
    void fingerprintsSurviveTheResultsFile()
    {
        std::mt19937_64 rng(12);
        QTemporaryDir run, out;
        writeDrift(run.path(), rng, [](int i, gpt2::Gpt2Layer &l, const QList<gpt2::Gpt2Layer> &before) { if (i == 3) l = before[0]; });
        const QString path = out.filePath("run.h5");
        const RunAnalysis fresh = analyse(run.path(), path);
        QString error;
        const std::optional<RunAnalysis> loaded = ResultsFile::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->results.size(), fresh.results.size());
        for (qsizetype i = 0; i < fresh.results.size(); ++i) {
            QVERIFY(fresh.results[i].contentHash != 0);
            QCOMPARE(loaded->results[i].contentHash, fresh.results[i].contentHash);
        }
        QCOMPARE(RunSummary(*loaded).trajectoryFindings().size(), 1);
        QCOMPARE(RunSummary(*loaded).trajectoryFindings()[0].step, 400);
        // Analysed again from the cache: taken whole from it, the same finding.
        AnalysisSettings settings;
        settings.jobs = 1;
        settings.resultsPath = path;
        const RunAnalysis again = RunAnalyzer(settings).analyzeFolder(run.path(), {}, &*loaded);
        QVERIFY(std::all_of(again.checkpoints.begin(), again.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }));
        QCOMPARE(RunSummary(again).trajectoryFindings().size(), 1);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTrajectoryCheck)
} // namespace tst_trajectorycheck

#include "tst_TrajectoryCheck.moc"
