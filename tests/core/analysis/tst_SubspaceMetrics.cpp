// --subspace: the agreement of each matrix's top-k right singular vectors with the previous
// checkpoint's. Checked in closed form; on the solver's vectors against known ones, for both Gram
// matrices and the exact path; on a run whose checkpoints turn each matrix's top subspace by a known
// angle of its own (so a wrong split, namesake or predecessor fails); against Eigen's exact SVD of
// the demo run's raw tensors; and through the results file, which keeps only the newest
// checkpoint's vectors, so that a checkpoint added later costs only itself, and with the k they
// were computed with, so that another k computes them again.
#include "analysis/execution/MatrixPartSource.h"
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/ResultsFile.h"
#include "Hdf5TestFiles.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "SmallGpt2Run.h"
#include "spectral/DenseBlockSource.h"
#include "spectral/SingularValueSolver.h"
#include "TestSuite.h"

#include <QFile>
#include <QFileInfo>
#include <hdf5.h>
#include <QTemporaryDir>
#include <cmath>
#include <numbers>

namespace tst_subspacemetrics {

using namespace rankscope;
using namespace rankscope::test;
using namespace rankscope::test::gpt2;

namespace {

// W = U·diag(σ)·Vᵀ with σ = 20, 19, …: well separated, so each vector is defined to float32's rounding.
struct KnownSvd {
    Eigen::MatrixXd u, v;
    Eigen::VectorXd sigma;
    Eigen::MatrixXd matrix() const
    {
        return u.leftCols(sigma.size()) * sigma.asDiagonal() * v.leftCols(sigma.size()).transpose();
    }
};

KnownSvd knownSvd(int rows, int cols, std::mt19937_64 &rng)
{
    const int n = std::min(rows, cols);
    return {randomOrthogonal(rows, rng), randomOrthogonal(cols, rng), Eigen::VectorXd::LinSpaced(n, 20.0, 20.0 - 0.5 * (n - 1))};
}

// Turns the top k right vectors by `angle` out of their span: vᵢ ← cos·vᵢ + sin·v_{k+i} (and
// v_{k+i} the other way), so ‖V_kᵀV′_k‖²_F / k = cos² and |v₁·v′₁| = |cos|.
void turnTopVectors(KnownSvd &svd, int k, double angle)
{
    for (int i = 0; i < k; ++i) {
        const Eigen::VectorXd a = svd.v.col(i), b = svd.v.col(k + i);
        svd.v.col(i) = std::cos(angle) * a + std::sin(angle) * b;
        svd.v.col(k + i) = -std::sin(angle) * a + std::cos(angle) * b;
    }
}

double exactOverlap(const Eigen::MatrixXd &a, const Eigen::MatrixXd &b, int k)
{
    return (a.leftCols(k).transpose() * b.leftCols(k)).squaredNorm() / k;
}

double degrees(double d) { return d * std::numbers::pi / 180; }

} // namespace

class TestSubspaceMetrics : public QObject {
    Q_OBJECT
private slots:
    void closedForm()
    {
        Eigen::MatrixXf a = Eigen::MatrixXf::Zero(5, 2), b = Eigen::MatrixXf::Zero(5, 2);
        a(0, 0) = a(1, 1) = 1;
        const double theta = degrees(30);
        b(0, 0) = float(std::cos(theta));
        b(2, 0) = float(std::sin(theta));
        b(1, 1) = -1; // a sign is no change
        SpectralMetrics m = computeSpectralMetrics(Eigen::Vector2d(2, 1), 5, 2);
        QVERIFY(std::isnan(m.subspaceOverlap) && std::isnan(m.topVectorCosine)); // not computed: NaN, never 0
        setSubspaceMetrics(m, a, b);
        QVERIFY(std::abs(m.subspaceOverlap - (std::pow(std::cos(theta), 2) + 1) / 2) < 1e-7);
        QVERIFY(std::abs(m.topVectorCosine - std::cos(theta)) < 1e-7);
        setSubspaceMetrics(m, a, a);
        QCOMPARE(m.subspaceOverlap, 1.0);
        QCOMPARE(m.topVectorCosine, 1.0);
        // Orthogonal subspaces; k the columns both have; nothing to compare.
        Eigen::MatrixXf c = Eigen::MatrixXf::Zero(5, 3);
        c(2, 0) = c(3, 1) = c(0, 2) = 1;
        setSubspaceMetrics(m, a, c);
        QCOMPARE(m.subspaceOverlap, 0.0);
        QCOMPARE(m.topVectorCosine, 0.0);
        setSubspaceMetrics(m, a, Eigen::MatrixXf::Zero(4, 2));
        QVERIFY(std::isnan(m.subspaceOverlap) && std::isnan(m.topVectorCosine));
        setSubspaceMetrics(m, a, Eigen::MatrixXf(5, 0));
        QVERIFY(std::isnan(m.subspaceOverlap));
    }

    // The solver's top vectors are W's right singular vectors (to sign), from WᵀW (tall), from WWᵀ
    // (wide: V = WᵀUΣ⁻¹, read again a block at a time or whole) and from the exact SVD; the
    // singular values are those of the values-only path.
    void solverGivesTheTopRightVectors_data()
    {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<int>("method");
        QTest::addColumn<bool>("smallBlocks");
        for (const auto &[rows, cols] : {std::pair{60, 24}, std::pair{24, 60}, std::pair{30, 30}})
            for (const int method : {0, 1})
                for (const bool small : {false, true}) {
                    if (method == 1 && small)
                        continue;
                    QTest::addRow("%dx%d %s%s", rows, cols, method ? "svd" : "gram", small ? " blocks" : "") << rows << cols << method << small;
                }
    }
    void solverGivesTheTopRightVectors()
    {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(int, method);
        QFETCH(bool, smallBlocks);
        std::mt19937_64 rng(rows * 100 + cols);
        const KnownSvd known = knownSvd(rows, cols, rng);
        const Eigen::MatrixXd w = known.matrix();
        const Eigen::MatrixXd columnMajorTransposed = w.transpose(); // DenseBlockSource's W is its argument transposed
        SingularValueSolver solver(method ? SvdMethod::ExactSvd : SvdMethod::FastGram);
        const Spectrum plain = solver.compute(columnMajorTransposed);
        solver.setTopVectors(5);
        if (smallBlocks)
            solver.setGramBlockBytes(8 * 7 * std::min(rows, cols)); // 7 lines a block: no whole-matrix shortcut
        // The source is freed when the solver says it has read it all (as the analysis frees a
        // checkpoint's tensor): touching it after that fails here, and under ASan.
        struct BlocksOnly : MatrixBlockSource { // only blocks, as a checkpoint's tensor gives them
            DenseBlockSource inner;
            bool blocksOnly;
            BlocksOnly(const Eigen::MatrixXd &m, bool blocks) : inner(m), blocksOnly(blocks) {}
            qint64 rows() const override { return inner.rows(); }
            qint64 cols() const override { return inner.cols(); }
            void widenBlock(qint64 r, qint64 rc, qint64 c, qint64 cc, double *dst) const override { inner.widenBlock(r, rc, c, cc, dst); }
            const double *rowMajorData() const override { return blocksOnly ? nullptr : inner.rowMajorData(); }
        };
        auto source = std::make_unique<BlocksOnly>(columnMajorTransposed, smallBlocks);
        bool readAll = false;
        const Spectrum s = solver.compute(*source, [&] {
            readAll = true;
            source.reset();
        });
        QVERIFY(s.ok());
        QVERIFY(readAll);
        QCOMPARE(s.singularValues.size(), plain.singularValues.size());
        QVERIFY((s.singularValues - plain.singularValues).cwiseAbs().maxCoeff() < 1e-12 * plain.singularValues[0]);
        QCOMPARE(s.topRightVectors.rows(), Eigen::Index(cols));
        QCOMPARE(s.topRightVectors.cols(), Eigen::Index(5));
        for (int i = 0; i < 5; ++i) {
            const double cosine = std::abs(s.topRightVectors.col(i).cast<double>().dot(known.v.col(i)));
            QVERIFY2(std::abs(cosine - 1) < 1e-6, qPrintable(QStringLiteral("v%1: |cos| %2").arg(i + 1).arg(cosine, 0, 'g', 10)));
        }
        // k is capped at min(rows, cols); without setTopVectors there are none.
        solver.setTopVectors(1000);
        QCOMPARE(solver.compute(columnMajorTransposed).topRightVectors.cols(), Eigen::Index(std::min(rows, cols)));
        QCOMPARE(plain.topRightVectors.size(), Eigen::Index(0));
    }

    // Steps 0, 100, 300: from step 0 to 100 the top 4 right vectors of each matrix turn by an angle
    // of its own, from 100 to 300 by half that again (in the same planes): the overlap is cos² of the
    // angle since the previous checkpoint (not since the first), and the top cosine its |cos|.
    void rotationOfKnownAngle()
    {
        QTemporaryDir dir;
        std::mt19937_64 rng(5);
        constexpr int k = 4;
        QHash<MatrixType, KnownSvd> svds;
        QHash<MatrixType, double> angles;
        Gpt2Layer w0, w100, w300;
        double angle = 10;
        for (const MatrixType type : kGpt2Types) {
            // As GPT-2's Conv1D stores them: c_fc [C, 4C] is wide (its vectors from WWᵀ), c_proj [4C, C] tall.
            const int rows = type == MatrixType::MlpDown ? 4 * H : H, cols = type == MatrixType::MlpUp ? 4 * H : H;
            KnownSvd svd = knownSvd(rows, cols, rng);
            angles[type] = degrees(angle);
            angle += 7;
            matrixOf(w0, type) = svd.matrix();
            turnTopVectors(svd, k, angles[type]);
            matrixOf(w100, type) = svd.matrix();
            turnTopVectors(svd, k, angles[type] / 2);
            matrixOf(w300, type) = svd.matrix();
        }
        writeRun(dir.path(), {{0, w0}, {100, w100}, {300, w300}});
        AnalysisSettings settings;
        settings.subspace = true;
        settings.subspaceK = k;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(dir.path());
        QVERIFY2(run.issues.isEmpty(), qPrintable(run.issueLines().join('\n')));
        QCOMPARE(run.results.size(), 18);
        for (const MatrixType type : kGpt2Types) {
            const MatrixResult *first = find(run, 0, type), *second = find(run, 100, type), *third = find(run, 300, type);
            QVERIFY(first && second && third);
            QVERIFY(std::isnan(first->metrics.subspaceOverlap) && std::isnan(first->metrics.topVectorCosine)); // nothing before it
            const QString where = QStringLiteral("%1: ").arg(csvName(type));
            const double a = angles[type];
            QVERIFY2(std::abs(second->metrics.subspaceOverlap - std::pow(std::cos(a), 2)) < 1e-5,
                     qPrintable(where + QString::number(second->metrics.subspaceOverlap, 'g', 10)));
            QVERIFY2(std::abs(second->metrics.topVectorCosine - std::cos(a)) < 1e-5, qPrintable(where));
            QVERIFY2(std::abs(third->metrics.subspaceOverlap - std::pow(std::cos(a / 2), 2)) < 1e-5,
                     qPrintable(where + QString::number(third->metrics.subspaceOverlap, 'g', 10)));
            QVERIFY2(std::abs(third->metrics.topVectorCosine - std::cos(a / 2)) < 1e-5, qPrintable(where));
        }
        // Only the newest checkpoint's vectors are held.
        for (const MatrixResult &r : run.results)
            QCOMPARE(r.topVectors.cols(), Eigen::Index(r.step == 300 ? k : 0));
    }

    // The demo run (nanoGPT, fused c_attn [3C, C]): every matrix's agreement with the checkpoint
    // before it, against Eigen's exact SVD of the raw tensors read from both.
    void demoRunAgainstTheExactSvd()
    {
        AnalysisSettings settings;
        settings.subspace = true;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(RANKSCOPE_DEMO_RUN);
        QCOMPARE(run.results.size(), 144);
        QList<qint64> steps;
        for (const CheckpointRecord &c : run.checkpoints)
            steps << c.step;
        QString error;
        double worstOverlap = 0, worstCosine = 0;
        int checked = 0;
        for (qsizetype i = 1; i < run.checkpoints.size(); ++i) {
            const auto now = openCheckpoint(run.checkpoints[i].path, &error), before = openCheckpoint(run.checkpoints[i - 1].path, &error);
            QVERIFY2(now && before, qPrintable(error));
            for (const MatrixResult &r : run.results) {
                if (r.step != steps[i])
                    continue;
                const QString tensor = r.tensor.section('[', 0, 0);
                const MatrixRead a = now->readMatrix(tensor), b = before->readMatrix(tensor);
                QVERIFY(a.ok() && b.ok());
                const int part = r.type == MatrixType::Q ? 0 : r.type == MatrixType::K ? 1 : r.type == MatrixType::V ? 2 : -1;
                auto asAnalysed = [&](const Eigen::MatrixXd &m) { return part < 0 ? m : Eigen::MatrixXd(m.middleRows(part * r.rows, r.rows)); };
                const Eigen::MatrixXd va = exactRightSingularVectors(asAnalysed(a.values), kDefaultSubspaceK);
                const Eigen::MatrixXd vb = exactRightSingularVectors(asAnalysed(b.values), kDefaultSubspaceK);
                worstOverlap = std::max(worstOverlap, std::abs(r.metrics.subspaceOverlap - exactOverlap(va, vb, kDefaultSubspaceK)));
                worstCosine = std::max(worstCosine, std::abs(r.metrics.topVectorCosine - std::abs(va.col(0).dot(vb.col(0)))));
                ++checked;
            }
        }
        QCOMPARE(checked, 120);
        qInfo("largest difference from the exact SVD: overlap %.3g, top cosine %.3g", worstOverlap, worstCosine);
        QVERIFY(worstOverlap < 1e-6);
        QVERIFY(worstCosine < 1e-6);
        for (const MatrixResult &r : run.results)
            QVERIFY(r.step == steps.first() ? std::isnan(r.metrics.subspaceOverlap) : r.metrics.subspaceOverlap >= 0 && r.metrics.subspaceOverlap <= 1 + 1e-6);
    }

    // The results file keeps the newest checkpoint's vectors (float32, compressed) and what each
    // checkpoint compared with: a checkpoint added later is the only one read, one put between two
    // others has its neighbours read again as needed, and both give what a fresh analysis gives.
    void newCheckpointsCostOnlyThemselves()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(21);
        QList<std::pair<int, Gpt2Layer>> layers;
        for (const int step : {0, 100, 200, 300, 400})
            layers.append({step, randomLayer(rng)});
        writeRun(dir.path(), {layers[0], layers[1], layers[3]});
        AnalysisSettings settings;
        settings.subspace = true;
        settings.subspaceK = 4;
        settings.resultsPath = out.filePath("run.h5");
        auto analyse = [&](const QString &folder, bool fromFile) {
            QString error;
            const std::optional<RunAnalysis> previous = fromFile ? ResultsFile::load(settings.resultsPath, &error) : std::nullopt;
            if (fromFile && !previous)
                qFatal("%s", qPrintable(error));
            return RunAnalyzer(settings).analyzeFolder(folder, {}, previous ? &*previous : nullptr);
        };
        auto readAgain = [](const RunAnalysis &run) {
            QList<qint64> steps;
            for (const CheckpointRecord &c : run.checkpoints)
                if (!c.fromCache)
                    steps << c.step;
            return steps;
        };
        auto sameAsFresh = [&](const RunAnalysis &run) {
            QTemporaryDir copy;
            for (const CheckpointRecord &c : run.checkpoints)
                QFile::copy(c.path, QDir(copy.path()).filePath(QFileInfo(c.path).fileName()));
            QFile::copy(QDir(dir.path()).filePath("config.json"), QDir(copy.path()).filePath("config.json"));
            AnalysisSettings fresh = settings;
            fresh.resultsPath.clear();
            const RunAnalysis expected = RunAnalyzer(fresh).analyzeFolder(copy.path());
            if (expected.results.size() != run.results.size())
                return false;
            for (qsizetype i = 0; i < run.results.size(); ++i) {
                const SpectralMetrics &a = run.results[i].metrics, &b = expected.results[i].metrics;
                const bool same = (std::isnan(a.subspaceOverlap) && std::isnan(b.subspaceOverlap)) ||
                                  (std::abs(a.subspaceOverlap - b.subspaceOverlap) < 1e-6 && std::abs(a.topVectorCosine - b.topVectorCosine) < 1e-6);
                if (!same) {
                    qWarning("step %lld %s: overlap %g, fresh %g", run.results[i].step, qPrintable(run.results[i].tensor), a.subspaceOverlap, b.subspaceOverlap);
                    return false;
                }
            }
            return true;
        };

        const RunAnalysis first = analyse(dir.path(), false);
        QCOMPARE(readAgain(first), (QList<qint64>{0, 100, 300}));
        QString error;
        std::optional<RunAnalysis> saved = ResultsFile::load(settings.resultsPath, &error);
        QVERIFY2(saved, qPrintable(error));
        int withVectors = 0;
        for (const MatrixResult &r : saved->results) {
            withVectors += r.topVectors.size() > 0;
            if (r.topVectors.size() > 0) {
                QCOMPARE(r.step, qint64(300));
                const MatrixResult *held = find(first, 300, r.type);
                QVERIFY(r.topVectors == held->topVectors);
            }
        }
        QCOMPARE(withVectors, 6);

        // Unchanged: nothing is read.
        QCOMPARE(readAgain(analyse(dir.path(), true)), QList<qint64>{});
        // A newer checkpoint: only it.
        writeCheckpoint(QDir(dir.path()).filePath("step_000400.safetensors"), layers[4].second);
        const RunAnalysis added = analyse(dir.path(), true);
        QCOMPARE(readAgain(added), QList<qint64>{400});
        QVERIFY(std::isfinite(find(added, 400, MatrixType::K)->metrics.subspaceOverlap));
        QVERIFY(sameAsFresh(added));
        // One between 100 and 300: it, and 100 for its vectors (300 compares with it, and is read
        // again for its own, which are not kept).
        writeCheckpoint(QDir(dir.path()).filePath("step_000200.safetensors"), layers[2].second);
        const RunAnalysis inserted = analyse(dir.path(), true);
        QCOMPARE(readAgain(inserted), (QList<qint64>{100, 200, 300}));
        QVERIFY(sameAsFresh(inserted));
        // Taken away again: 300 compares with 100 once more.
        QFile::remove(QDir(dir.path()).filePath("step_000200.safetensors"));
        const RunAnalysis removed = analyse(dir.path(), true);
        QCOMPARE(readAgain(removed), (QList<qint64>{100, 300}));
        QVERIFY(sameAsFresh(removed));
        QCOMPARE(readAgain(analyse(dir.path(), true)), QList<qint64>{});
    }

    // The k is kept with the subspace metrics: another --subspace-k computes them again, to what a
    // fresh analysis at that k gives (not the old k's values under the new label), also when a
    // run without --subspace came between (its key has no k, its checkpoints keep theirs).
    void anotherKIsComputedAgain()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(31);
        writeRun(dir.path(), {{0, randomLayer(rng)}, {100, randomLayer(rng)}, {200, randomLayer(rng)}});
        AnalysisSettings settings;
        settings.subspace = true;
        settings.resultsPath = out.filePath("run.h5");
        auto analyse = [&](int k, bool fromFile) {
            AnalysisSettings at = settings;
            at.subspace = k > 0;
            at.subspaceK = k > 0 ? k : kDefaultSubspaceK;
            if (!fromFile)
                at.resultsPath.clear();
            QString error;
            const bool load = fromFile && QFileInfo::exists(settings.resultsPath);
            const std::optional<RunAnalysis> previous = load ? ResultsFile::load(settings.resultsPath, &error) : std::nullopt;
            if (load && !previous)
                qFatal("%s", qPrintable(error));
            return RunAnalyzer(at).analyzeFolder(dir.path(), {}, previous ? &*previous : nullptr);
        };
        auto overlaps = [](const RunAnalysis &run) {
            QList<double> values;
            for (const MatrixResult &r : run.results)
                if (r.step > 0)
                    values << r.metrics.subspaceOverlap << r.metrics.topVectorCosine;
            return values;
        };
        auto same = [](const QList<double> &a, const QList<double> &b) {
            if (a.size() != b.size())
                return false;
            for (qsizetype i = 0; i < a.size(); ++i)
                if (!(std::abs(a[i] - b[i]) < 1e-6))
                    return false;
            return true;
        };
        const QList<double> fresh2 = overlaps(analyse(2, false)), fresh6 = overlaps(analyse(6, false));
        QCOMPARE(fresh2.size(), 24);
        QVERIFY(!same(fresh2, fresh6)); // the two k tell apart

        QVERIFY(same(overlaps(analyse(2, true)), fresh2)); // no file yet: analysed whole
        const RunAnalysis at6 = analyse(6, true);
        QVERIFY2(same(overlaps(at6), fresh6), "k = 6 kept the values of k = 2");
        QString error;
        const std::optional<RunAnalysis> saved = ResultsFile::load(settings.resultsPath, &error);
        QVERIFY2(saved, qPrintable(error));
        for (const CheckpointRecord &c : saved->checkpoints)
            QCOMPARE(c.subspaceK, 6);
        for (const MatrixResult &r : saved->results)
            QVERIFY(r.topVectors.size() == 0 || r.topVectors.cols() == 6);
        // A run without --subspace serves whole and keeps k = 6 with its values; back at k = 2,
        // they are computed again.
        const RunAnalysis plain = analyse(0, true);
        QVERIFY(std::all_of(plain.checkpoints.begin(), plain.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache && c.subspaceK == 6; }));
        QVERIFY(same(overlaps(analyse(2, true)), fresh2));
        const RunAnalysis again = analyse(2, true); // and then served as they are
        QVERIFY(std::all_of(again.checkpoints.begin(), again.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }));
        QVERIFY(same(overlaps(again), fresh2));
    }

    // Vector counts beyond what /top_vectors holds make the file damaged, never an allocation.
    void inconsistentVectorsAreRefused()
    {
        QTemporaryDir dir, out;
        std::mt19937_64 rng(3);
        writeRun(dir.path(), {{0, randomLayer(rng)}, {100, randomLayer(rng)}});
        AnalysisSettings settings;
        settings.subspace = true;
        settings.resultsPath = out.filePath("run.h5");
        RunAnalyzer(settings).analyzeFolder(dir.path());
        QString error;
        QVERIFY2(ResultsFile::load(settings.resultsPath, &error), qPrintable(error));
        for (const long long count : {16LL << 40, 17LL}) { // far beyond the file; one more than min(rows, cols)
            {
                const hid_t file = H5Fopen(settings.resultsPath.toUtf8().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
                const hid_t data = H5Dopen2(file, "matrices/top_vectors_count", H5P_DEFAULT);
                QVERIFY(file >= 0 && data >= 0);
                std::vector<long long> counts(12, count);
                QVERIFY(H5Dwrite(data, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts.data()) >= 0);
                H5Dclose(data);
                H5Fclose(file);
                test::clearResultsSeal(settings.resultsPath);
            }
            QVERIFY(!ResultsFile::load(settings.resultsPath, &error));
            QVERIFY2(error.contains("singular vectors are inconsistent"), qPrintable(error));
        }
        // 2³¹ vectors of 2³³ entries: k × cols wraps a 64-bit count to 0, which must not pass.
        {
            const hid_t file = H5Fopen(settings.resultsPath.toUtf8().constData(), H5F_ACC_RDWR, H5P_DEFAULT);
            QVERIFY(file >= 0);
            for (const auto &[name, value] : {std::pair{"matrices/rows", 1LL << 33}, std::pair{"matrices/cols", 1LL << 33},
                                              std::pair{"matrices/top_vectors_count", 1LL << 31}, std::pair{"matrices/top_vectors_offset", 0LL}}) {
                const hid_t data = H5Dopen2(file, name, H5P_DEFAULT);
                const std::vector<long long> values(12, value);
                QVERIFY(data >= 0 && H5Dwrite(data, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
                H5Dclose(data);
            }
            H5Fclose(file);
            test::clearResultsSeal(settings.resultsPath);
        }
        // Refused before the vectors are looked at: no side of a matrix reaches 2³¹.
        QVERIFY(!ResultsFile::load(settings.resultsPath, &error));
        QVERIFY2(error.contains("damaged") && error.contains("do not bear out"), qPrintable(error));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestSubspaceMetrics)
} // namespace tst_subspacemetrics

#include "tst_SubspaceMetrics.moc"
