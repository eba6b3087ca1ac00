#include "analysis/discovery/AccelerateSaveFolder.h"

#include "io/RegularFile.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>

namespace rankscope {

namespace {

// Accelerate's names: the save (accelerator.py), model 0's FSDP weights and any optimizer's
// (FSDP_MODEL_NAME "pytorch_model_fsdp", OPTIMIZER_NAME "optimizer"), the RNG state every save has.
const QRegularExpression &saveName()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^checkpoint_(\d+)$)"));
    return pattern;
}
const QRegularExpression &fsdpModelName()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^pytorch_model_fsdp_(\d+)$)"));
    return pattern;
}
const QRegularExpression &optimizerName()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^optimizer_\d+$)"));
    return pattern;
}

// Whether a checkpoint_N/ folder is one Accelerate saved: its RNG states, or FSDP's folders.
bool isAccelerateSave(const QString &folder)
{
    const QDir dir(folder);
    if (!saveName().match(dir.dirName()).hasMatch())
        return false;
    if (!dir.entryList({QStringLiteral("random_states_*.pkl")}, QDir::Files).isEmpty())
        return true;
    const QStringList subfolders = dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    return std::any_of(subfolders.begin(), subfolders.end(), [](const QString &name) {
        return fsdpModelName().match(name).hasMatch() || optimizerName().match(name).hasMatch();
    });
}

// What a save's weights are, for "taken for".
QString weightsOf(const CheckpointFile &c)
{
    if (c.layout == WeightsLayout::DistributedCheckpoint)
        return QStringLiteral("pytorch_model_fsdp_0/ (FSDP SHARDED_STATE_DICT: a torch.distributed.checkpoint folder, keys under model.)");
    const QString name = c.files.isEmpty() ? QString() : QFileInfo(c.files.first()).fileName();
    if (name.startsWith(QLatin1String("pytorch_model_fsdp")))
        return QStringLiteral("%1 (FSDP FULL_STATE_DICT)").arg(name);
    return name.isEmpty() ? QStringLiteral("none readable") : name;
}

} // namespace

std::optional<FolderWeights> AccelerateSaveFolder::checkpointIn(const QString &folder)
{
    if (!QFileInfo(folder).isDir() || !isAccelerateSave(folder))
        return std::nullopt;
    const FolderWeights own = FolderWeights::read(folder);
    if (!own.listingError.isEmpty())
        return std::nullopt;
    const QString modelDir = QDir(folder).filePath(QStringLiteral("pytorch_model_fsdp_0"));
    const bool sharded = QFileInfo(modelDir).isDir();
    const bool optimizerFolders = std::any_of(own.subfolders.begin(), own.subfolders.end(),
                                              [](const QString &path) { return optimizerName().match(QFileInfo(path).fileName()).hasMatch(); });
    // FULL_STATE_DICT, or no FSDP: the weights lie in the folder, read as any checkpoint folder is.
    if (!sharded && !(optimizerFolders && own.groups.isEmpty()))
        return std::nullopt;

    FolderWeights result;
    result.files = own.files;
    if (sharded) {
        // Weights beside FSDP's folder are not what Accelerate loads back (load_fsdp_model reads the folder).
        for (const WeightsGroup &group : own.groups)
            for (const QString &path : group.files)
                for (ClassifiedFile &file : result.files)
                    if (file.path == path)
                        file = {file.path, FileRole::Other, QStringLiteral("weights beside Accelerate's FSDP folder pytorch_model_fsdp_0/: not read")};
        const FolderWeights model = FolderWeights::read(modelDir);
        for (WeightsGroup group : model.groups)
            if (group.layout == WeightsLayout::DistributedCheckpoint) {
                group.name = QStringLiteral("pytorch_model_fsdp_0/.metadata");
                result.groups.append(group);
            }
        result.files.append({modelDir, FileRole::CheckpointFolder,
                             result.groups.isEmpty()
                                 ? QStringLiteral("Accelerate's FSDP sharded weights of model 0, without the .metadata that indexes them: not readable")
                                 : QStringLiteral("Accelerate's FSDP sharded weights of model 0 (save_fsdp_model, a torch.distributed.checkpoint folder): "
                                                  "this checkpoint's weights")});
        result.files.append(model.files);
    } else {
        WeightsGroup refused;
        refused.layout = WeightsLayout::DistributedCheckpoint;
        refused.format = QStringLiteral("torch.distributed.checkpoint");
        refused.name = QStringLiteral("pytorch_model_fsdp_0");
        refused.error = QStringLiteral("Accelerate saved the optimizer's state here (optimizer_0/) but no model weights: pytorch_model_fsdp_0/ is missing");
        result.groups.append(refused);
    }
    for (const QString &sub : own.subfolders) {
        const QString name = QFileInfo(sub).fileName();
        if (cleanAbsolutePath(sub) == cleanAbsolutePath(modelDir))
            continue;
        if (optimizerName().match(name).hasMatch())
            result.files.append({sub, FileRole::TrainingSidecar,
                                 QStringLiteral("optimizer state (Accelerate's save_fsdp_optimizer: a torch.distributed.checkpoint folder): not weights, not read")});
        else if (const auto m = fsdpModelName().match(name); m.hasMatch())
            result.files.append({sub, FileRole::Other,
                                 QStringLiteral("the weights of model %1 Accelerate prepared: not read (this checkpoint is model 0's)").arg(m.captured(1))});
        else
            result.files.append({sub, FileRole::Folder, QStringLiteral("inside an Accelerate save: not searched")});
    }
    return result;
}

void AccelerateSaveFolder::describe(const QString &root, CheckpointListing &listing)
{
    Q_UNUSED(root);
    int saves = 0;
    QString weights;
    for (CheckpointFile &c : listing.checkpoints) {
        const QRegularExpressionMatch m = saveName().match(QFileInfo(c.path).fileName());
        if (!c.isFolder || !m.hasMatch() || !isAccelerateSave(c.path))
            continue;
        ++saves;
        if (weights.isEmpty() && c.error.isEmpty())
            weights = weightsOf(c);
        if (c.stepFromSidecar)
            continue;
        bool ok = false;
        const qint64 index = m.captured(1).toLongLong(&ok);
        if (!ok)
            continue; // the name's problem is said with its step
        c.stepFromSidecar = index;
        c.stepSourceText = QStringLiteral("the save index in the name %1 (Accelerate numbers its saves, not its training steps)").arg(QFileInfo(c.path).fileName());
        c.stepNote = QStringLiteral("the steps of this run are Accelerate's save indices (checkpoint_N is the N-th save_state of automatic_checkpoint_naming), "
                                    "not training steps: no file of a save records the step it was taken at");
    }
    if (saves == 0)
        return;
    listing.takenFor << QStringLiteral("an Accelerate save_state folder (automatic_checkpoint_naming): %1 checkpoint_N/ save(s), weights from %2; "
                                       "steps are save indices, not training steps; optimizer state, random_states_*.pkl and scheduler.bin are not read")
                            .arg(saves)
                            .arg(weights.isEmpty() ? QStringLiteral("none readable") : weights);
}

} // namespace rankscope
