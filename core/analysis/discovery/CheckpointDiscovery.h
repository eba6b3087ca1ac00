// Finds the checkpoints of a training run in a folder by what its files hold, not by one
// extension. Every file and folder is classified first (FolderWeights: weights, shard sets,
// training sidecars, results files, other files), then grouped into checkpoints: flat weights files
// (ckpt_001000.pt, model_000500.pt), one subfolder per checkpoint (a Trainer's checkpoint-N/), and
// the folder's own shard set or .npy arrays. Subfolders holding runs of their own (seed0/, lr3e-4/)
// are named as runs. Each checkpoint gets what its sidecars (trainer_state.json, nanochat's
// meta_N.json), its weights (iter_num, global_step) and its name say of its step, and the
// config.json of its own folder or of the opened folder, never of a folder above it. Links back
// into a folder already read are followed once. A trainer's layout is described in one place each
// (DeepSpeedSaveFolder, Nemo2SaveFolder, LightningDeepSpeedFolder, AccelerateSaveFolder,
// TorchtuneOutputFolder, HubCacheLayout, MegatronLayout): which folders are its checkpoints, their
// steps and what they count, and what the folder was taken for.
#pragma once

#include "analysis/results/SkippedFile.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "io/FolderWeights.h"

#include <QList>
#include <QString>
#include <QVariantMap>
#include <memory>
#include <optional>

namespace rankscope {

struct CheckpointFile {
    QString path; // a file, or a folder holding one checkpoint
    bool isFolder = false;
    WeightsLayout layout = WeightsLayout::OneFile;
    QStringList files; // what its weights are read from: its identity, and what "same content" compares
    QString format;
    QString error;     // why its weights cannot be read, known from the folder alone (missing shards, …)
    // The step a sidecar file gives, or the one a trainer's layout gives (Lightning's global_step
    // in DeepSpeed's model states, torchtune's epoch in epoch_N/): it wins over every other.
    std::optional<qint64> stepFromSidecar;
    QString stepSidecar;       // the file stepFromSidecar was read from, if any
    // Where stepFromSidecar came from, said instead of the sidecar's name when a layout gave it
    // ("the epoch in the name epoch_2 (torchtune saves once per epoch)").
    QString stepSourceText;
    // Said once for the run when the checkpoint is analysed: what its steps count when that is not
    // a training step (torchtune's epochs, Accelerate's save indices).
    QString stepNote;
    std::optional<qint64> stepInFile; // recorded in the weights: iter_num, global_step, an HDF5 attribute
    std::optional<qint64> stepFromName;
    QStringList stepProblems;  // steps found but not usable: too large for 64 bits, negative
    QVariantMap sidecarConfig; // config.json / meta_N.json model_config: head counts for naming rules
    QString configPath;        // the file sidecarConfig was read from
    // PEFT's adapter_config.json of its own folder or of the opened folder: the scale of its LoRA
    // updates (LoraAdapter.h); empty when there is none.
    QVariantMap adapterConfig;
    QString adapterConfigPath;
    // Its folder holds nothing but this checkpoint (a Megatron iter_N/, a NeMo 2 checkpoint with
    // weights/ and context/, a checkpoint-N/): its content fingerprint covers the whole subtree. False
    // for the opened folder's own weights beside other checkpoints, and for a single file.
    bool ownsSubtree = false;

    std::unique_ptr<CheckpointReader> open(QString *error) const;
};

struct CheckpointListing {
    QList<CheckpointFile> checkpoints; // ordered by the step sidecars, files or names give, then by name
    QList<SkippedFile> skipped;        // what might be taken for a checkpoint and is not, and why
    QList<ClassifiedFile> files;       // every file and folder looked at, with its role and why
    QStringList runs;                  // subfolders holding runs of their own
    // What the folder was taken for when a trainer's layout decided it, and why ("a Megatron-LM
    // save folder: 3 iterations, TP 2 × PP 1, shards merged"): said by `info` and the window.
    QStringList takenFor;
    // Checkpoints their writer has begun and not finished, known from its layout (a Hub revision
    // whose blobs are still downloading): named in `skipped`, and left for a later look by --watch.
    QStringList beingWritten;

    // A save folder's recogniser deciding what the file or folder at `path` is: it takes `role`
    // and `reason` and leaves `skipped`; a problem is named in `skipped` again, as an error of the run.
    void setRole(const QString &path, FileRole role, const QString &reason, bool problem = false);
    // The listed file or folder at `path`, or null.
    ClassifiedFile *fileAt(const QString &path);
};


class CheckpointDiscovery {
public:
    static CheckpointListing scan(const QString &folder);
    // The step a name carries (checkpoint-500, ckpt_001000.pt, epoch=3-step=1000.ckpt); a number too
    // large for 64 bits gives none, and `problem` says so.
    static std::optional<qint64> stepFromName(const QString &fileName, QString *problem = nullptr);
};

} // namespace rankscope
