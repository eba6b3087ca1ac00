#include "analysis/discovery/DeepSpeedSaveFolder.h"

#include "analysis/discovery/CheckpointSteps.h"
#include "base/PrintableText.h"
#include "io/deepspeed/DeepSpeedCheckpointReader.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QFileInfo>

namespace rankscope {

namespace {

// engine.py writes the tag with fd.write(tag); zero_to_fp32 reads it back with .strip().
constexpr qint64 kMaxLatestBytes = 4096;

// Whether the tag's mp_rank_00_model_states.pt was found to hold the weights under module.
bool moduleHoldsWeights(CheckpointListing &listing, const CheckpointFile &tag)
{
    for (const QString &path : tag.files)
        if (DeepSpeedFileName::parse(QFileInfo(path).fileName()).kind == DeepSpeedFileName::Kind::ModelStates)
            if (const ClassifiedFile *file = listing.fileAt(path))
                return file->role == FileRole::Weights;
    return false;
}

// A tag of this save folder: its DeepSpeed files lie in the checkpoint's own folder (a trainer's
// checkpoint holding a save folder of its own, Lightning's epoch=…ckpt/checkpoint/, is not one).
bool isTag(const CheckpointFile &c)
{
    return c.layout == WeightsLayout::DeepSpeedTag && !c.files.isEmpty() && cleanAbsolutePath(QFileInfo(c.files.first()).absolutePath()) == cleanAbsolutePath(c.path);
}

} // namespace

QString DeepSpeedSaveFolder::latestTag(const QString &path, QString *problem)
{
    QString error;
    const std::optional<QByteArray> bytes = readSmallRegularFile(path, kMaxLatestBytes, &error);
    const QString tag = bytes ? QString::fromUtf8(*bytes).trimmed() : QString();
    if (!bytes)
        *problem = QStringLiteral("DeepSpeed's latest cannot be read: %1").arg(error);
    else if (tag.isEmpty() || tag.contains(QLatin1Char('/')) || tag == QLatin1String("..") || tag == QLatin1String("."))
        *problem = QStringLiteral("DeepSpeed's latest names no tag of this folder ('%1')").arg(printableText(tag.left(200)));
    return problem->isEmpty() ? tag : QString();
}

void DeepSpeedSaveFolder::describe(const QString &root, CheckpointListing &listing)
{
    const QDir dir(root);
    QList<qsizetype> tags;
    for (qsizetype i = 0; i < listing.checkpoints.size(); ++i)
        if (isTag(listing.checkpoints[i]))
            tags << i;
    const QString latestPath = dir.filePath(QStringLiteral("latest"));
    if (tags.isEmpty() && !QFileInfo(latestPath).isFile())
        return;
    if (QFileInfo(dir.filePath(QStringLiteral("zero_to_fp32.py"))).isFile())
        listing.setRole(dir.filePath(QStringLiteral("zero_to_fp32.py")), FileRole::TrainingSidecar,
                QStringLiteral("DeepSpeed's recovery script, copied beside the tags: never run (the tags are read directly)"));
    // A tag opened on its own: the folder is the checkpoint.
    if (tags.size() == 1 && cleanAbsolutePath(listing.checkpoints[tags.first()].path) == cleanAbsolutePath(root)) {
        const CheckpointFile &tag = listing.checkpoints[tags.first()];
        listing.takenFor << QStringLiteral("one DeepSpeed tag (%1): %2").arg(QFileInfo(tag.path).fileName(), DeepSpeedTagFolder::describe(tag.files, moduleHoldsWeights(listing, tag)));
        return;
    }
    QString tagName, problem;
    if (QFileInfo(latestPath).isFile())
        tagName = latestTag(latestPath, &problem);
    const auto named = std::find_if(tags.begin(), tags.end(), [&](qsizetype i) {
        return !tagName.isEmpty() && cleanAbsolutePath(listing.checkpoints[i].path) == cleanAbsolutePath(dir.filePath(tagName));
    });
    if (!tagName.isEmpty() && named == tags.end())
        problem = QStringLiteral("DeepSpeed's latest names the tag %1, which is not here (a tag deleted, or a save folder copied in part)").arg(printableText(tagName.left(200)));
    if (QFileInfo(latestPath).isFile())
        listing.setRole(latestPath, FileRole::TrainingSidecar,
                problem.isEmpty() ? QStringLiteral("DeepSpeed's latest: names the tag %1, written after it").arg(printableText(tagName)) : problem, !problem.isEmpty());
    if (tags.isEmpty())
        return;

    // Rank 0 writes latest once every rank has saved the tag: a newer tag is still being written.
    const CheckpointFile described = listing.checkpoints[named != tags.end() ? *named : tags.last()];
    int leftOut = 0;
    if (named != tags.end()) {
        const std::optional<qint64> latestStep = CheckpointSteps::stepOf(listing.checkpoints[*named], nullptr).first;
        for (qsizetype k = tags.size() - 1; k >= 0 && latestStep; --k) {
            const CheckpointFile &tag = listing.checkpoints[tags[k]];
            const std::optional<qint64> step = CheckpointSteps::stepOf(tag, nullptr).first;
            if (!step || *step <= *latestStep)
                continue;
            const QString why = QStringLiteral("a DeepSpeed tag newer than the one latest names (%1): still being written, read once latest names it")
                                    .arg(printableText(tagName));
            listing.setRole(tag.path, FileRole::Folder, why);
            listing.skipped.append({tag.path, why});
            listing.checkpoints.removeAt(tags[k]);
            ++leftOut;
        }
    }
    listing.takenFor << QStringLiteral("a DeepSpeed save folder: %1 tag(s)%2%3, %4")
                            .arg(tags.size() - leftOut)
                            .arg(tagName.isEmpty()     ? QStringLiteral(" (no latest)")
                                 : named == tags.end() ? QStringLiteral(" (latest names %1, which is not here)").arg(printableText(tagName))
                                                       : QStringLiteral(" (latest: %1)").arg(printableText(tagName)))
                            .arg(leftOut ? QStringLiteral(", %1 newer one(s) still being written left out").arg(leftOut) : QString())
                            .arg(DeepSpeedTagFolder::describe(described.files, moduleHoldsWeights(listing, described)));
}

} // namespace rankscope
