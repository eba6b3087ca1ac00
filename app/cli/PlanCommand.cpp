#include "PlanCommand.h"

#include "RankTargetOptions.h"
#include "TextTable.h"

#include "analysis/execution/RunLoader.h"
#include "analysis/results/RankPlanTable.h"
#include "analysis/results/RunSummary.h"
#include "base/PrintableText.h"
#include "io/OutputFile.h"

#include <QFileInfo>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <limits>

namespace rankscope {

namespace {

struct PlanOptionSet {
    const QCommandLineOption step{QStringLiteral("step"), QStringLiteral("The step whose spectra are planned from (default: last)."), QStringLiteral("S"), QStringLiteral("last")};
    const QCommandLineOption keep = keepOption();
    const QCommandLineOption energy{QStringLiteral("energy"), QStringLiteral("Per matrix, the smallest rank keeping this fraction τ, in (0, 1], of its Σσ²."), QStringLiteral("τ")};
    const QCommandLineOption maxError = maxErrorOption();
    const QCommandLineOption output{QStringLiteral("out"), QStringLiteral("The file to write: .json (with PEFT's rank_pattern) or .csv (a row per matrix)."), QStringLiteral("FILE")};
};

// Where the plan goes: a .json or .csv file that can be written and replaces nothing read.
bool readOutput(const CommandParser &parser, const PlanOptionSet &o, PlanOptions &options, QString *error)
{
    options.out = parser.value(o.output);
    const QString suffix = QFileInfo(options.out).suffix().toLower();
    if (options.out.isEmpty() || (suffix != QLatin1String("json") && suffix != QLatin1String("csv"))) {
        *error = QStringLiteral("--out needs a .json or .csv file");
        return false;
    }
    options.json = suffix == QLatin1String("json");
    QString problem = outputFileProblem(options.out);
    if (problem.isEmpty())
        problem = replacedInputProblem({QStringLiteral("out"), options.out});
    if (problem.isEmpty())
        problem = sharedPathProblem({{QStringLiteral("out"), options.out}}, {{QStringLiteral("source"), options.source}});
    if (!problem.isEmpty())
        *error = printableText(problem);
    return problem.isEmpty();
}

QString fixed(double value, int digits = 4) { return QString::number(value, 'f', digits); }

void printPlan(QTextStream &out, const RankPlan &plan)
{
    out << "Rank plan of step " << stepLabel(plan.step, plan.unnumbered) << " for " << plan.target.text() << ": "
        << plan.matrices.size() << " matrices\n";
    QList<QStringList> rows{{"tensor", "shape", "rank", "energy kept", "rel. error", "params after", "saved"}};
    for (const PlannedRank &r : plan.matrices)
        rows << QStringList{r.tensor, QStringLiteral("%1x%2").arg(r.rows).arg(r.cols),
                            r.dense ? QStringLiteral("%1 (dense)").arg(r.rank) : QString::number(r.rank), fixed(r.energyKept),
                            fixed(r.relativeError), QString::number(r.paramsAfter), QString::number(r.paramsSaved())};
    printTable(out, rows);
    out << "Parameters: " << plan.paramsBefore << " -> " << plan.paramsAfter << " (" << fixed(100 * plan.keptFraction(), 1)
        << " % kept, " << plan.paramsSaved() << " saved)\n";
    out << "Energy kept " << fixed(plan.energy > 0 ? 1 - plan.energyLost / plan.energy : 1.0) << ", total relative Frobenius error "
        << fixed(plan.totalRelativeError()) << '\n';
    if (std::isfinite(plan.optimumEnergyBound) && plan.energy > 0)
        out << "No plan within the budget of " << qint64(plan.budget) << " parameters keeps more than "
            << fixed(plan.optimumEnergyBound / plan.energy, 6) << " of the energy\n";
    out << "Rule: " << plan.rule << '\n';
}

} // namespace

ParsedOptions<PlanOptions> parsePlanOptions(const QStringList &arguments)
{
    CommandParser parser(QStringLiteral("plan"), QStringLiteral(
        "Choose a rank per attention and MLP matrix of one step from the stored spectra, for one target:\n"
        "a parameter budget (--keep), an energy per matrix (--energy) or a largest relative Frobenius error per matrix (--max-error).\n"
        "JSON holds PEFT's rank_pattern (module name -> rank; a fused module gets the largest of its parts' ranks,\n"
        "listed under rank_pattern_parts), every matrix and the totals; CSV a row per matrix."));
    parser.addPositionalArgument(QStringLiteral("SOURCE"), QStringLiteral("A checkpoint folder (analysed first if needed) or a results file."));
    const PlanOptionSet o;
    parser.addOptions({o.step, o.keep, o.energy, o.maxError, o.output});
    if (const std::optional<CommandExit> exit = parser.parseArguments(arguments.mid(1)))
        return *exit;
    if (parser.positionalArguments().size() != 1)
        return parser.refusal(QStringLiteral("give one SOURCE"));
    PlanOptions options;
    options.source = parser.positionalArguments().first();
    QString error;
    const std::optional<RankTarget> target = readRankTarget(parser, &error);
    if (!target)
        return parser.refusal(error);
    options.target = *target;
    if (parser.value(o.step) != QLatin1String("last") &&
        !(options.step = wholeOption(QStringLiteral("step"), parser.value(o.step), 0, std::numeric_limits<qint64>::max(), &error, QStringLiteral("last or a whole number"))))
        return parser.refusal(error);
    if (!readOutput(parser, o, options, &error))
        return parser.refusal(error);
    return options;
}

int runPlanCommand(const QStringList &arguments)
{
    const ParsedOptions<PlanOptions> parsed = parsePlanOptions(arguments);
    if (!parsed.options)
        return parsed.exit.print();
    const PlanOptions &options = *parsed.options;
    QTextStream out(stdout), err(stderr);
    auto fail = [&](const QString &message) {
        err << "rankscope plan: " << printableText(message) << '\n';
        return 1;
    };
    const LoadedRun loaded = loadRun(options.source, RunLoadOptions{});
    for (const QString &message : loaded.messages)
        err << message << '\n';
    if (loaded.run)
        for (const AnalysisIssue &issue : loaded.run->issues)
            err << issue.text() << '\n';
    if (!loaded.run || RunSummary(*loaded.run).exitStatus() == ExitStatus::Failed)
        return fail(QStringLiteral("%1: nothing to plan from").arg(options.source));
    const RunAnalysis &run = *loaded.run;
    if (options.step && std::none_of(run.results.begin(), run.results.end(), [&](const MatrixResult &r) { return r.step == *options.step; }))
        return fail(QStringLiteral("no checkpoint at step %1").arg(*options.step));
    const RankPlanner planner = RankPlanner::forStep(run, options.step);
    if (planner.isEmpty())
        return fail(QStringLiteral("no matrix of step %1 has a spectrum to plan from").arg(planner.step()));
    if (const QString problem = planner.targetProblem(options.target); !problem.isEmpty())
        return fail(problem);
    const RankPlan plan = planner.plan(options.target);
    const QByteArray bytes = options.json ? RankPlanTable::toJson(plan, options.source).toJson() : RankPlanTable::toCsv(plan);
    QString error;
    if (!writeOutputFile(options.out, bytes, &error))
        return fail(error);
    printPlan(out, plan);
    out.flush();
    for (const QString &note : plan.notes)
        err << printableText(note) << '\n';
    err << "wrote " << printableText(options.out) << '\n';
    const ExitStatus status = RunSummary(run).exitStatus();
    return int(plan.notes.isEmpty() ? status : ExitStatus::Skipped);
}

} // namespace rankscope
