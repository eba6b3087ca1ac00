// A folder of NeMo 2 checkpoints as nemo.lightning's ModelCheckpoint writes them
// (nemo/lightning/pytorch/callbacks/model_checkpoint.py): one folder per save, named by the
// callback's filename, "{model_name}--{val_loss:.2f}-{step}-{consumed_samples}" in the recipes
// (nemo/collections/llm/recipes/log/default.py) or "{name}--{monitor:.4f}-{epoch}-{consumed_samples}"
// by NeMoLogger's default (nemo/lightning/nemo_logger.py), "-last" for save_last's copy; each
// holding weights/ (Megatron torch_dist) and context/. While a save runs, a marker file
// "<checkpoint>-unfinished" lies beside it (set_checkpoint_unfinished_marker), removed once every
// rank has written.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

namespace rankscope {

class Nemo2SaveFolder {
public:
    // Whether a folder's weights are a NeMo 2 checkpoint's (weights/ beside context/): a
    // checkpoint of the run whatever it is called, its step from the weights when its name has none.
    static bool isNemo2Checkpoint(const WeightsGroup &group);
    // Says what the folder was taken for and where the model config came from, gives the
    // -unfinished markers their role, leaves out a checkpoint NeMo marks unfinished (being
    // written, or its save failed), and gives one whose name has no step the weights' global_step.
    // Nothing for other folders.
    static void describe(const QString &root, CheckpointListing &listing);
};

} // namespace rankscope
