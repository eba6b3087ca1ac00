// A Lightning ModelCheckpoint folder under DeepSpeedStrategy (src/lightning/pytorch/strategies/
// deepspeed.py save_checkpoint, Lightning 7f0c3436): each save is a folder named as Lightning names a
// checkpoint file, `epoch=E-step=N.ckpt/` (and save_last's `last.ckpt/`, a save of its own or a link
// to the newest), which DeepSpeed's engine.save_checkpoint(filepath, client_state=checkpoint,
// tag="checkpoint") fills as a save folder of one tag: `checkpoint/` (the model states and the ZeRO
// partitions), `latest` naming it (written by rank 0 once every rank has saved) and zero_to_fp32.py.
// Lightning's own checkpoint dict, less state_dict and optimizer_states, is the client state merged
// into the model states: its global_step (the name's step=N) is the step; DeepSpeed's global_steps
// counts the engine's optimizer steps, which differ under gradient accumulation. The module is the
// LightningModule: its keys are its attributes' (`model.…`), or `_forward_module.…` before
// Lightning 2.1.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

#include <optional>

namespace rankscope {

class LightningDeepSpeedFolder {
public:
    // When `folder` is one such save: the weights of its tag (the one `latest` names, else the one
    // DeepSpeed tag inside), every file and folder in it given its role; none for any other folder.
    // A `latest` naming a tag that is not here makes a checkpoint that cannot be read, and says why.
    static std::optional<FolderWeights> checkpointIn(const QString &folder);
    // Whether the checkpoint is one such save (its DeepSpeed files lie in a tag folder inside it).
    static bool isLightningSave(const CheckpointFile &checkpoint);
    // Gives each such checkpoint Lightning's global_step, leaves out a save without `latest`
    // (DeepSpeed has not finished writing it), and says what the folder was taken for. Nothing for
    // other folders.
    static void describe(const QString &root, CheckpointListing &listing);
};

} // namespace rankscope
