#include "analysis/CheckpointDiscovery.h"

#include <QCollator>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>

namespace rankscope {

namespace {
const QStringList kCheckpointSuffixes = {"pt", "pth", "bin", "ckpt", "safetensors", "h5", "hdf5", "npy", "npz"};
}

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

bool CheckpointDiscovery::isSidecar(const QString &fileName)
{
    static const QRegularExpression pattern(
        QStringLiteral(R"(^(optimizer|optim_.*|scheduler|rng_state.*|training_args|trainer_state)\.\w+$)"));
    return pattern.match(fileName).hasMatch();
}

CheckpointListing CheckpointDiscovery::scan(const QString &folder)
{
    CheckpointListing listing;
    const QFileInfoList files = QDir(folder).entryInfoList(QDir::Files | QDir::Readable, QDir::Name);
    for (const QFileInfo &file : files) {
        if (!kCheckpointSuffixes.contains(file.suffix().toLower()))
            continue;
        if (isSidecar(file.fileName())) {
            listing.skipped.append({file.filePath(), QStringLiteral("training sidecar, not model weights")});
            continue;
        }
        listing.checkpoints.append({file.filePath(), stepFromName(file.fileName())});
    }
    QCollator collator;
    collator.setNumericMode(true);
    std::stable_sort(listing.checkpoints.begin(), listing.checkpoints.end(),
                     [&](const CheckpointFile &a, const CheckpointFile &b) {
                         if (a.stepFromName && b.stepFromName && *a.stepFromName != *b.stepFromName)
                             return *a.stepFromName < *b.stepFromName;
                         return collator.compare(a.path, b.path) < 0;
                     });
    return listing;
}

} // namespace rankscope
