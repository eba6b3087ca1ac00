// What Megatron-LM (and NeMo, which trains with it) records of a model's shape, gathered as plain
// config keys for the naming rules: from a checkpoint's pickled `args` (an argparse.Namespace whose
// fields are its BUILD state) or from NeMo's model_config.yaml. Megatron's own names are kept
// (num_attention_heads, num_query_groups, kv_channels, ffn_hidden_size, swiglu), resolved as
// Megatron resolves them (megatron/training/arguments.py), and model_type is "megatron" so that
// rules for Megatron's fused layouts apply only to its checkpoints.
#pragma once

#include "io/torch/PickleValue.h"

#include <QVariantMap>

namespace rankscope {

class MegatronConfig {
public:
    // The scalar fields of a pickled argparse.Namespace (or a dict), resolved; empty when `args`
    // is neither.
    static QVariantMap fromArgs(PickleRef args);
    // Megatron's fields resolved as its arguments.py does: num_query_groups is the head count
    // unless group_query_attention is on; kv_channels is hidden_size / num_attention_heads unless
    // given; gated_linear_unit (fc1 is [gate; up]) from --swiglu, Core's flag or NeMo's *glu
    // `activation`. Adds model_type "megatron" and num_key_value_heads, the key other families use.
    static QVariantMap resolved(QVariantMap fields);
};

} // namespace rankscope
