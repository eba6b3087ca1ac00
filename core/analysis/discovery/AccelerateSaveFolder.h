// Accelerate's save_state folders (src/accelerate/accelerator.py save_state, accelerate 16cb6eb8):
// with ProjectConfiguration(automatic_checkpoint_naming=True) each save is
// `checkpoints/checkpoint_{save_iteration}/`, save_iteration being ProjectConfiguration.iteration,
// which save_state raises by one after every save: the N of checkpoint_N counts saves (from 0, or
// wherever the script set it), not training steps, and no file of the save records a step
// (random_states_{rank}.pkl's "step" is the gradient-accumulation counter, reset each epoch).
// Under FSDP with SHARDED_STATE_DICT the model's weights are a torch.distributed.checkpoint folder,
// `pytorch_model_fsdp_0/` (utils/fsdp_utils.py save_fsdp_model: dist_cp.save({"model": state_dict}),
// so every key is under `model.`), beside the optimizer's `optimizer_0/` (save_fsdp_optimizer, the
// same under `optimizer.`); with FULL_STATE_DICT the weights are `pytorch_model_fsdp.bin`, and
// without FSDP `model.safetensors` (or pytorch_model.bin). Beside them save_accelerator_state
// (checkpointing.py) writes random_states_{rank}.pkl, scheduler.bin, sampler.bin, scaler.pt and
// custom_checkpoint_{i}.pkl.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

#include <optional>

namespace rankscope {

class AccelerateSaveFolder {
public:
    // When `folder` is a checkpoint_N/ save holding FSDP's folders: the weights of model 0
    // (pytorch_model_fsdp_0/), every file and folder in it given its role (optimizer_0/ as optimizer
    // state). A save holding only the optimizer's folder is a checkpoint that cannot be read, and
    // says why. None for any other folder: a save whose weights lie in it is read as any checkpoint
    // folder is.
    static std::optional<FolderWeights> checkpointIn(const QString &folder);
    // Labels the steps of every checkpoint_N/ save as what they are, save indices, and says what the
    // folder was taken for. Nothing for other folders.
    static void describe(const QString &root, CheckpointListing &listing);
};

} // namespace rankscope
