// torchtune's output_dir (torchtune/training/checkpointing/_checkpointer.py; its recipes save once
// per epoch, save_checkpoint(state_dict, epoch=…)):
// - since v0.5, one folder per epoch, `epoch_{N}/`: FullModelHFCheckpointer's HF-named shards
//   model-0000K-of-0000M.safetensors (or .bin) and their model.safetensors.index.json (since
//   huggingface_hub's save_torch_state_dict, one shard is model.safetensors), FullModelMetaCheckpointer's
//   and FullModelTorchTuneCheckpointer's model-00001-of-00001.bin (Meta's or torchtune's own names),
//   LoRA's adapter_model.pt / .safetensors and adapter_config.json, and the base model's other files
//   copied (config.json, tokenizer); the recipe state (optimizer, epochs_run, seed) of an
//   intermediate save in recipe_state/recipe_state.pt (v0.5, v0.6), later in epoch_{N}/recipe_state.pt;
// - up to v0.4, flat files with the epoch in their names: hf_model_{KKKK}_{N}.pt (shard K of epoch N),
//   model-0{KKKK}-of-0{MMMM}_{N}.safetensors, meta_model_{N}.pt, torchtune_model_{N}.pt, LoRA's
//   adapter_{N}.pt beside adapter_model.bin and adapter_config.json (the newest epoch's, in PEFT's
//   names), recipe_state.pt.
// The steps of such a run are its epochs, and are said to be.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

#include <optional>

namespace rankscope {

class TorchtuneOutputFolder {
public:
    // N of a folder named epoch_N: a checkpoint of the run, whatever its weights are called.
    static std::optional<qint64> epochOfFolder(const QString &folderName);
    // The flat files of one epoch (hf_model_0001_2.pt, hf_model_0002_2.pt) become one checkpoint of
    // all its shards, refused by name when a shard the other epochs have is missing; a LoRA adapter
    // saved beside an epoch's merged model is named, not read. Nothing for other folders.
    static void regroupFlatFiles(FolderWeights &weights);
    // Gives every epoch_N/ folder and flat epoch file the epoch as its step, said to be an epoch,
    // names recipe_state/ and says what the folder was taken for. Nothing for other folders.
    static void describe(const QString &root, CheckpointListing &listing);
};

} // namespace rankscope
