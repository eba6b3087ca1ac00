// How nanotron (huggingface/nanotron) saves a model, as its trainer.py and serialize/ write it: one
// folder per step, <checkpoints>/<step>/, holding checkpoint_metadata.json (metas.last_train_step),
// model_config.json, config.yaml, optimizer/, lr_scheduler/, random/ and model/. Under model/ each
// parameter of the state dict is a folder path (model.decoder.0.pp_block.attn.qkv_proj.weight →
// model/model/decoder/0/pp_block/attn/qkv_proj/) holding one safetensors file per tensor-parallel
// rank, model_weight_pp-rank-P-of-PP_tp-rank-T-of-TT.safetensors (with _exp-rank-E-of-EE when
// experts are sharded), or model_weight.safetensors for a parameter that is not sharded (the norms).
// The tensor in each is "data"; a shard's metadata says where its slices lie in the unsharded
// tensor (NanotronReader joins them). One step folder is one checkpoint.
#pragma once

#include "io/FolderWeights.h"

#include <QString>
#include <QVariantMap>
#include <optional>

namespace rankscope {

struct NanotronFileName {
    QString kind;      // "weight", "bias": the last part of the parameter's name
    bool sharded = false;
    int pipelineRank = 0, pipelineSize = 1;
    int tensorRank = 0, tensorSize = 1;
    int expertRank = 0, expertSize = 1;
};

class NanotronLayout {
public:
    static const QString &metadataName();    // checkpoint_metadata.json
    static const QString &modelConfigName(); // model_config.json

    // model_weight.safetensors, model_weight_pp-rank-0-of-1_tp-rank-1-of-2.safetensors, …; nullopt
    // for a name nanotron does not write (and ranks outside their sizes).
    static std::optional<NanotronFileName> parseFileName(const QString &fileName);
    // The state-dict name of a file under the model folder: model/decoder/0/…/qkv_proj/model_weight… →
    // "model.decoder.0.….qkv_proj.weight"; empty when the file's name is not nanotron's.
    static QString parameterName(const QString &modelFolder, const QString &file);

    // When `folder` is a nanotron step folder (checkpoint_metadata.json beside model/): adds it as one
    // checkpoint of its metadata file and every parameter file under model/, says what each of its
    // subfolders is, and takes them off the subfolders to search. False, and nothing changed, otherwise.
    static bool recognise(const QString &folder, FolderWeights &weights);

    // model_config.json of a step folder as a model config (hidden_size, num_attention_heads, …, the
    // keys transformers' Llama uses); empty when the folder is not nanotron's or the file is unreadable.
    static QVariantMap modelConfig(const QString &folder);
    // What latest.txt in the checkpoints folder says (trainer.py writes the step after saving it).
    static std::optional<qint64> latestStep(const QString &checkpointsFolder);
};

} // namespace rankscope
