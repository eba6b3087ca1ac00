#include "AnalyzeCommand.h"

#include "CommandOptions.h"
#include "MpiTeam.h"
#include "analysis/MetricsTable.h"
#include "analysis/RunLoader.h"
#include "analysis/ResultsCacheLocation.h"
#include "analysis/RunAnalyzer.h"
#include "spectral/BlasKernelChoice.h"

#include "analysis/CheckpointDiscovery.h"
#include "analysis/RunWatch.h"
#include "io/OutputFile.h"
#include "io/PrintableText.h"

#include <QBuffer>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QTimer>
#include <atomic>
#include <csignal>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>
#include <QThread>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace rankscope {

namespace {

// Set by SIGINT/SIGTERM: the running pass is cancelled (its analysed checkpoints are saved) and
// the watch loop ends.
std::atomic<bool> g_interrupted{false};
// The analyses' cancel flag (RunLoadOptions::cancel), set before the handler is installed.
std::atomic<bool> *g_cancel = nullptr;

void onInterrupt(int)
{
    // A second Ctrl+C is not asked twice: the user wants out now.
    if (g_interrupted.exchange(true))
        _exit(130);
    if (g_cancel)
        *g_cancel = true; // an atomic store: safe in a signal handler
}

// After an interrupted pass has saved every completed checkpoint: solves still running (minutes,
// for a large matrix) are not waited for, and nothing that could wait on them runs at exit.
[[noreturn]] void endInterrupted(QTextStream &err, int status)
{
    err.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(status);
}

// Runs named by their path below FOLDER, as a file name: seed0, lr3e-4-seed1.
QStringList runNames(const QString &folder, const QStringList &runs)
{
    QStringList names;
    for (const QString &run : runs)
        names << QDir(QFileInfo(folder).absoluteFilePath()).relativeFilePath(run).replace(QLatin1Char('/'), QLatin1Char('-'));
    return names;
}

// out.csv → out-seed0.csv: one output file per run.
QString withRunName(const QString &path, const QString &run)
{
    if (path.isEmpty())
        return {};
    const QFileInfo info(path);
    const QString suffix = info.suffix().isEmpty() ? QString() : QLatin1Char('.') + info.suffix();
    return info.dir().filePath(info.completeBaseName() + QLatin1Char('-') + run + suffix);
}

} // namespace

int runAnalyzeCommand(const QStringList &arguments)
{
    QTextStream err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Analyse every attention and MLP matrix of every checkpoint in FOLDER."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("FOLDER"), QStringLiteral("The folder of checkpoints."));
    const QCommandLineOption energy(QStringLiteral("energy"), QStringLiteral("Energy τ kept for compression_pct (default 0.90)."), QStringLiteral("τ"), QStringLiteral("0.90"));
    const QCommandLineOption jobs(QStringLiteral("jobs"), QStringLiteral("Worker threads (default, or 0: one per core; never more than the cores)."), QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption csv(QStringLiteral("csv"), QStringLiteral("Write the metrics table as CSV ('-' for standard output)."), QStringLiteral("FILE"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Write the metrics as JSON records ('-' for standard output)."), QStringLiteral("FILE"));
    const QCommandLineOption method(QStringLiteral("method"), QStringLiteral("Spectrum solver: gram (fast, default) or svd (exact)."), QStringLiteral("NAME"), QStringLiteral("gram"));
    const QCommandLineOption rulesOption(QStringLiteral("rules"), QStringLiteral("Naming rules (JSON) applied before the built-in ones."), QStringLiteral("FILE"));
    const QCommandLineOption results(QStringLiteral("results"), QStringLiteral("The results file (HDF5) to reuse and update (default: in the user's cache)."), QStringLiteral("FILE.h5"));
    const QCommandLineOption noCache(QStringLiteral("no-cache"), QStringLiteral("Analyse every checkpoint again; write the cache only if --results names a file."));
    const QCommandLineOption quiet(QStringLiteral("quiet"), QStringLiteral("No progress or summary on standard error."));
    const QCommandLineOption watchOption(QStringLiteral("watch"), QStringLiteral("Keep watching FOLDER and analyse each new or replaced checkpoint until Ctrl+C."));
    const QCommandLineOption settleOption(QStringLiteral("settle"), QStringLiteral("--watch: seconds a checkpoint must stay unchanged before it is read (default 3)."), QStringLiteral("S"), QStringLiteral("3"));
    const QCommandLineOption runsOption(QStringLiteral("runs"), QStringLiteral("FOLDER holds runs (seed0/, seed1/, …): analyse each into its own results file "
                                                                               "(in the cache, or FOLDER.h5 files in the folder --results names); --csv/--json get the run's name before their suffix."));
    const QCommandLineOption randDistanceOption(QStringLiteral("rand-distance"), QStringLiteral("Also compute WeightWatcher's rand_distance: every matrix is decomposed a second time with its entries shuffled (fixed seed)."));
    const QCommandLineOption autosaveOption(QStringLiteral("autosave"), QStringLiteral("Seconds between saves of the results file while the analysis runs (default 10; 0: after every checkpoint). A killed job loses at most this much."), QStringLiteral("S"), QStringLiteral("10"));
    const QCommandLineOption deltaOption(QStringLiteral("delta"), QStringLiteral("Also compute the change from the reference checkpoint, D = W - W_ref (delta_* columns and D's spectrum): a second decomposition of every matrix."));
    const QCommandLineOption referenceOption(QStringLiteral("reference"), QStringLiteral("--delta: the step of the reference checkpoint (default: the run's first)."), QStringLiteral("STEP"));
    const QCommandLineOption subspaceOption(QStringLiteral("subspace"), QStringLiteral("Also compute the agreement of every matrix's top right singular vectors with the previous checkpoint's (subspace_overlap, top_vector_cosine)."));
    const QCommandLineOption subspaceKOption(QStringLiteral("subspace-k"), QStringLiteral("--subspace: how many top singular vectors (default %1).").arg(kDefaultSubspaceK), QStringLiteral("K"));
    parser.addOptions({energy, jobs, csv, json, method, rulesOption, results, noCache, quiet, watchOption, settleOption, runsOption, randDistanceOption,
                       deltaOption, referenceOption, subspaceOption, subspaceKOption, autosaveOption});
    if (!parser.parse(QStringList{QStringLiteral("rankscope analyze")} + arguments.mid(1))) {
        err << "rankscope analyze: " << parser.errorText() << '\n';
        return 1;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    if (parser.positionalArguments().size() != 1) {
        err << "rankscope analyze: give exactly one FOLDER\n" << parser.helpText();
        return 1;
    }
    AnalysisSettings settings;
    bool ok = false;
    // Every number is read whole and checked as read (CommandOptions): nothing wraps, nothing non-finite passes.
    QString optionError;
    auto refuse = [&] {
        err << "rankscope analyze: " << optionError << '\n';
        return 1;
    };
    const std::optional<double> energyValue = numberOption(QStringLiteral("energy"), parser.value(energy), 0, 1, &optionError, QStringLiteral("a number"), true);
    if (!energyValue)
        return refuse();
    settings.energy = *energyValue;
    // More workers than cores only wait for one (and a worker's bookkeeping for 2^31 of them took
    // 16 GB): what is asked for beyond the cores is clamped, and said.
    const std::optional<qint64> jobsValue = wholeOption(QStringLiteral("jobs"), parser.value(jobs), 0, std::numeric_limits<qint64>::max(), &optionError,
                                                        QStringLiteral("a whole number of workers"));
    if (!jobsValue)
        return refuse();
    const int cores = std::max(1, QThread::idealThreadCount());
    QString jobsNote;
    if (*jobsValue > cores)
        jobsNote = QStringLiteral("note: --jobs %1 is more than the %2 cores this process may use: %2 workers\n").arg(*jobsValue).arg(cores);
    settings.jobs = int(std::min<qint64>(*jobsValue, cores));
    if (parser.value(method) != QLatin1String("gram") && parser.value(method) != QLatin1String("svd")) {
        err << "rankscope analyze: --method is gram or svd\n";
        return 1;
    }
    settings.method = parser.value(method) == QLatin1String("svd") ? SvdMethod::ExactSvd : SvdMethod::FastGram;
    settings.randDistance = parser.isSet(randDistanceOption);
    settings.delta = parser.isSet(deltaOption) || parser.isSet(referenceOption);
    if (parser.isSet(referenceOption)) {
        settings.referenceStep = parser.value(referenceOption).toLongLong(&ok);
        if (!ok || *settings.referenceStep < 0) {
            err << "rankscope analyze: --reference takes a step (a whole number ≥ 0)\n";
            return 1;
        }
    }
    settings.subspace = parser.isSet(subspaceOption) || parser.isSet(subspaceKOption);
    if (parser.isSet(subspaceKOption)) {
        const std::optional<qint64> k = wholeOption(QStringLiteral("subspace-k"), parser.value(subspaceKOption), 1, 4096, &optionError);
        if (!k)
            return refuse();
        settings.subspaceK = int(*k);
    }
    // Seconds become whole milliseconds of timers and file ages: a day at most, and never NaN or infinite.
    constexpr double kMaxSeconds = 86400;
    const std::optional<double> autosave = numberOption(QStringLiteral("autosave"), parser.value(autosaveOption), 0, kMaxSeconds, &optionError, QStringLiteral("seconds"));
    if (!autosave)
        return refuse();
    settings.autosaveSeconds = *autosave;
    // Checked whether or not --watch is given: a value given is never silently unused.
    const std::optional<double> settle = numberOption(QStringLiteral("settle"), parser.value(settleOption), 0, kMaxSeconds, &optionError, QStringLiteral("seconds"));
    if (!settle)
        return refuse();

    // Under mpirun or srun: this process is one rank of a team that shares the matrices. Rank 0
    // reports and writes; the others compute and stay quiet.
    if (MpiTeam::launched() && MpiTeam::libraryVersion().isEmpty() && qEnvironmentVariableIntValue("OMPI_COMM_WORLD_SIZE") != 1) {
        err << "rankscope analyze: started by an MPI launcher, but this rankscope is built without MPI support "
               "(build it with libopenmpi-dev installed; see rankscope --version)\n";
        return 1;
    }
    const std::unique_ptr<MpiTeam> team = MpiTeam::join();
    settings.team = team.get();
    const bool leads = !team || team->leads();
    QString discarded;
    if (!leads)
        err.setString(&discarded, QIODevice::WriteOnly); // rank 0 says what there is to say
    if (team && team->size() > 1 && parser.isSet(watchOption)) {
        err << "rankscope analyze: --watch runs in one process; start it without mpirun\n";
        return 1;
    }
    const bool silent = parser.isSet(quiet) || !leads;
    err << jobsNote;
    const bool terminal = isatty(fileno(stderr));

    const QString folder = parser.positionalArguments().first();
    RunLoadOptions options;
    options.useCache = !parser.isSet(noCache);
    if (parser.isSet(results))
        settings.resultsPath = parser.value(results);
    else if (options.useCache)
        settings.resultsPath = ResultsCacheLocation::forFolder(folder);
    options.settings = settings;
    if (parser.isSet(rulesOption)) {
        QString error;
        options.rules = TensorNameRules::withUserRules(parser.value(rulesOption), &error);
        if (!options.rules) {
            err << "rankscope analyze: " << printableText(error) << '\n';
            return 1;
        }
    }

    const bool watch = parser.isSet(watchOption);
    if (watch)
        options.settings.settleSeconds = *settle;
    // Every output is checked before the analysis, so a mistyped path costs no analysis. The
    // results file's folder is made, as every save would (with --runs, --results names that folder).
    const bool eachRun = parser.isSet(runsOption);
    if (parser.isSet(results))
        QDir().mkpath(eachRun ? settings.resultsPath : QFileInfo(settings.resultsPath).absolutePath());
    for (const QCommandLineOption *output : {&csv, &json, &results}) {
        if (!parser.isSet(*output))
            continue;
        const QString outputPath = eachRun && output == &results ? QDir(parser.value(results)).filePath(QStringLiteral("run.h5")) : parser.value(*output);
        if (const QString problem = outputFileProblem(outputPath); !problem.isEmpty()) {
            err << "rankscope analyze: " << printableText(problem) << '\n';
            return 1;
        }
    }
    // Where one run is read from and written to: FOLDER itself, or each run below it with --runs.
    struct RunTarget {
        QString folder, resultsPath, csvPath, jsonPath;
    };
    const RunTarget single{folder, settings.resultsPath, parser.value(csv), parser.value(json)};

    // No output replaces what it must not (replacedInputProblem, one check for all of them): an
    // explicit results file is replaced by every save, so whatever else sits at that path is kept
    // (a damaged file of RankScope's own is rebuilt); --csv and --json never replace a checkpoint
    // (the run's own included), an array or a results file. And no two outputs, nor an output and
    // --rules, are one file. Asked of every run's outputs before any of them is analysed.
    auto refusedOutputs = [&](const RunTarget &target, bool withResults) {
        QList<OptionPath> outputs{{QStringLiteral("csv"), target.csvPath}, {QStringLiteral("json"), target.jsonPath}};
        if (withResults && parser.isSet(results))
            outputs.append({QStringLiteral("results"), target.resultsPath});
        QString problem;
        for (const OptionPath &output : outputs)
            if (problem.isEmpty())
                problem = replacedInputProblem(output, output.option == QLatin1String("results"));
        if (problem.isEmpty())
            problem = sharedPathProblem(outputs, parser.isSet(rulesOption) ? QList<OptionPath>{{QStringLiteral("rules"), parser.value(rulesOption)}}
                                                                           : QList<OptionPath>{});
        if (!problem.isEmpty())
            err << "rankscope analyze: " << printableText(problem) << '\n';
        return !problem.isEmpty();
    };
    if (!eachRun && refusedOutputs(single, true))
        return 1;

    // Ctrl+C (or SIGTERM) cancels the analysis: the checkpoints completed so far are saved and the
    // process ends at once, not after the solves in flight.
    options.cancel = std::make_shared<std::atomic<bool>>(false);
    g_cancel = options.cancel.get();
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);

    // One pass: an incremental analysis, its report, and the CSV/JSON rewritten whole.
    std::optional<RunAnalysis> last;
    auto pass = [&](const RunTarget &target) -> int {
        QElapsedTimer timer;
        timer.start();
        RunLoadOptions passOptions = options;
        passOptions.settings.resultsPath = target.resultsPath;
        passOptions.previous = last ? &*last : nullptr;
        LoadedRun loaded = loadRun(target.folder, passOptions,
            [&](const AnalysisProgress &p, const QList<MatrixResult> &results) {
                if (silent)
                    return;
                if (results.isEmpty() && !terminal)
                    return; // plain lines: one per checkpoint
                QString line = QStringLiteral("%1/%2 checkpoints, %3/%4 matrices, %5")
                                   .arg(p.checkpointsDone).arg(p.checkpointsTotal).arg(p.matricesDone).arg(p.matricesTotal)
                                   .arg(printableText(QFileInfo(p.currentFile).fileName()));
                if (p.etaSeconds >= 0 && p.checkpointsDone < p.checkpointsTotal)
                    line += QStringLiteral(", ETA %1 s").arg(p.etaSeconds, 0, 'f', 0);
                if (terminal) {
                    const int width = 30, filled = p.checkpointsTotal ? width * p.checkpointsDone / p.checkpointsTotal : width;
                    err << '\r' << '[' << QString(filled, QLatin1Char('#')) << QString(width - filled, QLatin1Char('.')) << "] " << line << "\x1b[K";
                    if (p.checkpointsDone == p.checkpointsTotal && !results.isEmpty())
                        err << '\n';
                } else {
                    err << line << '\n';
                }
                err.flush();
            });
        for (const QString &message : loaded.messages)
            err << message << '\n';
        if (!loaded.run)
            return 1;
        if (!leads) { // its RunAnalysis holds its own share only
            last = std::move(loaded.run);
            return 0;
        }
        const RunAnalysis &run = *loaded.run;
        for (const QString &line : run.issueLines())
            err << line << '\n';
        // Never averaged, never silent: a checkpoint whose step another one keeps is named.
        for (const SkippedFile &skipped : run.sidecars)
            if (skipped.duplicate)
                err << QFileInfo(skipped.path).fileName() << ": not analysed: " << skipped.reason << '\n';
        for (const QString &note : run.notes)
            err << "note: " << printableText(note) << '\n';
        for (const QString &path : silent ? QStringList() : run.pending)
            err << printableText(QFileInfo(path).fileName()) << ": still being written; analysed once it has not changed for "
                << options.settings.settleSeconds << " s\n";
        // Whole or not at all, and any failure (a full disk, /dev/full) is exit status 1.
        bool written = true;
        auto write = [&](const QString &outputPath, const QByteArray &bytes) {
            QString error;
            if (!outputPath.isEmpty() && !writeOutputFile(outputPath, bytes, &error)) {
                err << "rankscope analyze: " << printableText(error) << '\n';
                written = false;
            }
        };
        if (!target.csvPath.isEmpty()) {
            QBuffer table;
            table.open(QIODevice::WriteOnly);
            MetricsTable::writeCsv(run.results, table);
            write(target.csvPath, table.data());
        }
        if (!target.jsonPath.isEmpty())
            write(target.jsonPath, MetricsTable::toJson(run.results).toJson(QJsonDocument::Indented));
        // The cache only saves time; a results file the user named is an output like the others.
        if (parser.isSet(results) && !run.resultsError.isEmpty())
            written = false;
        if (!silent && run.timings.readSeconds > 0)
            err << QStringLiteral("time: reading %1 s; spectra %2 s and metrics %3 s in %4 workers; %5\n")
                       .arg(run.timings.readSeconds, 0, 'f', 2).arg(run.timings.spectraSeconds, 0, 'f', 2)
                       .arg(run.timings.metricsSeconds, 0, 'f', 2)
                       .arg((team && team->size() > 1 ? QStringLiteral("%1 ranks × ").arg(team->size()) : QString()) +
                            QString::number(settings.jobs > 0 ? settings.jobs : QThread::idealThreadCount()))
                       .arg(QString::fromStdString(describeBlasKernel()));
        if (!silent)
            err << QStringLiteral("%1 of %2 checkpoints analysed (%3 from the results file), %4 matrices, %5 s%6\n")
                       .arg(run.checkpointsAnalysed).arg(run.checkpointsFound)
                       .arg(std::count_if(run.checkpoints.begin(), run.checkpoints.end(), [](const CheckpointRecord &c) { return c.fromCache; }))
                       .arg(run.results.size()).arg(timer.elapsed() / 1000.0, 0, 'f', 2)
                       .arg(target.resultsPath.isEmpty() || !run.resultsError.isEmpty() ? QString()
                                                                                        : QStringLiteral("; results in ") + printableText(target.resultsPath));
        const int status = !written || run.results.isEmpty() ? 1 : run.issues.isEmpty() ? 0 : 2;
        if (run.results.isEmpty() && run.checkpointsFound == 0 && run.pending.isEmpty() && !watch) {
            if (!run.runs.isEmpty())
                err << printableText(target.folder) << " holds no checkpoints of its own but " << run.runs.size() << " run(s): "
                    << printableText(runNames(target.folder, run.runs).join(QLatin1String(", "))) << ".\nrankscope analyze "
                    << printableText(target.folder) << " --runs analyses each into its own results file; rankscope analyze "
                    << printableText(run.runs.first()) << " analyses one.\n";
            else
                err << printableText(target.folder) << ": no checkpoints found\n";
        } else {
            for (const QString &inner : run.runs)
                err << "note: " << printableText(runNames(target.folder, {inner}).first()) << " holds a run of its own, not analysed with this one (see --runs)\n";
        }
        err.flush();
        last = std::move(loaded.run);
        return status;
    };

    if (eachRun) {
        if (watch) {
            err << "rankscope analyze: --watch follows one run; give it one of the runs\n";
            return 1;
        }
        if (parser.value(csv) == QLatin1String("-") || parser.value(json) == QLatin1String("-")) {
            err << "rankscope analyze: --runs writes one CSV/JSON file per run: give --csv/--json a file name, not '-'\n";
            return 1;
        }
        const QStringList runs = CheckpointDiscovery::scan(folder).runs;
        if (runs.isEmpty()) {
            if (refusedOutputs(single, false))
                return 1;
            err << "note: " << folder << " holds no runs below it: analysed as one run\n";
            return pass(single);
        }
        const QStringList names = runNames(folder, runs);
        QList<RunTarget> targets;
        for (qsizetype i = 0; i < runs.size(); ++i) {
            RunTarget target{runs[i], {}, withRunName(parser.value(csv), names[i]), withRunName(parser.value(json), names[i])};
            if (parser.isSet(results))
                target.resultsPath = QDir(parser.value(results)).filePath(names[i] + QStringLiteral(".h5"));
            else if (options.useCache)
                target.resultsPath = ResultsCacheLocation::forFolder(runs[i]);
            if (refusedOutputs(target, true))
                return 1;
            targets << target;
        }
        QStringList written;
        QList<int> statuses;
        for (qsizetype i = 0; i < targets.size(); ++i) {
            if (!silent)
                err << "run " << printableText(names[i]) << " (" << printableText(runs[i]) << "):\n";
            last.reset(); // each run its own analysis
            statuses << pass(targets[i]);
            written << QStringLiteral("  %1 → %2").arg(names[i], targets[i].resultsPath.isEmpty() ? QStringLiteral("no results file (--no-cache)") : targets[i].resultsPath);
            if (g_interrupted) {
                err << "interrupted in run " << printableText(names[i]) << "; its completed checkpoints are kept:\n" << written.join(QLatin1Char('\n')) << '\n';
                endInterrupted(err, 130);
            }
        }
        err << runs.size() << " runs analysed:\n" << written.join(QLatin1Char('\n')) << '\n';
        // 0 when every run was analysed whole, 1 when none gave anything, 2 otherwise.
        if (std::all_of(statuses.begin(), statuses.end(), [](int s) { return s == 0; }))
            return 0;
        return std::all_of(statuses.begin(), statuses.end(), [](int s) { return s == 1; }) ? 1 : 2;
    }

    if (!watch) {
        const int status = pass(single);
        if (g_interrupted) {
            err << "interrupted: " << (last ? last->checkpointsAnalysed : 0) << " completed checkpoint(s) kept"
                << (settings.resultsPath.isEmpty() ? QString() : QStringLiteral(" in ") + printableText(settings.resultsPath))
                << "; the same command goes on from there\n";
            endInterrupted(err, 130);
        }
        return status;
    }

    // Watch: a pass now, then one whenever the folder changes, until Ctrl+C (or SIGTERM). The
    // results file is replaced whole after every pass, so an interrupt leaves a complete one.
    if (!QFileInfo(folder).isDir()) {
        err << printableText(folder) << ": not a folder\n";
        return 1;
    }
    int status = pass(single);
    RunWatch runWatch(folder, options.settings.settleSeconds, [&] {
        if (g_interrupted)
            return; // no more passes: the loop below ends
        const int before = last ? int(last->checkpoints.size()) : 0;
        status = pass(single);
        if (!silent && last && int(last->checkpoints.size()) != before)
            err << "watching " << printableText(folder) << ": " << last->checkpoints.size() << " checkpoints\n";
        runWatch.passFinished(last ? *last : RunAnalysis{});
    });
    runWatch.setDebounce(0.3);
    runWatch.passFinished(last ? *last : RunAnalysis{});
    QTimer interruptPoll;
    QObject::connect(&interruptPoll, &QTimer::timeout, [&] {
        if (g_interrupted)
            QCoreApplication::quit();
    });
    interruptPoll.start(100);
    if (!silent)
        err << "watching " << printableText(folder) << " (Ctrl+C to stop)\n";
    if (!g_interrupted)
        QCoreApplication::exec();
    if (!silent)
        err << "stopped; results are complete" << (settings.resultsPath.isEmpty() ? QString() : QStringLiteral(" in ") + printableText(settings.resultsPath)) << '\n';
    endInterrupted(err, status == 1 && last && !last->results.isEmpty() ? 0 : status);
}

} // namespace rankscope
