#include "InfoCommand.h"

#include "analysis/CheckpointDiscovery.h"
#include "io/CheckpointReader.h"
#include "model/TensorNameRules.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
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


} // namespace

int runInfoCommand(const QStringList &arguments)
{
    QTextStream out(stdout), err(stderr);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("List the checkpoints of FOLDER and the tensors of one of them."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("FOLDER"), QStringLiteral("The folder of checkpoints."));
    const QCommandLineOption stepOption(QStringLiteral("step"), QStringLiteral("The checkpoint whose tensors are listed (default: last)."), QStringLiteral("S"), QStringLiteral("last"));
    const QCommandLineOption rulesOption(QStringLiteral("rules"), QStringLiteral("Naming rules (JSON) applied before the built-in ones."), QStringLiteral("FILE"));
    parser.addOptions({stepOption, rulesOption});
    if (!parser.parse(QStringList{QStringLiteral("rankscope info")} + arguments.mid(1)) || parser.positionalArguments().size() != 1) {
        err << "rankscope info: " << (parser.errorText().isEmpty() ? QStringLiteral("give exactly one FOLDER") : parser.errorText()) << '\n';
        return 1;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        out << parser.helpText();
        return 0;
    }
    TensorNameRules rules = TensorNameRules::builtIn();
    if (parser.isSet(rulesOption)) {
        QString error;
        auto user = TensorNameRules::withUserRules(parser.value(rulesOption), &error);
        if (!user) {
            err << "rankscope info: " << error << '\n';
            return 1;
        }
        rules = *user;
    }
    const QString folder = parser.positionalArguments().first();
    if (!QFileInfo(folder).isDir()) {
        err << folder << ": not a folder\n";
        return 1;
    }
    const CheckpointListing listing = CheckpointDiscovery::scan(folder);
    if (listing.checkpoints.isEmpty()) {
        err << folder << ": no checkpoints found\n";
        return 1;
    }
    const QDir base(QFileInfo(folder).absoluteFilePath());
    struct Row {
        QString step, format, path, problem;
        const CheckpointFile *file;
    };
    QList<Row> rows;
    bool anyProblem = false;
    for (const CheckpointFile &file : listing.checkpoints) {
        QString error;
        auto reader = openCheckpoint(file.path, &error);
        std::optional<qint64> step = file.stepFromSidecar ? file.stepFromSidecar : reader && reader->step() ? reader->step() : file.stepFromName;
        rows.append({step ? QString::number(*step) : QStringLiteral("?"), reader ? reader->formatName() : QStringLiteral("-"),
                     base.relativeFilePath(QFileInfo(file.path).absoluteFilePath()), error, &file});
        anyProblem |= !reader;
    }
    out << "Checkpoints in " << QDir::toNativeSeparators(base.absolutePath()) << " (" << rows.size() << "):\n";
    out << "  " << QStringLiteral("step").leftJustified(10) << QStringLiteral("format").leftJustified(24) << "path\n";
    for (const Row &row : rows) {
        out << "  " << row.step.leftJustified(10) << row.format.leftJustified(24) << row.path;
        if (!row.problem.isEmpty())
            out << "  — not readable: " << row.problem;
        out << '\n';
    }
    for (const SkippedFile &skipped : listing.skipped)
        out << "  skipped " << base.relativeFilePath(QFileInfo(skipped.path).absoluteFilePath()) << ": " << skipped.reason << '\n';

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
    auto reader = openCheckpoint(chosen->file->path, &error);
    if (!reader) {
        err << chosen->path << ": " << error << '\n';
        return 1;
    }
    AttentionHeads heads = AttentionHeads::fromConfig(reader->modelConfig());
    if (heads.heads == 0)
        heads = AttentionHeads::fromConfig(chosen->file->sidecarConfig);
    out << "\nTensors of step " << chosen->step << " (" << chosen->path << "):\n";
    out << "  " << QStringLiteral("name").leftJustified(48) << QStringLiteral("shape").leftJustified(16)
        << QStringLiteral("dtype").leftJustified(10) << QStringLiteral("layer").leftJustified(7) << "type\n";
    int typed = 0;
    for (const TensorInfo &tensor : reader->tensors()) {
        if (tensor.shape.size() != 2)
            continue;
        const TensorAssignment a = rules.assign(tensor.name, tensor.shape, heads);
        QString layer = QStringLiteral("-"), what;
        if (a.parts.isEmpty()) {
            what = QStringLiteral("skipped: ") + a.skipReason;
        } else {
            layer = QString::number(a.parts.first().layer);
            QStringList types;
            for (const MatrixPart &p : a.parts)
                types << csvName(p.type);
            what = types.join(QLatin1String(", "));
            if (a.parts.size() > 1)
                what += QStringLiteral(" (split)");
            typed += int(a.parts.size());
        }
        out << "  " << tensor.name.leftJustified(48) << shapeText(tensor.shape).leftJustified(16)
            << tensor.dtype.leftJustified(10) << layer.leftJustified(7) << what << '\n';
    }
    out << "  " << typed << " typed matrices\n";
    return anyProblem ? 2 : 0;
}

} // namespace rankscope
