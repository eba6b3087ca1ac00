#include "io/dcp/DcpFolderLayout.h"

#include "io/dcp/DistributedCheckpointReader.h"
#include "io/RegularFile.h"
#include "io/TrainingFileNames.h"

#include <QDir>
#include <QFileInfo>

namespace rankscope {

bool DcpFolderLayout::read(const QString &folder, FolderWeights &result)
{
    const QDir dir(folder);
    const QString weights = dir.filePath(QStringLiteral("weights"));
    const bool own = DistributedCheckpointReader::isCheckpointFolder(folder);
    // NeMo 2 (nemo/lightning/ckpt_utils.py): WEIGHTS_PATH "weights" and CONTEXT_PATH "context".
    const bool nemo2 = !own && DistributedCheckpointReader::isCheckpointFolder(weights) && QFileInfo(dir.filePath(QStringLiteral("context"))).isDir();
    if (!own && !nemo2)
        return false;
    const QString dcp = own ? folder : weights;
    const QString writer = DistributedCheckpointReader::writerOf(dcp);
    WeightsGroup group;
    group.layout = WeightsLayout::DistributedCheckpoint;
    group.format = writer;
    group.name = own ? QStringLiteral(".metadata") : QStringLiteral("weights/.metadata");
    group.files << QDir(dcp).filePath(QStringLiteral(".metadata"));
    if (nemo2) {
        result.files.append({weights, FileRole::CheckpointFolder, QStringLiteral("the weights of this NeMo 2 checkpoint (%1)").arg(writer)});
        result.files.append({dir.filePath(QStringLiteral("context")), FileRole::TrainingSidecar,
                             QStringLiteral("NeMo 2 context: the model config read from its model.yaml (io.json, tokenizer files: not read)")});
        classifyFiles(weights, writer, group, result, false);
    }
    classifyFiles(folder, writer, group, result, true);
    result.subfolders.removeIf([&](const QString &path) {
        const QString name = QFileInfo(path).fileName();
        return nemo2 && (name == QLatin1String("weights") || name == QLatin1String("context"));
    });
    result.groups.append(group);
    return true;
}

QString DcpFolderLayout::orphanChunkReason(const QString &fileName)
{
    if (!fileName.endsWith(QLatin1String(".distcp")))
        return {};
    return QStringLiteral("a torch.distributed.checkpoint chunk file, but its folder has no .metadata (being written, or incomplete): not read");
}

void DcpFolderLayout::classifyFiles(const QString &folder, const QString &writer, WeightsGroup &group, FolderWeights &result, bool listSubfolders)
{
    const QFileInfoList entries =
        QDir(folder).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System | QDir::Hidden, QDir::Name);
    for (const QFileInfo &entry : entries) {
        const QString name = entry.fileName();
        const bool part = name == QLatin1String(".metadata") || name.endsWith(QLatin1String(".distcp"));
        auto classify = [&](FileRole role, const QString &reason, bool problem = false) {
            result.files.append({entry.filePath(), role, reason, problem});
        };
        if (entry.isDir()) {
            if (listSubfolders)
                result.subfolders << entry.filePath();
        } else if (const QString irregular = notRegularFileReason(entry.filePath()); !irregular.isEmpty()) {
            classify(FileRole::NotRegular, irregular + QStringLiteral(": not read"), part);
        } else if (name == QLatin1String(".metadata")) {
            classify(FileRole::ShardIndex, QStringLiteral("the index of a %1 checkpoint: each tensor's chunks and where they lie").arg(writer));
        } else if (name.endsWith(QLatin1String(".distcp"))) {
            classify(FileRole::Shard, QStringLiteral("a chunk file of the %1 checkpoint").arg(writer));
            group.files << entry.filePath();
        } else if (name == QLatin1String("metadata.json")) {
            classify(FileRole::TrainingSidecar, QStringLiteral("Megatron dist_checkpointing's metadata.json: which backend wrote the checkpoint"));
        } else if (name == QLatin1String("common.pt")) {
            // NeMo 2 saves Lightning's checkpoint dict (nemo/lightning/io/pl.py MegatronCheckpointIO): no args.
            classify(FileRole::TrainingSidecar, writer.startsWith(QLatin1String("NeMo 2"))
                                                    ? QStringLiteral("Lightning's checkpoint state (global_step, loops): its step read with the checkpoint")
                                                    : QStringLiteral("Megatron's common state (args, iteration): read with the checkpoint"));
        } else if (name.startsWith(QLatin1Char('.'))) {
            classify(FileRole::Other, QStringLiteral("a hidden file"));
        } else if (const QString sidecar = trainingSidecarKind(name); !sidecar.isEmpty()) {
            classify(FileRole::TrainingSidecar, sidecar);
        } else {
            classify(FileRole::Other, QStringLiteral("beside a %1 checkpoint: not read").arg(writer));
        }
    }
}

} // namespace rankscope
