#include "InfoCommand.h"

#include "TextTable.h"

#include "CommandOptions.h"
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/planning/CheckpointPlan.h"
#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/results/MatrixResult.h"
#include "analysis/execution/MergeBase.h"
#include "analysis/results/ResultsCacheLocation.h"
#include "analysis/results/ResultsFile.h"
#include "analysis/results/RunSummary.h"
#include "model/RuleSuggestions.h"
#include "io/OutputFile.h"
#include "base/PrintableText.h"
#include "io/CheckpointReader.h"
#include "io/logs/TrainingLogs.h"
#include "figures/AxisRange.h"
#include "model/TensorNameRules.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QSet>
#include <QJsonObject>
#include <QTextStream>
#include <cmath>

namespace rankscope {

namespace {


QStringList distinct(QStringList list)
{
    list.removeDuplicates();
    return list;
}

// One tensor table of a checkpoint: one row per tensor of two or more dimensions: name, shape,
// dtype, [block], layer, [expert], then the rule and the type (or why it has none).
class TensorTable {
public:
    explicit TensorTable(const CheckpointLayout &layout);
    // nullopt for what no rule considers (biases, norms, scalars).
    std::optional<QStringList> row(const TensorInfo &tensor) const;
    QStringList header() const;
    // How many matrices the tensor is typed as (0 when it is not typed).
    int typedParts(const QString &tensor) const
    {
        const PlannedTensor *t = m_typed.value(tensor);
        return t && !m_factorA.contains(tensor) ? int(t->parts.size()) : 0;
    }

private:
    QHash<QString, const PlannedTensor *> m_typed;
    QHash<QString, const LeftOutTensor *> m_leftOut;
    QSet<QString> m_factorA; // a LoRA update is typed on its B factor's row; its A factor's row says so
    bool m_anyBlock = false, m_anyExpert = false;
};

TensorTable::TensorTable(const CheckpointLayout &layout)
{
    for (const PlannedTensor &t : layout.typed) {
        m_typed.insert(t.update ? t.update->factorB : t.tensor, &t);
        if (t.update) {
            m_typed.insert(t.update->factorA, &t);
            m_factorA.insert(t.update->factorA);
        }
        for (const MatrixPart &p : t.parts) {
            m_anyBlock |= !p.id.block.isEmpty();
            m_anyExpert |= !p.id.expert.isEmpty();
        }
    }
    for (const LeftOutTensor &t : layout.leftOut)
        m_leftOut.insert(t.tensor, &t);
}

QStringList TensorTable::header() const
{
    QStringList header{"name", "shape", "dtype"};
    if (m_anyBlock)
        header << QStringLiteral("block");
    header << QStringLiteral("layer");
    if (m_anyExpert)
        header << QStringLiteral("expert");
    header << QStringLiteral("rule") << QStringLiteral("type");
    return header;
}

std::optional<QStringList> TensorTable::row(const TensorInfo &tensor) const
{
    const PlannedTensor *t = m_typed.value(tensor.name);
    const LeftOutTensor *left = m_leftOut.value(tensor.name);
    if (!t && !left)
        return std::nullopt;
    QStringList blocks, layers, experts, types;
    for (const MatrixPart &p : t ? t->parts : QList<MatrixPart>()) {
        blocks << (p.id.block.isEmpty() ? QStringLiteral("-") : p.id.block);
        layers << QString::number(p.id.layer);
        experts << (p.id.expert.isEmpty() ? QStringLiteral("-") : p.id.expert);
        types << csvName(p.id.type);
    }
    experts = distinct(experts);
    QString what = left ? (left->reported ? QStringLiteral("NOT ANALYSED: ") : QStringLiteral("skipped: ")) + left->reason
                        : distinct(types).join(QLatin1String(", ")) + (t->parts.size() > 1 && experts.size() <= 1 ? QStringLiteral(" (split)") : QString());
    if (t && t->update)
        what += m_factorA.contains(tensor.name) ? QStringLiteral(" (its A factor)")
                                                : QStringLiteral(" (update s\u00b7B\u00b7A of %1, %2)")
                                                      .arg(t->tensor, t->update->scale ? QStringLiteral("s = %1").arg(*t->update->scale, 0, 'g', 6)
                                                                                       : QStringLiteral("s unknown"));
    QStringList row{tensor.name, shapeText(tensor.shape), tensor.dtype};
    if (m_anyBlock)
        row << (t ? distinct(blocks).join(QLatin1String(", ")) : QStringLiteral("-"));
    row << (t ? distinct(layers).join(QLatin1String(", ")) : QStringLiteral("-"));
    if (m_anyExpert)
        row << (experts.size() > 3 ? QStringLiteral("%1…%2 (%3)").arg(experts.first(), experts.last()).arg(experts.size())
                                   : t ? experts.join(QLatin1String(", ")) : QStringLiteral("-"));
    // Which rule typed it: a family's, a rules file's, or the generic pass (by its name alone).
    row << (t ? t->family : QStringLiteral("-")) << what;
    return row;
}

// One checkpoint of the listing, as its table shows it.
struct CheckpointRow {
    QString step, format, path, problem, stepSource, config;
    QStringList warnings; // read, but not clean (an unsafe pickle)
    const CheckpointFile *file;
};

// One `rankscope info`: the folder's files, its checkpoints, and one checkpoint's tensors, on
// standard output; what stops it on standard error.
class InfoReport {
public:
    explicit InfoReport(const InfoOptions &options) : m_options(options), m_out(stdout), m_err(stderr) {}
    int run();

private:
    QString relative(const QString &path) const;
    bool prepare();
    void printFiles(const CheckpointListing &listing);
    void printRuns(const CheckpointListing &listing);
    QList<CheckpointRow> readCheckpoints(const StepPlan &steps);
    void printCheckpoints(const QList<CheckpointRow> &rows, const StepPlan &steps, const CheckpointListing &listing);
    void printStoredTrajectory();
    void printScalars();
    bool printMerge(const CheckpointPlan &plan, const CheckpointFile &file);
    int printTensors(const CheckpointRow &chosen);
    void printTensorTotals(const CheckpointPlan &plan, int typed);
    bool writeDraft(const CheckpointPlan &plan);

    const InfoOptions &m_options;
    QTextStream m_out, m_err;
    TensorNameRules m_rules = TensorNameRules::builtIn();
    QDir m_base;
    bool m_anyProblem = false;
};

QString InfoReport::relative(const QString &path) const
{
    const QString r = m_base.relativeFilePath(QFileInfo(path).absoluteFilePath());
    return r == QLatin1String(".") ? QStringLiteral("./") : r;
}

// The rules, and where the draft goes, checked before anything is read: a writable place, not a
// checkpoint (a path of the run's own, say), an array or a results file, and not the --rules file read.
bool InfoReport::prepare()
{
    if (m_options.rules) {
        QString error;
        auto user = TensorNameRules::withUserRules(*m_options.rules, &error);
        if (!user) {
            m_err << "rankscope info: " << printableText(error) << '\n';
            return false;
        }
        m_rules = *user;
    }
    if (m_options.suggestRules) {
        const OptionPath draft{QStringLiteral("suggest-rules"), *m_options.suggestRules};
        QString problem = outputFileProblem(draft.path);
        if (problem.isEmpty())
            problem = replacedInputProblem(draft);
        if (problem.isEmpty() && m_options.rules)
            problem = sharedPathProblem({draft}, {{QStringLiteral("rules"), *m_options.rules}});
        if (!problem.isEmpty()) {
            m_err << "rankscope info: " << printableText(problem) << '\n';
            return false;
        }
    }
    return true;
}

// Every file and folder, with what it was taken for and why: nothing is left out unexplained.
void InfoReport::printFiles(const CheckpointListing &listing)
{
    m_out << "Files and folders in " << printableText(QDir::toNativeSeparators(m_base.absolutePath())) << " (" << listing.files.size() << "):\n";
    QList<QStringList> fileTable;
    for (const ClassifiedFile &file : listing.files)
        fileTable << QStringList{relative(file.path), fileRoleName(file.role), file.reason};
    printTable(m_out, fileTable);
    m_out << '\n';
}

// A folder of runs, with no checkpoints of its own: which runs, and how to list or analyse them.
void InfoReport::printRuns(const CheckpointListing &listing)
{
    const QString &folder = m_options.folder;
    QStringList names;
    for (const QString &run : listing.runs)
        names << relative(run);
    m_out << "No checkpoints of its own: " << printableText(folder) << " holds " << listing.runs.size() << " run(s): "
          << printableText(names.join(QLatin1String(", "))) << ".\nrankscope info " << printableText(QDir(folder).filePath(names.first()))
          << " lists one; rankscope analyze " << printableText(folder) << " --runs analyses each into its own results file.\n";
}

// Every checkpoint opened once: its format, or why it cannot be read, and its warnings.
QList<CheckpointRow> InfoReport::readCheckpoints(const StepPlan &steps)
{
    QList<CheckpointRow> rows;
    for (const PlacedCheckpoint &placed : steps.checkpoints) {
        const CheckpointFile &file = *placed.file;
        QString error;
        auto reader = file.open(&error);
        const QStringList warnings = reader ? reader->warnings() : QStringList();
        rows.append({stepLabel(placed.step, placed.unnumbered), reader ? reader->formatName() : QStringLiteral("-"), relative(file.path), error,
                     placed.stepSource, file.configPath.isEmpty() ? QStringLiteral("none") : relative(file.configPath), warnings, &file});
        m_anyProblem |= !reader || !warnings.isEmpty();
    }
    return rows;
}

void InfoReport::printCheckpoints(const QList<CheckpointRow> &rows, const StepPlan &steps, const CheckpointListing &listing)
{
    m_out << "Checkpoints in " << printableText(QDir::toNativeSeparators(m_base.absolutePath())) << " (" << rows.size() << "):\n";
    QList<QStringList> checkpointTable{{"step", "format", "path", "config.json", "step from"}};
    for (const CheckpointRow &row : rows) {
        QString last = row.stepSource + (row.problem.isEmpty() ? QString() : QStringLiteral("  — not readable: ") + row.problem);
        for (const QString &warning : row.warnings)
            last += QStringLiteral("  — ") + warning;
        checkpointTable << QStringList{row.step, row.format, row.path, row.config, last};
    }
    printTable(m_out, checkpointTable);
    for (const SkippedFile &duplicate : steps.duplicates)
        m_out << "  not analysed: " << printableText(relative(duplicate.path)) << ": " << printableText(duplicate.reason) << '\n';
    for (const QString &note : steps.notes)
        m_out << "  note: " << printableText(note) << '\n';
    for (const QString &what : listing.takenFor)
        m_out << "  taken for: " << printableText(what) << '\n';
    for (const QString &run : listing.runs)
        m_out << "  note: " << printableText(relative(run)) << " holds a run of its own, not part of this one: rankscope info "
              << printableText(QDir(m_options.folder).filePath(relative(run))) << '\n';
}

// What the folder's results (its cached analysis, if any) say of its checkpoints, found without
// solving anything: a checkpoint that repeats another's weights, or one out of line.
void InfoReport::printStoredTrajectory()
{
    const QString path = ResultsCacheLocation::forFolder(m_options.folder);
    if (!QFileInfo(path).isFile())
        return;
    QString error;
    const std::optional<RunAnalysis> stored = ResultsFile::load(path, &error);
    if (!stored) {
        m_out << "  note: its results file " << printableText(path) << " could not be read (" << printableText(error)
              << "): rankscope analyze names checkpoints that repeat another's weights or are out of line\n";
        return;
    }
    for (const TrajectoryFinding &finding : RunSummary(*stored).trajectoryFindings())
        m_out << "  warning: " << printableText(finding.text) << " (from its results file)\n";
}

// The scalars training logged beside the checkpoints (TrainingLogs), a tag a row: where from,
// how many steps, over which steps and values.
void InfoReport::printScalars()
{
    const ScalarLog log = TrainingLogs::read(m_options.folder);
    if (log.isEmpty() && log.problems().isEmpty())
        return;
    m_out << "\nTraining scalars in " << printableText(QDir::toNativeSeparators(m_base.absolutePath())) << " (" << log.series().size() << "):\n";
    QList<QStringList> table{{"tag", "source", "points", "steps", "values"}};
    for (const ScalarSeries &s : log.series()) {
        double low = INFINITY, high = -INFINITY;
        qsizetype nan = 0;
        for (const ScalarPoint &p : s.points) {
            if (std::isnan(p.value))
                ++nan;
            else {
                low = std::min(low, p.value);
                high = std::max(high, p.value);
            }
        }
        QStringList sources;
        for (const QString &source : s.sources)
            sources << relative(source);
        QString values = low <= high ? QStringLiteral("%1 – %2").arg(valueNumber(low), valueNumber(high)) : QStringLiteral("none finite");
        if (nan > 0)
            values += QStringLiteral(" (%1 NaN)").arg(nan);
        table << QStringList{s.tag, briefList(sources), QString::number(s.points.size()),
                             QStringLiteral("%1 – %2").arg(s.points.first().step).arg(s.points.last().step), values};
    }
    printTable(m_out, table);
    for (const ScalarLogProblem &problem : log.problems()) {
        // The event reader names the file in its own words ("… at byte 4096 of events.out…").
        const bool named = problem.text.contains(QFileInfo(problem.path).fileName());
        m_out << "  not read: " << printableText(named ? problem.text : relative(problem.path) + QStringLiteral(": ") + problem.text) << '\n';
        m_anyProblem = true;
    }
}

// The chosen checkpoint's model and tensors, and the draft rules when asked; the exit status.
int InfoReport::printTensors(const CheckpointRow &chosen)
{
    QString error;
    auto reader = chosen.file->open(&error);
    if (!reader) {
        m_err << printableText(chosen.path) << ": " << printableText(error) << '\n';
        return 1;
    }
    const CheckpointPlan plan = CheckpointPlan::make(*chosen.file, *reader, m_rules);
    m_out << "\nTensors of step " << chosen.step << " (" << printableText(chosen.path) << "):\n";
    if (!plan.config.isEmpty())
        m_out << "  model: " << printableText(plan.config.describeModel().isEmpty() ? QStringLiteral("no model_type") : plan.config.describeModel())
              << "; config from " << printableText(plan.config.sources().join(QLatin1String(", "))) << '\n';
    else
        m_out << "  model: no config.json or hyper-parameters found\n";
    const TensorTable columns(plan.layout);
    QList<QStringList> table{columns.header()};
    int typed = 0;
    for (const TensorInfo &tensor : reader->tensors()) {
        if (const std::optional<QStringList> row = columns.row(tensor)) {
            table << *row;
            typed += columns.typedParts(tensor.name);
        }
    }
    printTable(m_out, table);
    printTensorTotals(plan, typed);
    if (m_options.base && !printMerge(plan, *chosen.file))
        m_anyProblem = true;
    if (m_options.suggestRules && !writeDraft(plan))
        return 1;
    // Unreadable or unsafe checkpoints, and attention/MLP-looking tensors left out, are skipped work.
    return int(m_anyProblem || !plan.layout.reported().isEmpty() ? ExitStatus::Skipped : ExitStatus::Clean);
}

// --base: where each LoRA update of the listed checkpoint finds its W₀ in the base (MergeBase, as
// analyze --base merges them), and what will not merge, with why. False when something will not.
bool InfoReport::printMerge(const CheckpointPlan &plan, const CheckpointFile &file)
{
    QString problem;
    const std::unique_ptr<MergeBase> base = MergeBase::open(*m_options.base, m_rules, &problem);
    if (!base) {
        m_out << "\nMerged weights: " << printableText(problem) << '\n';
        return false;
    }
    m_out << "\nMerged weights W\u2080 + \u0394W with the base model " << printableText(base->path()) << ":\n";
    if (const QString refusal = MergeBase::refusal(file.adapterConfig); !refusal.isEmpty()) {
        m_out << "  none: " << printableText(refusal) << '\n';
        return false;
    }
    QList<QStringList> table{{QStringLiteral("update"), QStringLiteral("W\u2080 in the base"), QStringLiteral("shape")}};
    QStringList refused;
    int updates = 0;
    for (const PlannedTensor &tensor : plan.layout.typed) {
        if (!tensor.update)
            continue;
        ++updates;
        const QString label = tensor.parts.isEmpty() ? tensor.tensor : tensor.parts.first().label.section(QLatin1Char('['), 0, 0);
        if (const PlannedTensor *w0 = base->baseOf(tensor, &problem))
            table << QStringList{printableText(label), printableText(w0->tensor), QStringLiteral("%1\u00d7%2").arg(w0->shape.value(0)).arg(w0->shape.value(1))};
        else
            refused << QStringLiteral("  not merged: %1: %2").arg(printableText(label), printableText(problem));
    }
    if (updates == 0) {
        m_out << "  none: this checkpoint holds no LoRA update\n";
        return false;
    }
    printTable(m_out, table);
    for (const QString &line : refused)
        m_out << line << '\n';
    m_out << "  " << (updates - refused.size()) << " of " << updates << " updates merge\n";
    return refused.isEmpty();
}

void InfoReport::printTensorTotals(const CheckpointPlan &plan, int typed)
{
    const QList<LeftOutTensor> reported = plan.layout.reported();
    m_out << "  " << typed << " typed matrices";
    if (!reported.isEmpty())
        m_out << "; " << reported.size() << " attention/MLP-looking tensors not analysed (marked NOT ANALYSED)";
    m_out << '\n';
    if (!reported.isEmpty() && plan.layout.typed.isEmpty()) {
        const QString model = plan.config.describeModel();
        m_out << "\nNo rule knows this model" << (model.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(printableText(model)))
              << ". Write naming rules (docs/naming-rules.md) and pass them with --rules;\n"
                 "rankscope info FOLDER --suggest-rules FILE writes a first draft from these tensor names.\n";
    }
}

// --suggest-rules: a draft rule for every attention/MLP-looking tensor no rule types.
bool InfoReport::writeDraft(const CheckpointPlan &plan)
{
    const QString &path = *m_options.suggestRules;
    const QJsonDocument draft = RuleSuggestions::draft(plan.layout.reported(), plan.config);
    if (draft.object().value(QLatin1String("rules")).toArray().isEmpty()) {
        m_out << "\nEvery attention/MLP-looking tensor is typed already: no rules to suggest.\n";
        return true;
    }
    QString writeError;
    if (!writeOutputFile(path, draft.toJson(QJsonDocument::Indented), &writeError)) {
        m_err << "rankscope info: " << printableText(writeError) << '\n';
        return false;
    }
    m_out << "\nWrote a draft of " << draft.object().value(QLatin1String("rules")).toArray().size() << " rules to " << printableText(path)
          << ": check each rule's type (and split), then pass it with --rules.\n";
    return true;
}

int InfoReport::run()
{
    if (!prepare())
        return 1;
    const QString &folder = m_options.folder;
    if (!QFileInfo(folder).isDir()) {
        m_err << printableText(folder) << ": not a folder\n";
        return 1;
    }
    const CheckpointListing listing = CheckpointDiscovery::scan(folder);
    m_base = QDir(QFileInfo(folder).absoluteFilePath());
    printFiles(listing);
    if (listing.checkpoints.isEmpty()) {
        if (!listing.runs.isEmpty())
            printRuns(listing);
        m_err << printableText(folder) << ": no checkpoints found\n";
        return 1;
    }
    QList<const CheckpointFile *> files;
    for (const CheckpointFile &file : listing.checkpoints)
        files.append(&file);
    const StepPlan steps = CheckpointSteps::decide(files);
    const QList<CheckpointRow> rows = readCheckpoints(steps);
    printCheckpoints(rows, steps, listing);
    printStoredTrajectory();
    printScalars();
    const CheckpointRow *chosen = nullptr;
    for (const CheckpointRow &row : rows)
        if (m_options.step == QLatin1String("last") ? row.problem.isEmpty() : row.step == m_options.step)
            chosen = &row;
    if (!chosen) {
        m_err << "rankscope info: no readable checkpoint with step " << m_options.step << '\n';
        return 1;
    }
    return printTensors(*chosen);
}

} // namespace

ParsedOptions<InfoOptions> parseInfoOptions(const QStringList &arguments)
{
    CommandParser parser(QStringLiteral("info"), QStringLiteral("List how every file of FOLDER was classified and why, its checkpoints, and the tensors of one of them."));
    parser.addFolderArgument();
    const QCommandLineOption step(QStringLiteral("step"), QStringLiteral("The checkpoint whose tensors are listed: a step, final, or last (default)."), QStringLiteral("S"), QStringLiteral("last"));
    const QCommandLineOption suggest(QStringLiteral("suggest-rules"), QStringLiteral("Write a draft rules file for the attention/MLP-looking tensors no rule types."), QStringLiteral("FILE"));
    parser.addOption(step);
    parser.addRulesOption();
    parser.addOption(suggest);
    const QCommandLineOption base(QStringLiteral("base"), QStringLiteral("FOLDER is a LoRA adapter run: say where each update of the listed checkpoint finds its W0 in the base model at PATH, and what will not merge."), QStringLiteral("PATH"));
    parser.addOption(base);
    if (const std::optional<CommandExit> exit = parser.parseArguments(arguments.mid(1)))
        return *exit;
    if (parser.positionalArguments().size() != 1)
        return parser.refusal(QStringLiteral("give exactly one FOLDER"));
    InfoOptions options;
    options.folder = parser.positionalArguments().first();
    options.step = parser.value(step);
    options.rules = parser.rulesPath();
    if (parser.isSet(suggest))
        options.suggestRules = parser.value(suggest);
    if (parser.isSet(base))
        options.base = parser.value(base);
    return options;
}

int runInfoCommand(const QStringList &arguments)
{
    const ParsedOptions<InfoOptions> parsed = parseInfoOptions(arguments);
    if (!parsed.options)
        return parsed.exit.print();
    return InfoReport(*parsed.options).run();
}

} // namespace rankscope
