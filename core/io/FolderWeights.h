// Which files of one folder are model weights, decided by content and role: training sidecars are
// known by name; every other file is probed (FileContent); then the weights are grouped into
// checkpoints: a shard set (an index whose shards exist, or shards named -0000k-of-0000n), the
// .npy arrays of named matrices together, and each other weights file on its own. Every file gets
// a role and the reason for it. Subfolders are listed, not entered.
#pragma once

#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

enum class FileRole {
    Weights,          // a checkpoint's weights: a file on its own, or the one of a checkpoint folder
    DamagedWeights,   // a checkpoint that cannot be read: reported as an error
    Shard,            // one file of a shard set
    ShardIndex,       // the index of a shard set
    WeightArray,      // a .npy named matrix: with the others of its folder, one checkpoint
    TrainingSidecar,  // optimizer, scheduler, scaler, RNG, arguments, tokenizer, configs, event files, logs, images
    ResultsFile,      // a RankScope results file
    Link,             // a link to a file or folder read already
    Other,            // readable, but nothing RankScope analyses
    NotRegular,       // a FIFO, device, socket or broken link: never opened
    CheckpointFolder, // a folder holding one checkpoint
    RunFolder,        // a folder holding a run of its own
    Folder,           // a folder holding no checkpoints
};
// "weights", "sidecar", "run", … as `rankscope info` prints it.
QString fileRoleName(FileRole role);

struct ClassifiedFile {
    QString path;
    FileRole role = FileRole::Other;
    QString reason;
    // It looks like a checkpoint or part of one and cannot be read (a FIFO or broken link named like
    // weights, a folder without permission, an object .npy named like a tensor, a shard index whose
    // shards are missing): not just left out but a problem of the run, said as an error.
    bool problem = false;
};

// The weights of one checkpoint, as they lie in one folder.
struct WeightsGroup {
    WeightsLayout layout = WeightsLayout::OneFile;
    QStringList files;  // the file; the index, then its shards; the shards; the arrays
    QString name;       // what names it: the file, the index, the shards' common prefix
    QString format;     // of its (first) weights file
    QString error;      // why it cannot be read (a damaged file, missing shards): never opened then
    std::optional<qint64> stepInFile;
    bool nameCarriesStep = false; // set by discovery
};

class FolderWeights {
public:
    static FolderWeights read(const QString &folder);

    // The one checkpoint this folder holds when it is a checkpoint folder: its only weights, or
    // among several an index, named shards, or a conventional name (model.safetensors,
    // pytorch_model.bin, …). Null and why when there is none or no way to choose.
    const WeightsGroup *checkpoint(QString *error) const;
    // Gives a file listed here (or one below the folder that a layout reads) its role and reason.
    void classifyAs(const QString &path, FileRole role, const QString &reason);

    QList<WeightsGroup> groups;   // each one checkpoint's weights, by name
    QList<ClassifiedFile> files;  // every file of the folder, with its role and why
    QStringList subfolders;       // paths, by name (links to folders included)
    QString listingError;         // why the folder itself cannot be listed ("Permission denied"); empty when it can
};

// The shards' common prefix of a name such as model-00001-of-00004.safetensors ("model"), or
// empty for a name that is not a shard's.
QString shardSetPrefix(const QString &fileName);

} // namespace rankscope
