#include "analysis/CheckpointDiscovery.h"

#include "analysis/ResultsFile.h"
#include "io/CheckpointReader.h"
#include "io/RegularFile.h"

#include <QCollator>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>

namespace rankscope {

namespace {


// A sidecar: only a small regular file is read (a FIFO named config.json, a link to /dev/zero are not).
QJsonObject readSmallJson(const QString &path)
{
    return readSmallJsonObject(path).value_or(QJsonObject());
}

bool isResultsFile(const QFileInfo &file)
{
    const QString suffix = file.suffix().toLower();
    return (suffix == QLatin1String("h5") || suffix == QLatin1String("hdf5")) && ResultsFile::isResultsFile(file.filePath());
}

bool isWeightFile(const QFileInfo &file)
{
    return weightFileSuffixes().contains(file.suffix().toLower()) && !isTrainingSidecar(file.fileName()) &&
           !isResultsFile(file);
}

// config.json (Hugging Face) in the folder, or the run folder above it.
std::pair<QVariantMap, QString> configNear(const QDir &dir)
{
    for (const QDir &d : {dir, QDir(dir.filePath(QStringLiteral("..")))}) {
        const QString path = QDir::cleanPath(d.absoluteFilePath(QStringLiteral("config.json")));
        const QJsonObject config = readSmallJson(path);
        if (!config.isEmpty())
            return {config.toVariantMap(), path};
    }
    return {};
}

} // namespace

std::optional<qint64> CheckpointDiscovery::stepFromName(const QString &fileName)
{
    static const QRegularExpression pattern(
        QStringLiteral(R"((?:checkpoint|global_step|step|ckpt|model|iter)[-_]?(\d+))"),
        QRegularExpression::CaseInsensitiveOption);
    QRegularExpressionMatch last;
    auto it = pattern.globalMatch(fileName);
    while (it.hasNext())
        last = it.next();
    if (!last.hasMatch())
        return std::nullopt;
    return last.captured(1).toLongLong();
}

bool CheckpointDiscovery::isCheckpointFolder(const QString &folder)
{
    const QDir dir(folder);
    if (!dir.entryList({"*.index.json", "*.npy"}, QDir::Files).isEmpty())
        return true;
    const QFileInfoList files = dir.entryInfoList(QDir::Files);
    return std::any_of(files.begin(), files.end(), isWeightFile);
}

CheckpointListing CheckpointDiscovery::scan(const QString &folder)
{
    CheckpointListing listing;
    const QDir dir(folder);
    const auto [runConfig, runConfigPath] = configNear(dir);

    // The folder is itself one checkpoint when its weights are shards with an index or .npy arrays.
    const bool folderIsOneCheckpoint = !dir.entryList({"*.index.json", "*.npy"}, QDir::Files).isEmpty();
    const QFileInfoList files = dir.entryInfoList(QDir::Files | QDir::Readable, QDir::Name);
    if (folderIsOneCheckpoint) {
        const QJsonObject state = readSmallJson(dir.filePath(QStringLiteral("trainer_state.json")));
        CheckpointFile c{QDir::cleanPath(dir.absolutePath()), true, {}, {}, stepFromName(dir.dirName()), runConfig, runConfigPath};
        if (state.contains(QLatin1String("global_step"))) {
            c.stepFromSidecar = state.value(QLatin1String("global_step")).toInteger();
            c.stepSidecar = dir.filePath(QStringLiteral("trainer_state.json"));
        }
        listing.checkpoints.append(c);
    } else {
        for (const QFileInfo &file : files) {
            if (!weightFileSuffixes().contains(file.suffix().toLower()))
                continue;
            if (isTrainingSidecar(file.fileName())) {
                listing.skipped.append({file.filePath(), QStringLiteral("training sidecar, not model weights")});
                continue;
            }
            if (isResultsFile(file)) {
                listing.skipped.append({file.filePath(), QStringLiteral("a RankScope results file")});
                continue;
            }
            CheckpointFile c{file.filePath(), false, {}, {}, stepFromName(file.fileName()), runConfig, runConfigPath};
            // nanochat writes model_000500.pt beside meta_000500.json, which holds the step and model_config.
            static const QRegularExpression digits(QStringLiteral(R"((\d+)\.\w+$)"));
            if (const auto m = digits.match(file.fileName()); m.hasMatch()) {
                const QString metaPath = dir.filePath(QStringLiteral("meta_%1.json").arg(m.captured(1)));
                const QJsonObject meta = readSmallJson(metaPath);
                if (meta.contains(QLatin1String("step"))) {
                    c.stepFromSidecar = meta.value(QLatin1String("step")).toInteger();
                    c.stepSidecar = metaPath;
                }
                if (meta.value(QLatin1String("model_config")).isObject()) {
                    c.sidecarConfig = meta.value(QLatin1String("model_config")).toObject().toVariantMap();
                    c.configPath = metaPath;
                }
            }
            listing.checkpoints.append(c);
        }
    }

    // One subfolder per checkpoint: a Trainer's checkpoint-N/, step_1000/, …
    for (const QFileInfo &sub : dir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Readable, QDir::Name)) {
        if (!isCheckpointFolder(sub.filePath()))
            continue;
        const QDir subDir(sub.filePath());
        const auto [config, configPath] = configNear(subDir);
        CheckpointFile c{sub.filePath(), true, {}, {}, stepFromName(sub.fileName()), config, configPath};
        const QJsonObject state = readSmallJson(subDir.filePath(QStringLiteral("trainer_state.json")));
        if (state.contains(QLatin1String("global_step"))) {
            c.stepFromSidecar = state.value(QLatin1String("global_step")).toInteger();
            c.stepSidecar = subDir.filePath(QStringLiteral("trainer_state.json"));
        }
        listing.checkpoints.append(c);
    }

    QCollator collator;
    collator.setNumericMode(true);
    auto knownStep = [](const CheckpointFile &c) { return c.stepFromSidecar ? c.stepFromSidecar : c.stepFromName; };
    std::stable_sort(listing.checkpoints.begin(), listing.checkpoints.end(),
                     [&](const CheckpointFile &a, const CheckpointFile &b) {
                         const auto sa = knownStep(a), sb = knownStep(b);
                         if (sa && sb && *sa != *sb)
                             return *sa < *sb;
                         return collator.compare(a.path, b.path) < 0;
                     });
    return listing;
}

} // namespace rankscope
