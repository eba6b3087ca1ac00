#include "analysis/discovery/LightningDeepSpeedFolder.h"

#include "analysis/discovery/DeepSpeedSaveFolder.h"
#include "base/PrintableText.h"
#include "io/RegularFile.h"
#include "io/deepspeed/DeepSpeedCheckpointReader.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace rankscope {

namespace {

// ModelCheckpoint.FILE_EXTENSION: the name Lightning gives every save, a folder under DeepSpeed.
const QString kExtension = QStringLiteral(".ckpt");

bool holdsTag(const FolderWeights &weights)
{
    return std::any_of(weights.groups.begin(), weights.groups.end(), [](const WeightsGroup &g) { return g.layout == WeightsLayout::DeepSpeedTag; });
}

// The model states of data-parallel rank 0 among a tag's files: where the client state is.
QString rankZeroModelStates(const QStringList &files)
{
    for (const QString &path : files) {
        const DeepSpeedFileName name = DeepSpeedFileName::parse(QFileInfo(path).fileName());
        if (name.mpRank == 0 && (name.kind == DeepSpeedFileName::Kind::ModelStates ||
                                 (name.kind == DeepSpeedFileName::Kind::RankModelStates && name.dpRank == 0)))
            return path;
    }
    return {};
}

// What Lightning merged into DeepSpeed's model states: its global_step and its version.
struct LightningState {
    std::optional<qint64> globalStep;
    QString version;
};

LightningState lightningStateIn(const QString &modelStates)
{
    LightningState state;
    QString error;
    const auto reader = modelStates.isEmpty() ? nullptr : TorchCheckpointReader::openAnyObject(modelStates, &error);
    if (!reader || !reader->root() || reader->root()->kind != PickleValue::Kind::Dict)
        return state;
    if (const PickleRef step = reader->root()->value(QStringLiteral("global_step")); step && step->kind == PickleValue::Kind::Int && step->integer >= 0)
        state.globalStep = step->integer;
    if (const PickleRef version = reader->root()->value(QStringLiteral("pytorch-lightning_version")); version && version->isString())
        state.version = printableText(version->text.left(40));
    return state;
}

bool moduleHoldsWeights(const CheckpointListing &listing, const QString &modelStates)
{
    return std::any_of(listing.files.begin(), listing.files.end(), [&](const ClassifiedFile &f) {
        return cleanAbsolutePath(f.path) == cleanAbsolutePath(modelStates) && f.role == FileRole::Weights;
    });
}

} // namespace

std::optional<FolderWeights> LightningDeepSpeedFolder::checkpointIn(const QString &folder)
{
    const QFileInfo info(folder);
    if (!info.fileName().endsWith(kExtension) || !info.isDir())
        return std::nullopt;
    const FolderWeights own = FolderWeights::read(folder);
    // Weights of its own (Lightning's FSDP saves a DCP folder as epoch=…ckpt/): not DeepSpeed's save.
    if (!own.listingError.isEmpty() || !own.groups.isEmpty())
        return std::nullopt;
    QList<QPair<QString, FolderWeights>> tags;
    for (const QString &sub : own.subfolders)
        if (FolderWeights weights = FolderWeights::read(sub); holdsTag(weights))
            tags.append({sub, std::move(weights)});
    const QString latestPath = QDir(folder).filePath(QStringLiteral("latest"));
    const bool hasLatest = QFileInfo(latestPath).isFile();
    if (tags.isEmpty() && !hasLatest)
        return std::nullopt;

    // The tag `latest` names; without `latest` (the save is not finished), the one tag here.
    QString problem, tagName;
    if (hasLatest)
        tagName = DeepSpeedSaveFolder::latestTag(latestPath, &problem);
    const auto chosen = std::find_if(tags.begin(), tags.end(), [&](const auto &tag) {
        return hasLatest ? !tagName.isEmpty() && QFileInfo(tag.first).fileName() == tagName : tags.size() == 1;
    });
    if (problem.isEmpty() && chosen == tags.end())
        problem = !hasLatest ? QStringLiteral("%1 DeepSpeed tags and no latest to say which is this checkpoint").arg(tags.size())
                  : QFileInfo(QDir(folder).filePath(tagName)).isDir()
                      ? QStringLiteral("the tag %1 that DeepSpeed's latest names holds no model states or ZeRO partitions").arg(printableText(tagName))
                      : QStringLiteral("DeepSpeed's latest names the tag %1, which is not here").arg(printableText(tagName.left(200)));

    FolderWeights result;
    for (ClassifiedFile file : own.files) {
        const QString name = QFileInfo(file.path).fileName();
        if (name == QLatin1String("latest"))
            file = {file.path, FileRole::TrainingSidecar,
                    tagName.isEmpty() ? QStringLiteral("DeepSpeed's latest, naming no tag of this checkpoint")
                                      : QStringLiteral("DeepSpeed's latest: names the tag %1, written once every rank has saved it").arg(printableText(tagName))};
        else if (name == QLatin1String("zero_to_fp32.py"))
            file = {file.path, FileRole::TrainingSidecar, QStringLiteral("DeepSpeed's recovery script, copied beside the tag: never run (the tag is read directly)")};
        result.files.append(file);
    }
    for (const QString &sub : own.subfolders) {
        const auto tag = std::find_if(tags.begin(), tags.end(), [&](const auto &t) { return t.first == sub; });
        if (tag == chosen && chosen != tags.end()) {
            result.files.append({sub, FileRole::CheckpointFolder,
                                 QStringLiteral("the DeepSpeed tag Lightning saved (tag %1): this checkpoint's weights").arg(QFileInfo(sub).fileName())});
            result.files.append(tag->second.files);
        } else {
            result.files.append({sub, FileRole::Folder, tag != tags.end() ? QStringLiteral("a DeepSpeed tag that latest does not name: not read")
                                                                        : QStringLiteral("inside a Lightning DeepSpeed checkpoint: not searched")});
        }
    }
    if (problem.isEmpty()) {
        for (const WeightsGroup &group : chosen->second.groups)
            if (group.layout == WeightsLayout::DeepSpeedTag)
                result.groups.append(group);
    } else {
        WeightsGroup refused;
        refused.layout = WeightsLayout::DeepSpeedTag;
        refused.format = QStringLiteral("deepspeed");
        refused.name = QStringLiteral("DeepSpeed tag");
        refused.error = problem;
        result.groups.append(refused);
    }
    return result;
}

bool LightningDeepSpeedFolder::isLightningSave(const CheckpointFile &c)
{
    return c.layout == WeightsLayout::DeepSpeedTag && c.isFolder && c.path.endsWith(kExtension) &&
           (c.files.isEmpty() || cleanAbsolutePath(QFileInfo(c.files.first()).absolutePath()) != cleanAbsolutePath(c.path));
}

void LightningDeepSpeedFolder::describe(const QString &root, CheckpointListing &listing)
{
    // A save opened on its own is a DeepSpeed save folder of one tag (DeepSpeedSaveFolder): its step
    // is still Lightning's.
    if (root.endsWith(kExtension) && listing.checkpoints.size() == 1 && listing.checkpoints.first().layout == WeightsLayout::DeepSpeedTag) {
        CheckpointFile &tag = listing.checkpoints.first();
        const LightningState state = lightningStateIn(rankZeroModelStates(tag.files));
        if (!state.globalStep)
            return;
        tag.stepFromSidecar = state.globalStep;
        tag.stepSidecar = rankZeroModelStates(tag.files);
        tag.stepSourceText = QStringLiteral("Lightning's global_step, in %1").arg(QFileInfo(tag.stepSidecar).fileName());
        listing.takenFor << QStringLiteral("one Lightning checkpoint saved under DeepSpeedStrategy (%1%2): its step Lightning's global_step %3")
                                .arg(QFileInfo(root).fileName(), state.version.isEmpty() ? QString() : QStringLiteral(", Lightning %1").arg(state.version))
                                .arg(*state.globalStep);
        return;
    }
    if (std::none_of(listing.checkpoints.begin(), listing.checkpoints.end(), &isLightningSave))
        return;

    // Rank 0 writes latest once every rank has saved the tag: a save without it is not finished.
    int unfinished = 0;
    QStringList left;
    listing.checkpoints.removeIf([&](const CheckpointFile &c) {
        if (!isLightningSave(c) || QFileInfo(QDir(c.path).filePath(QStringLiteral("latest"))).exists())
            return false;
        left << c.path;
        return true;
    });
    for (const QString &path : left) {
        const QString why = QStringLiteral("a Lightning DeepSpeed save without DeepSpeed's latest (written once every rank has saved): "
                                           "still being written, or its save failed; not analysed");
        listing.setRole(path, FileRole::CheckpointFolder, why);
        listing.skipped.append({path, why});
        listing.beingWritten << path;
        ++unfinished;
    }

    QString version, described;
    int saves = 0, fromName = 0;
    bool last = false;
    for (CheckpointFile &c : listing.checkpoints) {
        if (!isLightningSave(c))
            continue;
        ++saves;
        last |= QFileInfo(c.path).fileName().startsWith(QLatin1String("last"));
        const QString modelStates = rankZeroModelStates(c.files);
        if (described.isEmpty() && !modelStates.isEmpty())
            described = DeepSpeedTagFolder::describe(c.files, moduleHoldsWeights(listing, modelStates));
        if (c.stepFromSidecar || !c.error.isEmpty())
            continue;
        // Lightning's global_step, which its name's step=N gives too; DeepSpeed's global_steps is
        // not Lightning's step under gradient accumulation, so the name comes before it.
        const LightningState state = lightningStateIn(modelStates);
        if (version.isEmpty())
            version = state.version;
        const QString tagFolder = QFileInfo(QFileInfo(modelStates).absolutePath()).fileName();
        if (state.globalStep) {
            c.stepFromSidecar = state.globalStep;
            c.stepSidecar = modelStates;
            c.stepSourceText = QStringLiteral("Lightning's global_step, in %1/%2").arg(tagFolder, QFileInfo(modelStates).fileName());
        } else if (c.stepFromName) {
            c.stepFromSidecar = c.stepFromName;
            c.stepSourceText = QStringLiteral("the name (Lightning's step=N)");
            ++fromName;
        }
    }
    QStringList extras;
    if (last)
        extras << QStringLiteral("save_last's last.ckpt is the newest step saved again: one save per step is read, the other named");
    if (unfinished > 0)
        extras << QStringLiteral("%1 save(s) without DeepSpeed's latest (not finished) left out").arg(unfinished);
    listing.takenFor << QStringLiteral("a Lightning ModelCheckpoint folder under DeepSpeedStrategy%1: %2 save(s), each a .ckpt folder holding one DeepSpeed "
                                       "tag (checkpoint/, named by latest) read as DeepSpeed's%3; steps Lightning's global_step%4%5")
                            .arg(version.isEmpty() ? QString() : QStringLiteral(" (Lightning %1)").arg(version))
                            .arg(saves)
                            .arg(described.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(described))
                            .arg(fromName > 0 ? QStringLiteral(" (%1 from the name: no global_step in the model states)").arg(fromName) : QString())
                            .arg(extras.isEmpty() ? QString() : QStringLiteral("; ") + extras.join(QLatin1String("; ")));
}

} // namespace rankscope
