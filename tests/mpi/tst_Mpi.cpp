// `mpirun -n N rankscope analyze`, run as a user would on one machine (oversubscribed): the same
// results file and CSV as one process, whatever the number of ranks, and a job whose rank is
// killed leaves a results file the next job, on another number of ranks, goes on from.
#include "analysis/results/ResultsFile.h"
#include "spectral/MetricCatalog.h"
#include "TestSuite.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>
#include <csignal>
#include <cmath>

namespace tst_mpi {

using namespace rankscope;

namespace {

struct Run {
    int exitCode;
    QString err;
};

QProcessEnvironment environment(const QString &cacheHome)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CACHE_HOME"), cacheHome);
    return env;
}

// ranks 0: one process, without mpirun.
QStringList command(int ranks, const QStringList &arguments)
{
    QStringList line;
    if (ranks > 0)
        line << QStringLiteral(RANKSCOPE_MPIEXEC) << QStringLiteral("--allow-run-as-root") << QStringLiteral("--oversubscribe")
             << QStringLiteral("-n") << QString::number(ranks);
    return line << QStringLiteral(RANKSCOPE_BINARY) << QStringLiteral("analyze") << arguments;
}

Run analyze(int ranks, const QStringList &arguments, const QString &cacheHome)
{
    const QStringList line = command(ranks, arguments);
    QProcess process;
    process.setProcessEnvironment(environment(cacheHome));
    process.start(line.first(), line.mid(1));
    if (!process.waitForFinished(300000))
        qWarning("timed out: %s", qPrintable(line.join(QLatin1Char(' '))));
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardError())};
}

RunAnalysis load(const QString &path)
{
    QString error;
    const std::optional<RunAnalysis> run = ResultsFile::load(path, &error);
    if (!run)
        qFatal("%s: %s", qPrintable(path), qPrintable(error));
    return *run;
}

QByteArray contents(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

// The same matrices with the same spectra and metrics, to rounding: a matrix's Gram product is
// summed in another order when it gets more BLAS threads (a matrix left alone gets the idle cores),
// in one process as on several ranks, so the last bits are not fixed. 1e-12 is a thousand times
// the differences seen and far below the contract's tolerances.
bool close(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || std::abs(a - b) <= 1e-12 * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

bool sameResults(const RunAnalysis &a, const RunAnalysis &b)
{
    if (a.results.size() != b.results.size() || a.checkpoints.size() != b.checkpoints.size()) {
        qWarning("%lld vs %lld matrices, %lld vs %lld checkpoints", qlonglong(a.results.size()), qlonglong(b.results.size()),
                 qlonglong(a.checkpoints.size()), qlonglong(b.checkpoints.size()));
        return false;
    }
    for (qsizetype i = 0; i < a.checkpoints.size(); ++i) {
        const CheckpointRecord &x = a.checkpoints[i], &y = b.checkpoints[i];
        if (x.path != y.path || x.step != y.step || x.matrices != y.matrices || x.error != y.error || x.fingerprint != y.fingerprint) {
            qWarning("checkpoint %lld differs: %s", qlonglong(i), qPrintable(x.path));
            return false;
        }
    }
    for (qsizetype i = 0; i < a.results.size(); ++i) {
        const MatrixResult &x = a.results[i], &y = b.results[i];
        bool same = x.step == y.step && x.identity() == y.identity() && x.tensor == y.tensor && x.rows == y.rows && x.cols == y.cols &&
                    x.singularValues.size() == y.singularValues.size();
        // σ² are the Gram matrix's eigenvalues, each known to about n·ε·σ₀² whatever its size, so
        // they are compared there: a square matrix's smallest σ moves by ε·σ₀²/σ, far more than ε·σ₀.
        for (Eigen::Index k = 0; same && k < x.singularValues.size(); ++k)
            if (std::abs(x.singularValues[k] * x.singularValues[k] - y.singularValues[k] * y.singularValues[k]) >
                1e-12 * x.singularValues[0] * x.singularValues[0]) {
                qWarning("%s: singular value %lld %.17g vs %.17g (largest %.17g)", qPrintable(x.tensor), qlonglong(k), x.singularValues[k],
                         y.singularValues[k], x.singularValues[0]);
                same = false;
            }
        const QList<double> u = spectralMetricValues(x.metrics), v = spectralMetricValues(y.metrics);
        for (qsizetype k = 0; same && k < u.size(); ++k)
            if (!close(u[k], v[k])) {
                qWarning("%s: %s %.17g vs %.17g", qPrintable(x.tensor), qPrintable(spectralMetricColumns()[k]), u[k], v[k]);
                same = false;
            }
        if (!same) {
            qWarning("matrix %lld differs: step %lld %s", qlonglong(i), qlonglong(x.step), qPrintable(x.tensor));
            return false;
        }
    }
    return true;
}

// The lines that name files (issues), in order: what the user is told must not depend on ranks.
QStringList issueLines(const QString &err)
{
    QStringList lines;
    for (const QString &line : err.split(QLatin1Char('\n')))
        if (line.contains(QLatin1String(".pt:")))
            lines << line;
    return lines;
}

// make_synthetic_run (bench/): a nanoGPT run of float32 torch checkpoints.
void makeSyntheticRun(const QString &folder, int checkpoints, int layers, int d)
{
    QProcess make;
    make.start(QStringLiteral(RANKSCOPE_MAKE_SYNTHETIC_RUN), {folder, QString::number(checkpoints), QString::number(layers), QString::number(d)});
    QVERIFY(make.waitForFinished(120000));
    QCOMPARE(make.exitCode(), 0);
}

} // namespace

class TestMpi : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_cache;

private slots:
    void versionNamesTheMpiLibrary()
    {
        QProcess process;
        process.start(QStringLiteral(RANKSCOPE_BINARY), {QStringLiteral("--version")});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY2(QString::fromUtf8(process.readAllStandardOutput()).contains(QLatin1String("MPI: Open MPI v")), "rankscope --version must name the MPI library");
    }

    void demoRunOnThreeRanksIsTheSameAsOneProcess()
    {
        QTemporaryDir out;
        const QString demo = QStringLiteral(RANKSCOPE_DEMO_RUN);
        const Run one = analyze(0, {demo, QStringLiteral("--no-cache"), QStringLiteral("--results"), out.filePath("one.h5"), QStringLiteral("--csv"), out.filePath("one.csv")}, m_cache.path());
        QCOMPARE(one.exitCode, 0);
        const Run three = analyze(3, {demo, QStringLiteral("--no-cache"), QStringLiteral("--results"), out.filePath("three.h5"), QStringLiteral("--csv"), out.filePath("three.csv")}, m_cache.path());
        QVERIFY2(three.exitCode == 0, qPrintable(three.err));
        QVERIFY2(three.err.contains(u"in 3 ranks × "_qs), qPrintable(three.err));
        // Rank 0 alone reports: one summary, not three.
        QCOMPARE(three.err.count(QLatin1String("checkpoints analysed")), 1);
        QVERIFY(sameResults(load(out.filePath("one.h5")), load(out.filePath("three.h5"))));
        QCOMPARE(contents(out.filePath("three.csv")), contents(out.filePath("one.csv")));
        QCOMPARE(load(out.filePath("three.h5")).results.size(), 144);
        // A results file made on a cluster is drawn without the checkpoints, as the window opens it.
        QProcess draw;
        draw.setProcessEnvironment(environment(m_cache.path()));
        draw.start(QStringLiteral(RANKSCOPE_BINARY), {QStringLiteral("export"), out.filePath("three.h5"), QStringLiteral("--figure"), QStringLiteral("heatmaps"),
                                                      QStringLiteral("--out"), out.filePath("heatmaps.png")});
        QVERIFY(draw.waitForFinished(60000));
        QVERIFY2(draw.exitCode() == 0, draw.readAllStandardError().constData());
        QVERIFY(QFileInfo(out.filePath("heatmaps.png")).size() > 1000);
    }

    void moreRanksThanWorkItems()
    {
        QTemporaryDir out;
        const QString run = out.filePath("tiny");
        makeSyntheticRun(run, 1, 1, 64); // 4 reads: c_attn (Q, K, V), attn c_proj, c_fc, mlp c_proj
        const Run one = analyze(0, {run, QStringLiteral("--no-cache"), QStringLiteral("--results"), out.filePath("one.h5")}, m_cache.path());
        QCOMPARE(one.exitCode, 0);
        const Run six = analyze(6, {run, QStringLiteral("--no-cache"), QStringLiteral("--results"), out.filePath("six.h5")}, m_cache.path());
        QVERIFY2(six.exitCode == 0, qPrintable(six.err));
        const RunAnalysis a = load(out.filePath("one.h5")), b = load(out.filePath("six.h5"));
        QCOMPARE(a.results.size(), 6);
        QVERIFY(sameResults(a, b));
    }

    void aFailingCheckpointIsReportedAsInOneProcess()
    {
        QTemporaryDir out;
        const QString run = out.filePath("run");
        QDir().mkpath(run);
        const QDir demo(QStringLiteral(RANKSCOPE_DEMO_RUN));
        for (const QString &name : demo.entryList(QDir::Files))
            QVERIFY(QFile::copy(demo.filePath(name), QDir(run).filePath(name)));
        // A checkpoint cut off mid-write, among good ones.
        QByteArray cut = contents(demo.filePath("ckpt_001500.pt"));
        cut.truncate(cut.size() / 2);
        QFile truncated(QDir(run).filePath("ckpt_002000.pt"));
        QVERIFY(truncated.open(QIODevice::WriteOnly));
        truncated.write(cut);
        truncated.close();

        const Run one = analyze(0, {run, QStringLiteral("--no-cache"), QStringLiteral("--results"), out.filePath("one.h5")}, m_cache.path());
        const Run three = analyze(3, {run, QStringLiteral("--no-cache"), QStringLiteral("--results"), out.filePath("three.h5")}, m_cache.path());
        QCOMPARE(one.exitCode, 2);
        QCOMPARE(three.exitCode, 2);
        QVERIFY2(!issueLines(one.err).isEmpty() && issueLines(one.err).first().contains(QLatin1String("ckpt_002000.pt")), qPrintable(one.err));
        QCOMPARE(issueLines(three.err), issueLines(one.err));
        QVERIFY(sameResults(load(out.filePath("one.h5")), load(out.filePath("three.h5"))));
    }

    // SIGKILL to one rank mid-job: the job fails with mpirun's message, the results file is whole and
    // holds the checkpoints saved so far, and a job on another number of ranks analyses only the rest.
    void resumesAfterARankIsKilled()
    {
        QTemporaryDir out;
        const QString run = out.filePath("run");
        makeSyntheticRun(run, 12, 6, 256);
        const QString results = out.filePath("results.h5");

        const QStringList line = command(3, {run, QStringLiteral("--no-cache"), QStringLiteral("--results"), results, QStringLiteral("--autosave"), QStringLiteral("0")});
        QProcess job;
        job.setProcessEnvironment(environment(m_cache.path()));
        job.start(line.first(), line.mid(1));
        QVERIFY(job.waitForStarted());
        // The first save comes after the first checkpoint; then rank 1 dies.
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(results) || job.state() == QProcess::NotRunning, 120000);
        QVERIFY2(job.state() == QProcess::Running, "the job ended before it could be killed");
        qint64 killed = 0;
        for (const QString &pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
            if (pid.toLongLong() > 0 && environ.open(QIODevice::ReadOnly) && environ.readAll().split('\0').contains("OMPI_COMM_WORLD_RANK=1") &&
                QFile::symLinkTarget(QStringLiteral("/proc/%1/exe").arg(pid)) == QFileInfo(QStringLiteral(RANKSCOPE_BINARY)).canonicalFilePath()) {
                killed = pid.toLongLong();
                break;
            }
        }
        QVERIFY2(killed > 0, "rank 1 not found");
        ::kill(pid_t(killed), SIGKILL);
        QVERIFY(job.waitForFinished(60000));
        QVERIFY2(job.exitCode() != 0, "a job that lost a rank must fail");
        QVERIFY(QString::fromUtf8(job.readAllStandardError()).contains(QLatin1String("rank 1")));

        const RunAnalysis partial = load(results); // whole, not damaged
        QVERIFY(partial.checkpoints.size() >= 1);
        QVERIFY2(partial.checkpoints.size() < 12, "the job was not killed mid-run");

        const Run resumed = analyze(2, {run, QStringLiteral("--results"), results}, m_cache.path());
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const QRegularExpressionMatch fromFile = QRegularExpression(QStringLiteral("\\((\\d+) from the results file\\)")).match(resumed.err);
        QVERIFY2(fromFile.hasMatch() && fromFile.captured(1).toInt() == partial.checkpoints.size(), qPrintable(resumed.err));

        const Run one = analyze(0, {run, QStringLiteral("--no-cache"), QStringLiteral("--results"), out.filePath("one.h5")}, m_cache.path());
        QCOMPARE(one.exitCode, 0);
        QVERIFY(sameResults(load(out.filePath("one.h5")), load(results)));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMpi)
} // namespace tst_mpi

#include "tst_Mpi.moc"
