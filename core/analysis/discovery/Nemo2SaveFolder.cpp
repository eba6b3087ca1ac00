#include "analysis/discovery/Nemo2SaveFolder.h"

#include "io/RegularFile.h"
#include "io/dcp/DistributedCheckpointReader.h"
#include "io/nemo/NemoContext.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>

namespace rankscope {

namespace {

// ModelCheckpoint.UNFINISHED_CHECKPOINT_SUFFIX, appended to the checkpoint's path.
const QString kUnfinished = QStringLiteral("-unfinished");

bool isNemo2(const CheckpointFile &c) { return c.layout == WeightsLayout::DistributedCheckpoint && c.format.startsWith(QLatin1String("NeMo 2")); }

// Leaves out every checkpoint with a marker beside it; returns how many.
int leaveOutUnfinished(const QDir &root, CheckpointListing &listing)
{
    int leftOut = 0;
    const QFileInfoList markers = root.entryInfoList({QLatin1Char('*') + kUnfinished}, QDir::Files | QDir::Hidden | QDir::System);
    for (const QFileInfo &marker : markers) {
        const QString checkpoint = cleanAbsolutePath(marker.absoluteFilePath().chopped(kUnfinished.size()));
        const qsizetype before = listing.checkpoints.size();
        listing.checkpoints.removeIf([&](const CheckpointFile &c) { return isNemo2(c) && cleanAbsolutePath(c.path) == checkpoint; });
        const bool listed = listing.checkpoints.size() < before;
        listing.setRole(marker.absoluteFilePath(), FileRole::TrainingSidecar,
                QStringLiteral("NeMo's unfinished-checkpoint marker of %1 (removed once every rank has saved it)").arg(QFileInfo(checkpoint).fileName()));
        if (!listed)
            continue;
        const QString why = QStringLiteral("NeMo marks this checkpoint unfinished (%1 beside it): being written, or its save failed; not analysed")
                                .arg(marker.fileName());
        listing.setRole(checkpoint, FileRole::CheckpointFolder, why);
        listing.skipped.append({checkpoint, why});
        listing.beingWritten << checkpoint;
        ++leftOut;
    }
    return leftOut;
}

// NeMoLogger's default name ("…-epoch=0-consumed_samples=…") carries no step: Lightning's
// global_step, in the weights' common state, gives it.
void stepsFromWeights(CheckpointListing &listing)
{
    for (CheckpointFile &c : listing.checkpoints) {
        if (!isNemo2(c) || c.stepFromName || c.stepInFile || !c.error.isEmpty())
            continue;
        QString error;
        if (const auto reader = DistributedCheckpointReader::open(QDir(c.path).filePath(QStringLiteral("weights")), &error))
            c.stepInFile = reader->step();
    }
}

} // namespace

bool Nemo2SaveFolder::isNemo2Checkpoint(const WeightsGroup &group)
{
    return group.layout == WeightsLayout::DistributedCheckpoint && group.format.startsWith(QLatin1String("NeMo 2"));
}

void Nemo2SaveFolder::describe(const QString &root, CheckpointListing &listing)
{
    if (std::none_of(listing.checkpoints.begin(), listing.checkpoints.end(), isNemo2))
        return;
    const QDir dir(root);
    const int leftOut = leaveOutUnfinished(dir, listing);
    stepsFromWeights(listing);
    const auto first = std::find_if(listing.checkpoints.begin(), listing.checkpoints.end(), isNemo2);
    if (first == listing.checkpoints.end()) {
        listing.takenFor << QStringLiteral("NeMo 2 checkpoints: every one marked unfinished (%1), none analysed").arg(leftOut);
        return;
    }
    const NemoContextConfig context = NemoContext::read(QDir(first->path).filePath(QStringLiteral("context")));
    const QString config = context.fields.isEmpty() ? QStringLiteral("no model config (%1)").arg(context.problem)
                                                    : QStringLiteral("model config from context/model.yaml, %1").arg(NemoContext::describe(context));
    const auto count = std::count_if(listing.checkpoints.begin(), listing.checkpoints.end(), isNemo2);
    const auto last = std::count_if(listing.checkpoints.begin(), listing.checkpoints.end(),
                                    [](const CheckpointFile &c) { return isNemo2(c) && c.path.endsWith(QLatin1String("-last")); });
    QString extras;
    if (last > 0)
        extras += QStringLiteral(", %1 of them save_last's -last copy").arg(last);
    if (leftOut > 0)
        extras += QStringLiteral(", %1 marked unfinished left out").arg(leftOut);
    if (count == 1 && cleanAbsolutePath(first->path) == cleanAbsolutePath(root))
        listing.takenFor << QStringLiteral("one NeMo 2 checkpoint (weights/ + context/): %1").arg(config);
    else
        listing.takenFor << QStringLiteral("a NeMo 2 ModelCheckpoint folder: %1 checkpoint(s)%2, steps from their names or the weights' global_step; %3")
                                .arg(count).arg(extras, config);
}

} // namespace rankscope
