// Finds the checkpoints of a training run in a folder and the step of each, from its name
// (checkpoint-500, step_1000, ckpt_001000.pt, …); readers may later supply a step recorded inside.
#pragma once

#include <QList>
#include <QString>
#include <optional>

namespace rankscope {

struct CheckpointFile {
    QString path;
    std::optional<qint64> stepFromName;
};

struct SkippedFile {
    QString path;
    QString reason;
};

struct CheckpointListing {
    QList<CheckpointFile> checkpoints; // ordered by step from the name, then by name
    QList<SkippedFile> skipped;        // files that look like checkpoints but are sidecars
};

class CheckpointDiscovery {
public:
    static CheckpointListing scan(const QString &folder);
    static std::optional<qint64> stepFromName(const QString &fileName);
    static bool isSidecar(const QString &fileName);
};

} // namespace rankscope
