// End-to-end: the rankscope executable run as a user would, headless, with no display.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QElapsedTimer>
#include "analysis/ResultsFile.h"
#include "spectral/BlasKernelChoice.h"
#include "spectral/CpuFeatures.h"
#include <QRegularExpression>
#include "core/FormatWriters.h"
#include <random>
#include <csignal>
#include <sys/types.h>

namespace {

struct Run {
    int exitCode;
    QString out;
    QString err;
};

// Every run caches into this folder, not the user's cache.
QTemporaryDir &cacheHome()
{
    static QTemporaryDir dir;
    return dir;
}

// Environment variables to set (a value) or remove (an empty value) for one run.
using EnvironmentChanges = QList<QPair<QString, QString>>;

Run runRankscope(const QStringList &arguments, const EnvironmentChanges &changes = {})
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto &[name, value] : changes) {
        if (value.isEmpty())
            env.remove(name);
        else
            env.insert(name, value);
    }
    env.insert("XDG_CACHE_HOME", cacheHome().path());
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(RANKSCOPE_BINARY), arguments);
    process.waitForFinished(120000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

} // namespace

using namespace rankscope;

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void helpAndVersionNeedNoDisplay()
    {
        Run r = runRankscope({"--version"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith("rankscope "));
        r = runRankscope({"--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("analyze"));
        QVERIFY(r.out.contains("info"));
        r = runRankscope({"analyze", "--help"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("--energy"));
    }

    // --version names the BLAS and its kernels, and who chose them: OpenBLAS's own detection, the
    // user's OPENBLAS_CORETYPE (which always wins), or RankScope when OpenBLAS detected a core whose
    // kernels lack the CPU's vector instructions (shown with the test hook that makes RankScope see
    // "Prescott", as the issue's Emerald Rapids VM reports).
    void versionNamesTheBlasKernel()
    {
        const CpuFeatures cpu = CpuFeatures::detect();
        Run r = runRankscope({"--version"}, {{"OPENBLAS_CORETYPE", ""}, {kPretendBlasCoreHook, ""}, {kBlasChoiceMarker, ""}});
        QCOMPARE(r.exitCode, 0);
        static const QRegularExpression blasLine(QStringLiteral("^BLAS: OpenBLAS [0-9.]+, (\\w+) kernels \\((.*)\\)$"), QRegularExpression::MultilineOption);
        QRegularExpressionMatch line = blasLine.match(r.out);
        QVERIFY2(line.hasMatch(), qPrintable(r.out));
        // Unset: whatever OpenBLAS detected, or RankScope's choice; never generic kernels on an AVX2 CPU.
        if (cpu.avx2 && cpu.fma)
            QVERIFY2(line.captured(1) != "Prescott", qPrintable(r.out));
        QVERIFY(line.captured(2) == "detected by OpenBLAS" || line.captured(2).startsWith("chosen by RankScope"));

        r = runRankscope({"--version"}, {{"OPENBLAS_CORETYPE", "Prescott"}, {kPretendBlasCoreHook, ""}, {kBlasChoiceMarker, ""}});
        line = blasLine.match(r.out);
        QVERIFY2(line.hasMatch(), qPrintable(r.out));
        QCOMPARE(line.captured(1), QStringLiteral("Prescott"));
        QCOMPARE(line.captured(2), QStringLiteral("set by OPENBLAS_CORETYPE"));

        // The user's variable wins over RankScope's choice too.
        r = runRankscope({"--version"}, {{"OPENBLAS_CORETYPE", "Prescott"}, {kPretendBlasCoreHook, "Prescott"}, {kBlasChoiceMarker, ""}});
        QCOMPARE(blasLine.match(r.out).captured(1), QStringLiteral("Prescott"));

        if (!cpu.avx)
            QSKIP("this CPU has no AVX: generic kernels are the right ones");
        const QString expected = QString::fromStdString(chooseOpenBlasCoreType(cpu, "Prescott"));
        r = runRankscope({"--version"}, {{"OPENBLAS_CORETYPE", ""}, {kPretendBlasCoreHook, "Prescott"}, {kBlasChoiceMarker, ""}});
        QCOMPARE(r.exitCode, 0);
        line = blasLine.match(r.out);
        QVERIFY2(line.hasMatch(), qPrintable(r.out));
        QCOMPARE(line.captured(1), expected);
        QVERIFY(line.captured(2).startsWith("chosen by RankScope"));
    }

    // Re-executed with the kernel chosen, a subcommand keeps its arguments and its results.
    void reexecutionKeepsTheArguments()
    {
        if (!CpuFeatures::detect().avx)
            QSKIP("this CPU has no AVX: RankScope never re-executes");
        const Run plain = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--csv", "-", "--quiet", "--no-cache"});
        const Run chosen = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--csv", "-", "--quiet", "--no-cache"},
                                        {{"OPENBLAS_CORETYPE", ""}, {kPretendBlasCoreHook, "Prescott"}, {kBlasChoiceMarker, ""}});
        QCOMPARE(chosen.exitCode, 0);
        QCOMPARE(chosen.out.split('\n').size(), 146);
        QCOMPARE(chosen.out.section('\n', 0, 1), plain.out.section('\n', 0, 1));
    }

    void analyzeWritesTheContractCsv()
    {
        const Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--csv", "-", "--quiet"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 145);
        QVERIFY(lines[0].startsWith("step,layer,type,tensor,rows,cols,stable_rank,compression_pct,alpha,weighted_alpha,"
                                    "effective_rank,spectral_norm,frobenius_norm,block,expert,"));
        QVERIFY(lines[1].startsWith("0,0,Q,transformer.h.0.attn.c_attn.weight[Q],64,64,16.514229"));
        QVERIFY(lines[144].startsWith("1500,3,MLP_DOWN,transformer.h.3.mlp.c_proj.weight,64,256,"));
        QVERIFY(r.err.isEmpty());
    }

    void analyzeJsonAndEnergy()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("m.json");
        const Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--json", json, "--energy", "0.5", "--jobs", "1", "--quiet"});
        QCOMPARE(r.exitCode, 0);
        QFile f(json);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("\"compression_pct\""));
        QCOMPARE(text.count("\"tensor\""), 144);
        QCOMPARE(text.count("\"block\": \"\""), 144);
        QCOMPARE(text.count("\"expert\": \"\""), 144);
    }

    void exitStatusSaysWhatWasSkipped()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), dir.filePath("ckpt_000000.pt")));
        QFile bad(dir.filePath("ckpt_000100.pt"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("not a checkpoint at all");
        bad.close();
        Run r = runRankscope({"analyze", dir.path(), "--csv", dir.filePath("out.csv")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("ckpt_000100.pt: not a recognised checkpoint format"), qPrintable(r.err));
        QVERIFY2(r.err.contains("1 of 2 checkpoints analysed (0 from the results file), 24 matrices"), qPrintable(r.err));

        QTemporaryDir empty;
        r = runRankscope({"analyze", empty.path()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.err.contains("no checkpoints found"));
        QCOMPARE(runRankscope({"analyze"}).exitCode, 1);
        QCOMPARE(runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--energy", "2"}).exitCode, 1);
        QCOMPARE(runRankscope({"frobnicate"}).exitCode, 1);
    }

    void secondRunComesFromTheCacheAndDamageIsRebuilt()
    {
        QTemporaryDir dir;
        for (const char *name : {"ckpt_000000.pt", "ckpt_001500.pt"})
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), dir.filePath(name)));
        Run first = runRankscope({"analyze", dir.path(), "--csv", dir.filePath("a.csv")});
        QCOMPARE(first.exitCode, 0);
        QVERIFY2(first.err.contains("(0 from the results file)"), qPrintable(first.err));
        const QString cachePath = first.err.section("results in ", 1).trimmed();
        QVERIFY2(cachePath.startsWith(cacheHome().path()), qPrintable(cachePath));
        QVERIFY(QFile::exists(cachePath));

        const Run second = runRankscope({"analyze", dir.path(), "--csv", dir.filePath("b.csv")});
        QVERIFY2(second.err.contains("(2 from the results file)"), qPrintable(second.err));
        QFile a(dir.filePath("a.csv")), b(dir.filePath("b.csv"));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll());

        QFile cache(cachePath);
        QVERIFY(cache.open(QIODevice::WriteOnly | QIODevice::Truncate));
        cache.write("not hdf5");
        cache.close();
        const Run third = runRankscope({"analyze", dir.path(), "--quiet"});
        QCOMPARE(third.exitCode, 0);
        QVERIFY2(third.err.contains("damaged results file") && third.err.contains("rebuilt"), qPrintable(third.err));
        QVERIFY(runRankscope({"analyze", dir.path()}).err.contains("(2 from the results file)"));

        QVERIFY(runRankscope({"analyze", dir.path(), "--no-cache"}).err.contains("(0 from the results file)"));
        const QString explicitResults = dir.filePath("mine.h5");
        QCOMPARE(runRankscope({"analyze", dir.path(), "--results", explicitResults, "--quiet"}).exitCode, 0);
        QVERIFY(QFile::exists(explicitResults));
        // The results file lies in the run folder now: it is not mistaken for a checkpoint.
        const Run fourth = runRankscope({"analyze", dir.path(), "--results", explicitResults});
        QVERIFY2(fourth.err.contains("2 of 2 checkpoints analysed (2 from the results file)"), qPrintable(fourth.err));
    }

    // Headless: DISPLAY and QT_QPA_PLATFORM are unset by runRankscope() for every run.
    void exportRendersEveryFigureWithoutADisplay()
    {
        QTemporaryDir dir;
        Run r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "lines", "--out", dir.filePath("lines.png"),
                           "--width", "900", "--height", "500", "--scale", "2"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QImage(dir.filePath("lines.png")).size(), QSize(1800, 1000));
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "bars", "--step", "300", "--types", "Q,K,MLP_UP",
                       "--metric", "stable_rank", "--title", "My bars", "--out", dir.filePath("bars.svg")});
        QCOMPARE(r.exitCode, 0);
        QFile svg(dir.filePath("bars.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(svg.readAll());
        QVERIFY(text.contains(">My bars<"));
        QVERIFY(text.contains(">Layer<"));
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "heatmaps", "--layers", "1-2", "--out", dir.filePath("h.pdf")});
        QCOMPARE(r.exitCode, 0);
        QFile pdf(dir.filePath("h.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QCOMPARE(pdf.read(4), QByteArray("%PDF"));
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrum", "--layer", "1", "--type", "MLP_DOWN", "--out", dir.filePath("s.png")});
        QCOMPARE(r.exitCode, 0);

        // From a results file made by analyze, without the checkpoints.
        QCOMPARE(runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--results", dir.filePath("run.h5"), "--quiet"}).exitCode, 0);
        QCOMPARE(runRankscope({"export", dir.filePath("run.h5"), "--figure", "lines", "--out", dir.filePath("fromfile.svg")}).exitCode, 0);
        QVERIFY(QFileInfo(dir.filePath("fromfile.svg")).size() > 1000);

        // Several sources: one comparison figure.
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, dir.filePath("run.h5"), "--figure", "bars", "--relative-depth",
                          "--out", dir.filePath("compare.svg")});
        QCOMPARE(r.exitCode, 0);
        QFile compare(dir.filePath("compare.svg"));
        QVERIFY(compare.open(QIODevice::ReadOnly));
        const QString compareText = QString::fromUtf8(compare.readAll());
        QCOMPARE(compareText.count("Compression % by layer at step 1500"), 2); // a panel per run
        QVERIFY(compareText.contains(">0.33<"));

        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "pie", "--out", dir.filePath("x.png")}).exitCode, 1);
        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "bars", "--out", dir.filePath("x.gif")}).exitCode, 1);
        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "bars", "--step", "777", "--out", dir.filePath("x.png")}).exitCode, 1);
        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrum", "--out", dir.filePath("x.png")}).exitCode, 1);
    }

    // Checkpoints copied in one by one while watched each appear once; one written in two halves
    // with a pause is analysed only when complete; Ctrl+C leaves a complete results file.
    void watchFollowsATrainingRun()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath("run");
        QDir().mkpath(folder);
        const QString results = dir.filePath("run.h5"), csvPath = dir.filePath("live.csv");
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_CACHE_HOME", cacheHome().path());
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(RANKSCOPE_BINARY), {"analyze", folder, "--watch", "--settle", "0.5", "--results", results,
                                                         "--csv", csvPath, "--quiet"});
        QVERIFY(process.waitForStarted());
        auto stepsInCsv = [&] {
            QFile f(csvPath);
            QMap<QString, int> rowsPerStep;
            if (f.open(QIODevice::ReadOnly)) {
                f.readLine();
                while (!f.atEnd())
                    ++rowsPerStep[QString::fromUtf8(f.readLine()).section(',', 0, 0)];
            }
            return rowsPerStep;
        };
        const QDir demo(RANKSCOPE_DEMO_RUN);
        QTest::qWait(500);
        for (const char *name : {"ckpt_000000.pt", "ckpt_000100.pt"}) {
            QVERIFY(QFile::copy(demo.filePath(name), QDir(folder).filePath(name)));
            const QString step = QString::number(QString::fromLatin1(name).mid(5, 6).toInt());
            QTRY_VERIFY_WITH_TIMEOUT(stepsInCsv().value(step) == 24, 20000);
        }
        // Half a checkpoint, a pause longer than the settle time, then the rest.
        QFile source(demo.filePath("ckpt_000300.pt"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray bytes = source.readAll();
        QFile target(QDir(folder).filePath("ckpt_000300.pt"));
        QVERIFY(target.open(QIODevice::WriteOnly));
        target.write(bytes.left(bytes.size() / 2));
        target.flush();
        QTest::qWait(2000);
        QVERIFY(!stepsInCsv().contains("300")); // never analysed half-written
        target.write(bytes.mid(bytes.size() / 2));
        target.close();
        QTRY_VERIFY_WITH_TIMEOUT(stepsInCsv().value("300") == 24, 20000);
        QCOMPARE(stepsInCsv(), (QMap<QString, int>{{"0", 24}, {"100", 24}, {"300", 24}}));

        QVERIFY(process.state() == QProcess::Running && process.processId() > 0);
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
        const QByteArray errors = process.readAllStandardError();
        QVERIFY2(errors.isEmpty(), errors.constData()); // the half-written file was never reported as broken
        const Run check = runRankscope({"analyze", results, "--csv", "-", "--quiet"});
        QCOMPARE(check.exitCode, 0);
        QCOMPARE(check.out.split('\n', Qt::SkipEmptyParts).size(), 73);
    }

    // SIGKILL at random moments never leaves a results file that fails to open or holds a
    // checkpoint as analysed without its matrices.
    void killedAnalysisLosesNothing()
    {
        QTemporaryDir dir;
        const QDir demo(RANKSCOPE_DEMO_RUN);
        for (int i = 0; i < 12; ++i)
            QVERIFY(QFile::copy(demo.filePath(i % 2 ? "ckpt_001500.pt" : "ckpt_000600.pt"),
                                dir.filePath(QStringLiteral("ckpt_%1.pt").arg(i * 100, 6, 10, QLatin1Char('0')))));
        const QString results = dir.filePath("results/run.h5");
        // One uninterrupted run first: how long a run takes here (sanitizer builds are slower),
        // so the kills below land anywhere in a run, saves included.
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(runRankscope({"analyze", dir.path(), "--results", results, "--quiet", "--no-cache"}).exitCode, 0);
        const int runMs = std::max<int>(50, int(clock.elapsed()));
        const QString baseline = dir.filePath("baseline.h5");
        QVERIFY(QFile::copy(results, baseline));
        std::mt19937 rng(20261129);
        int loads = 0;
        for (int round = 0; round < 25; ++round) {
            const bool fromScratch = round % 5 == 4; // sometimes from scratch, mostly over an earlier file
            if (fromScratch)
                QFile::remove(results);
            else if (!QFileInfo::exists(results))
                QVERIFY(QFile::copy(baseline, results));
            QProcess process;
            process.start(QStringLiteral(RANKSCOPE_BINARY), {"analyze", dir.path(), "--results", results, "--quiet", "--no-cache"});
            QVERIFY(process.waitForStarted());
            QTest::qWait(int(rng() % (runMs * 6 / 5)));
            // Only a running child: kill(0, …) would hit this whole process group.
            if (process.state() == QProcess::Running && process.processId() > 0)
                ::kill(pid_t(process.processId()), SIGKILL);
            process.waitForFinished(10000);
            if (!QFileInfo::exists(results))
                continue; // killed before the first save of a run from scratch: nothing claimed
            QString error;
            const auto run = rankscope::ResultsFile::load(results, &error);
            QVERIFY2(run, qPrintable(QStringLiteral("round %1: %2").arg(round).arg(error)));
            ++loads;
            for (const rankscope::CheckpointRecord &c : run->checkpoints) {
                const auto n = std::count_if(run->results.begin(), run->results.end(),
                                             [&](const rankscope::MatrixResult &r) { return r.checkpointPath == c.path; });
                QCOMPARE(int(n), c.matrices);
                QCOMPARE(c.matrices, 24);
            }
        }
        QVERIFY(loads >= 20); // the earlier file survives every kill of a run over it
    }

    // Sidecars and stray files beside a run never make the exit status 2; info says what each is.
    void sidecarsAndStrayFilesExitZero()
    {
        using namespace rankscope::test;
        QTemporaryDir dir;
        for (const char *name : {"ckpt_000000.pt", "ckpt_001500.pt"})
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), dir.filePath(name)));
        PickleBuilder scaler;
        scaler.op('\x80').op('\x02').op('}').op('(').str("scale").integer(65536).str("_growth_tracker").integer(0).op('u').op('.');
        saveBytes(dir.filePath("scaler.pt"), zipArchive({{"archive/data.pkl", scaler.bytes}}));
        saveBytes(dir.filePath("optimizer.pt"), zipArchive({{"archive/data.pkl", scaler.bytes}}));
        saveBytes(dir.filePath("rng_state.pth"), zipArchive({{"archive/data.pkl", scaler.bytes}}));
        saveBytes(dir.filePath("losses.npy"), npyFile("<f4", {100}, rawBytes(QList<float>(100, 1.5f))));
        saveBytes(dir.filePath("pytorch_model.bin.index.json"), R"({"weight_map": {"a": "pytorch_model-00001-of-00002.bin"}})");
        QVERIFY(QFile::link("/dev/zero", dir.filePath("config.json")));
        Run r = runRankscope({"analyze", dir.path(), "--csv", dir.filePath("out.csv"), "--no-cache"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("2 of 2 checkpoints analysed"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("scaler.pt"), qPrintable(r.err));

        r = runRankscope({"info", dir.path()});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QRegularExpression("scaler\\.pt\\s+sidecar\\s+gradient scaler state")));
        QVERIFY(r.out.contains(QRegularExpression("losses\\.npy\\s+other\\s+a 1-D float32 array of 100 values")));
        QVERIFY(r.out.contains(QRegularExpression("pytorch_model\\.bin\\.index\\.json\\s+other\\s+a shard index")));
        QVERIFY2(r.out.contains(QRegularExpression("config\\.json\\s+not read\\s+a link to /dev/zero, a character device")), qPrintable(r.out));
        QVERIFY(r.out.contains(QRegularExpression("ckpt_001500\\.pt\\s+weights\\s+pytorch, \\d+ matrices by name")));
        QVERIFY2(r.out.contains(QRegularExpression("1500\\s+pytorch\\s+ckpt_001500\\.pt\\s+none\\s+recorded in the checkpoint")), qPrintable(r.out));
    }

    // Two files claiming one step: one analysed, the other named on standard error; no step is
    // averaged over two models.
    void duplicateStepsAreNamed()
    {
        QTemporaryDir dir;
        for (const char *name : {"ckpt_000000.pt", "ckpt_001500.pt"})
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), dir.filePath(name)));
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_001500.pt"), dir.filePath("ckpt_1500.pt")));
        const Run r = runRankscope({"analyze", dir.path(), "--csv", "-", "--no-cache"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.split('\n', Qt::SkipEmptyParts).size(), 49);
        QVERIFY2(r.err.contains(QRegularExpression("ckpt_(00)?1500\\.pt: not analysed: identical to ckpt_(00)?1500\\.pt, which claims the same step 1500")), qPrintable(r.err));
    }

    // A folder of runs: analyze says how without --runs, and with it writes a results file (and a
    // CSV) per run and names them.
    void nestedRunsWithRunsOption()
    {
        QTemporaryDir runs;
        const QDir demo(RANKSCOPE_DEMO_RUN);
        QVERIFY(QDir(runs.path()).mkpath("seed0") && QDir(runs.path()).mkpath("seed1"));
        for (const char *name : {"ckpt_000000.pt", "ckpt_001500.pt"})
            QVERIFY(QFile::copy(demo.filePath(name), runs.filePath(QStringLiteral("seed0/") + name)));
        QVERIFY(QFile::copy(demo.filePath("ckpt_000100.pt"), runs.filePath("seed1/ckpt_000100.pt")));
        Run r = runRankscope({"analyze", runs.path(), "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("holds no checkpoints of its own but 2 run(s): seed0, seed1") && r.err.contains("--runs"), qPrintable(r.err));

        QTemporaryDir out;
        r = runRankscope({"analyze", runs.path(), "--runs", "--results", out.filePath("results"), "--csv", out.filePath("metrics.csv")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("2 runs analysed"), qPrintable(r.err));
        for (const auto &[run, rows] : {std::pair{"seed0", 49}, {"seed1", 25}}) {
            const QString results = out.filePath(QStringLiteral("results/%1.h5").arg(QLatin1String(run)));
            QVERIFY2(r.err.contains(QStringLiteral("%1 → %2").arg(QLatin1String(run), results)), qPrintable(r.err));
            QVERIFY(rankscope::ResultsFile::isResultsFile(results));
            QFile csv(out.filePath(QStringLiteral("metrics-%1.csv").arg(QLatin1String(run))));
            QVERIFY(csv.open(QIODevice::ReadOnly));
            QCOMPARE(QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts).size(), rows);
        }
        QCOMPARE(runRankscope({"analyze", runs.path(), "--runs", "--csv", "-"}).exitCode, 1);
        r = runRankscope({"info", runs.path()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(QRegularExpression("seed0\\s+run\\s+a run of its own \\(2 checkpoints\\)")) && r.out.contains("--runs"), qPrintable(r.out));
    }

    void infoListsCheckpointsAndTensors()
    {
        const Run r = runRankscope({"info", RANKSCOPE_DEMO_RUN, "--step", "600"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Checkpoints in"));
        QVERIFY(r.out.contains(QRegularExpression("\\n  1500 +pytorch +ckpt_001500.pt")));
        QVERIFY(r.out.contains("Tensors of step 600 (ckpt_000600.pt)"));
        QVERIFY(r.out.contains(QRegularExpression("transformer\\.h\\.2\\.attn\\.c_attn\\.weight\\s+\\[192, 64\\]\\s+float32\\s+2\\s+Q, K, V")));
        QVERIFY(r.out.contains(QRegularExpression("lm_head\\.weight.*skipped: not an attention or MLP matrix")));
        QVERIFY(r.out.contains("24 typed matrices"));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "tst_CommandLine.moc"
