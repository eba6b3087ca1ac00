#include "AnalyzeCommand.h"

#include "CommandOptions.h"
#include "MpiTeam.h"
#include "analysis/results/MetricsTable.h"
#include "io/logs/TrainingLogs.h"
#include "analysis/execution/RunLoader.h"
#include "analysis/results/ResultsCacheLocation.h"
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/RunSummary.h"
#include "spectral/AlphaInterval.h"
#include "spectral/BlasKernelChoice.h"
#include "spectral/CudaGramDevice.h"

#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/discovery/RunWatch.h"
#include "analysis/execution/BaseModelRuns.h"
#include "io/OutputFile.h"
#include "base/PrintableText.h"

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

// analyze's own options; --energy and --rules are every command's (CommandParser).
struct AnalyzeOptionSet {
    const QCommandLineOption jobs{QStringLiteral("jobs"), QStringLiteral("Worker threads (default, or 0: one per core; never more than the cores)."), QStringLiteral("N"), QStringLiteral("0")};
    const QCommandLineOption csv{QStringLiteral("csv"), QStringLiteral("Write the metrics table as CSV ('-' for standard output)."), QStringLiteral("FILE")};
    const QCommandLineOption json{QStringLiteral("json"), QStringLiteral("Write the metrics as JSON records ('-' for standard output)."), QStringLiteral("FILE")};
    const QCommandLineOption method{QStringLiteral("method"), QStringLiteral("Spectrum solver: gram (fast, default) or svd (exact)."), QStringLiteral("NAME"), QStringLiteral("gram")};
    const QCommandLineOption results{QStringLiteral("results"), QStringLiteral("The results file (HDF5) to reuse and update (default: in the user's cache)."), QStringLiteral("FILE.h5")};
    const QCommandLineOption noCache{QStringLiteral("no-cache"), QStringLiteral("Analyse every checkpoint again; write the cache only if --results names a file.")};
    const QCommandLineOption quiet{QStringLiteral("quiet"), QStringLiteral("No progress or summary on standard error.")};
    const QCommandLineOption watch{QStringLiteral("watch"), QStringLiteral("Keep watching FOLDER and analyse each new or replaced checkpoint until Ctrl+C.")};
    const QCommandLineOption settle{QStringLiteral("settle"), QStringLiteral("--watch: seconds a checkpoint must stay unchanged before it is read (default 3)."), QStringLiteral("S"), QStringLiteral("3")};
    const QCommandLineOption runs{QStringLiteral("runs"), QStringLiteral("FOLDER holds runs (seed0/, seed1/, …): analyse each into its own results file "
                                                                       "(in the cache, or FOLDER.h5 files in the folder --results names); --csv/--json get the run's name before their suffix.")};
    const QCommandLineOption randDistance{QStringLiteral("rand-distance"), QStringLiteral("Also compute WeightWatcher's rand_distance: every matrix is decomposed a second time with its entries shuffled (fixed seed).")};
    const QCommandLineOption scalar{QStringLiteral("scalar"),
                                    QStringLiteral("Add TAG, a scalar training logged (TensorBoard events, the Trainer's log_history, Lightning's metrics.csv, "
                                                   "nanochat's meta files; rankscope info lists them), as a column of --csv and --json: its value at each "
                                                   "row's step, or the last one logged before it. Repeatable."),
                                    QStringLiteral("TAG")};
    const QCommandLineOption base{QStringLiteral("base"),
                                  QStringLiteral("FOLDER is a LoRA adapter run: also analyse its merged weights W0 + dW at every step and the base model's "
                                                 "W0 of the adapted modules, read from PATH (rows marked merged and base in the weights column)."),
                                  QStringLiteral("PATH")};
    const QCommandLineOption autosave{QStringLiteral("autosave"), QStringLiteral("Seconds between saves of the results file while the analysis runs (default 10; 0: after every checkpoint). A killed job loses at most this much."), QStringLiteral("S"), QStringLiteral("10")};
    const QCommandLineOption delta{QStringLiteral("delta"), QStringLiteral("Also compute the change from the reference checkpoint, D = W - W_ref (delta_* columns and D's spectrum): a second decomposition of every matrix.")};
    const QCommandLineOption reference{QStringLiteral("reference"), QStringLiteral("--delta: the step of the reference checkpoint (default: the run's first)."), QStringLiteral("STEP")};
    const QCommandLineOption subspace{QStringLiteral("subspace"), QStringLiteral("Also compute the agreement of every matrix's top right singular vectors with the previous checkpoint's (subspace_overlap, top_vector_cosine).")};
    const QCommandLineOption alphaCi{QStringLiteral("alpha-ci"), QStringLiteral("Also compute alpha's 95% bootstrap interval (alpha_ci_low, alpha_ci_high): the fitted tail resampled %1 times, fixed seed, x_min held; from the spectra alone.").arg(kAlphaCiResamples)};
    const QCommandLineOption device{QStringLiteral("device"), QStringLiteral("Where the spectra are computed: auto (the GPU when one is usable, default), cpu, or cuda (the GPU; exit 2 without one)."),
                                    QStringLiteral("NAME"), QStringLiteral("auto")};
    const QCommandLineOption subspaceK{QStringLiteral("subspace-k"), QStringLiteral("--subspace: how many top singular vectors (default %1).").arg(kDefaultSubspaceK), QStringLiteral("K")};
    const QCommandLineOption heads{QStringLiteral("heads"), QStringLiteral("Also compute the spectrum of every attention head of Q, K, V and O, and of each head's QK and OV circuits (rows with a head column).")};
};

// More workers than cores only wait for one (and a worker's bookkeeping for 2^31 of them took
// 16 GB): what is asked for beyond the cores is clamped, and said.
bool readJobs(const CommandParser &parser, const AnalyzeOptionSet &o, AnalyzeOptions &options, QString *error)
{
    const std::optional<qint64> jobs = wholeOption(QStringLiteral("jobs"), parser.value(o.jobs), 0, std::numeric_limits<qint64>::max(), error,
                                                   QStringLiteral("a whole number of workers"));
    if (!jobs)
        return false;
    const int cores = std::max(1, QThread::idealThreadCount());
    if (*jobs > cores)
        options.jobsNote = QStringLiteral("note: --jobs %1 is more than the %2 cores this process may use: %2 workers\n").arg(*jobs).arg(cores);
    options.settings.jobs = int(std::min<qint64>(*jobs, cores));
    return true;
}

// The opt-in metrics: --rand-distance, --delta (implied by --reference), --subspace (by --subspace-k), --alpha-ci.
bool readOptIns(const CommandParser &parser, const AnalyzeOptionSet &o, AnalysisSettings &settings, QString *error)
{
    settings.randDistance = parser.isSet(o.randDistance);
    settings.delta = parser.isSet(o.delta) || parser.isSet(o.reference);
    if (parser.isSet(o.reference)) {
        bool ok = false;
        settings.referenceStep = parser.value(o.reference).toLongLong(&ok);
        if (!ok || *settings.referenceStep < 0) {
            *error = QStringLiteral("--reference takes a step (a whole number ≥ 0)");
            return false;
        }
    }
    settings.alphaCi = parser.isSet(o.alphaCi);
    settings.subspace = parser.isSet(o.subspace) || parser.isSet(o.subspaceK);
    settings.heads = parser.isSet(o.heads);
    if (parser.isSet(o.subspaceK)) {
        const std::optional<qint64> k = wholeOption(QStringLiteral("subspace-k"), parser.value(o.subspaceK), 1, 4096, error);
        if (!k)
            return false;
        settings.subspaceK = int(*k);
    }
    return true;
}

// Every number is read whole and checked as read (CommandOptions): nothing wraps, nothing
// non-finite passes. In the order they are refused in.
bool readSettings(const CommandParser &parser, const AnalyzeOptionSet &o, AnalyzeOptions &options, QString *error)
{
    AnalysisSettings &settings = options.settings;
    const std::optional<double> energy = parser.energy(error);
    if (!energy)
        return false;
    settings.energy = *energy;
    if (!readJobs(parser, o, options, error))
        return false;
    if (parser.value(o.method) != QLatin1String("gram") && parser.value(o.method) != QLatin1String("svd")) {
        *error = QStringLiteral("--method is gram or svd");
        return false;
    }
    settings.method = parser.value(o.method) == QLatin1String("svd") ? SvdMethod::ExactSvd : SvdMethod::FastGram;
    const std::optional<DeviceRequest> device = parseDeviceRequest(parser.value(o.device));
    if (!device) {
        *error = QStringLiteral("--device is auto, cpu or cuda");
        return false;
    }
    if (*device == DeviceRequest::Cuda && settings.method == SvdMethod::ExactSvd) {
        *error = QStringLiteral("--method svd runs on the CPU: --device cuda needs --method gram");
        return false;
    }
    options.device = *device;
    if (!readOptIns(parser, o, settings, error))
        return false;
    // Seconds become whole milliseconds of timers and file ages: a day at most, and never NaN or infinite.
    constexpr double kMaxSeconds = 86400;
    const std::optional<double> autosave = numberOption(QStringLiteral("autosave"), parser.value(o.autosave), 0, kMaxSeconds, error, QStringLiteral("seconds"));
    if (!autosave)
        return false;
    settings.autosaveSeconds = *autosave;
    // Checked whether or not --watch is given: a value given is never silently unused.
    const std::optional<double> settle = numberOption(QStringLiteral("settle"), parser.value(o.settle), 0, kMaxSeconds, error, QStringLiteral("seconds"));
    if (!settle)
        return false;
    options.settleSeconds = *settle;
    return true;
}

} // namespace

ParsedOptions<AnalyzeOptions> parseAnalyzeOptions(const QStringList &arguments)
{
    CommandParser parser(QStringLiteral("analyze"), QStringLiteral("Analyse every attention and MLP matrix of every checkpoint in FOLDER."));
    parser.addFolderArgument();
    const AnalyzeOptionSet o;
    parser.addEnergyOption();
    parser.addOptions({o.jobs, o.csv, o.json, o.method, o.device});
    parser.addRulesOption();
    parser.addOptions({o.results, o.noCache, o.quiet, o.watch, o.settle, o.runs, o.randDistance, o.delta, o.reference, o.subspace, o.subspaceK, o.alphaCi, o.heads, o.autosave, o.scalar, o.base});
    if (const std::optional<CommandExit> exit = parser.parseArguments(arguments.mid(1)))
        return *exit;
    if (parser.positionalArguments().size() != 1)
        return CommandExit{1, {}, QStringLiteral("rankscope analyze: give exactly one FOLDER\n") + parser.helpText()};
    AnalyzeOptions options;
    options.folder = parser.positionalArguments().first();
    QString error;
    if (!readSettings(parser, o, options, &error))
        return parser.refusal(error);
    options.csv = parser.valueIfSet(o.csv);
    options.json = parser.valueIfSet(o.json);
    options.results = parser.valueIfSet(o.results);
    options.rules = parser.rulesPath();
    options.useCache = !parser.isSet(o.noCache);
    options.quiet = parser.isSet(o.quiet);
    options.watch = parser.isSet(o.watch);
    options.eachRun = parser.isSet(o.runs);
    options.scalars = parser.values(o.scalar);
    options.base = parser.valueIfSet(o.base);
    if (options.base && options.eachRun)
        return parser.refusal(QStringLiteral("--base goes with one adapter run, not with --runs"));
    if (options.base && !QFileInfo(*options.base).isDir())
        return parser.refusal(QStringLiteral("--base %1: not a folder").arg(printableText(*options.base)));
    return options;
}

namespace {

// Which spectra ran where, for the timing line: "; 70 matrices on the GPU (NVIDIA H200 …), 2 on
// the CPU", or "; on the CPU (no usable GPU: …)".
QString devicePart(const RunAnalysis::Timings &timings, const AnalysisSettings &settings)
{
    if (!settings.device)
        return QStringLiteral("; on the CPU (%1)").arg(printableText(settings.deviceNote.isEmpty() ? QStringLiteral("--method svd") : settings.deviceNote));
    return QStringLiteral("; %1 matrices on the GPU, %2 on the CPU (%3)")
        .arg(timings.matricesOnDevice).arg(timings.matricesOnCpu).arg(printableText(settings.device->description()));
}

// A pass's progress on standard error: a bar redrawn in place on a terminal, else a plain line per
// checkpoint done (checkpointDone: the callback brings a checkpoint's results).
void printProgress(QTextStream &err, bool terminal, const AnalysisProgress &p, bool checkpointDone)
{
    if (!checkpointDone && !terminal)
        return; // plain lines: one per checkpoint
    QString line = QStringLiteral("%1/%2 checkpoints, %3/%4 matrices, %5")
                       .arg(p.checkpointsDone).arg(p.checkpointsTotal).arg(p.matricesDone).arg(p.matricesTotal)
                       .arg(printableText(QFileInfo(p.currentFile).fileName()));
    if (p.etaSeconds >= 0 && p.checkpointsDone < p.checkpointsTotal)
        line += QStringLiteral(", ETA %1 s").arg(p.etaSeconds, 0, 'f', 0);
    if (terminal) {
        const int width = 30, filled = p.checkpointsTotal ? width * p.checkpointsDone / p.checkpointsTotal : width;
        err << '\r' << '[' << QString(filled, QLatin1Char('#')) << QString(width - filled, QLatin1Char('.')) << "] " << line << "\x1b[K";
        if (p.checkpointsDone == p.checkpointsTotal && checkpointDone)
            err << '\n';
    } else {
        err << line << '\n';
    }
    err.flush();
}

// Where one run is read from and written to: FOLDER itself, or each run below it with --runs.
struct RunTarget {
    QString folder, resultsPath, csvPath, jsonPath;
};

// One `rankscope analyze`: the team joined, every output checked before any analysis, then one
// pass (or one per run with --runs, or one per change with --watch), each reported as it ends.
class AnalyzeRun {
public:
    explicit AnalyzeRun(const AnalyzeOptions &options) : m_options(options), m_err(stderr) {}
    int run();

private:
    std::optional<int> joinTeam();
    std::optional<int> prepare();
    std::optional<int> openDevice();
    bool refusedOutputs(const RunTarget &target, bool withResults);
    int pass(const RunTarget &target);
    RunAnalysis withBase(const RunAnalysis &updates, const RunTarget &target, const RunLoadOptions &options);
    void reportRun(const RunAnalysis &run);
    bool writeTables(const RunAnalysis &run, const RunTarget &target);
    // The --scalar series of a run's logs; nullopt, said, when one is not there.
    std::optional<QList<ScalarSeries>> loggedScalars(const QString &folder);
    void reportTotals(const RunAnalysis &run, const RunTarget &target, double seconds);
    void reportNothingFound(const RunAnalysis &run, const RunTarget &target);
    int analyzeEachRun();
    int analyzeOnce();
    int watchFolder();

    const AnalyzeOptions &m_options;
    QTextStream m_err;
    QString m_discarded;
    std::unique_ptr<MpiTeam> m_team;
    bool m_leads = true;
    bool m_silent = false;
    bool m_terminal = false;
    RunLoadOptions m_load;
    RunTarget m_single;
    std::optional<RunAnalysis> m_last;
};

// Under mpirun or srun: this process is one rank of a team that shares the matrices. Rank 0
// reports and writes; the others compute and stay quiet.
std::optional<int> AnalyzeRun::joinTeam()
{
    if (MpiTeam::launched() && MpiTeam::libraryVersion().isEmpty() && qEnvironmentVariableIntValue("OMPI_COMM_WORLD_SIZE") != 1) {
        m_err << "rankscope analyze: started by an MPI launcher, but this rankscope is built without MPI support "
                 "(build it with libopenmpi-dev installed; see rankscope --version)\n";
        return 1;
    }
    m_team = MpiTeam::join();
    m_leads = !m_team || m_team->leads();
    if (!m_leads)
        m_err.setString(&m_discarded, QIODevice::WriteOnly); // rank 0 says what there is to say
    if (m_team && m_team->size() > 1 && m_options.base) {
        m_err << "rankscope analyze: --base runs in one process; start it without mpirun\n";
        return 1;
    }
    if (m_team && m_team->size() > 1 && m_options.watch) {
        m_err << "rankscope analyze: --watch runs in one process; start it without mpirun\n";
        return 1;
    }
    m_silent = m_options.quiet || !m_leads;
    m_err << m_options.jobsNote;
    m_terminal = isatty(fileno(stderr));
    return std::nullopt;
}

// The settings, the rules and the single run's outputs, each checked before any analysis, so a
// mistyped path costs no analysis. nullopt when the analysis may start.
std::optional<int> AnalyzeRun::prepare()
{
    m_load.settings = m_options.settings;
    m_load.settings.team = m_team.get();
    m_load.useCache = m_options.useCache;
    if (m_options.results)
        m_load.settings.resultsPath = *m_options.results;
    else if (m_load.useCache)
        m_load.settings.resultsPath = ResultsCacheLocation::forFolder(m_options.folder);
    if (m_options.rules) {
        QString error;
        m_load.rules = TensorNameRules::withUserRules(*m_options.rules, &error);
        if (!m_load.rules) {
            m_err << "rankscope analyze: " << printableText(error) << '\n';
            return 1;
        }
    }
    if (m_options.watch)
        m_load.settings.settleSeconds = m_options.settleSeconds;
    // The results file's folder is made, as every save would (with --runs, --results names that folder).
    if (m_options.results)
        QDir().mkpath(m_options.eachRun ? m_load.settings.resultsPath : QFileInfo(m_load.settings.resultsPath).absolutePath());
    for (const std::optional<QString> *output : {&m_options.csv, &m_options.json, &m_options.results}) {
        if (!*output)
            continue;
        const QString outputPath = m_options.eachRun && output == &m_options.results ? QDir(**output).filePath(QStringLiteral("run.h5")) : **output;
        if (const QString problem = outputFileProblem(outputPath); !problem.isEmpty()) {
            m_err << "rankscope analyze: " << printableText(problem) << '\n';
            return 1;
        }
    }
    m_single = {m_options.folder, m_load.settings.resultsPath, m_options.csv.value_or(QString()), m_options.json.value_or(QString())};
    if (!m_options.eachRun && refusedOutputs(m_single, true))
        return 1;
    if (!m_options.scalars.isEmpty() && !m_options.eachRun && !loggedScalars(m_options.folder)) // said before anything is analysed
        return 1;
    return openDevice();
}

// The GPU for --device (auto: when one is usable), this rank's under mpirun. --device cuda without
// one ends the command (exit 2) before anything is read.
std::optional<int> AnalyzeRun::openDevice()
{
    if (m_load.settings.method != SvdMethod::FastGram)
        return std::nullopt;
    const int workers = m_load.settings.jobs > 0 ? m_load.settings.jobs : QThread::idealThreadCount();
    const DeviceChoice choice = chooseGramDevice(m_options.device, std::clamp(workers, 1, kMaxDeviceSessions), openCudaGramDevice);
    if (choice.refused) {
        m_err << "rankscope analyze: --device cuda: " << printableText(choice.why) << '\n';
        return 2;
    }
    m_load.settings.device = choice.device;
    m_load.settings.deviceNote = choice.why;
    return std::nullopt;
}

// No output replaces what it must not (replacedInputProblem, one check for all of them): an
// explicit results file is replaced by every save, so whatever else sits at that path is kept
// (a damaged file of RankScope's own is rebuilt); --csv and --json never replace a checkpoint
// (the run's own included), an array or a results file. And no two outputs, nor an output and
// --rules, are one file. Asked of every run's outputs before any of them is analysed.
bool AnalyzeRun::refusedOutputs(const RunTarget &target, bool withResults)
{
    QList<OptionPath> outputs{{QStringLiteral("csv"), target.csvPath}, {QStringLiteral("json"), target.jsonPath}};
    if (withResults && m_options.results)
        outputs.append({QStringLiteral("results"), target.resultsPath});
    QString problem;
    for (const OptionPath &output : outputs)
        if (problem.isEmpty())
            problem = replacedInputProblem(output, output.option == QLatin1String("results"));
    if (problem.isEmpty())
        problem = sharedPathProblem(outputs, m_options.rules ? QList<OptionPath>{{QStringLiteral("rules"), *m_options.rules}} : QList<OptionPath>{});
    if (!problem.isEmpty())
        m_err << "rankscope analyze: " << printableText(problem) << '\n';
    return !problem.isEmpty();
}

// One pass: an incremental analysis, its report, and the CSV/JSON rewritten whole.
int AnalyzeRun::pass(const RunTarget &target)
{
    QElapsedTimer timer;
    timer.start();
    RunLoadOptions passOptions = m_load;
    passOptions.settings.resultsPath = target.resultsPath;
    passOptions.previous = m_last ? &*m_last : nullptr;
    LoadedRun loaded = loadRun(target.folder, passOptions, [&](const AnalysisProgress &p, const QList<MatrixResult> &results) {
        if (!m_silent)
            printProgress(m_err, m_terminal, p, !results.isEmpty());
    });
    for (const QString &message : loaded.messages)
        m_err << message << '\n';
    if (!loaded.run)
        return 1;
    if (!m_leads) { // its RunAnalysis holds its own share only
        m_last = loaded.takeForNextPass();
        return 0;
    }
    const RunAnalysis run = m_options.base ? withBase(*loaded.run, target, passOptions) : *loaded.run;
    reportRun(run);
    // The cache only saves time; a results file the user named is an output like the others.
    const bool written = writeTables(run, target) && !(m_options.results && !run.resultsError.isEmpty());
    reportTotals(run, target, timer.elapsed() / 1000.0);
    const ExitStatus status = RunSummary(run).exitStatus(written);
    reportNothingFound(run, target);
    m_err.flush();
    // What is written and said is what was asked for (loadRun); a watch's next pass starts from all
    // the results hold, so that opt-in metrics cached by earlier analyses stay in the results file.
    m_last = loaded.takeForNextPass();
    return int(status);
}

// --base: the run's merged weights and the base's own, each through its cache, joined to the
// run's updates (BaseModelRuns).
RunAnalysis AnalyzeRun::withBase(const RunAnalysis &updates, const RunTarget &target, const RunLoadOptions &options)
{
    const auto progress = [&](const AnalysisProgress &p, const QList<MatrixResult> &results) {
        if (!m_silent)
            printProgress(m_err, m_terminal, p, !results.isEmpty());
    };
    if (updates.results.isEmpty())
        return updates; // nothing adapted: nothing to merge, nothing of the base to show
    LoadedRun merged = loadRun(target.folder, BaseModelRuns::mergedOptions(options, target.folder, *m_options.base), progress);
    LoadedRun base = loadRun(*m_options.base, BaseModelRuns::baseOptions(options, target.folder, *m_options.base, updates), progress);
    for (const QString &message : merged.messages + base.messages)
        m_err << message << '\n';
    return BaseModelRuns::joined(updates, merged.run.value_or(RunAnalysis()), base.run.value_or(RunAnalysis()));
}

// What was not analysed and why, the notes, and what is left for a later pass.
void AnalyzeRun::reportRun(const RunAnalysis &run)
{
    for (const QString &line : run.issueLines())
        m_err << line << '\n';
    // Never averaged, never silent: a checkpoint whose step another one keeps is named.
    for (const SkippedFile &skipped : run.sidecars)
        if (skipped.duplicate)
            m_err << printableText(QFileInfo(skipped.path).fileName()) << ": not analysed: " << printableText(skipped.reason) << '\n';
    for (const QString &note : run.notes)
        m_err << "note: " << printableText(note) << '\n';
    // Analysed and kept all the same: a checkpoint that repeats another's weights or jumps out of line.
    for (const TrajectoryFinding &finding : RunSummary(run).trajectoryFindings())
        m_err << "warning: " << printableText(finding.text) << '\n';
    for (const QString &path : m_silent ? QStringList() : run.pending)
        m_err << printableText(QFileInfo(path).fileName()) << ": still being written; analysed once it has not changed for "
              << m_load.settings.settleSeconds << " s\n";
}

// Whole or not at all, and any failure (a full disk, /dev/full) is exit status 1.
std::optional<QList<ScalarSeries>> AnalyzeRun::loggedScalars(const QString &folder)
{
    if (m_options.scalars.isEmpty())
        return QList<ScalarSeries>{};
    const ScalarLog log = TrainingLogs::read(folder);
    QList<ScalarSeries> chosen;
    for (const QString &tag : m_options.scalars) {
        if (const ScalarSeries *s = log.find(tag)) {
            chosen << *s;
            continue;
        }
        QStringList tags;
        for (const ScalarSeries &s : log.series())
            tags << s.tag;
        m_err << "rankscope analyze: --scalar " << printableText(tag) << ": not among the scalars " << printableText(folder) << "'s logs hold ("
              << (tags.isEmpty() ? QStringLiteral("none found; rankscope info says where it looked") : printableText(briefList(tags))) << ")\n";
        return std::nullopt;
    }
    return chosen;
}

bool AnalyzeRun::writeTables(const RunAnalysis &run, const RunTarget &target)
{
    const std::optional<QList<ScalarSeries>> scalars = loggedScalars(target.folder);
    if (!scalars)
        return false;
    bool written = true;
    auto write = [&](const QString &outputPath, const QByteArray &bytes) {
        QString error;
        if (!outputPath.isEmpty() && !writeOutputFile(outputPath, bytes, &error)) {
            m_err << "rankscope analyze: " << printableText(error) << '\n';
            written = false;
        }
    };
    if (!target.csvPath.isEmpty()) {
        QBuffer table;
        table.open(QIODevice::WriteOnly);
        MetricsTable::writeCsv(run.results + run.headResults, table, *scalars);
        write(target.csvPath, table.data());
    }
    if (!target.jsonPath.isEmpty())
        write(target.jsonPath, MetricsTable::toJson(run.results + run.headResults, *scalars).toJson(QJsonDocument::Indented));
    return written;
}

// Where the time went, and the run's summary (RunSummary::countsText, as the window shows it).
void AnalyzeRun::reportTotals(const RunAnalysis &run, const RunTarget &target, double seconds)
{
    if (m_silent)
        return;
    if (run.timings.readSeconds > 0)
        m_err << QStringLiteral("time: reading %1 s; spectra %2 s and metrics %3 s in %4 workers; %5")
                     .arg(run.timings.readSeconds, 0, 'f', 2).arg(run.timings.spectraSeconds, 0, 'f', 2)
                     .arg(run.timings.metricsSeconds, 0, 'f', 2)
                     .arg((m_team && m_team->size() > 1 ? QStringLiteral("%1 ranks × ").arg(m_team->size()) : QString()) +
                          QString::number(m_options.settings.jobs > 0 ? m_options.settings.jobs : QThread::idealThreadCount()))
                     .arg(QString::fromStdString(describeBlasKernel()))
              << devicePart(run.timings, m_load.settings) << '\n';
    m_err << RunSummary(run).countsText()
          << QStringLiteral(", %1 s%2\n").arg(seconds, 0, 'f', 2)
                 .arg(target.resultsPath.isEmpty() || !run.resultsError.isEmpty() ? QString()
                                                                                  : QStringLiteral("; results in ") + printableText(target.resultsPath));
}

// A folder with nothing of its own to analyse says so, and names the runs below it; a run that
// analysed names the runs nested in it, which it left out.
void AnalyzeRun::reportNothingFound(const RunAnalysis &run, const RunTarget &target)
{
    if (RunSummary(run).foundNothing() && !m_options.watch) {
        if (!run.runs.isEmpty())
            m_err << printableText(target.folder) << " holds no checkpoints of its own but " << run.runs.size() << " run(s): "
                  << printableText(runNames(target.folder, run.runs).join(QLatin1String(", "))) << ".\nrankscope analyze "
                  << printableText(target.folder) << " --runs analyses each into its own results file; rankscope analyze "
                  << printableText(run.runs.first()) << " analyses one.\n";
        else
            m_err << printableText(target.folder) << ": no checkpoints found\n";
        return;
    }
    for (const QString &inner : run.runs)
        m_err << "note: " << printableText(runNames(target.folder, {inner}).first()) << " holds a run of its own, not analysed with this one (see --runs)\n";
}

// --runs: every run below FOLDER into its own results file (and CSV/JSON named after it), every
// run's outputs checked before the first is analysed.
int AnalyzeRun::analyzeEachRun()
{
    if (m_options.watch) {
        m_err << "rankscope analyze: --watch follows one run; give it one of the runs\n";
        return 1;
    }
    if (m_single.csvPath == QLatin1String("-") || m_single.jsonPath == QLatin1String("-")) {
        m_err << "rankscope analyze: --runs writes one CSV/JSON file per run: give --csv/--json a file name, not '-'\n";
        return 1;
    }
    const QStringList runs = CheckpointDiscovery::scan(m_options.folder).runs;
    if (runs.isEmpty()) {
        if (refusedOutputs(m_single, false))
            return 1;
        m_err << "note: " << m_options.folder << " holds no runs below it: analysed as one run\n";
        return pass(m_single);
    }
    const QStringList names = runNames(m_options.folder, runs);
    QList<RunTarget> targets;
    for (qsizetype i = 0; i < runs.size(); ++i) {
        RunTarget target{runs[i], {}, withRunName(m_single.csvPath, names[i]), withRunName(m_single.jsonPath, names[i])};
        if (m_options.results)
            target.resultsPath = QDir(*m_options.results).filePath(names[i] + QStringLiteral(".h5"));
        else if (m_load.useCache)
            target.resultsPath = ResultsCacheLocation::forFolder(runs[i]);
        if (refusedOutputs(target, true))
            return 1;
        targets << target;
    }
    QStringList written;
    QList<ExitStatus> statuses;
    for (qsizetype i = 0; i < targets.size(); ++i) {
        if (!m_silent)
            m_err << "run " << printableText(names[i]) << " (" << printableText(runs[i]) << "):\n";
        m_last.reset(); // each run its own analysis
        statuses << ExitStatus(pass(targets[i]));
        written << QStringLiteral("  %1 → %2").arg(names[i], targets[i].resultsPath.isEmpty() ? QStringLiteral("no results file (--no-cache)") : targets[i].resultsPath);
        if (g_interrupted) {
            m_err << "interrupted in run " << printableText(names[i]) << "; its completed checkpoints are kept:\n" << written.join(QLatin1Char('\n')) << '\n';
            endInterrupted(m_err, 130);
        }
    }
    m_err << runs.size() << " runs analysed:\n" << written.join(QLatin1Char('\n')) << '\n';
    // 0 when every run was analysed whole, 1 when none gave anything, 2 otherwise.
    return int(combinedExitStatus(statuses));
}

int AnalyzeRun::analyzeOnce()
{
    const int status = pass(m_single);
    if (g_interrupted) {
        m_err << "interrupted: " << (m_last ? m_last->checkpointsAnalysed : 0) << " completed checkpoint(s) kept"
              << (m_single.resultsPath.isEmpty() ? QString() : QStringLiteral(" in ") + printableText(m_single.resultsPath))
              << "; the same command goes on from there\n";
        endInterrupted(m_err, 130);
    }
    return status;
}

// Watch: a pass now, then one whenever the folder changes, until Ctrl+C (or SIGTERM). The
// results file is replaced whole after every pass, so an interrupt leaves a complete one.
int AnalyzeRun::watchFolder()
{
    const QString &folder = m_options.folder;
    if (!QFileInfo(folder).isDir()) {
        m_err << printableText(folder) << ": not a folder\n";
        return 1;
    }
    int status = pass(m_single);
    RunWatch runWatch(folder, m_load.settings.settleSeconds, [&] {
        if (g_interrupted)
            return; // no more passes: the loop below ends
        const int before = m_last ? int(m_last->checkpoints.size()) : 0;
        status = pass(m_single);
        if (!m_silent && m_last && int(m_last->checkpoints.size()) != before)
            m_err << "watching " << printableText(folder) << ": " << m_last->checkpoints.size() << " checkpoints\n";
        runWatch.passFinished(m_last ? *m_last : RunAnalysis{});
    });
    runWatch.setDebounce(0.3);
    runWatch.passFinished(m_last ? *m_last : RunAnalysis{});
    QTimer interruptPoll;
    QObject::connect(&interruptPoll, &QTimer::timeout, [&] {
        if (g_interrupted)
            QCoreApplication::quit();
    });
    interruptPoll.start(100);
    if (!m_silent)
        m_err << "watching " << printableText(folder) << " (Ctrl+C to stop)\n";
    if (!g_interrupted)
        QCoreApplication::exec();
    if (!m_silent)
        m_err << "stopped; results are complete" << (m_single.resultsPath.isEmpty() ? QString() : QStringLiteral(" in ") + printableText(m_single.resultsPath)) << '\n';
    endInterrupted(m_err, status == 1 && m_last && !m_last->results.isEmpty() ? 0 : status);
}

int AnalyzeRun::run()
{
    if (const std::optional<int> refused = joinTeam())
        return *refused;
    if (const std::optional<int> refused = prepare())
        return *refused;
    // Ctrl+C (or SIGTERM) cancels the analysis: the checkpoints completed so far are saved and the
    // process ends at once, not after the solves in flight.
    m_load.cancel = std::make_shared<std::atomic<bool>>(false);
    g_cancel = m_load.cancel.get();
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    if (m_options.eachRun)
        return analyzeEachRun();
    return m_options.watch ? watchFolder() : analyzeOnce();
}

} // namespace

int runAnalyzeCommand(const QStringList &arguments)
{
    const ParsedOptions<AnalyzeOptions> parsed = parseAnalyzeOptions(arguments);
    if (!parsed.options)
        return parsed.exit.print();
    return AnalyzeRun(*parsed.options).run();
}

} // namespace rankscope
