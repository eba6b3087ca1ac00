// litgpt's model_config.yaml (litgpt/utils.py `save_config`: yaml.dump(asdict(Config)), written
// beside every lit_model.pth): the head counts its fused attn.qkv is cut by. Only the top-level
// integer fields are read, line by line; nothing else of YAML is needed or parsed.
#pragma once

#include <QString>
#include <QVariantMap>

namespace rankscope {

class LitGptConfig {
public:
    // n_head, n_query_groups, head_size, n_embd, n_layer and model_type "litgpt" from the file, or
    // empty when it is not litgpt's (a NeMo model_config.yaml, no n_head and n_embd at the top).
    static QVariantMap read(const QString &path);
};

} // namespace rankscope
