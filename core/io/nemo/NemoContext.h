// The context/ folder of a NeMo 2 checkpoint (nemo/lightning/ckpt_utils.py CONTEXT_PATH), which
// ModelCheckpoint fills with TrainerContext.io_dump(…/context, yaml_attrs=["model"])
// (nemo/lightning/io/mixin.py): io.json, the fiddle serialization of the trainer's objects, and
// model.yaml, yaml.safe_dump of the model's config with sorted keys: `_target_` (the model class),
// `config:` (the Megatron TransformerConfig fields, each "  key: value" two spaces in), `optim:`,
// `tokenizer:`. The shape of the model is read from model.yaml's config section; io.json is not read
// (NeMo itself reads model.yaml for that: nemo/export/trt_llm/nemo_ckpt_loader/nemo_file.py).
#pragma once

#include <QString>
#include <QVariantMap>

namespace rankscope {

struct NemoContextConfig {
    QVariantMap fields;   // Megatron's names, resolved (MegatronConfig::resolved); empty when none was read
    QString modelClass;   // model.yaml's top-level _target_ ("nemo.collections.llm.gpt.model.llama.LlamaModel")
    QString problem;      // why nothing was read (no model.yaml, too large, no config section)
};

class NemoContext {
public:
    // The model config in `contextFolder`/model.yaml.
    static NemoContextConfig read(const QString &contextFolder);
    // The scalars two spaces into model.yaml's top-level `config:` section, and its `_target_`.
    static NemoContextConfig parse(const QByteArray &yaml);
    // "LlamaModel: 4 heads in 2 query groups, kv_channels 2, gated fc1": what a config says of the
    // fused tensors' split, for `info`.
    static QString describe(const NemoContextConfig &config);
};

} // namespace rankscope
