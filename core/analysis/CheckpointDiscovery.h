// Finds the checkpoints of a training run in a folder: flat files (ckpt_001000.pt, model_000500.pt,
// step_1000.safetensors), one subfolder per checkpoint (a Trainer's checkpoint-N/), or a single
// checkpoint folder (save_pretrained, shards with an index, .npy arrays). Each gets the step its
// sidecars (trainer_state.json, nanochat's meta_N.json) or its name give; readers may supply one
// recorded inside the file.
#pragma once

#include <QList>
#include <QString>
#include <QVariantMap>
#include <optional>

namespace rankscope {

struct CheckpointFile {
    QString path; // a file, or a folder holding one checkpoint
    bool isFolder = false;
    std::optional<qint64> stepFromSidecar;
    QString stepSidecar;       // the file stepFromSidecar was read from
    std::optional<qint64> stepFromName;
    QVariantMap sidecarConfig; // config.json / meta_N.json model_config: head counts for naming rules
    QString configPath;        // the file sidecarConfig was read from
};

struct SkippedFile {
    QString path;
    QString reason;
};

struct CheckpointListing {
    QList<CheckpointFile> checkpoints; // ordered by step (sidecar, then name), then by name
    QList<SkippedFile> skipped;        // sidecars and other files that are not checkpoints
};

class CheckpointDiscovery {
public:
    static CheckpointListing scan(const QString &folder);
    static std::optional<qint64> stepFromName(const QString &fileName);
    // Whether a folder holds one checkpoint's weights (an index, a weights file, .npy arrays).
    static bool isCheckpointFolder(const QString &folder);
};

} // namespace rankscope
