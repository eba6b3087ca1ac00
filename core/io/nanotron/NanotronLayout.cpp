#include "io/nanotron/NanotronLayout.h"

#include "base/PrintableText.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonObject>
#include <QRegularExpression>
#include <cmath>

namespace rankscope {

namespace {

// A save of a 70B model at TP 8 has about 6,000 parameter files; a folder with more entries than
// this under model/ is not walked to its end (a hostile tree of millions of empty folders).
constexpr qint64 kMaxModelEntries = 200000;

// What nanotron keeps beside model/ in a step folder: state to resume training, never weights.
struct Beside {
    const char *name;
    const char *reason;
};
constexpr Beside kBesideModel[] = {
    {"optimizer", "nanotron's optimizer state (not weights)"},
    {"lr_scheduler", "nanotron's learning-rate scheduler state (not weights)"},
    {"random", "nanotron's random states (not weights)"},
};

} // namespace

const QString &NanotronLayout::metadataName()
{
    static const QString name = QStringLiteral("checkpoint_metadata.json");
    return name;
}

const QString &NanotronLayout::modelConfigName()
{
    static const QString name = QStringLiteral("model_config.json");
    return name;
}

std::optional<NanotronFileName> NanotronLayout::parseFileName(const QString &fileName)
{
    // serialize/utils.py get_path: f"{type.value}_{suffix_name}_pp-rank-{pp_rank}-of-{pp_size}_tp-rank-{tp_rank}-of-{tp_size}"
    // (+ f"_exp-rank-{exp_rank}-of-{exp_size}"), or f"{type.value}_{suffix_name}" when not sharded; type.value is "model".
    static const QRegularExpression pattern(QStringLiteral(
        R"(^model_(?<kind>[A-Za-z_][A-Za-z0-9_]*?)(?:_pp-rank-(?<pp>\d{1,6})-of-(?<pps>\d{1,6})_tp-rank-(?<tp>\d{1,6})-of-(?<tps>\d{1,6}))"
        R"((?:_exp-rank-(?<ep>\d{1,6})-of-(?<eps>\d{1,6}))?)?\.safetensors$)"));
    const QRegularExpressionMatch m = pattern.match(fileName);
    if (!m.hasMatch())
        return std::nullopt;
    NanotronFileName name;
    name.kind = m.captured(u"kind");
    name.sharded = m.hasCaptured(u"pp");
    if (name.sharded) {
        name.pipelineRank = m.captured(u"pp").toInt();
        name.pipelineSize = m.captured(u"pps").toInt();
        name.tensorRank = m.captured(u"tp").toInt();
        name.tensorSize = m.captured(u"tps").toInt();
        if (m.hasCaptured(u"ep")) {
            name.expertRank = m.captured(u"ep").toInt();
            name.expertSize = m.captured(u"eps").toInt();
        }
    }
    const bool inside = name.pipelineRank < name.pipelineSize && name.tensorRank < name.tensorSize && name.expertRank < name.expertSize;
    return inside ? std::optional(name) : std::nullopt;
}

QString NanotronLayout::parameterName(const QString &modelFolder, const QString &file)
{
    const std::optional<NanotronFileName> parsed = parseFileName(QFileInfo(file).fileName());
    if (!parsed)
        return {};
    QStringList parts = QDir(modelFolder).relativeFilePath(QFileInfo(file).absolutePath()).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (parts.isEmpty() || parts.contains(QLatin1String("..")) || parts.contains(QLatin1String(".")))
        return {};
    parts << parsed->kind;
    return parts.join(QLatin1Char('.'));
}

bool NanotronLayout::recognise(const QString &folder, FolderWeights &weights)
{
    const QDir dir(folder);
    const QString metadata = dir.filePath(metadataName());
    const QString model = dir.filePath(QStringLiteral("model"));
    if (!QFileInfo(metadata).isFile() || !QFileInfo(model).isDir() || QFileInfo(model).isSymLink())
        return false;
    WeightsGroup group;
    group.layout = WeightsLayout::NanotronParameters;
    group.name = dir.dirName();
    group.format = QStringLiteral("nanotron");
    group.files << metadata;

    // trainer.py save_checkpoint: checkpoint_metadata.json's metas.last_train_step is the step saved.
    QString why;
    const std::optional<QJsonObject> meta = readSmallJsonObject(metadata, kMaxSidecarBytes, &why);
    QString metadataNote;
    if (!meta) {
        group.error = QStringLiteral("%1: %2").arg(metadataName(), why);
        metadataNote = QStringLiteral("nanotron's checkpoint metadata, unreadable: %1").arg(why);
    } else {
        group.stepInFile = jsonWholeNumber(meta->value(QStringLiteral("metas")).toObject().value(QStringLiteral("last_train_step")));
        metadataNote = QStringLiteral("nanotron's checkpoint metadata (version %1, TP %2, DP %3%4)")
                           .arg(printableText(meta->value(QStringLiteral("version")).toString().left(20)),
                                QString::number(jsonWholeNumber(meta->value(QStringLiteral("tp"))).value_or(0)),
                                QString::number(jsonWholeNumber(meta->value(QStringLiteral("dp"))).value_or(0)),
                                group.stepInFile ? QStringLiteral(", last_train_step %1").arg(*group.stepInFile) : QString());
    }
    weights.classifyAs(metadata, FileRole::TrainingSidecar, metadataNote);

    QStringList parameters;
    qint64 entries = 0;
    QDirIterator it(model, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (++entries > kMaxModelEntries) {
            group.error = QStringLiteral("model/ holds more than %1 entries, more than any nanotron save: not read").arg(kMaxModelEntries);
            break;
        }
        const QFileInfo info = it.fileInfo();
        if (info.isDir())
            continue;
        if (info.isFile() && !info.isSymLink() && !parameterName(model, path).isEmpty())
            parameters << path;
        else
            weights.files.append({path, FileRole::Other, QStringLiteral("not a parameter file nanotron writes under model/: not read"),
                                  info.suffix().compare(QLatin1String("safetensors"), Qt::CaseInsensitive) == 0});
    }
    std::sort(parameters.begin(), parameters.end());
    if (parameters.isEmpty() && group.error.isEmpty())
        group.error = QStringLiteral("model/ holds no parameter files (model_weight….safetensors): nothing to read");
    group.files << parameters;
    weights.groups.prepend(group);

    weights.subfolders.removeAll(model);
    weights.files.append({model, FileRole::Folder,
                          QStringLiteral("nanotron's parameters: %1 file(s), each tensor-parallel shard joined by its recorded slices").arg(parameters.size())});
    for (const Beside &beside : kBesideModel) {
        const QString path = dir.filePath(QLatin1String(beside.name));
        if (weights.subfolders.removeAll(path) > 0)
            weights.files.append({path, FileRole::TrainingSidecar, QLatin1String(beside.reason)});
    }
    return true;
}

std::optional<qint64> NanotronLayout::latestStep(const QString &checkpointsFolder)
{
    QFile file(QDir(checkpointsFolder).filePath(QStringLiteral("latest.txt")));
    QString error;
    if (!RegularFile::open(file, file.fileName(), &error))
        return std::nullopt;
    bool ok = false;
    const qint64 step = QString::fromLatin1(file.read(32)).trimmed().toLongLong(&ok);
    return ok && step >= 0 ? std::optional(step) : std::nullopt;
}

QVariantMap NanotronLayout::modelConfig(const QString &folder)
{
    const QDir dir(folder);
    if (!QFileInfo(dir.filePath(metadataName())).isFile())
        return {};
    const std::optional<QJsonObject> config = readSmallJsonObject(dir.filePath(modelConfigName()));
    return config ? config->toVariantMap() : QVariantMap();
}

} // namespace rankscope
