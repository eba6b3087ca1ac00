// End-to-end: the rankscope executable run as a user would, headless, with no display.
#include "spectral/MetricCatalog.h"
#include "TestSuite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QElapsedTimer>
#include "analysis/results/ResultsFile.h"
#include "spectral/BlasKernelChoice.h"
#include "spectral/CpuFeatures.h"
#include <QRegularExpression>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include "core/FormatWriters.h"
#include <algorithm>
#include <cmath>
#include <random>
#include <csignal>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>
#include "core/Hdf5TestFiles.h"
#include "core/TinyLoraRun.h"
#include "core/TorchCheckpointWriter.h"

namespace tst_commandline {

using namespace rankscope::test;

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

// How a run differs from the default: environment variables set (a value) or removed (an empty
// value), another working folder, and a limit on the size of any file it writes (a full disk,
// without filling one).
struct Launch {
    QList<QPair<QString, QString>> environment;
    QString workingDirectory = {};
    rlim_t fileSizeLimit = 0;
};

Run runRankscope(const QStringList &arguments, const Launch &launch = {})
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cacheHome().path());
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    for (const auto &[name, value] : launch.environment) {
        if (value.isEmpty())
            env.remove(name);
        else
            env.insert(name, value);
    }
    process.setProcessEnvironment(env);
    if (!launch.workingDirectory.isEmpty())
        process.setWorkingDirectory(launch.workingDirectory);
    if (launch.fileSizeLimit > 0) {
        const rlim_t limit = launch.fileSizeLimit;
        process.setChildProcessModifier([limit] {
            // A write past the limit then fails with EFBIG, as one on a full disk fails with ENOSPC.
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit size{limit, limit};
            setrlimit(RLIMIT_FSIZE, &size);
        });
    }
    process.start(QStringLiteral(RANKSCOPE_BINARY), arguments);
    process.waitForFinished(120000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

QByteArray contents(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// Two checkpoints of one layer's 32 × 32 attention matrices, written by the test: analysed in a moment.
void writeTinyRun(const QString &folder)
{
    std::mt19937 random(11);
    std::normal_distribution<float> normal;
    for (int step : {100, 200}) {
        QList<SafeTensor> tensors;
        for (const char *name : {"q_proj", "k_proj", "v_proj", "o_proj"}) {
            QList<float> values(32 * 32);
            for (float &v : values)
                v = normal(random);
            tensors.append({QStringLiteral("model.layers.0.self_attn.%1.weight").arg(QLatin1String(name)), "F32", {32, 32}, rawBytes(values)});
        }
        saveBytes(QDir(folder).filePath(QStringLiteral("model_%1.safetensors").arg(step, 6, 10, QLatin1Char('0'))), safetensorsFile(tensors));
    }
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
        Run r = runRankscope({"--version"}, Launch{{{"OPENBLAS_CORETYPE", ""}, {kPretendBlasCoreHook, ""}, {kBlasChoiceMarker, ""}}});
        QCOMPARE(r.exitCode, 0);
        static const QRegularExpression blasLine(QStringLiteral("^BLAS: OpenBLAS [0-9.]+, (\\w+) kernels \\((.*)\\)$"), QRegularExpression::MultilineOption);
        QRegularExpressionMatch line = blasLine.match(r.out);
        QVERIFY2(line.hasMatch(), qPrintable(r.out));
        // Unset: whatever OpenBLAS detected, or RankScope's choice; never generic kernels on an AVX2 CPU.
        if (cpu.avx2 && cpu.fma)
            QVERIFY2(line.captured(1) != "Prescott", qPrintable(r.out));
        QVERIFY(line.captured(2) == "detected by OpenBLAS" || line.captured(2).startsWith("chosen by RankScope"));

        r = runRankscope({"--version"}, Launch{{{"OPENBLAS_CORETYPE", "Prescott"}, {kPretendBlasCoreHook, ""}, {kBlasChoiceMarker, ""}}});
        line = blasLine.match(r.out);
        QVERIFY2(line.hasMatch(), qPrintable(r.out));
        QCOMPARE(line.captured(1), QStringLiteral("Prescott"));
        QCOMPARE(line.captured(2), QStringLiteral("set by OPENBLAS_CORETYPE"));

        // The user's variable wins over RankScope's choice too.
        r = runRankscope({"--version"}, Launch{{{"OPENBLAS_CORETYPE", "Prescott"}, {kPretendBlasCoreHook, "Prescott"}, {kBlasChoiceMarker, ""}}});
        QCOMPARE(blasLine.match(r.out).captured(1), QStringLiteral("Prescott"));

        if (!cpu.avx)
            QSKIP("this CPU has no AVX: generic kernels are the right ones");
        const QString expected = QString::fromStdString(chooseOpenBlasCoreType(cpu, "Prescott"));
        r = runRankscope({"--version"}, Launch{{{"OPENBLAS_CORETYPE", ""}, {kPretendBlasCoreHook, "Prescott"}, {kBlasChoiceMarker, ""}}});
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
                                        Launch{{{"OPENBLAS_CORETYPE", ""}, {kPretendBlasCoreHook, "Prescott"}, {kBlasChoiceMarker, ""}}});
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
        // Every other metric column of the table in its order (WeightWatcher's, then the opt-in ones:
        // rand_distance and the change, --delta, only on request), then the head and update columns.
        QVERIFY(lines[0].endsWith("," + spectralMetricColumns().mid(7).join(',') + ",head,kv_head,weights,update_rank,update_rank_used_pct"));
        QVERIFY(lines[0].contains(",log_norm,log_spectral_norm,log_alpha_norm,num_spikes,mp_softrank,"));
        // A whole matrix of a model's own weights: no head, no LoRA update.
        QVERIFY(lines[1].endsWith(",nan,nan,nan,nan,nan,nan,nan,nan,nan,,,,,"));
    }

    // --device: --version names CUDA (or why there is none); without a usable GPU, auto computes on
    // the CPU and says why in the timing line, cpu says so, cuda ends at once with exit status 2
    // and the reason, before anything is read; a device that is not one is refused (exit 1).
    void deviceWithoutAGpu()
    {
        const Run version = runRankscope({"--version"});
        static const QRegularExpression cudaLine(QStringLiteral("^CUDA: (.+)$"), QRegularExpression::MultilineOption);
        const QRegularExpressionMatch cuda = cudaLine.match(version.out);
        QVERIFY2(cuda.hasMatch(), qPrintable(version.out));
        if (cuda.captured(1).contains(QRegularExpression(QStringLiteral("device \\d+ of"))))
            QSKIP("a usable GPU is here: bench/gpu_check.sh checks it");
        const Run automatic = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--no-cache", "--csv", "/dev/null"});
        QCOMPARE(automatic.exitCode, 0);
        QVERIFY2(automatic.err.contains("; on the CPU (no usable GPU: "), qPrintable(automatic.err));
        const Run cpu = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--no-cache", "--device", "cpu", "--csv", "/dev/null"});
        QCOMPARE(cpu.exitCode, 0);
        QVERIFY2(cpu.err.contains("; on the CPU (--device cpu)"), qPrintable(cpu.err));
        const Run refused = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--no-cache", "--device", "cuda", "--csv", "-"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.startsWith("rankscope analyze: --device cuda: no usable GPU: "), qPrintable(refused.err));
        QCOMPARE(refused.err.count('\n'), 1);
        QVERIFY(refused.out.isEmpty());
        const Run bogus = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--device", "gpu"});
        QCOMPARE(bogus.exitCode, 1);
        QVERIFY2(bogus.err.contains("--device is auto, cpu or cuda"), qPrintable(bogus.err));
        const Run exact = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--device", "cuda", "--method", "svd"});
        QCOMPARE(exact.exitCode, 1);
        QVERIFY2(exact.err.contains("--device cuda needs --method gram"), qPrintable(exact.err));
    }

    // --delta [--reference STEP]: the change from the first (or that) checkpoint in the delta_* columns.
    void deltaOnRequest()
    {
        for (const QString &reference : {QString(), QStringLiteral("600")}) {
            QStringList arguments{"analyze", RANKSCOPE_DEMO_RUN, "--delta", "--no-cache", "--csv", "-", "--quiet"};
            if (!reference.isEmpty())
                arguments << "--reference" << reference;
            const Run r = runRankscope(arguments);
            QCOMPARE(r.exitCode, 0);
            const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
            QCOMPARE(lines.size(), 145);
            const QStringList header = lines[0].split(',');
            const qsizetype norm = header.indexOf(QStringLiteral("delta_spectral_norm")), relative = header.indexOf(QStringLiteral("delta_rel_frobenius"));
            QVERIFY(norm > 0 && relative > 0);
            const qint64 referenceStep = reference.isEmpty() ? 0 : reference.toLongLong();
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QStringList cells = lines[i].split(',');
                const double d = cells[norm].toDouble(), rel = cells[relative].toDouble();
                if (cells[0].toLongLong() == referenceStep)
                    QVERIFY2(d == 0 && rel == 0, qPrintable(lines[i]));
                else
                    QVERIFY2(d > 0 && rel > 0 && rel < 10, qPrintable(lines[i]));
            }
        }
        const Run missing = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--reference", "42", "--no-cache", "--csv", "/dev/null"});
        QVERIFY2(missing.err.contains("no checkpoint at step 42"), qPrintable(missing.err));
        const Run bad = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--reference", "first"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(bad.err.contains("--reference takes a step"));
        QVERIFY(runRankscope({"analyze", "--help"}).out.contains("--delta"));
    }

    // --subspace [--subspace-k K]: the agreement with the previous checkpoint, NaN at the first.
    void subspaceOnRequest()
    {
        QHash<QString, double> overlapAt16;
        for (const QString &k : {QString(), QStringLiteral("4")}) {
            QStringList arguments{"analyze", RANKSCOPE_DEMO_RUN, "--no-cache", "--csv", "-", "--quiet"};
            arguments << (k.isEmpty() ? QStringList{"--subspace"} : QStringList{"--subspace-k", k});
            const Run r = runRankscope(arguments);
            QCOMPARE(r.exitCode, 0);
            const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
            QCOMPARE(lines.size(), 145);
            const QStringList header = lines[0].split(',');
            const qsizetype overlap = header.indexOf(QStringLiteral("subspace_overlap")), cosine = header.indexOf(QStringLiteral("top_vector_cosine"));
            QVERIFY(overlap > 0 && cosine > 0);
            int differs = 0;
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QStringList cells = lines[i].split(',');
                const double o = cells[overlap].toDouble(), c = cells[cosine].toDouble();
                if (cells[0] == QLatin1String("0")) {
                    QVERIFY2(cells[overlap] == QLatin1String("nan") && cells[cosine] == QLatin1String("nan"), qPrintable(lines[i]));
                    continue;
                }
                QVERIFY2(o > 0 && o <= 1 && c >= 0 && c <= 1, qPrintable(lines[i]));
                const QString key = cells[0] + cells[3];
                if (k.isEmpty())
                    overlapAt16.insert(key, o);
                else
                    differs += std::abs(overlapAt16.value(key) - o) > 1e-6;
            }
            if (!k.isEmpty())
                QVERIFY2(differs > 100, qPrintable(QString::number(differs))); // another k is another subspace
        }
        const Run bad = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--subspace-k", "0"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(bad.err.contains("--subspace-k takes a whole number"));
        QVERIFY(runRankscope({"analyze", "--help"}).out.contains("--subspace-k"));
    }

    void randDistanceOnRequest()
    {
        const Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--rand-distance", "--no-cache", "--csv", "-", "--quiet"});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 145);
        const qsizetype column = lines[0].split(',').indexOf(QStringLiteral("rand_distance"));
        for (qsizetype i = 1; i < lines.size(); ++i) {
            bool ok = false;
            const double d = lines[i].section(',', column, column).toDouble(&ok);
            QVERIFY2(ok && d > 0 && d < 0.84, qPrintable(lines[i]));
        }
        QVERIFY(runRankscope({"analyze", "--help"}).out.contains("--rand-distance"));
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

    // The scalars training logged: listed by info, and with --scalar a column of the CSV at each
    // row's step (the last value logged at or before it).
    void loggedScalarsBesideTheMetrics()
    {
        QTemporaryDir dir;
        for (const QString &name : QDir(RANKSCOPE_DEMO_RUN).entryList({"*.pt"}, QDir::Files))
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), dir.filePath(name)));
        QFile state(dir.filePath("trainer_state.json"));
        QVERIFY(state.open(QIODevice::WriteOnly));
        state.write(R"({"global_step": 1500, "log_history": [{"loss": 4.5, "learning_rate": 0.0006, "step": 100},
                        {"loss": 3.25, "learning_rate": 0.0003, "step": 1000}, {"eval_loss": 3.5, "step": 1000}]})");
        state.close();
        const Run info = runRankscope({"info", dir.path()});
        QVERIFY2(info.out.contains(QRegularExpression("\\n  loss +trainer_state.json +2 +100 – 1000 +3.250 – 4.500\\n")), qPrintable(info.out));
        const QString csv = dir.filePath("m.csv");
        Run r = runRankscope({"analyze", dir.path(), "--scalar", "loss", "--scalar", "eval_loss", "--csv", csv, "--quiet"});
        QCOMPARE(r.exitCode, 0);
        QFile table(csv);
        QVERIFY(table.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(table.readAll()).split('\n', Qt::SkipEmptyParts);
        QVERIFY(lines.first().endsWith(",loss,eval_loss"));
        QVERIFY2(lines[1].startsWith("0,") && lines[1].endsWith(",,"), qPrintable(lines[1])); // nothing logged by step 0
        const QString at1500 = lines.filter(QRegularExpression("^1500,")).value(0);
        QVERIFY2(at1500.endsWith(",3.25,3.5"), qPrintable(at1500));
        const QString at300 = lines.filter(QRegularExpression("^300,")).value(0);
        QVERIFY2(at300.endsWith(",4.5,"), qPrintable(at300));
        r = runRankscope({"analyze", dir.path(), "--scalar", "val_loss", "--csv", csv, "--quiet"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--scalar val_loss: not among the scalars") && r.err.contains("(eval_loss, learning_rate, loss)"), qPrintable(r.err));
        // Drawn under the lines, on their step axis, at a paper size.
        const QString svg = dir.filePath("curves.svg");
        r = runRankscope({"export", dir.path(), "--figure", "lines+curves", "--scalar", "loss", "--preset", "two-column", "--out", svg});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile figure(svg);
        QVERIFY(figure.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(figure.readAll());
        QVERIFY(text.contains(">loss<") && text.count(">Training step<") == 1); // one shared step axis, numbered below
        r = runRankscope({"export", dir.path(), "--figure", "bars", "--scalar", "loss", "--out", svg});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--scalar draws under the lines"), qPrintable(r.err));
        r = runRankscope({"export", dir.path(), "--figure", "lines+curves", "--out", svg});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--figure lines+curves needs --scalar TAG"), qPrintable(r.err));
        // Runs compared: each run's own curve, from its own logs.
        QTemporaryDir second;
        for (const char *name : {"ckpt_000000.pt", "ckpt_001000.pt"})
            QVERIFY(QFile::copy(dir.filePath(name), second.filePath(name)));
        QFile secondState(second.filePath("trainer_state.json"));
        QVERIFY(secondState.open(QIODevice::WriteOnly));
        secondState.write(R"({"global_step": 1000, "log_history": [{"loss": 5.5, "step": 0}, {"loss": 2.75, "step": 1000}]})");
        secondState.close();
        const QString numbers = dir.filePath("curves.csv");
        r = runRankscope({"export", dir.path(), second.path(), "--figure", "lines+curves", "--scalar", "loss", "--out", numbers});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile data(numbers);
        QVERIFY(data.open(QIODevice::ReadOnly));
        const QString csvText = QString::fromUtf8(data.readAll());
        const QString firstName = QFileInfo(dir.path()).fileName(), secondName = QFileInfo(second.path()).fileName();
        QVERIFY2(csvText.contains("\nstep,tag,value,smoothed,run\n100,loss,4.5,4.5," + firstName + "\n"), qPrintable(csvText));
        QVERIFY2(csvText.contains("\n1000,loss,2.75,") && csvText.contains("," + secondName + "\n"), qPrintable(csvText));
    }

    // analyze --base: a LoRA run's updates, its merged weights and the base's own, one CSV whose
    // weights column says which each row is; the merged rows are cached apart from the run's.
    void adapterRunBesideItsBase()
    {
        QTemporaryDir run, base, cache;
        writeTinyLoraRun(run.path(), base.path());
        qputenv("XDG_CACHE_HOME", cache.path().toUtf8());
        const QString csv = QDir(run.path()).filePath("m.csv");
        Run r = runRankscope({"analyze", run.path(), "--base", base.path(), "--csv", csv, "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile table(csv);
        QVERIFY(table.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(table.readAll()).split('\n', Qt::SkipEmptyParts);
        const qsizetype weights = lines.first().split(',').indexOf("weights");
        QVERIFY2(weights >= 0, qPrintable(lines.first()));
        QStringList kinds;
        for (const QString &line : lines.mid(1))
            kinds << line.split(',').value(weights);
        kinds.sort();
        // Q's update and merged weights at two steps; the base's Q alone (v_proj is not adapted).
        QCOMPARE(kinds, (QStringList{"base", "merged", "merged", "update", "update"}));
        // Again from the caches, the same table; the run alone is as it was, its cache untouched.
        const QByteArray first = contents(csv);
        r = runRankscope({"analyze", run.path(), "--base", base.path(), "--csv", csv, "--quiet"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(contents(csv), first);
        r = runRankscope({"analyze", run.path(), "--csv", csv, "--quiet"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(contents(csv)).count(",update,"), 2);
        QVERIFY(!QString::fromUtf8(contents(csv)).contains(",merged,"));
        // info --base: where each update of the newest checkpoint finds its W₀.
        r = runRankscope({"info", run.path(), "--base", base.path()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QRegularExpression("q_proj.lora_B@lora_A +model.layers.0.self_attn.q_proj.weight +16\u00d716\n")) &&
                     r.out.contains("1 of 1 updates merge"),
                 qPrintable(r.out));
        // export --base: the merged weights and the base as two more runs of the figure.
        const QString numbers = QDir(run.path()).filePath("lines.csv");
        r = runRankscope({"export", run.path(), "--base", base.path(), "--figure", "lines", "--out", numbers});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString drawn = QString::fromUtf8(contents(numbers));
        const QString runName = QFileInfo(run.path()).fileName();
        QVERIFY2(drawn.contains("\n" + runName + " \u00b7 merged,10,") && drawn.contains("\n" + QFileInfo(base.path()).fileName() + " \u00b7 base,0,"),
                 qPrintable(drawn));
        // A results file holds no adapter factors to merge: --base wants the run's folder.
        const QString results = QDir(cache.path()).filePath("run.h5");
        QCOMPARE(runRankscope({"analyze", run.path(), "--results", results, "--quiet"}).exitCode, 0);
        r = runRankscope({"export", results, "--base", base.path(), "--figure", "lines", "--out", numbers});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("the first SOURCE must be that folder, not a results file"), qPrintable(r.err));
        r = runRankscope({"analyze", run.path(), "--base", run.filePath("nowhere")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--base") && r.err.contains("not a folder"), qPrintable(r.err));
        qunsetenv("XDG_CACHE_HOME");
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
        QCOMPARE(runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--autosave", "-1"}).exitCode, 1);
        QCOMPARE(runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--autosave", "soon"}).exitCode, 1);
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

    // A command writes what it was asked for, whatever ran before it (#42). An analysis with
    // opt-in metrics leaves them in the folder's results file, for a later one that asks; a plain
    // analysis after it writes the CSV and JSON it wrote before, byte for byte (the same header, no
    // per-head rows, no opt-in values), says nothing more and exits as it did, and export's and
    // info's numbers are the same too. One asking for some of them gets those alone.
    void outputsDoNotDependOnWhatRanBefore()
    {
        QTemporaryDir dir;
        const QString run = dir.filePath("run");
        QVERIFY(QDir().mkpath(run));
        for (const QString &name : QDir(RANKSCOPE_DEMO_RUN).entryList({"*.pt"}, QDir::Files))
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), QDir(run).filePath(name)));
        struct Outputs {
            Run analysis, exported;
            QByteArray csv, json, lines;
        };
        auto plain = [&](const QString &tag) {
            const QString csv = dir.filePath(tag + ".csv"), json = dir.filePath(tag + ".json"), lines = dir.filePath(tag + "-lines.csv");
            Outputs o{runRankscope({"analyze", run, "--csv", csv, "--json", json, "--quiet"}),
                      runRankscope({"export", run, "--figure", "lines", "--metric", "alpha", "--out", lines}), {}, {}, {}};
            o.csv = contents(csv);
            o.json = contents(json);
            o.lines = contents(lines);
            return o;
        };
        const Outputs before = plain("before");
        const Run infoBefore = runRankscope({"info", run}); // with the plain results in the cache
        QCOMPARE(before.analysis.exitCode, 0);
        QVERIFY2(before.analysis.err.isEmpty(), qPrintable(before.analysis.err));
        QCOMPARE(before.csv.count('\n'), qsizetype(145));
        QCOMPARE(before.exported.exitCode, 0);
        QVERIFY(!before.lines.isEmpty() && !before.lines.contains("alpha_ci"));
        // Export asked for alpha's interval draws it, computed from the stored spectra.
        const QString linesCi = dir.filePath("lines-ci.csv");
        const Run ci = runRankscope({"export", run, "--figure", "lines", "--metric", "alpha", "--alpha-ci", "--out", linesCi});
        QCOMPARE(ci.exitCode, 0);
        QVERIFY2(contents(linesCi).contains("alpha_ci"), qPrintable(QString::fromUtf8(contents(linesCi).left(300))));

        // The opt-in metrics that keep the stored spectra, at once, into the same results file (the
        // user's cache); --subspace below.
        const Run all = runRankscope({"analyze", run, "--heads", "--delta", "--alpha-ci", "--rand-distance", "--csv", "-"});
        QCOMPARE(all.exitCode, 0);
        QCOMPARE(all.out.count('\n'), qsizetype(433)); // 144 matrices, 288 heads and circuits
        const QString cachePath = all.err.section("results in ", 1).trimmed();
        QVERIFY2(cachePath.startsWith(cacheHome().path()), qPrintable(all.err));

        const Outputs after = plain("after");
        QCOMPARE(after.analysis.exitCode, before.analysis.exitCode);
        QCOMPARE(after.analysis.err, before.analysis.err);
        QCOMPARE(after.csv, before.csv);
        QCOMPARE(after.json, before.json);
        QCOMPARE(after.exported.exitCode, before.exported.exitCode);
        QCOMPARE(after.lines, before.lines);
        const Run infoAfter = runRankscope({"info", run});
        QCOMPARE(infoAfter.exitCode, infoBefore.exitCode);
        QCOMPARE(infoAfter.out, infoBefore.out);
        // Served by the results file, which still holds what it was not asked for.
        QString error;
        const std::optional<RunAnalysis> cached = ResultsFile::load(cachePath, &error);
        QVERIFY2(cached, qPrintable(error));
        QCOMPARE(cached->headResults.size(), qsizetype(288));
        QVERIFY(std::isfinite(cached->results.last().metrics.alphaCiLow) && std::isfinite(cached->results.last().metrics.deltaSpectralNorm));

        // --subspace decomposes every matrix again for its vectors, and that solve replaces the
        // stored spectra, equal to the last bits or so: the CSV (10 digits) is the same byte for
        // byte, the JSON (every digit) value for value to 1e-12.
        QCOMPARE(runRankscope({"analyze", run, "--subspace", "--quiet"}).exitCode, 0);
        const Outputs afterSubspace = plain("after-subspace");
        QCOMPARE(afterSubspace.analysis.exitCode, before.analysis.exitCode);
        QCOMPARE(afterSubspace.analysis.err, before.analysis.err);
        QCOMPARE(afterSubspace.csv, before.csv);
        QCOMPARE(afterSubspace.lines, before.lines);
        const QJsonArray jsonBefore = QJsonDocument::fromJson(before.json).array(), jsonAfter = QJsonDocument::fromJson(afterSubspace.json).array();
        QCOMPARE(jsonAfter.size(), jsonBefore.size());
        for (qsizetype i = 0; i < jsonBefore.size(); ++i) {
            const QJsonObject a = jsonAfter[i].toObject(), b = jsonBefore[i].toObject();
            QCOMPARE(a.keys(), b.keys());
            for (const QString &key : b.keys()) {
                const bool same = a[key].isDouble() && b[key].isDouble()
                                      ? std::abs(a[key].toDouble() - b[key].toDouble()) <= 1e-12 * std::max(1.0, std::abs(b[key].toDouble()))
                                      : a[key] == b[key];
                QVERIFY2(same, qPrintable(QStringLiteral("record %1, %2").arg(i).arg(key)));
            }
        }

        // Asked for one of them, that one alone: the plain rows with alpha's interval filled in.
        const Run some = runRankscope({"analyze", run, "--alpha-ci", "--csv", "-", "--quiet"});
        QCOMPARE(some.exitCode, 0);
        const QStringList plainLines = QString::fromUtf8(before.csv).split('\n'), someLines = some.out.split('\n');
        QCOMPARE(someLines.size(), plainLines.size());
        QCOMPARE(someLines.first(), plainLines.first());
        const qsizetype low = plainLines.first().split(',').indexOf("alpha_ci_low"), high = low + 1;
        QVERIFY(low > 0);
        for (qsizetype i = 1; i + 1 < someLines.size(); ++i) {
            QStringList fields = someLines[i].split(',');
            QVERIFY2(fields.size() > high && fields[low] != "nan" && fields[high] != "nan", qPrintable(someLines[i]));
            fields[low] = fields[high] = "nan";
            QCOMPARE(fields.join(','), plainLines[i]);
        }

        // Warnings only an opt-in metric raises are its own: per-head spectra of a run whose
        // head counts are unknown are skipped work (exit 2) with --heads, and nothing without it.
        const QString tiny = dir.filePath("tiny");
        QVERIFY(QDir().mkpath(tiny));
        writeTinyRun(tiny);
        const Run tinyBefore = runRankscope({"analyze", tiny, "--csv", "-", "--json", dir.filePath("tiny-before.json"), "--quiet"});
        QCOMPARE(tinyBefore.exitCode, 0);
        const Run heads = runRankscope({"analyze", tiny, "--heads", "--csv", "/dev/null", "--quiet"});
        QCOMPARE(heads.exitCode, 2);
        QVERIFY2(heads.err.contains("per-head spectra need the numbers of attention heads"), qPrintable(heads.err));
        const Run tinyAfter = runRankscope({"analyze", tiny, "--csv", "-", "--json", dir.filePath("tiny-after.json"), "--quiet"});
        QCOMPARE(tinyAfter.exitCode, tinyBefore.exitCode);
        QCOMPARE(tinyAfter.err, tinyBefore.err);
        QCOMPARE(tinyAfter.out, tinyBefore.out);
        QCOMPARE(contents(dir.filePath("tiny-after.json")), contents(dir.filePath("tiny-before.json")));
    }

    // The titles an export draws, as the file says them: none of the generated ones under a
    // paper's caption (column, two-column), its facts on the axes instead; a slide's generated
    // one; --title's text; and with --title '' none at all, whatever the preset.
    void exportTitlesAsAsked()
    {
        QTemporaryDir dir;
        auto texts = [&](const QStringList &more) {
            const QString out = dir.filePath(QStringLiteral("f.svg"));
            QFile::remove(out);
            const Run r = runRankscope(QStringList{"export", RANKSCOPE_DEMO_RUN, "--out", out} + more);
            QFile svg(out);
            return r.exitCode == 0 && svg.open(QIODevice::ReadOnly) ? QString::fromUtf8(svg.readAll()) : QStringLiteral("failed: ") + r.err;
        };
        const QString generated = QStringLiteral("Stable rank vs training step");
        QString svg = texts({"--figure", "lines", "--preset", "column"});
        QVERIFY2(!svg.contains(generated) && svg.contains(QStringLiteral(">(mean of layers 0–3)<")), qPrintable(svg.left(200)));
        svg = texts({"--figure", "lines", "--preset", "slide"});
        QVERIFY2(svg.contains(generated) && svg.contains(QStringLiteral(">Stable rank<")), qPrintable(svg.left(200)));
        svg = texts({"--figure", "lines", "--preset", "slide", "--title", ""});
        QVERIFY2(!svg.contains(generated) && !svg.contains(QStringLiteral("nanogpt-d4")), qPrintable(svg.left(200)));
        svg = texts({"--figure", "lines", "--preset", "column", "--title", "Figure one"});
        QVERIFY2(svg.contains(QStringLiteral(">Figure one<")), qPrintable(svg.left(200)));
        svg = texts({"--figure", "bars", "--preset", "two-column"});
        QVERIFY2(!svg.contains(QStringLiteral("by layer at step")) && svg.contains(QStringLiteral(">Layer (final step)<")), qPrintable(svg.left(200)));
        // Several panels: none over them, none on them, the step on the layer axes. (An SVG splits a
        // text where its font changes: "Weighted ", "α".)
        svg = texts({"--figure", "heatmaps", "--title", ""});
        QVERIFY2(!svg.contains(QStringLiteral("at step 1500")) && svg.count(QStringLiteral(">Layer (final step)<")) == 2, qPrintable(svg.left(200)));
        svg = texts({"--figure", "heatmaps"});
        QVERIFY2(svg.contains(QStringLiteral(">Compression % at final step 1500 — nanogpt-d4<")), qPrintable(svg.left(200)));
        QVERIFY2(!svg.contains(QStringLiteral("colours")), qPrintable(svg.left(200))); // the colour bars name the metric only
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
        QCOMPARE(compareText.count("Compression % by layer at final step 1500"), 2); // a panel per run
        QVERIFY(compareText.contains(">0.33<"));

        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "pie", "--out", dir.filePath("x.png")}).exitCode, 1);
        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "bars", "--out", dir.filePath("x.gif")}).exitCode, 1);
        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "bars", "--step", "777", "--out", dir.filePath("x.png")}).exitCode, 1);
        QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrum", "--out", dir.filePath("x.png")}).exitCode, 1);
    }

    // The spectrogram from the command line: one matrix or a type's mean, drawn or as the CSV of
    // its cells (a row per step and bin; each step's densities sum to 1 and its stable rank is the
    // independently computed one), and what it refuses.
    void exportsTheSpectrogramAndItsCells()
    {
        QTemporaryDir dir;
        Run r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrogram", "--layer", "1", "--type", "Q", "--preset", "column",
                              "--out", dir.filePath("s.pdf")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(contents(dir.filePath("s.pdf")).left(4), QByteArray("%PDF"));
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrogram", "--layer", "1", "--type", "Q", "--out", dir.filePath("s.csv")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = QString::fromUtf8(contents(dir.filePath("s.csv"))).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("step,block,layer,type,expert,matrices,sigma_low,sigma_high,density,stable_rank,left_out"));
        QCOMPARE(lines.size(), 1 + 6 * 17); // six steps, 2·√64 + 1 bins
        QHash<QString, double> sums, ranks;
        for (const QString &line : lines.mid(1)) {
            const QStringList f = line.split(',');
            QCOMPARE(f.mid(1, 5), (QStringList{"", "1", "Q", "", "1"}));
            QCOMPARE(f[10], QStringLiteral("0"));
            sums[f[0]] += f[8].toDouble();
            ranks[f[0]] = f[9].toDouble();
        }
        QHash<QString, double> expected; // step → stable_rank of layer 1 Q, from the expected CSV
        for (const QString &line : QString::fromUtf8(contents(QStringLiteral(RANKSCOPE_TEST_DATA "/nanogpt-d4.metrics.csv"))).split('\n'))
            if (const QStringList f = line.split(','); f.size() > 5 && f[1] == "1" && f[2] == "Q")
                expected[f[0]] = f[5].toDouble();
        QCOMPARE(ranks.size(), 6);
        for (auto it = ranks.begin(); it != ranks.end(); ++it) {
            QVERIFY2(std::abs(sums[it.key()] - 1) < 1e-9, qPrintable(it.key()));
            QVERIFY2(std::abs(it.value() - expected[it.key()]) <= 1e-6 * expected[it.key()], qPrintable(it.key()));
        }
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrogram", "--type", "MLP_UP", "--layers", "1-2", "--out", dir.filePath("m.csv")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(contents(dir.filePath("m.csv")).contains("\n0,,,MLP_UP,,2,"));
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrogram", "--out", dir.filePath("x.png")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("spectrogram needs --type T"), qPrintable(r.err));
        r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "spectrogram", "--layer", "9", "--type", "Q", "--out", dir.filePath("x.png")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("nanogpt-d4 has no layer 9 Q at any step."), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(dir.filePath("x.png")));
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

    // A watch whose outputs cannot be written (a full disk) ends with exit status 1 when stopped,
    // though its passes analysed everything: the CSV it was asked for does not exist.
    void watchWithAnUnwritableOutputEndsInFailure()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), dir.filePath("ckpt_000000.pt")));
        QProcess process;
        process.start(QStringLiteral(RANKSCOPE_BINARY), {"analyze", dir.path(), "--watch", "--no-cache", "--csv", "/dev/full", "--quiet"});
        QVERIFY(process.waitForStarted());
        QByteArray errors;
        QTRY_VERIFY_WITH_TIMEOUT((errors += process.readAllStandardError()).contains("/dev/full: cannot be written"), 20000);
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(20000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 1);
    }

    // Ctrl+C during a long solve: the process ends at once, not after the solve, with exit status
    // 130 and the completed checkpoints in the results file; the same command then goes on.
    void interruptEndsWithinTwoSecondsAndKeepsCompletedCheckpoints()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath("run"), results = dir.filePath("run.h5");
        QDir().mkpath(folder);
        std::mt19937 random(7);
        std::normal_distribution<float> normal;
        auto matrices = [&](qint64 n) {
            QList<SafeTensor> tensors;
            for (const char *name : {"q_proj", "k_proj", "v_proj", "o_proj"}) {
                QList<float> values(n * n);
                for (float &v : values)
                    v = normal(random);
                tensors.append({QStringLiteral("model.layers.0.self_attn.%1.weight").arg(QLatin1String(name)), "F32", {n, n}, rawBytes(values)});
            }
            return tensors;
        };
        saveBytes(QDir(folder).filePath("model_000100.safetensors"), safetensorsFile(matrices(16)));
        // Exact SVDs of 2500×2500 on one worker: many seconds each, far more than the 2 s allowed.
        saveBytes(QDir(folder).filePath("model_000200.safetensors"), safetensorsFile(matrices(2500)));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_CACHE_HOME", cacheHome().path());
        process.setProcessEnvironment(env);
        const QStringList arguments{"analyze", folder, "--results", results, "--method", "svd", "--jobs", "1"};
        process.start(QStringLiteral(RANKSCOPE_BINARY), arguments);
        QVERIFY(process.waitForStarted());
        QByteArray errors;
        // A progress line per checkpoint: once the first is done, the second is read and solved.
        QTRY_VERIFY_WITH_TIMEOUT((errors += process.readAllStandardError()).contains("1/2 checkpoints"), 30000);
        QTest::qWait(800);
        QElapsedTimer clock;
        clock.start();
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(20000));
        const qint64 elapsed = clock.elapsed();
        errors += process.readAllStandardError();
        QVERIFY2(elapsed < 2000, qPrintable(QStringLiteral("took %1 ms to stop").arg(elapsed)));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 130);
        QVERIFY2(errors.contains("interrupted: 1 completed checkpoint(s) kept in " + results.toUtf8()), errors.constData());
        QString error;
        const std::optional<rankscope::RunAnalysis> kept = rankscope::ResultsFile::load(results, &error);
        QVERIFY2(kept, qPrintable(error));
        QCOMPARE(kept->results.size(), 4);
        for (const rankscope::MatrixResult &r : kept->results)
            QCOMPARE(r.step, 100);
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
        QVERIFY(QFile::link("/dev/zero", dir.filePath("config.json")));
        Run r = runRankscope({"analyze", dir.path(), "--csv", dir.filePath("out.csv"), "--no-cache"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("2 of 2 checkpoints analysed"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("scaler.pt"), qPrintable(r.err));
        // A shard index whose shards are missing is no harmless stray: the checkpoint it indexes is
        // lost, and that is said with exit status 2 (#26), the rest analysed as before.
        saveBytes(dir.filePath("pytorch_model.bin.index.json"), R"({"weight_map": {"a": "pytorch_model-00001-of-00002.bin"}})");
        r = runRankscope({"analyze", dir.path(), "--csv", dir.filePath("out.csv"), "--no-cache"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("2 of 2 checkpoints analysed"), qPrintable(r.err));
        QVERIFY2(r.err.contains("pytorch_model.bin.index.json: a shard index whose 1 shard(s) are not here"), qPrintable(r.err));

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

        // A third copy whose name would clear the terminal line, older than the others so that it is
        // the one left out: named, escaped, never written raw.
        QFile copy(dir.filePath("zz_copy\x1b[2K.pt"));
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_001500.pt"), copy.fileName()));
        QVERIFY(copy.open(QIODevice::ReadWrite) && copy.setFileTime(QDateTime(QDate(2020, 1, 1), QTime(0, 0)), QFileDevice::FileModificationTime));
        copy.close();
        const Run hostile = runRankscope({"analyze", dir.path(), "--csv", "-", "--no-cache"});
        QCOMPARE(hostile.exitCode, 0);
        QVERIFY2(hostile.err.contains("zz_copy\\x1b[2K.pt: not analysed: identical to"), qPrintable(hostile.err));
        QVERIFY2(!hostile.err.contains('\x1b'), qPrintable(hostile.err));
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

    // A write that fails is exit status 1 and leaves the earlier file whole: /dev/full, a full disk
    // (a file-size limit stands in for one), a folder that does not exist, found before analysing.
    void outputsAreWholeOrFailLoudly()
    {
        QTemporaryDir dir;
        for (const char *option : {"--csv", "--json"}) {
            const Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, option, "/dev/full", "--quiet"});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("/dev/full: cannot be written"), qPrintable(r.err));
        }
        Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--csv", dir.filePath("missing/m.csv"), "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("m.csv: its folder") && r.err.contains("does not exist"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("checkpoints analysed"), qPrintable(r.err)); // refused before any analysis

        const QString csv = dir.filePath("m.csv"), results = dir.filePath("run.h5");
        writeBytes(csv, "the earlier table\n");
        Launch fullDisk;
        fullDisk.fileSizeLimit = 16 * 1024;
        r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--csv", csv, "--results", results, "--no-cache"}, fullDisk);
        QCOMPARE(r.exitCode, 1); // and not a crash at exit
        QVERIFY2(r.err.contains("m.csv: cannot be written"), qPrintable(r.err));
        QVERIFY2(r.err.contains("results not saved: " + results + ": cannot be written: File too large"), qPrintable(r.err));
        QCOMPARE(contents(csv), QByteArray("the earlier table\n"));
        QVERIFY(!QFileInfo::exists(results));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"m.csv"}); // no temporaries left
    }

    // A failed export leaves the figure that was there, and never says "wrote".
    void exportNeverDestroysTheEarlierFigure()
    {
        QTemporaryDir dir;
        for (const char *name : {"f.png", "f.svg", "f.pdf"}) {
            const QString path = dir.filePath(name);
            QCOMPARE(runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "lines", "--out", path}).exitCode, 0);
            const QByteArray before = contents(path);
            Launch fullDisk;
            fullDisk.fileSizeLimit = 2048;
            const Run r = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "heatmaps", "--out", path}, fullDisk);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("%1: cannot be written").arg(path)) && !r.err.contains("wrote"), qPrintable(r.err));
            QCOMPARE(contents(path), before);
        }
        const Run missing = runRankscope({"export", RANKSCOPE_DEMO_RUN, "--figure", "lines", "--out", dir.filePath("no/f.png")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains("does not exist"), qPrintable(missing.err));
    }

    // --results names the file every save replaces: anything else found there is kept.
    void resultsNeverReplaceAForeignFile()
    {
        QTemporaryDir dir;
        const QString checkpoint = dir.filePath("precious.h5");
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), checkpoint));
        const QByteArray before = contents(checkpoint);
        const Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN, "--results", checkpoint, "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("precious.h5: exists and is not a RankScope results file"), qPrintable(r.err));
        QCOMPARE(contents(checkpoint), before);
    }

    // A pickle naming a global torch's weights_only policy refuses is reported (exit 2) with its
    // tensors read; names from files never reach the terminal raw: a global that would erase its
    // own warning, a file name that would set the terminal's title.
    void unsafePicklesAndHostileNamesAreReportedEscaped()
    {
        QTemporaryDir dir;
        PickleBuilder hparams;
        hparams.str("hparams").global("cProfile", "run\r\x1b[2K\x1b[1A").op('(').str("import os").op('t').op('R');
        const QByteArray pickle = torchPickle({{"transformer.h.0.attn.c_proj.weight", "FloatStorage", "0", 16, 0, {4, 4}, {4, 1}}}, 100);
        writeBytes(dir.filePath("ckpt_000100.pt"), zipArchive({{"archive/data.pkl", pickle.chopped(2) + hparams.bytes + "u."},
                                                                {"archive/data/0", rawBytes<float>({1, 2, 3, 4, 2, 4, 6, 9, 1, 0, 1, 0, 5, 5, 5, 1})}}));
        writeBytes(dir.filePath("ckpt_000200\x1b]0;owned\x07.pt"), "not a checkpoint");
        const Run r = runRankscope({"analyze", dir.path(), "--no-cache", "--csv", "-"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("ckpt_000100.pt: unsafe pickle: it references cProfile.run\\r\\x1b[2K\\x1b[1A, which torch.load"), qPrintable(r.err));
        QVERIFY2(r.err.contains("ckpt_000200\\x1b]0;owned\\x07.pt: not a recognised checkpoint format"), qPrintable(r.err));
        for (const QChar control : {QChar(0x1b), QChar('\r'), QChar(0x07)})
            QVERIFY(!r.err.contains(control));
        QVERIFY2(r.out.contains("100,0,O,transformer.h.0.attn.c_proj.weight,4,4,"), qPrintable(r.out)); // its tensors were read

        const Run info = runRankscope({"info", dir.path()});
        QCOMPARE(info.exitCode, 2);
        QVERIFY2(info.out.contains("unsafe pickle: it references cProfile.run\\r"), qPrintable(info.out));
        QVERIFY(!info.out.contains(QChar(0x1b)));
    }

    // The XDG spec makes a relative XDG_CACHE_HOME invalid: the cache goes to ~/.cache, not under
    // whatever folder the command runs in.
    void relativeXdgCacheHomeIsIgnored()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("home") && QDir(dir.path()).mkpath("work"));
        Launch launch;
        launch.environment = {{"XDG_CACHE_HOME", "relative-cache"}, {"HOME", dir.filePath("home")}};
        launch.workingDirectory = dir.filePath("work");
        const Run r = runRankscope({"analyze", RANKSCOPE_DEMO_RUN}, launch);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!QFileInfo::exists(dir.filePath("work/relative-cache")));
        QVERIFY2(r.err.contains("results in " + dir.filePath("home/.cache/RankScope/RankScope/runs/")), qPrintable(r.err));
    }

    // cp -p, rsync -a, tar x: a checkpoint replaced by one of the same size and mtime, or a step
    // sidecar edited in place, is analysed again, not shown with the stale metrics.
    void replacedCheckpointWithTheSameSizeAndTimeIsAnalysedAgain()
    {
        QTemporaryDir dir;
        const QString weights = dir.filePath("model_000100.pt"), meta = dir.filePath("meta_000100.json");
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), weights));
        writeBytes(meta, R"({"step": 100})");
        const Run first = runRankscope({"analyze", dir.path(), "--csv", "-"});
        QVERIFY2(first.out.contains("\n100,0,Q,"), qPrintable(first.out));
        auto replaceKeepingTime = [](const QString &path, const QByteArray &bytes) {
            const QDateTime modified = QFileInfo(path).lastModified();
            writeBytes(path, bytes);
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadWrite) && f.setFileTime(modified, QFileDevice::FileModificationTime));
        };
        const QByteArray other = contents(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000100.pt"));
        QCOMPARE(other.size(), QFileInfo(weights).size());
        replaceKeepingTime(weights, other);
        const Run second = runRankscope({"analyze", dir.path(), "--csv", "-"});
        QVERIFY2(second.err.contains("(0 from the results file)"), qPrintable(second.err));
        QVERIFY(second.out != first.out);
        QVERIFY(runRankscope({"analyze", dir.path()}).err.contains("(1 from the results file)"));

        replaceKeepingTime(meta, R"({"step": 700})");
        const Run third = runRankscope({"analyze", dir.path(), "--csv", "-"});
        QVERIFY2(third.err.contains("(0 from the results file)"), qPrintable(third.err));
        QVERIFY2(third.out.contains("\n700,0,Q,"), qPrintable(third.out));
    }

    // Discovery opens every .h5 to ask whether it is a results file: a 64-element format attribute
    // there crashed `rankscope info`.
    void infoSurvivesHostileHdf5Attributes()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath("ckpt_000000.pt"), dir.filePath("ckpt_000000.pt")));
        for (const auto shape : {AttributeShape::VlenStringArray, AttributeShape::FixedStringArray, AttributeShape::Int64Array}) {
            const hid_t file = H5Fcreate(QFile::encodeName(dir.filePath("odd.h5")).constData(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
            writeAttribute(file, "format", shape, "rankscope-results", 1, 64, 8);
            H5Fclose(file);
            const Run r = runRankscope({"info", dir.path()});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.out.contains(QRegularExpression("odd\\.h5\\s+unreadable weights\\s+HDF5 file holds no datasets")), qPrintable(r.out));
        }
    }

    // --jobs beyond the cores is clamped, and the note says to what (2^31 workers' bookkeeping took
    // 16 GB while SIGTERM waited); a value past 64 bits, negative or not a whole number is refused
    // before anything is read.
    void absurdJobsAreClampedAndSaid()
    {
        QTemporaryDir dir;
        writeTinyRun(dir.path());
        const int cores = std::max(1, QThread::idealThreadCount());
        for (const QString &jobs : {QString::number(cores + 5), QStringLiteral("2147483648")}) {
            const Run r = runRankscope({"analyze", dir.path(), "--jobs", jobs, "--no-cache", "--csv", "/dev/null"});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.err.contains(QStringLiteral("note: --jobs %1 is more than the %2 cores this process may use: %2 workers\n").arg(jobs).arg(cores)),
                     qPrintable(r.err));
            QVERIFY2(r.err.contains(QStringLiteral(" in %1 workers; ").arg(cores)), qPrintable(r.err));
        }
        for (const char *jobs : {"99999999999999999999", "-1", "1e9", "4.5", "two", ""}) {
            const Run r = runRankscope({"analyze", dir.path(), "--jobs", jobs, "--no-cache"});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("rankscope analyze: --jobs takes a whole number of workers, 0 or more, not '%1'\n").arg(QLatin1String(jobs))),
                     qPrintable(r.err));
            QVERIFY2(!r.err.contains("checkpoints analysed"), qPrintable(r.err));
        }
    }

    // --csv, --json and info --suggest-rules replace no input: a checkpoint of the run (known by its
    // bytes), an array, a results file; --results replaces nothing but a results file. Each is
    // refused before anything is analysed, and the file is left as it was.
    void outputsNeverReplaceAnInput()
    {
        QTemporaryDir dir, other;
        writeTinyRun(dir.path());
        const QString checkpoint = dir.filePath("model_000100.safetensors");
        const QByteArray before = contents(checkpoint);
        for (const char *option : {"--csv", "--json"}) {
            const Run r = runRankscope({"analyze", dir.path(), option, checkpoint, "--no-cache"});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("rankscope analyze: %1: is a checkpoint (").arg(checkpoint)) &&
                         r.err.contains(QStringLiteral("); it is not replaced (give another %1 path)\n").arg(QLatin1String(option))),
                     qPrintable(r.err));
            QVERIFY2(!r.err.contains("checkpoints analysed"), qPrintable(r.err));
            QCOMPARE(contents(checkpoint), before);
        }
        const Run info = runRankscope({"info", dir.path(), "--suggest-rules", checkpoint});
        QCOMPARE(info.exitCode, 1);
        QVERIFY2(info.err.startsWith(QStringLiteral("rankscope info: %1: is a checkpoint (").arg(checkpoint)) &&
                     info.err.contains("); it is not replaced (give another --suggest-rules path)\n"),
                 qPrintable(info.err));
        QVERIFY2(info.out.isEmpty(), qPrintable(info.out)); // refused before the folder is listed
        QCOMPARE(contents(checkpoint), before);

        // Known by the bytes, not the name: a checkpoint called metrics.csv is kept as well.
        const QString disguised = other.filePath("metrics.csv");
        QVERIFY(QFile::copy(checkpoint, disguised));
        Run r = runRankscope({"analyze", dir.path(), "--csv", disguised, "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(disguised + ": is a checkpoint ("), qPrintable(r.err));
        QCOMPARE(contents(disguised), before);

        const QString array = other.filePath("losses.npy");
        saveBytes(array, npyFile("<f4", {4}, rawBytes(QList<float>{1, 2, 3, 4})));
        r = runRankscope({"analyze", dir.path(), "--json", array, "--no-cache"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(array + ": is a 1-D ") && r.err.contains("; it is not replaced (give another --json path)"), qPrintable(r.err));

        const QString results = other.filePath("run.h5");
        QCOMPARE(runRankscope({"analyze", dir.path(), "--results", results, "--quiet"}).exitCode, 0);
        const QByteArray resultsBefore = contents(results);
        r = runRankscope({"analyze", dir.path(), "--csv", results});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(results + ": is a RankScope results file; it is not replaced (give another --csv path)\n"), qPrintable(r.err));
        r = runRankscope({"analyze", results, "--json", results}); // a results file analysed is an input too
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(results + ": is a RankScope results file; it is not replaced (give another --json path)\n"), qPrintable(r.err));
        QCOMPARE(contents(results), resultsBefore);
        r = runRankscope({"analyze", dir.path(), "--results", checkpoint});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(checkpoint + ": exists and is not a RankScope results file; it is not replaced (give another --results path)\n"), qPrintable(r.err));
        QCOMPARE(contents(checkpoint), before);
    }

    // Two outputs in one file, whether by the same name, a link or a hard link to it, or both on
    // standard output, and an output over the --rules file read: refused before any analysis,
    // nothing written. /dev/null takes any number of them.
    void oneFileForTwoOutputsIsRefused()
    {
        QTemporaryDir dir, out;
        writeTinyRun(dir.path());
        auto refused = [&](const QStringList &options, const QString &expected) {
            const Run r = runRankscope(QStringList{"analyze", dir.path(), "--no-cache"} + options);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("rankscope analyze: " + expected + "\n"), qPrintable(r.err));
            QVERIFY2(!r.err.contains("checkpoints analysed"), qPrintable(r.err));
        };
        const QString x = out.filePath("x"), f = out.filePath("f.txt");
        refused({"--csv", x, "--results", x}, x + ": named by both --csv and --results, which would overwrite each other; give each its own file");
        refused({"--csv", f, "--json", f}, f + ": named by both --csv and --json, which would overwrite each other; give each its own file");
        refused({"--csv", "-", "--json", "-"}, "--csv and --json both write to standard output; give one of them a file");
        QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden), QStringList());

        // The same file under two names: a link to it, a hard link, a path through a linked folder.
        const QString target = out.filePath("table.txt"), link = out.filePath("link.txt"), hard = out.filePath("hard.txt");
        writeBytes(target, "the earlier table\n");
        QVERIFY(QFile::link(target, link));
        QVERIFY(::link(QFile::encodeName(target).constData(), QFile::encodeName(hard).constData()) == 0);
        QVERIFY(QFile::link(out.path(), out.filePath("same")));
        for (const QString &alias : {link, hard}) {
            refused({"--csv", alias, "--json", target}, target + ": named by both --csv and --json, which would overwrite each other; give each its own file");
            QCOMPARE(contents(target), QByteArray("the earlier table\n"));
        }
        const QString throughLink = out.filePath("same/new.csv");
        refused({"--csv", throughLink, "--json", out.filePath("new.csv")},
                out.filePath("new.csv") + ": named by both --csv and --json, which would overwrite each other; give each its own file");

        const QString rules = out.filePath("rules.json");
        const QByteArray rulesText = R"({"rules": [{"pattern": "^blocks\\.(\\d+)\\.attn\\.proj\\.weight$", "type": "O"}]})";
        writeBytes(rules, rulesText);
        refused({"--rules", rules, "--json", rules}, rules + ": is read as --rules and would be replaced by --json; give --json another file");
        const Run info = runRankscope({"info", dir.path(), "--rules", rules, "--suggest-rules", rules});
        QCOMPARE(info.exitCode, 1);
        QVERIFY2(info.err.contains("rankscope info: " + rules + ": is read as --rules and would be replaced by --suggest-rules; give --suggest-rules another file\n"),
                 qPrintable(info.err));
        QCOMPARE(contents(rules), rulesText);

        const Run discarded = runRankscope({"analyze", dir.path(), "--no-cache", "--csv", "/dev/null", "--json", "/dev/null"});
        QCOMPARE(discarded.exitCode, 0);
    }

    // Every number of every command is read whole and checked as read: 4294968296 px no longer
    // wraps to 1000 px, NaN and infinity are no seconds, 99999999999 is no layer 0. Refused before
    // anything is read or drawn.
    void numbersAreReadWholeOrRefused()
    {
        QTemporaryDir dir, out;
        writeTinyRun(dir.path());
        // --settle is checked without --watch too; with it, the folder is never watched.
        for (const char *value : {"nan", "inf", "-inf", "1e999", "86401", "-0.5", "3s"})
            for (const char *option : {"--settle", "--autosave"}) {
                const Run r = runRankscope({"analyze", dir.filePath("missing"), "--watch", option, value});
                QCOMPARE(r.exitCode, 1);
                QVERIFY2(r.err.contains(QStringLiteral("rankscope analyze: %1 takes seconds from 0 to 86400, not '%2'\n").arg(QLatin1String(option), QLatin1String(value))),
                         qPrintable(r.err));
                QVERIFY2(!r.err.contains("not a folder"), qPrintable(r.err)); // refused before the folder is looked at
            }
        Run r = runRankscope({"analyze", dir.path(), "--settle", "nan"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("--settle takes seconds from 0 to 86400, not 'nan'"), qPrintable(r.err));
        for (const char *value : {"nan", "inf", "0", "1e-400", "0x1p-1"}) {
            r = runRankscope({"analyze", dir.path(), "--energy", value});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains(QStringLiteral("rankscope analyze: --energy takes a number in (0, 1], not '%1'\n").arg(QLatin1String(value))), qPrintable(r.err));
        }
        r = runRankscope({"analyze", dir.path(), "--subspace-k", "4294967297"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rankscope analyze: --subspace-k takes a whole number from 1 to 4096, not '4294967297'\n"), qPrintable(r.err));

        const QString png = out.filePath("f.png");
        auto exportRefused = [&](const QStringList &options, const QString &expected) {
            const Run e = runRankscope(QStringList{"export", dir.path(), "--figure", "lines", "--out", png} + options);
            QCOMPARE(e.exitCode, 1);
            QVERIFY2(e.err.contains("rankscope export: " + expected + "\n") && !e.err.contains("wrote"), qPrintable(e.err));
            QVERIFY(!QFileInfo::exists(png));
        };
        exportRefused({"--size", "4294968296x900px"}, "--size takes a width and a height of at most 20000 px (208.33 in) each, not '4294968296x900px'");
        exportRefused({"--size", "3.3x99999in"}, "--size takes a width and a height of at most 20000 px (208.33 in) each, not '3.3x99999in'");
        exportRefused({"--width", "4294968296"}, "--width takes a whole number of pixels from 120 to 20000, not '4294968296'");
        exportRefused({"--height", "abc"}, "--height takes a whole number of pixels from 90 to 20000, not 'abc'");
        exportRefused({"--dpi", "nan"}, "--dpi takes dots per inch from 36 to 2400, not 'nan'");
        exportRefused({"--scale", "inf"}, "--scale takes a number from 0.375 to 25, not 'inf'");
        exportRefused({"--font-size", "1e309"}, "--font-size takes points from 4 to 48, not '1e309'");
        exportRefused({"--energy", "nan"}, "--energy takes a number in (0, 1], not 'nan'");
        exportRefused({"--layers", "4294967296-4294967297"}, "--layers takes layers from 0 to 2147483647, not '4294967296'");
        exportRefused({"--layers", "0-x"}, "--layers takes A-B, e.g. 0-7");
        exportRefused({"--step", "18446744073709551616"}, "--step takes last or a whole number, 0 or more, not '18446744073709551616'");
        exportRefused({"--figure", "spectrum", "--type", "Q", "--layer", "4294967296"}, "--layer takes a whole number from 0 to 2147483647, not '4294967296'");
        // Within range they are used as given.
        r = runRankscope({"export", dir.path(), "--figure", "lines", "--out", png, "--size", "900x600px", "--scale", "0.5"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QImage(png).size(), QSize(450, 300));
    }

    // A name at the 255-byte limit (a results file, a CSV of two-byte characters) is written and
    // then replaced: the temporary beside it gets a name that fits (it was 17 bytes longer,
    // refused by the system, and said as "cannot be replaced: No such file or directory"). One
    // byte more is said to be too long, before any analysis.
    void longOutputNamesAreWritten()
    {
        QTemporaryDir dir, out;
        writeTinyRun(dir.path());
        const QString results = out.filePath(QString(252, QLatin1Char('r')) + QStringLiteral(".h5"));
        const QString csv = out.filePath(QString(124, QChar(0xe9)) + QStringLiteral("xxx.csv"));
        QCOMPARE(QFile::encodeName(QFileInfo(results).fileName()).size(), 255);
        QCOMPARE(QFile::encodeName(QFileInfo(csv).fileName()).size(), 255);
        for (const char *pass : {"(0 from the results file)", "(2 from the results file)"}) { // written, then replaced
            const Run r = runRankscope({"analyze", dir.path(), "--results", results, "--csv", csv});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.err.contains(QLatin1String(pass)) && r.err.contains("; results in " + results + "\n"), qPrintable(r.err));
        }
        QVERIFY(ResultsFile::isResultsFile(results));
        QVERIFY(contents(csv).startsWith("step,layer,type,tensor,"));
        QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden).size(), 2); // no temporaries left

        for (const QString &name : {QString(253, QLatin1Char('r')) + QStringLiteral(".h5"), QString(125, QChar(0xe9)) + QStringLiteral("xx.csv")}) {
            const QString tooLong = out.filePath(name);
            const char *option = name.endsWith(QLatin1String(".h5")) ? "--results" : "--csv";
            const Run r = runRankscope({"analyze", dir.path(), option, tooLong, "--no-cache"});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("rankscope analyze: " + tooLong + ": the file name is too long (256 bytes; its folder allows at most 255)\n"), qPrintable(r.err));
            QVERIFY2(!r.err.contains("checkpoints analysed"), qPrintable(r.err));
        }
    }

    // A write that stops part-way says why in the system's words, never "Unknown error": a
    // file-size limit stops a write as a full disk does (a short write, then one that fails: EFBIG
    // where a full disk gives ENOSPC), for the tables, the results file and a figure; /dev/full
    // fails with ENOSPC itself, written directly or through a link named like a figure.
    // An Inf in a results file's stored spectrum made `export --figure spectrum` die with SIGSEGV
    // (the density indexed past its bins). That matrix is named and left out (exit status 2), the
    // others are drawn, and asking for it by its step says it is not there.
    // Each command's --help works on its own (info's asked for a FOLDER first and printed nothing),
    // and its options are the ones the manual page and the bash completion offer, no more, no less.
    void helpManPageAndCompletionListTheSameOptions()
    {
        static const QRegularExpression option(QStringLiteral(R"(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)"));
        auto optionsIn = [](const QString &text) {
            QSet<QString> found;
            for (auto it = option.globalMatch(text); it.hasNext();)
                found.insert(it.next().captured(0));
            found.remove(QStringLiteral("--help-all")); // Qt's, for its own options
            return found;
        };
        QSet<QString> fromHelp{QStringLiteral("--help"), QStringLiteral("--version")};
        for (const char *command : {"analyze", "info", "export", "plan"}) {
            const Run r = runRankscope({command, "--help"});
            QCOMPARE(r.exitCode, 0);
            const QSet<QString> own = optionsIn(r.out);
            QVERIFY2(own.size() > 2, qPrintable(QString::fromLatin1(command) + ": " + r.out + r.err));
            fromHelp.unite(own);
        }
        const QString manPage = QString::fromUtf8(contents(QStringLiteral(RANKSCOPE_REFERENCE_DIR "/rankscope.1")))
                                    .replace(QLatin1String("\\-"), QLatin1String("-"));
        const QString completion = QString::fromUtf8(contents(QStringLiteral(RANKSCOPE_REFERENCE_DIR "/rankscope.bash-completion")));
        QVERIFY(!manPage.isEmpty() && !completion.isEmpty());
        auto differ = [](const QSet<QString> &a, const QSet<QString> &b) {
            QStringList only = QSet<QString>(a).subtract(b).values(), other = QSet<QString>(b).subtract(a).values();
            only.sort();
            other.sort();
            return QStringLiteral("only in --help: %1; only in the other: %2").arg(only.join(' '), other.join(' '));
        };
        QVERIFY2(optionsIn(manPage) == fromHelp, qPrintable("man page: " + differ(fromHelp, optionsIn(manPage))));
        QVERIFY2(optionsIn(completion) == fromHelp, qPrintable("completion: " + differ(fromHelp, optionsIn(completion))));
    }

    // `plan` on the demo run: a budget's JSON for PEFT (rank_pattern of the checkpoint's own module
    // names, c_attn the largest of its Q, K, V), and --energy 0.9's ranks as CSV, each the k_τ the
    // expected metrics' compression_pct gives at step 100 (r·(1 − pct/100)), or the full rank where k_τ's
    // factors would cost the matrix's mn or more.
    void planWritesPeftRanksAndCsv()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("plan.json"), csv = dir.filePath("plan.csv");
        Run r = runRankscope({"plan", RANKSCOPE_DEMO_RUN, "--keep", "0.4", "--out", json});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("Rank plan of step 1500 for --keep 0.4: 24 matrices"), qPrintable(r.out));
        QVERIFY2(r.out.contains("Rule: budget greedy"), qPrintable(r.out));
        QVERIFY2(r.err.contains("wrote " + json), qPrintable(r.err));
        const QJsonObject plan = QJsonDocument::fromJson(contents(json)).object();
        QCOMPARE(plan["step"].toInt(), 1500);
        const QJsonObject pattern = plan["rank_pattern"].toObject();
        QCOMPARE(pattern.size(), 16); // c_attn, attn.c_proj, c_fc, mlp.c_proj of 4 layers
        const QJsonObject parts = plan["rank_pattern_parts"].toObject()["transformer.h.2.attn.c_attn"].toObject();
        QCOMPARE(parts.keys(), (QStringList{"K", "Q", "V"}));
        QCOMPARE(pattern["transformer.h.2.attn.c_attn"].toInt(), std::max({parts["Q"].toInt(), parts["K"].toInt(), parts["V"].toInt()}));
        const QJsonObject totals = plan["totals"].toObject();
        QVERIFY(totals["params_after"].toInteger() <= std::floor(0.4 * totals["params_before"].toDouble()));
        QVERIFY(totals["energy_kept"].toDouble() <= totals["optimum_energy_bound"].toDouble());
        QCOMPARE(plan["matrices"].toArray().size(), 24);

        // Step 100: some of its matrices' k_τ cost their mn or more, others not.
        r = runRankscope({"plan", RANKSCOPE_DEMO_RUN, "--energy", "0.9", "--step", "100", "--out", csv});
        QCOMPARE(r.exitCode, 0);
        QHash<QString, double> expectedPct; // "layer,type" at step 100
        for (const QString &line : QString::fromUtf8(contents(RANKSCOPE_TEST_DATA "/nanogpt-d4.metrics.csv")).split('\n', Qt::SkipEmptyParts)) {
            const QStringList f = line.split(',');
            if (f[0] == "100")
                expectedPct.insert(f[1] + ',' + f[2], f[6].toDouble());
        }
        const QStringList rows = QString::fromUtf8(contents(csv)).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 25);
        const QStringList header = rows.first().split(',');
        int dense = 0;
        for (const QString &row : rows.mid(1)) {
            const QStringList f = row.split(',');
            const qint64 m = f[header.indexOf("rows")].toLongLong(), n = f[header.indexOf("cols")].toLongLong(), full = std::min(m, n);
            const qint64 k = std::llround(double(full) * (1 - expectedPct.value(f[header.indexOf("layer")] + ',' + f[header.indexOf("type")]) / 100));
            const bool isDense = k * (m + n) >= m * n;
            dense += isDense;
            QCOMPARE(f[header.indexOf("rank")].toLongLong(), isDense ? full : k);
            QCOMPARE(f[header.indexOf("dense")], QString(isDense ? "true" : "false"));
            QCOMPARE(f[header.indexOf("params_after")].toLongLong(), isDense ? m * n : k * (m + n));
        }
        QVERIFY(dense > 0 && dense < 24); // both kinds are checked
    }

    // Exactly one target, each in its range, an output that is .json or .csv and replaces nothing
    // read, a step the run has, a budget at least rank 1 everywhere: each refused with exit 1 and why.
    void planRefusesWhatItCannotDo()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("p.json");
        const QString demo = RANKSCOPE_DEMO_RUN;
        const QList<QPair<QStringList, QString>> refused = {
            {{"plan", demo, "--out", out}, "rankscope plan: give a target: --keep F, --energy τ or --max-error E\n"},
            {{"plan", demo, "--keep", "0.4", "--energy", "0.9", "--out", out}, "rankscope plan: give one of --keep, --energy and --max-error, not several\n"},
            {{"plan", demo, "--keep", "0", "--out", out}, "rankscope plan: --keep takes a number in (0, 1], not '0'\n"},
            {{"plan", demo, "--keep", "1.5", "--out", out}, "rankscope plan: --keep takes a number in (0, 1], not '1.5'\n"},
            {{"plan", demo, "--energy", "nan", "--out", out}, "rankscope plan: --energy takes a number in (0, 1], not 'nan'\n"},
            {{"plan", demo, "--max-error", "-0.1", "--out", out}, "rankscope plan: --max-error takes a number from 0 to 1, not '-0.1'\n"},
            {{"plan", demo, "--keep", "0.4", "--out", dir.filePath("p.txt")}, "rankscope plan: --out needs a .json or .csv file\n"},
            {{"plan", demo, "--keep", "0.4"}, "rankscope plan: --out needs a .json or .csv file\n"},
            {{"plan", demo, "--keep", "0.4", "--step", "1e3", "--out", out}, "rankscope plan: --step takes last or a whole number, 0 or more, not '1e3'\n"},
            {{"plan", "--keep", "0.4", "--out", out}, "rankscope plan: give one SOURCE\n"},
            {{"plan", demo, "--keep", "0.4", "--step", "7", "--out", out}, "rankscope plan: no checkpoint at step 7\n"},
        };
        for (const auto &[arguments, message] : refused) {
            const Run r = runRankscope(arguments);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.endsWith(message), qPrintable(arguments.join(' ') + " said: " + r.err));
            QVERIFY(!QFileInfo::exists(out));
        }
        Run r = runRankscope({"plan", demo, "--keep", "0.01", "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QRegularExpression("rankscope plan: --keep 0.01 is below the smallest plan of step 1500: rank 1 for every matrix "
                                                   "keeps 0\\.0[0-9]+ of the parameters; give --keep from 0\\.0[0-9]+ to 1\n")),
                 qPrintable(r.err));
        // A checkpoint named like a plan is not replaced.
        const QString disguised = dir.filePath("ckpt.json");
        QVERIFY(QFile::copy(QDir(demo).filePath("ckpt_000000.pt"), disguised));
        const QByteArray before = contents(disguised);
        r = runRankscope({"plan", demo, "--keep", "0.4", "--out", disguised});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(disguised + ": is a checkpoint"), qPrintable(r.err));
        QCOMPARE(contents(disguised), before);
    }

    void exportSurvivesANonFiniteStoredSpectrum()
    {
        QTemporaryDir dir;
        for (const char *name : {"ckpt_000000.pt", "ckpt_000100.pt"})
            QVERIFY(QFile::copy(QDir(RANKSCOPE_DEMO_RUN).filePath(name), dir.filePath(name)));
        const QString results = dir.filePath("run.h5");
        QCOMPARE(runRankscope({"analyze", dir.path(), "--results", results, "--quiet"}).exitCode, 0);
        {
            const hid_t file = H5Fopen(QFile::encodeName(results).constData(), H5F_ACC_RDWR, H5P_DEFAULT);
            QVERIFY(file >= 0);
            const hid_t data = H5Dopen2(file, "singular_values", H5P_DEFAULT);
            QVERIFY(data >= 0);
            const hid_t space = H5Dget_space(data);
            std::vector<double> values(size_t(H5Sget_simple_extent_npoints(space)));
            H5Sclose(space);
            QVERIFY(H5Dread(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
            values[0] = std::numeric_limits<double>::infinity(); // the first matrix's σ₁: step 0, layer 0 Q
            QVERIFY(H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
            H5Dclose(data);
            H5Fclose(file);
            test::clearResultsSeal(results);
        }
        const QString said = QStringLiteral("ckpt_000000.pt: transformer.h.0.attn.c_attn.weight[Q]: its spectrum in the results file "
                                            "cannot be used: 1 of its 64 singular values is NaN or Inf");
        Run r = runRankscope({"export", results, "--figure", "spectrum", "--layer", "0", "--type", "Q", "--out", dir.filePath("last.png")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(said), qPrintable(r.err));
        QVERIFY(QImage(dir.filePath("last.png")).width() > 0); // step 100's, drawn
        r = runRankscope({"export", results, "--figure", "spectrum", "--layer", "0", "--type", "Q", "--step", "0", "--out", dir.filePath("first.png")});
        QCOMPARE(r.exitCode, 1); // never a crash (-1)
        QVERIFY2(r.err.contains("no layer 0 Q matrix at step 0"), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(dir.filePath("first.png")));
    }

    void failedWritesSayWhy()
    {
        QTemporaryDir dir, out;
        writeTinyRun(dir.path());
        const QString csv = out.filePath("m.csv"), json = out.filePath("m.json"), results = out.filePath("run.h5");
        Launch fullDisk;
        fullDisk.fileSizeLimit = 1024;
        Run r = runRankscope({"analyze", dir.path(), "--csv", csv, "--json", json, "--results", results}, fullDisk);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rankscope analyze: " + csv + ": cannot be written: File too large\n"), qPrintable(r.err));
        QVERIFY2(r.err.contains("rankscope analyze: " + json + ": cannot be written: File too large\n"), qPrintable(r.err));
        QVERIFY2(r.err.contains("results not saved: " + results + ": cannot be written: File too large"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("Unknown error"), qPrintable(r.err));
        QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden), QStringList()); // nothing half-written, no temporaries

        for (const char *option : {"--csv", "--json"}) {
            r = runRankscope({"analyze", dir.path(), option, "/dev/full", "--quiet"});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("rankscope analyze: /dev/full: cannot be written: No space left on device\n"), qPrintable(r.err));
        }
        const QString svg = out.filePath("f.svg"), full = out.filePath("full.png");
        QCOMPARE(runRankscope({"export", dir.path(), "--figure", "lines", "--out", svg}).exitCode, 0);
        const QByteArray before = contents(svg);
        Launch smallDisk;
        smallDisk.fileSizeLimit = 2048;
        r = runRankscope({"export", dir.path(), "--figure", "heatmaps", "--out", svg}, smallDisk);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rankscope export: " + svg + ": cannot be written: File too large\n"), qPrintable(r.err));
        QCOMPARE(contents(svg), before);
        QVERIFY(QFile::link("/dev/full", full));
        r = runRankscope({"export", dir.path(), "--figure", "lines", "--out", full});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rankscope export: " + full + ": cannot be written: No space left on device\n") && !r.err.contains("wrote"), qPrintable(r.err));
    }

    void infoListsCheckpointsAndTensors()
    {
        const Run r = runRankscope({"info", RANKSCOPE_DEMO_RUN, "--step", "600"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("Checkpoints in"));
        QVERIFY(r.out.contains(QRegularExpression("\\n  1500 +pytorch +ckpt_001500.pt")));
        QVERIFY(r.out.contains("Tensors of step 600 (ckpt_000600.pt)"));
        QVERIFY(r.out.contains(QRegularExpression("transformer\\.h\\.2\\.attn\\.c_attn\\.weight\\s+\\[192, 64\\]\\s+float32\\s+2\\s+GPT-2 / nanoGPT / GPT-BigCode\\s+Q, K, V")));
        QVERIFY(r.out.contains(QRegularExpression("lm_head\\.weight.*skipped: not an attention or MLP matrix")));
        QVERIFY(r.out.contains("24 typed matrices"));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestCommandLine)
} // namespace tst_commandline

#include "tst_CommandLine.moc"
