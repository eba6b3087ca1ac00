#include "InfoCommand.h"

#include "CommandOptions.h"
#include "analysis/CheckpointDiscovery.h"
#include "analysis/CheckpointPlan.h"
#include "analysis/CheckpointSteps.h"
#include "analysis/MatrixResult.h"
#include "model/RuleSuggestions.h"
#include "io/OutputFile.h"
#include "base/PrintableText.h"
#include "io/CheckpointReader.h"
#include "model/TensorNameRules.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

namespace rankscope {

namespace {

QString shapeText(const QList<qint64> &shape)
{
    QStringList dims;
    for (qint64 d : shape)
        dims << QString::number(d);
    return QLatin1Char('[') + dims.join(QLatin1String(", ")) + QLatin1Char(']');
}


// Rows of cells, every column but the last as wide as its widest cell, two spaces apart.
// Cells are made printable first: a file or tensor name must not drive the terminal.
void printTable(QTextStream &out, QList<QStringList> rows)
{
    for (QStringList &row : rows)
        for (QString &cell : row)
            cell = printableText(cell);
    QList<qsizetype> widths;
    for (const QStringList &row : rows)
        for (qsizetype c = 0; c + 1 < row.size(); ++c) {
            if (widths.size() <= c)
                widths.append(0);
            widths[c] = std::max(widths[c], row[c].size());
        }
    for (const QStringList &row : rows) {
        out << "  ";
        for (qsizetype c = 0; c + 1 < row.size(); ++c)
            out << row[c].leftJustified(widths[c] + 2);
        out << row.value(row.size() - 1) << '\n';
    }
}

} // namespace

int runInfoCommand(const QStringList &arguments)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("List how every file of FOLDER was classified and why, its checkpoints, and the tensors of one of them."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("FOLDER"), QStringLiteral("The folder of checkpoints."));
    const QCommandLineOption stepOption(QStringLiteral("step"), QStringLiteral("The checkpoint whose tensors are listed: a step, final, or last (default)."), QStringLiteral("S"), QStringLiteral("last"));
    const QCommandLineOption rulesOption(QStringLiteral("rules"), QStringLiteral("Naming rules (JSON) applied before the built-in ones."), QStringLiteral("FILE"));
    const QCommandLineOption suggestOption(QStringLiteral("suggest-rules"), QStringLiteral("Write a draft rules file for the attention/MLP-looking tensors no rule types."), QStringLiteral("FILE"));
    parser.addOptions({stepOption, rulesOption, suggestOption});
    const bool parsed = parser.parse(QStringList{QStringLiteral("rankscope info")} + arguments.mid(1));
    // --help is answered before anything else is asked of the arguments (it needs no FOLDER).
    if (parsed && parser.isSet(QStringLiteral("help"))) {
        out << parser.helpText();
        return 0;
    }
    if (!parsed || parser.positionalArguments().size() != 1) {
        err << "rankscope info: " << (parser.errorText().isEmpty() ? QStringLiteral("give exactly one FOLDER") : parser.errorText()) << '\n';
        return 1;
    }
    TensorNameRules rules = TensorNameRules::builtIn();
    if (parser.isSet(rulesOption)) {
        QString error;
        auto user = TensorNameRules::withUserRules(parser.value(rulesOption), &error);
        if (!user) {
            err << "rankscope info: " << printableText(error) << '\n';
            return 1;
        }
        rules = *user;
    }
    // Where the draft goes is checked before anything is read: a writable place, not a checkpoint
    // (a path of the run's own, say), an array or a results file, and not the --rules file read.
    if (parser.isSet(suggestOption)) {
        const OptionPath draft{QStringLiteral("suggest-rules"), parser.value(suggestOption)};
        QString problem = outputFileProblem(draft.path);
        if (problem.isEmpty())
            problem = replacedInputProblem(draft);
        if (problem.isEmpty() && parser.isSet(rulesOption))
            problem = sharedPathProblem({draft}, {{QStringLiteral("rules"), parser.value(rulesOption)}});
        if (!problem.isEmpty()) {
            err << "rankscope info: " << printableText(problem) << '\n';
            return 1;
        }
    }
    const QString folder = parser.positionalArguments().first();
    if (!QFileInfo(folder).isDir()) {
        err << printableText(folder) << ": not a folder\n";
        return 1;
    }
    const CheckpointListing listing = CheckpointDiscovery::scan(folder);
    const QDir base(QFileInfo(folder).absoluteFilePath());
    auto relative = [&](const QString &path) {
        const QString r = base.relativeFilePath(QFileInfo(path).absoluteFilePath());
        return r == QLatin1String(".") ? QStringLiteral("./") : r;
    };

    // Every file and folder, with what it was taken for and why: nothing is left out unexplained.
    out << "Files and folders in " << printableText(QDir::toNativeSeparators(base.absolutePath())) << " (" << listing.files.size() << "):\n";
    QList<QStringList> fileTable;
    for (const ClassifiedFile &file : listing.files)
        fileTable << QStringList{relative(file.path), fileRoleName(file.role), file.reason};
    printTable(out, fileTable);
    out << '\n';

    if (listing.checkpoints.isEmpty()) {
        if (!listing.runs.isEmpty()) {
            QStringList names;
            for (const QString &run : listing.runs)
                names << relative(run);
            out << "No checkpoints of its own: " << printableText(folder) << " holds " << listing.runs.size() << " run(s): "
                << printableText(names.join(QLatin1String(", "))) << ".\nrankscope info " << printableText(QDir(folder).filePath(names.first()))
                << " lists one; rankscope analyze " << printableText(folder) << " --runs analyses each into its own results file.\n";
        }
        err << printableText(folder) << ": no checkpoints found\n";
        return 1;
    }
    QList<const CheckpointFile *> files;
    for (const CheckpointFile &file : listing.checkpoints)
        files.append(&file);
    const StepPlan steps = CheckpointSteps::decide(files);
    struct Row {
        QString step, format, path, problem, stepSource, config;
        QStringList warnings; // read, but not clean (an unsafe pickle)
        const CheckpointFile *file;
    };
    QList<Row> rows;
    bool anyProblem = false;
    for (const PlacedCheckpoint &placed : steps.checkpoints) {
        const CheckpointFile &file = *placed.file;
        QString error;
        auto reader = file.open(&error);
        const QStringList warnings = reader ? reader->warnings() : QStringList();
        rows.append({stepLabel(placed.step, placed.unnumbered), reader ? reader->formatName() : QStringLiteral("-"), relative(file.path), error,
                     placed.stepSource, file.configPath.isEmpty() ? QStringLiteral("none") : relative(file.configPath), warnings, &file});
        anyProblem |= !reader || !warnings.isEmpty();
    }
    out << "Checkpoints in " << printableText(QDir::toNativeSeparators(base.absolutePath())) << " (" << rows.size() << "):\n";
    QList<QStringList> checkpointTable{{"step", "format", "path", "config.json", "step from"}};
    for (const Row &row : rows) {
        QString last = row.stepSource + (row.problem.isEmpty() ? QString() : QStringLiteral("  — not readable: ") + row.problem);
        for (const QString &warning : row.warnings)
            last += QStringLiteral("  — ") + warning;
        checkpointTable << QStringList{row.step, row.format, row.path, row.config, last};
    }
    printTable(out, checkpointTable);
    for (const SkippedFile &duplicate : steps.duplicates)
        out << "  not analysed: " << printableText(relative(duplicate.path)) << ": " << printableText(duplicate.reason) << '\n';
    for (const QString &note : steps.notes)
        out << "  note: " << printableText(note) << '\n';
    for (const QString &run : listing.runs)
        out << "  note: " << printableText(relative(run)) << " holds a run of its own, not part of this one: rankscope info "
            << printableText(QDir(folder).filePath(relative(run))) << '\n';

    const QString wanted = parser.value(stepOption);
    const Row *chosen = nullptr;
    for (const Row &row : rows)
        if (wanted == QLatin1String("last") ? row.problem.isEmpty() : row.step == wanted)
            chosen = &row;
    if (!chosen) {
        err << "rankscope info: no readable checkpoint with step " << wanted << '\n';
        return 1;
    }
    QString error;
    auto reader = chosen->file->open(&error);
    if (!reader) {
        err << printableText(chosen->path) << ": " << printableText(error) << '\n';
        return 1;
    }
    const CheckpointPlan plan = CheckpointPlan::make(*chosen->file, *reader, rules);
    out << "\nTensors of step " << chosen->step << " (" << printableText(chosen->path) << "):\n";
    if (!plan.config.isEmpty())
        out << "  model: " << printableText(plan.config.describeModel().isEmpty() ? QStringLiteral("no model_type") : plan.config.describeModel())
            << "; config from " << printableText(plan.config.sources().join(QLatin1String(", "))) << '\n';
    else
        out << "  model: no config.json or hyper-parameters found\n";

    // One row per tensor of two or more dimensions: name, shape, dtype, [block], layer, [expert],
    // then the type (or why it has none), every column but the last as wide as its longest cell.
    bool anyBlock = false, anyExpert = false;
    for (const PlannedTensor &t : plan.layout.typed)
        for (const MatrixPart &p : t.parts) {
            anyBlock |= !p.id.block.isEmpty();
            anyExpert |= !p.id.expert.isEmpty();
        }
    QHash<QString, const PlannedTensor *> typedByName;
    QHash<QString, const LeftOutTensor *> leftByName;
    for (const PlannedTensor &t : plan.layout.typed)
        typedByName.insert(t.tensor, &t);
    for (const LeftOutTensor &t : plan.layout.leftOut)
        leftByName.insert(t.tensor, &t);
    auto distinct = [](QStringList list) {
        list.removeDuplicates();
        return list;
    };
    QList<QStringList> table{{"name", "shape", "dtype"}};
    if (anyBlock)
        table[0] << QStringLiteral("block");
    table[0] << QStringLiteral("layer");
    if (anyExpert)
        table[0] << QStringLiteral("expert");
    table[0] << QStringLiteral("rule") << QStringLiteral("type");
    int typed = 0;
    for (const TensorInfo &tensor : reader->tensors()) {
        const PlannedTensor *t = typedByName.value(tensor.name);
        const LeftOutTensor *left = leftByName.value(tensor.name);
        if (!t && !left)
            continue; // biases, norms, scalars
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
        QStringList row{tensor.name, shapeText(tensor.shape), tensor.dtype};
        if (anyBlock)
            row << (t ? distinct(blocks).join(QLatin1String(", ")) : QStringLiteral("-"));
        row << (t ? distinct(layers).join(QLatin1String(", ")) : QStringLiteral("-"));
        if (anyExpert)
            row << (experts.size() > 3 ? QStringLiteral("%1…%2 (%3)").arg(experts.first(), experts.last()).arg(experts.size())
                                       : t ? experts.join(QLatin1String(", ")) : QStringLiteral("-"));
        // Which rule typed it: a family's, a rules file's, or the generic pass (by its name alone).
        row << (t ? t->family : QStringLiteral("-")) << what;
        table << row;
        typed += t ? int(t->parts.size()) : 0;
    }
    printTable(out, table);
    const QList<LeftOutTensor> reported = plan.layout.reported();
    out << "  " << typed << " typed matrices";
    if (!reported.isEmpty())
        out << "; " << reported.size() << " attention/MLP-looking tensors not analysed (marked NOT ANALYSED)";
    out << '\n';
    if (!reported.isEmpty() && plan.layout.typed.isEmpty()) {
        const QString model = plan.config.describeModel();
        out << "\nNo rule knows this model" << (model.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(printableText(model)))
            << ". Write naming rules (docs/naming-rules.md) and pass them with --rules;\n"
               "rankscope info FOLDER --suggest-rules FILE writes a first draft from these tensor names.\n";
    }

    if (parser.isSet(suggestOption)) {
        const QString path = parser.value(suggestOption);
        const QJsonDocument draft = RuleSuggestions::draft(plan.layout.reported(), plan.config);
        if (draft.object().value(QLatin1String("rules")).toArray().isEmpty()) {
            out << "\nEvery attention/MLP-looking tensor is typed already: no rules to suggest.\n";
        } else {
            QString writeError;
            if (!writeOutputFile(path, draft.toJson(QJsonDocument::Indented), &writeError)) {
                err << "rankscope info: " << printableText(writeError) << '\n';
                return 1;
            }
            out << "\nWrote a draft of " << draft.object().value(QLatin1String("rules")).toArray().size() << " rules to " << printableText(path)
                << ": check each rule's type (and split), then pass it with --rules.\n";
        }
    }
    return anyProblem || !reported.isEmpty() ? 2 : 0;
}

} // namespace rankscope
