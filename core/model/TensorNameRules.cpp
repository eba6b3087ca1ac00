#include "model/TensorNameRules.h"

#include "base/PrintableText.h"
#include "model/MatrixIdentity.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace rankscope {

namespace {

// Bumped whenever the built-in rules change what a tensor becomes, so cached analyses typed by an
// older table are analysed again rather than shown under the old typing.
constexpr int kBuiltInRulesVersion = 7;

QRegularExpression layerPattern(const char *container, const char *suffix)
{
    // The stack is everything before the container, the layer the number after it; siblings of the
    // tensor in the same layer are found from the base.
    return QRegularExpression(QStringLiteral(R"(^(?<base>(?:(?<stack>.+?)\.)?(?:%1)\.(?<layer>\d+))\.%2$)")
                                  .arg(QLatin1String(container), QLatin1String(suffix)));
}

// needsSibling names one tensor of the layer, or alternatives split by '|' (RWKV-6's att.time_decay,
// RWKV-7's att.w0): any of them will do.
bool hasSibling(const QString &base, const QString &needed, const std::function<bool(const QString &)> &exists)
{
    if (!exists)
        return false;
    for (const QString &sibling : needed.split(QLatin1Char('|')))
        if (exists(base.isEmpty() ? sibling : base + QLatin1Char('.') + sibling))
            return true;
    return false;
}

} // namespace

QString TensorNameRules::withoutWrapperPrefixes(const QString &name)
{
    QStringList kept;
    for (const QString &part : name.split(QLatin1Char('.')))
        if (part != QLatin1String("_orig_mod") && part != QLatin1String("module") &&
            part != QLatin1String("_checkpoint_wrapped_module") && part != QLatin1String("_fsdp_wrapped_module") &&
            part != QLatin1String("_forward_module"))
            kept.append(part);
    return kept.join(QLatin1Char('.'));
}

TensorNameRules TensorNameRules::builtIn()
{
    using T = MatrixType;
    using L = FusedLayout;
    // One row per tensor name; the first row that applies decides. Every layout was read from the
    // family's forward() (docs/naming-rules.md quotes the lines).
    struct Row {
        const char *family;
        const char *container = ""; // the module list holding the layers
        const char *suffix;    // after "<container>.<layer>."
        T type = T::Q;
        L layout = L::None;
        std::initializer_list<const char *> modelTypes = {}; // empty: any model
        const char *expert = "";
        const char *subBlock = "";
        bool cross = false;
        const char *ignoreReason = nullptr;
        const char *unnamedStack = "";
        const char *needsSibling = ""; // in the same layer; alternatives split by '|'
        const char *partner = "";      // in the same layer
        // A module saved on its own, not inside a numbered layer (a bare nn.MultiheadAttention's
        // state_dict): `suffix` is the whole name, and it is layer 0.
        bool layerless = false;
    };
    static const char *const kRouter = "the MoE router (scores experts; not a matrix type)";
    static const char *const kAny = "layers|layer|h|blocks|block|resblocks";
    // The time mix's decay, in every RWKV-6 (time_decay; HF remote code attention.time_decay) and RWKV-7 (w0) layer.
    static const char *const kRwkvDecay = "att.time_decay|att.w0|attention.time_decay";
    const std::initializer_list<const char *> falconBloom = {"falcon", "RefinedWeb", "RefinedWebModel", "bloom"};
    const std::initializer_list<const char *> neoxFalconBloom = {"gpt_neox", "falcon", "RefinedWeb", "RefinedWebModel", "bloom"};
    const std::initializer_list<const char *> phiMsft = {"phi-msft", "mixformer-sequential"};
    const std::initializer_list<const char *> hfOlmo = {"olmo", "hf_olmo"};
    const Row table[] = {
        // Known tensors that are not matrix types, before the rules that would type them.
        {.family = "Mixtral", .container = "layers", .suffix = R"(block_sparse_moe\.gate\.weight)", .ignoreReason = kRouter},
        {.family = "MoE", .container = "layers", .suffix = R"(mlp\.gate\.weight)", .ignoreReason = kRouter},
        {.family = "Qwen2-MoE", .container = "layers", .suffix = R"(mlp\.shared_expert_gate\.weight)",
         .ignoreReason = "the shared expert's gate (a [1, d] score; not a matrix type)"},
        {.family = "T5", .container = "block",
         .suffix = R"(layer\.\d+\.(?:SelfAttention|EncDecAttention|LocalSelfAttention|TransientGlobalSelfAttention)\.(?:global_)?relative_attention_bias\.weight)",
         .ignoreReason = "T5's relative position bias table [buckets, heads] (not a matrix type)"},
        {.family = "Mamba", .container = "layers", .suffix = R"(mixer\.(?:x_proj|dt_proj)\.weight)",
         .ignoreReason = "Mamba's selective-scan parameter projection (not a matrix type)"},
        {.family = "DeepSeek-V3", .container = "layers", .suffix = R"(eh_proj\.weight)",
         .ignoreReason = "the multi-token-prediction module's projection of [embedding; hidden state] (not a matrix type)"},
        {.family = "DeepSeek FP8", .container = kAny, .suffix = R"(.+\.weight_scale_inv)",
         .ignoreReason = "FP8 block scales (applied to the weight they belong to)"},
        {.family = "Phi-2 (original)", .container = "h|layers", .suffix = R"(mlp\.(?:fc_in|fc_out)\.weight)", .modelTypes = phiMsft,
         .ignoreReason = "not used by the model's forward() (listed in _keys_to_ignore_on_load_unexpected)"},

        // @ignored-decoders-1
        // GPT-OSS (modeling_gpt_oss.py): GptOssMLP "self.router = GptOssTopKRouter(config)" ([experts, hidden]);
        // GptOssExperts' gate_up_proj [E, hidden, 2I] read "gate, up = gate_up[..., ::2], gate_up[..., 1::2]", its
        // 2-D biases [E, 2I] and [E, hidden]. On the Hub the experts are MXFP4 "…_blocks" with "…_scales": the reader
        // lists each pair as the dequantized bf16-shaped tensor (io/Mxfp4Experts.h), typed by the rows below; scales
        // still listed are those of a pair it refused, said with the file. Before the generic stacked-experts row,
        // which would halve gate_up_proj.
        {.family = "GPT-OSS", .container = "layers", .suffix = R"(mlp\.router\.weight)", .ignoreReason = kRouter},
        {.family = "GPT-OSS", .container = "layers", .suffix = R"(mlp\.experts\.(?:gate_up|down)_proj_bias)",
         .ignoreReason = "the experts' biases, one vector per expert [experts, outputs] (not a matrix)"},
        {.family = "MXFP4", .container = "layers", .suffix = R"((?:mlp|feed_forward)\.experts\.(?:gate_up|down)_proj_scales)",
         .ignoreReason = "MXFP4 block scales of the …_blocks tensor beside it (not a matrix)"},
        {.family = "GPT-OSS", .container = "layers", .suffix = R"(mlp\.experts\.gate_up_proj)", .type = T::MlpGate,
         .layout = L::ExpertsGluInterleaved, .modelTypes = {"gpt_oss"}, .partner = "mlp.experts.down_proj"},
        // @ignored-decoders-2
        // DBRX: DbrxRouter "self.layer = nn.Linear(self.hidden_size, self.moe_num_experts)".
        {.family = "DBRX", .container = "blocks", .suffix = R"(ffn\.router\.layer\.weight)", .modelTypes = {"dbrx"}, .ignoreReason = kRouter},
        // Jamba: JambaSparseMoeBlock's router; the Mamba mixer's x_proj and dt_proj are scan parameters, as Mamba's.
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.router\.weight)", .modelTypes = {"jamba"}, .ignoreReason = kRouter},
        {.family = "Jamba", .container = "layers", .suffix = R"(mamba\.(?:x_proj|dt_proj)\.weight)", .modelTypes = {"jamba"},
         .ignoreReason = "Mamba's selective-scan parameter projection (not a matrix type)"},
        // litgpt's LLaMAMoE router "self.gate = nn.Linear(config.n_embd, config.n_expert)".
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.gate\.weight)", .modelTypes = {"litgpt"}, .ignoreReason = kRouter},
        // ChatGLM2/3 and GLM-4 (THUDM's modeling_chatglm.py), before GPT-NeoX's dense_h_to_4h row: without
        // model_type chatglm these names are also Megatron-LM's, so the fused ones are reported, not typed.
        {.family = "ChatGLM / GLM-4", .container = R"(encoder\.layers)", .suffix = R"(self_attention\.query_key_value\.weight)",
         .layout = L::GlmQueryKeyValue, .modelTypes = {"chatglm"}},
        {.family = "ChatGLM / GLM-4", .container = R"(encoder\.layers)", .suffix = R"(self_attention\.dense\.weight)", .type = T::O,
         .modelTypes = {"chatglm"}},
        {.family = "ChatGLM / GLM-4", .container = R"(encoder\.layers)", .suffix = R"(mlp\.dense_h_to_4h\.weight)", .type = T::MlpGate,
         .layout = L::GlmDenseH4h, .modelTypes = {"chatglm"}, .partner = "mlp.dense_4h_to_h.weight"},
        {.family = "ChatGLM / GLM-4", .container = R"(encoder\.layers)", .suffix = R"(mlp\.dense_4h_to_h\.weight)", .type = T::MlpDown,
         .modelTypes = {"chatglm"}},
        // Megatron-LM (model_type megatron: MegatronConfig, from a save's args or NeMo's yaml), as its forward() splits
        // them. Legacy megatron/legacy/model/transformer.py ParallelAttention: query_key_value viewed as
        // [.., ng, (np/ng + 2)·hn], split [np/ng·hn, hn, hn]; ParallelMLP dense_h_to_4h of ffn_hidden_size·2 under
        // gated_linear_unit, "x = torch.chunk(x, 2, dim=-1)" [gate; up]. Megatron-Core megatron/core/transformer/attention.py
        // SelfAttention.get_query_key_value_tensors (the same per-group split of linear_qkv), mlp.py glu
        // "x_glu, x_linear = torch.chunk(x, 2, dim=-1)". Transformer Engine's fused norms (linear_qkv.layer_norm_weight)
        // are vectors; its _extra_state is FP8 bookkeeping.
        {.family = "Megatron-LM", .container = R"((?:encoder|decoder)\.layers)", .suffix = R"(.+\._extra_state)", .modelTypes = {"megatron"},
         .ignoreReason = "Transformer Engine's extra state (FP8 scaling bookkeeping; not a weight)"},
        {.family = "Megatron-LM", .container = R"((?:encoder|decoder)\.layers)", .suffix = R"(self_attention\.(?:query_key_value|linear_qkv)\.weight)",
         .layout = L::QkvGrouped, .modelTypes = {"megatron"}},
        {.family = "Megatron-LM", .container = R"((?:encoder|decoder)\.layers)", .suffix = R"(self_attention\.(?:dense|linear_proj)\.weight)", .type = T::O,
         .modelTypes = {"megatron"}},
        {.family = "Megatron-LM", .container = R"((?:encoder|decoder)\.layers)", .suffix = R"(mlp\.dense_h_to_4h\.weight)", .type = T::MlpUp,
         .layout = L::GluGateUp, .modelTypes = {"megatron"}, .partner = "mlp.dense_4h_to_h.weight"},
        {.family = "Megatron-LM", .container = R"((?:encoder|decoder)\.layers)", .suffix = R"(mlp\.linear_fc1\.weight)", .type = T::MlpUp,
         .layout = L::GluGateUp, .modelTypes = {"megatron"}, .partner = "mlp.linear_fc2.weight"},
        {.family = "Megatron-LM", .container = R"((?:encoder|decoder)\.layers)", .suffix = R"(mlp\.(?:dense_4h_to_h|linear_fc2)\.weight)", .type = T::MlpDown,
         .modelTypes = {"megatron"}},
        {.family = "Megatron-LM", .container = R"((?:encoder|decoder)\.layers)", .suffix = R"(mlp\.router\.weight)", .modelTypes = {"megatron"},
         .ignoreReason = kRouter},
        // @ignored-encoders-vision
        // modeling_swin.py SwinPatchMerging "self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)", after a stage's blocks.
        {.family = "Swin", .container = "layers", .suffix = R"(downsample\.reduction\.weight)",
         .ignoreReason = "Swin's patch merging between stages (4C → 2C; not an attention or MLP matrix)"},
        // SAM's mask decoder heads: transformers SamFeedForward (proj_in, layers, proj_out), segment-anything's MLP (layers),
        // as output_hypernetworks_mlps (one per mask token) and iou_prediction_head.
        {.family = "SAM mask decoder", .suffix = R"((?:.+\.)?mask_decoder\.(?:output_hypernetworks_mlps\.\d+|iou_prediction_head)\.(?:proj_in|proj_out|layers\.\d+)\.weight)",
         .ignoreReason = "SAM's mask and IoU prediction heads (small MLPs on the output tokens; not a layer's attention or MLP)", .layerless = true},

        // Separate projections, named alike by LLaMA, Mistral, Qwen2, Gemma, OLMo2, StableLM, Cohere,
        // Mixtral, Qwen2-MoE, DeepSeek-V2-Lite, OPT, BART, Whisper, CLIP and Phi-2.
        {.family = "self_attn q/k/v/o", .container = kAny, .suffix = R"(self_attn\.q_proj\.weight)", .type = T::Q},
        {.family = "self_attn q/k/v/o", .container = kAny, .suffix = R"(self_attn\.k_proj\.weight)", .type = T::K},
        {.family = "self_attn q/k/v/o", .container = kAny, .suffix = R"(self_attn\.v_proj\.weight)", .type = T::V},
        {.family = "self_attn q/k/v/o", .container = kAny, .suffix = R"(self_attn\.(?:o_proj|out_proj|dense)\.weight)", .type = T::O},
        {.family = "BART / Whisper", .container = kAny, .suffix = R"(encoder_attn\.q_proj\.weight)", .type = T::Q, .cross = true},
        {.family = "BART / Whisper", .container = kAny, .suffix = R"(encoder_attn\.k_proj\.weight)", .type = T::K, .cross = true},
        {.family = "BART / Whisper", .container = kAny, .suffix = R"(encoder_attn\.v_proj\.weight)", .type = T::V, .cross = true},
        {.family = "BART / Whisper", .container = kAny, .suffix = R"(encoder_attn\.out_proj\.weight)", .type = T::O, .cross = true},
        {.family = "gated MLP", .container = kAny, .suffix = R"(mlp\.gate_proj\.weight)", .type = T::MlpGate},
        {.family = "gated MLP", .container = kAny, .suffix = R"(mlp\.up_proj\.weight)", .type = T::MlpUp},
        {.family = "gated MLP", .container = kAny, .suffix = R"(mlp\.down_proj\.weight)", .type = T::MlpDown},
        // timm ViT: mlp.fc1 is one up projection, or SwiGLUPacked's [gate; up] when fc2 takes half of it.
        {.family = "timm ViT", .container = "blocks", .suffix = R"(mlp\.fc1\.weight)", .type = T::MlpUp, .layout = L::GluGateUp,
         .partner = "mlp.fc2.weight"},
        // CLIP, Phi-2: mlp.fc1 is the up projection; mamba_ssm's GatedMLP packs [up; gate] in it.
        {.family = "CLIP / Phi-2 / mamba_ssm", .container = kAny, .suffix = R"(mlp\.fc1\.weight)", .type = T::MlpUp,
         .layout = L::GluUpGate, .partner = "mlp.fc2.weight"},
        {.family = "CLIP / Phi-2 / mamba_ssm", .container = kAny, .suffix = R"(mlp\.fc2\.weight)", .type = T::MlpDown},
        {.family = "OPT / BART / Whisper", .container = kAny, .suffix = R"(fc1\.weight)", .type = T::MlpUp},
        {.family = "OPT / BART / Whisper", .container = kAny, .suffix = R"(fc2\.weight)", .type = T::MlpDown},

        // torch.nn.MultiheadAttention inside nn.Transformer{Encoder,Decoder}Layer: in_proj_weight is [3E, E],
        // rows Q|K|V (F._in_projection_packed); separate weights when kdim/vdim differ.
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(self_attn\.in_proj_weight)", .layout = L::QkvThirds},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(self_attn\.q_proj_weight)", .type = T::Q},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(self_attn\.k_proj_weight)", .type = T::K},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(self_attn\.v_proj_weight)", .type = T::V},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(multihead_attn\.in_proj_weight)", .layout = L::QkvThirds, .cross = true},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(multihead_attn\.q_proj_weight)", .type = T::Q, .cross = true},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(multihead_attn\.k_proj_weight)", .type = T::K, .cross = true},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(multihead_attn\.v_proj_weight)", .type = T::V, .cross = true},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(multihead_attn\.out_proj\.weight)", .type = T::O, .cross = true},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(linear1\.weight)", .type = T::MlpUp},
        {.family = "torch.nn.Transformer", .container = kAny, .suffix = R"(linear2\.weight)", .type = T::MlpDown},
        // A torch.nn.MultiheadAttention saved on its own (its state_dict: in_proj_weight, out_proj.weight,
        // or q/k/v_proj_weight when kdim or vdim differ): one layer, layer 0.
        {.family = "torch.nn.MultiheadAttention", .suffix = R"(in_proj_weight)", .layout = L::QkvThirds, .layerless = true},
        {.family = "torch.nn.MultiheadAttention", .suffix = R"(q_proj_weight)", .type = T::Q, .layerless = true},
        {.family = "torch.nn.MultiheadAttention", .suffix = R"(k_proj_weight)", .type = T::K, .layerless = true},
        {.family = "torch.nn.MultiheadAttention", .suffix = R"(v_proj_weight)", .type = T::V, .layerless = true},
        {.family = "torch.nn.MultiheadAttention", .suffix = R"(out_proj\.weight)", .type = T::O, .layerless = true},

        // Meta's original LLaMA names.
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wq\.weight)", .type = T::Q},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wk\.weight)", .type = T::K},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wv\.weight)", .type = T::V},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wo\.weight)", .type = T::O},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(feed_forward\.w1\.weight)", .type = T::MlpGate},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(feed_forward\.w3\.weight)", .type = T::MlpUp},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(feed_forward\.w2\.weight)", .type = T::MlpDown},
        // torchtune's own names (its FullModelTorchTuneCheckpointer saves the model's state_dict as is):
        // TransformerSelfAttentionLayer's attn and mlp (modules/transformer.py); MultiHeadAttention's
        // q_proj, k_proj, v_proj, output_proj (modules/attention.py); FeedForward's "self.w1 = gate_proj",
        // "self.w2 = down_proj", "self.w3 = up_proj", forward w2(activation(w1(x)) * w3(x))
        // (modules/feed_forward.py). Without up_proj (w3 None, CLIP's MLP) w1 is the one input projection.
        {.family = "torchtune", .container = "layers", .suffix = R"(attn\.q_proj\.weight)", .type = T::Q},
        {.family = "torchtune", .container = "layers", .suffix = R"(attn\.k_proj\.weight)", .type = T::K},
        {.family = "torchtune", .container = "layers", .suffix = R"(attn\.v_proj\.weight)", .type = T::V},
        {.family = "torchtune", .container = "layers", .suffix = R"(attn\.output_proj\.weight)", .type = T::O},
        {.family = "torchtune", .container = "layers", .suffix = R"(mlp\.w1\.weight)", .type = T::MlpGate, .needsSibling = "mlp.w3.weight"},
        {.family = "torchtune", .container = "layers", .suffix = R"(mlp\.w1\.weight)", .type = T::MlpUp},
        {.family = "torchtune", .container = "layers", .suffix = R"(mlp\.w3\.weight)", .type = T::MlpUp},
        {.family = "torchtune", .container = "layers", .suffix = R"(mlp\.w2\.weight)", .type = T::MlpDown},

        // Mixture-of-experts MLPs, one tensor per expert (Mixtral: w1 gate, w3 up, w2 down) ...
        {.family = "Mixtral", .container = "layers", .suffix = R"(block_sparse_moe\.experts\.(?<expert>\d+)\.w1\.weight)", .type = T::MlpGate},
        {.family = "Mixtral", .container = "layers", .suffix = R"(block_sparse_moe\.experts\.(?<expert>\d+)\.w3\.weight)", .type = T::MlpUp},
        {.family = "Mixtral", .container = "layers", .suffix = R"(block_sparse_moe\.experts\.(?<expert>\d+)\.w2\.weight)", .type = T::MlpDown},
        {.family = "Qwen2-MoE / DeepSeek", .container = "layers", .suffix = R"(mlp\.experts\.(?<expert>\d+)\.gate_proj\.weight)", .type = T::MlpGate},
        {.family = "Qwen2-MoE / DeepSeek", .container = "layers", .suffix = R"(mlp\.experts\.(?<expert>\d+)\.up_proj\.weight)", .type = T::MlpUp},
        {.family = "Qwen2-MoE / DeepSeek", .container = "layers", .suffix = R"(mlp\.experts\.(?<expert>\d+)\.down_proj\.weight)", .type = T::MlpDown},
        {.family = "Qwen2-MoE / DeepSeek", .container = "layers", .suffix = R"(mlp\.shared_experts?\.gate_proj\.weight)", .type = T::MlpGate, .expert = kSharedExpert},
        {.family = "Qwen2-MoE / DeepSeek", .container = "layers", .suffix = R"(mlp\.shared_experts?\.up_proj\.weight)", .type = T::MlpUp, .expert = kSharedExpert},
        {.family = "Qwen2-MoE / DeepSeek", .container = "layers", .suffix = R"(mlp\.shared_experts?\.down_proj\.weight)", .type = T::MlpDown, .expert = kSharedExpert},
        // ... or all experts in one 3-D tensor (transformers v5: gate_up_proj [E, 2I, H], down_proj [E, H, I]).
        // down_proj [E, H, I] beside gate_up_proj proves its orientation: the config's sizes alone do not
        // tell [E, 2I, H] from GPT-OSS's [E, H, 2I] when H happens to equal 2I.
        {.family = "MoE (fused experts)", .container = "layers", .suffix = R"(mlp\.experts\.gate_up_proj)", .type = T::MlpGate, .layout = L::ExpertsGateUp,
         .partner = "mlp.experts.down_proj"},
        {.family = "MoE (fused experts)", .container = "layers", .suffix = R"(mlp\.experts\.down_proj)", .type = T::MlpDown, .layout = L::ExpertsWhole},

        // DeepSeek-V2/V3 multi-head latent attention (docs/naming-rules.md: how each part is typed).
        {.family = "DeepSeek MLA", .container = "layers", .suffix = R"(self_attn\.q_a_proj\.weight)", .type = T::Q, .subBlock = "latent"},
        {.family = "DeepSeek MLA", .container = "layers", .suffix = R"(self_attn\.q_b_proj\.weight)", .type = T::Q},
        {.family = "DeepSeek MLA", .container = "layers", .suffix = R"(self_attn\.kv_a_proj_with_mqa\.weight)", .type = T::K,
         .layout = L::MlaKvA, .partner = "self_attn.kv_b_proj.weight"},
        {.family = "DeepSeek MLA", .container = "layers", .suffix = R"(self_attn\.kv_b_proj\.weight)", .type = T::K, .layout = L::MlaKvB},

        // Phi-3: fused qkv_proj (grouped-query sizes) and gate_up_proj ([gate; up]).
        {.family = "Phi-3", .container = "layers", .suffix = R"(self_attn\.qkv_proj\.weight)", .layout = L::QkvContiguous, .modelTypes = {"phi3"}},
        {.family = "Phi-3", .container = "layers", .suffix = R"(mlp\.gate_up_proj\.weight)", .type = T::MlpGate, .layout = L::GateUp, .modelTypes = {"phi3"}},

        // nanotron's Llama (models/llama.py), named through its PipelineBlock ("self.pp_block"):
        // qkv_proj is TensorParallelColumnLinear(d_model, nH·d + 2·nKV·d, contiguous_chunks=(nH·d, nKV·d, nKV·d)),
        // [Q; K; V] once NanotronReader has joined its shards; gate_up_proj likewise (intermediate, intermediate),
        // [gate; up] as GLUActivation splits it: "gate_states, up_states = torch.split(merged_states,
        // merged_states.shape[-1] // 2, dim=-1)".
        {.family = "nanotron", .container = "decoder", .suffix = R"(pp_block\.attn\.qkv_proj\.weight)", .layout = L::QkvContiguous},
        {.family = "nanotron", .container = "decoder", .suffix = R"(pp_block\.attn\.o_proj\.weight)", .type = T::O},
        {.family = "nanotron", .container = "decoder", .suffix = R"(pp_block\.mlp\.gate_up_proj\.weight)", .type = T::MlpGate, .layout = L::GateUp},
        {.family = "nanotron", .container = "decoder", .suffix = R"(pp_block\.mlp\.down_proj\.weight)", .type = T::MlpDown},

        // GPT-NeoX / Pythia: query_key_value rows are [head][q|k|v][head_dim].
        {.family = "GPT-NeoX", .container = "layers", .suffix = R"(attention\.query_key_value\.weight)", .layout = L::QkvPerHead, .modelTypes = {"gpt_neox"}},
        {.family = "GPT-NeoX", .container = "layers", .suffix = R"(attention\.dense\.weight)", .type = T::O, .modelTypes = {"gpt_neox"}},
        {.family = "GPT-NeoX / Falcon / Bloom", .container = "layers|h", .suffix = R"(mlp\.dense_h_to_4h\.weight)", .type = T::MlpUp, .modelTypes = neoxFalconBloom},
        {.family = "GPT-NeoX / Falcon / Bloom", .container = "layers|h", .suffix = R"(mlp\.dense_4h_to_h\.weight)", .type = T::MlpDown, .modelTypes = neoxFalconBloom},
        // Falcon (multi-query, grouped, or per head) and Bloom (per head).
        {.family = "Falcon / Bloom", .container = "h", .suffix = R"(self_attention\.query_key_value\.weight)", .layout = L::FalconQkv, .modelTypes = falconBloom},
        {.family = "Falcon / Bloom", .container = "h", .suffix = R"(self_attention\.dense\.weight)", .type = T::O, .modelTypes = falconBloom},

        // GPT-J.
        {.family = "GPT-J", .container = "h", .suffix = R"(attn\.q_proj\.weight)", .type = T::Q},
        {.family = "GPT-J", .container = "h", .suffix = R"(attn\.k_proj\.weight)", .type = T::K},
        {.family = "GPT-J", .container = "h", .suffix = R"(attn\.v_proj\.weight)", .type = T::V},
        {.family = "GPT-J", .container = "h", .suffix = R"(attn\.out_proj\.weight)", .type = T::O},
        {.family = "GPT-J", .container = "h", .suffix = R"(mlp\.fc_in\.weight)", .type = T::MlpUp},
        {.family = "GPT-J", .container = "h", .suffix = R"(mlp\.fc_out\.weight)", .type = T::MlpDown},

        // GPT-2 (Conv1D), nanoGPT, GPT-BigCode; nanochat's separate projections.
        {.family = "GPT-2 / nanoGPT / GPT-BigCode", .container = "h", .suffix = R"(attn\.c_attn\.weight)", .layout = L::GptCAttn,
         .modelTypes = {"gpt2", "gpt_bigcode"}},
        {.family = "GPT-2 / nanoGPT / GPT-BigCode", .container = "h", .suffix = R"(attn\.c_proj\.weight)", .type = T::O},
        {.family = "GPT-2 / nanoGPT / GPT-BigCode", .container = "h", .suffix = R"(mlp\.c_fc\.weight)", .type = T::MlpUp},
        {.family = "GPT-2 / nanoGPT / GPT-BigCode", .container = "h", .suffix = R"(mlp\.c_proj\.weight)", .type = T::MlpDown},
        {.family = "nanochat", .container = "h", .suffix = R"(attn\.c_q\.weight)", .type = T::Q},
        {.family = "nanochat", .container = "h", .suffix = R"(attn\.c_k\.weight)", .type = T::K},
        {.family = "nanochat", .container = "h", .suffix = R"(attn\.c_v\.weight)", .type = T::V},

        // MPT: Wqkv rows [Q; K; V] (kv_n_heads under grouped-query attention); llm-foundry's mptglu gate.
        {.family = "MPT", .container = "blocks", .suffix = R"(attn\.Wqkv\.weight)", .layout = L::QkvContiguous, .modelTypes = {"mpt"}},
        {.family = "MPT", .container = "blocks", .suffix = R"(attn\.out_proj\.weight)", .type = T::O, .modelTypes = {"mpt"}},
        {.family = "MPT", .container = "blocks", .suffix = R"(ffn\.up_proj\.weight)", .type = T::MlpUp, .modelTypes = {"mpt"}},
        {.family = "MPT", .container = "blocks", .suffix = R"(ffn\.gate_proj\.weight)", .type = T::MlpGate, .modelTypes = {"mpt"}},
        {.family = "MPT", .container = "blocks", .suffix = R"(ffn\.down_proj\.weight)", .type = T::MlpDown, .modelTypes = {"mpt"}},
        // Phi-1.5/Phi-2 as first published (remote code, phi-msft and mixformer-sequential): mixer.Wqkv
        // rows [Q; K; V] (n_head_kv under grouped-query attention), mixer.out_proj.
        {.family = "Phi-2 (original)", .container = "h|layers", .suffix = R"(mixer\.Wqkv\.weight)", .layout = L::QkvContiguous, .modelTypes = phiMsft},
        {.family = "Phi-2 (original)", .container = "h|layers", .suffix = R"(mixer\.out_proj\.weight)", .type = T::O, .modelTypes = phiMsft,
         .needsSibling = "mixer.Wqkv.weight"},

        // OLMo (v1, hf_olmo): att_proj rows [Q; K; V], ff_proj rows [up; gate] under SwiGLU.
        {.family = "OLMo", .container = "blocks", .suffix = R"(att_proj\.weight)", .layout = L::QkvContiguous, .modelTypes = hfOlmo},
        {.family = "OLMo", .container = "blocks", .suffix = R"(attn_out\.weight)", .type = T::O, .modelTypes = hfOlmo},
        {.family = "OLMo", .container = "blocks", .suffix = R"(ff_proj\.weight)", .type = T::MlpUp, .layout = L::GluUpGate,
         .modelTypes = hfOlmo, .partner = "ff_out.weight"},
        {.family = "OLMo", .container = "blocks", .suffix = R"(ff_out\.weight)", .type = T::MlpDown, .modelTypes = hfOlmo},

        // T5, T5 v1.1 and LongT5 (whose encoder attends locally or transient-globally: LocalSelfAttention,
        // TransientGlobalSelfAttention, with the same q, k, v, o): block.N.layer.0 self-attention, decoder
        // layer.1 cross-attention, then the MLP;
        // the gated MLP applies the activation to wi_0 (the gate) and multiplies by wi_1.
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.(?:Local|TransientGlobal)?SelfAttention\.q\.weight)", .type = T::Q},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.(?:Local|TransientGlobal)?SelfAttention\.k\.weight)", .type = T::K},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.(?:Local|TransientGlobal)?SelfAttention\.v\.weight)", .type = T::V},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.(?:Local|TransientGlobal)?SelfAttention\.o\.weight)", .type = T::O},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.EncDecAttention\.q\.weight)", .type = T::Q, .cross = true},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.EncDecAttention\.k\.weight)", .type = T::K, .cross = true},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.EncDecAttention\.v\.weight)", .type = T::V, .cross = true},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.EncDecAttention\.o\.weight)", .type = T::O, .cross = true},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.DenseReluDense\.wi\.weight)", .type = T::MlpUp},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.DenseReluDense\.wi_0\.weight)", .type = T::MlpGate},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.DenseReluDense\.wi_1\.weight)", .type = T::MlpUp},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.DenseReluDense\.wo\.weight)", .type = T::MlpDown},

        // BERT, RoBERTa and ViT (HF): "layer.N.output.dense" (down) and "layer.N.attention.output.dense"
        // (O) differ only by what follows the layer number, so both are anchored there.
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(attention\.(?:self|attention)\.query\.weight)", .type = T::Q},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(attention\.(?:self|attention)\.key\.weight)", .type = T::K},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(attention\.(?:self|attention)\.value\.weight)", .type = T::V},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(attention\.output\.dense\.weight)", .type = T::O},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(crossattention\.self\.query\.weight)", .type = T::Q, .cross = true},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(crossattention\.self\.key\.weight)", .type = T::K, .cross = true},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(crossattention\.self\.value\.weight)", .type = T::V, .cross = true},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(crossattention\.output\.dense\.weight)", .type = T::O, .cross = true},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(intermediate\.dense\.weight)", .type = T::MlpUp},
        {.family = "BERT / RoBERTa / ViT", .container = "layer", .suffix = R"(output\.dense\.weight)", .type = T::MlpDown},

        // timm ViT: attn.qkv rows [Q; K; V] (reshape(B, N, 3, heads, head_dim)); SwiGLU's fc1_g/fc1_x;
        // DINOv2's w12 [gate; up] and w3, EVA's w1 (gate), w2 (up), w3.
        {.family = "timm ViT", .container = "blocks", .suffix = R"(attn\.qkv\.weight)", .layout = L::QkvThirds},
        {.family = "timm ViT", .container = "blocks", .suffix = R"(attn\.proj\.weight)", .type = T::O},
        {.family = "timm ViT", .container = "blocks", .suffix = R"(mlp\.fc1_g\.weight)", .type = T::MlpGate},
        {.family = "timm ViT", .container = "blocks", .suffix = R"(mlp\.fc1_x\.weight)", .type = T::MlpUp},
        {.family = "DINOv2 / EVA", .container = "blocks", .suffix = R"(mlp\.w12\.weight)", .type = T::MlpGate, .layout = L::GateUp},
        {.family = "DINOv2 / EVA", .container = "blocks", .suffix = R"(mlp\.w1\.weight)", .type = T::MlpGate},
        {.family = "DINOv2 / EVA", .container = "blocks", .suffix = R"(mlp\.w2\.weight)", .type = T::MlpUp},
        {.family = "DINOv2 / EVA", .container = "blocks", .suffix = R"(mlp\.w3\.weight)", .type = T::MlpDown},

        // OpenAI CLIP and open_clip: transformer.resblocks (text) and visual.transformer.resblocks
        // (vision), attention by torch.nn.MultiheadAttention.
        {.family = "OpenAI CLIP", .container = "resblocks", .suffix = R"(attn\.in_proj_weight)", .layout = L::QkvThirds, .unnamedStack = "text"},
        {.family = "OpenAI CLIP", .container = "resblocks", .suffix = R"(attn\.out_proj\.weight)", .type = T::O, .unnamedStack = "text"},
        {.family = "OpenAI CLIP", .container = "resblocks", .suffix = R"(mlp\.c_fc\.weight)", .type = T::MlpUp, .unnamedStack = "text"},
        {.family = "OpenAI CLIP", .container = "resblocks", .suffix = R"(mlp\.c_proj\.weight)", .type = T::MlpDown, .unnamedStack = "text"},

        // @families-decoders-1 (#26: Qwen3, Gemma 3, Llama 4, GPT-OSS, OLMoE, Granite, GraniteMoE)
        // Qwen3, Qwen3-MoE, Gemma 3 (text and multimodal), OLMoE and Granite need no row of their own: LLaMA's
        // names, the per-expert and stacked MoE rows above (docs/naming-rules.md).
        // Llama 4 (modeling_llama4.py): feed_forward is Llama4TextMoe in config.moe_layers, else Llama4TextMLP
        // (gate/up/down_proj); Llama4TextMoe holds experts (gate_up_proj [E, hidden, 2I], "gate, up =
        // gate_up.chunk(2, dim=-1)"; down_proj [E, I, hidden]), router and shared_expert (a Llama4TextMLP). Every
        // MoE layer has a shared expert, which tells Llama 4's stacks from other feed_forward.experts without a config.
        // llm-compressor's per-expert form (convert_llama4_weights_to_hf.py, _OFFLINE_QUANT_COMPATIBLE:
        // "feed_forward.experts.{i}.gate_proj.weight" … "expert.transpose(0, 1)  # [OUT, IN]") is nn.Linear's.
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.router\.weight)", .ignoreReason = kRouter},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.experts\.gate_up_proj)", .type = T::MlpGate,
         .layout = L::ExpertsGateUpColumns, .modelTypes = {"llama4", "llama4_text"}, .needsSibling = "feed_forward.shared_expert.gate_proj.weight",
         .partner = "feed_forward.experts.down_proj"},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.experts\.down_proj)", .type = T::MlpDown,
         .layout = L::ExpertsWhole, .modelTypes = {"llama4", "llama4_text"}, .needsSibling = "feed_forward.shared_expert.gate_proj.weight"},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.experts\.(?<expert>\d+)\.gate_proj\.weight)", .type = T::MlpGate,
         .modelTypes = {"llama4", "llama4_text"}},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.experts\.(?<expert>\d+)\.up_proj\.weight)", .type = T::MlpUp,
         .modelTypes = {"llama4", "llama4_text"}},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.experts\.(?<expert>\d+)\.down_proj\.weight)", .type = T::MlpDown,
         .modelTypes = {"llama4", "llama4_text"}},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.shared_expert\.gate_proj\.weight)", .type = T::MlpGate,
         .modelTypes = {"llama4", "llama4_text"}, .expert = kSharedExpert},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.shared_expert\.up_proj\.weight)", .type = T::MlpUp,
         .modelTypes = {"llama4", "llama4_text"}, .expert = kSharedExpert},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.shared_expert\.down_proj\.weight)", .type = T::MlpDown,
         .modelTypes = {"llama4", "llama4_text"}, .expert = kSharedExpert},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.gate_proj\.weight)", .type = T::MlpGate, .modelTypes = {"llama4", "llama4_text"}},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.up_proj\.weight)", .type = T::MlpUp, .modelTypes = {"llama4", "llama4_text"}},
        {.family = "Llama 4", .container = "layers", .suffix = R"(feed_forward\.down_proj\.weight)", .type = T::MlpDown, .modelTypes = {"llama4", "llama4_text"}},
        // Llama4VisionModel's "self.vision_adapter = Llama4VisionPixelShuffleMLP(config)", whose "self.mlp =
        // Llama4VisionMLP2(config)": fc1 then fc2, in no numbered layer: block vision-adapter, layer 0.
        {.family = "Llama 4 vision adapter", .suffix = R"((?:.+\.)?vision_model\.vision_adapter\.mlp\.fc1\.weight)", .type = T::MlpUp,
         .modelTypes = {"llama4"}, .unnamedStack = "vision-adapter", .layerless = true},
        {.family = "Llama 4 vision adapter", .suffix = R"((?:.+\.)?vision_model\.vision_adapter\.mlp\.fc2\.weight)", .type = T::MlpDown,
         .modelTypes = {"llama4"}, .unnamedStack = "vision-adapter", .layerless = true},
        // GraniteMoE (modeling_granitemoe.py): GraniteMoeParallelExperts "self.weight = nn.Parameter(torch.empty(
        // num_experts, output_size, input_size))" used as F.linear(x, self.weight[i]); input_linear [E, 2I, hidden]
        // chunked "self.activation(chunked_hidden_states[0]) * chunked_hidden_states[1]" ([gate; up]), output_linear
        // [E, hidden, I], router.layer an nn.Linear(hidden, experts). GraniteMoeShared's shared_mlp: nn.Linear
        // input_linear [2I, hidden] chunked alike, output_linear.
        {.family = "GraniteMoE", .container = "layers", .suffix = R"(block_sparse_moe\.router\.layer\.weight)", .ignoreReason = kRouter},
        {.family = "GraniteMoE", .container = "layers", .suffix = R"(block_sparse_moe\.input_linear\.weight)", .type = T::MlpGate,
         .layout = L::ExpertsGateUp, .modelTypes = {"granitemoe", "granitemoeshared"}, .partner = "block_sparse_moe.output_linear.weight"},
        {.family = "GraniteMoE", .container = "layers", .suffix = R"(block_sparse_moe\.output_linear\.weight)", .type = T::MlpDown,
         .layout = L::ExpertsWhole, .modelTypes = {"granitemoe", "granitemoeshared"}},
        {.family = "GraniteMoE", .container = "layers", .suffix = R"(shared_mlp\.input_linear\.weight)", .type = T::MlpGate,
         .layout = L::GateUp, .modelTypes = {"granitemoe", "granitemoeshared"}, .expert = kSharedExpert},
        {.family = "GraniteMoE", .container = "layers", .suffix = R"(shared_mlp\.output_linear\.weight)", .type = T::MlpDown,
         .modelTypes = {"granitemoe", "granitemoeshared"}, .expert = kSharedExpert},

        // @families-decoders-2 (#26: DBRX, PhiMoE, Jamba, StarCoder2, Nemotron, InternLM2, Baichuan, GLM, Persimmon, CodeGen, litgpt)
        // (tests/core/tst_ArchitectureFamilies.cpp quotes each family's source. PhiMoE and Nemotron need no rows.)
        // StarCoder2: LLaMA-named attention; mlp.c_fc (up), mlp.c_proj (down).
        {.family = "StarCoder2", .container = "layers", .suffix = R"(mlp\.c_fc\.weight)", .type = T::MlpUp, .modelTypes = {"starcoder2"}},
        {.family = "StarCoder2", .container = "layers", .suffix = R"(mlp\.c_proj\.weight)", .type = T::MlpDown, .modelTypes = {"starcoder2"}},
        // InternLM2: attention.wqkv [kv group][q × heads/kv, k, v][head_dim]; attention.wo and feed_forward.w1/w3/w2
        // are read by the Meta LLaMA rows.
        {.family = "InternLM2", .container = "layers", .suffix = R"(attention\.wqkv\.weight)", .layout = L::InternLm2Wqkv,
         .modelTypes = {"internlm2"}},
        // Baichuan, Baichuan2: self_attn.W_pack [Q; K; V] (unflatten(-1, (3, hidden_size))); the rest as LLaMA.
        {.family = "Baichuan", .container = "layers", .suffix = R"(self_attn\.W_pack\.weight)", .layout = L::QkvThirds, .modelTypes = {"baichuan"}},
        // DBRX: norm_attn_norm.attn.Wqkv [Q (d_model); K; V (kv_n_heads · head_dim)], out_proj; the experts' bare
        // parameters ffn.experts.mlp.w1 (gate), v1 (up), w2 (down) [experts · ffn_hidden_size, d_model].
        {.family = "DBRX", .container = "blocks", .suffix = R"(norm_attn_norm\.attn\.Wqkv\.weight)", .layout = L::QkvContiguous,
         .modelTypes = {"dbrx"}},
        {.family = "DBRX", .container = "blocks", .suffix = R"(norm_attn_norm\.attn\.out_proj\.weight)", .type = T::O, .modelTypes = {"dbrx"}},
        {.family = "DBRX", .container = "blocks", .suffix = R"(ffn\.experts\.mlp\.w1)", .type = T::MlpGate, .layout = L::ExpertRowBlocks,
         .modelTypes = {"dbrx"}, .partner = "ffn.router.layer.weight"},
        {.family = "DBRX", .container = "blocks", .suffix = R"(ffn\.experts\.mlp\.v1)", .type = T::MlpUp, .layout = L::ExpertRowBlocks,
         .modelTypes = {"dbrx"}, .partner = "ffn.router.layer.weight"},
        {.family = "DBRX", .container = "blocks", .suffix = R"(ffn\.experts\.mlp\.w2)", .type = T::MlpDown, .layout = L::ExpertRowBlocks,
         .modelTypes = {"dbrx"}, .partner = "ffn.router.layer.weight"},
        // GLM and GLM-4 in transformers (glm, glm4): GlmMLP is Phi3MLP, gate_up_proj [gate; up].
        {.family = "GLM (transformers)", .container = "layers", .suffix = R"(mlp\.gate_up_proj\.weight)", .type = T::MlpGate, .layout = L::GateUp,
         .modelTypes = {"glm", "glm4"}},
        // Persimmon and Fuyu (its language_model): query_key_value per head, self_attn.dense (the self_attn rows),
        // dense_h_to_4h / dense_4h_to_h.
        {.family = "Persimmon / Fuyu", .container = "layers", .suffix = R"(self_attn\.query_key_value\.weight)", .layout = L::QkvPerHead,
         .modelTypes = {"persimmon", "fuyu"}},
        {.family = "Persimmon / Fuyu", .container = "layers", .suffix = R"(mlp\.dense_h_to_4h\.weight)", .type = T::MlpUp,
         .modelTypes = {"persimmon", "fuyu"}},
        {.family = "Persimmon / Fuyu", .container = "layers", .suffix = R"(mlp\.dense_4h_to_h\.weight)", .type = T::MlpDown,
         .modelTypes = {"persimmon", "fuyu"}},
        // CodeGen: attn.qkv_proj in 4 blocks of [q | v | k]; attn.out_proj, mlp.fc_in, mlp.fc_out by the GPT-J rows.
        {.family = "CodeGen", .container = "h", .suffix = R"(attn\.qkv_proj\.weight)", .layout = L::CodeGenQkv, .modelTypes = {"codegen"}},
        // litgpt (no config.json; model_type "litgpt" may be given in a --rules file's "config"): attn.qkv [Q; K; V],
        // legacy attn.attn per query group, attn.proj; GptNeoxMLP fc / proj, LLaMAMLP fc_1 (gate) / fc_2 (up) / proj,
        // LLaMAMoE experts.E.* and shared_experts.
        {.family = "litgpt", .container = "h", .suffix = R"(attn\.qkv\.weight)", .layout = L::LitGptQkv, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(attn\.attn\.weight)", .layout = L::LitGptAttn, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(attn\.proj\.weight)", .type = T::O, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.fc\.weight)", .type = T::MlpUp, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.fc_1\.weight)", .type = T::MlpGate, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.fc_2\.weight)", .type = T::MlpUp, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.proj\.weight)", .type = T::MlpDown, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.experts\.(?<expert>\d+)\.fc_1\.weight)", .type = T::MlpGate, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.experts\.(?<expert>\d+)\.fc_2\.weight)", .type = T::MlpUp, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.experts\.(?<expert>\d+)\.proj\.weight)", .type = T::MlpDown, .modelTypes = {"litgpt"}},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.shared_experts\.fc_1\.weight)", .type = T::MlpGate, .modelTypes = {"litgpt"},
         .expert = kSharedExpert},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.shared_experts\.fc_2\.weight)", .type = T::MlpUp, .modelTypes = {"litgpt"},
         .expert = kSharedExpert},
        {.family = "litgpt", .container = "h", .suffix = R"(mlp\.shared_experts\.proj\.weight)", .type = T::MlpDown, .modelTypes = {"litgpt"},
         .expert = kSharedExpert},
        // Jamba: the Mamba mixer (block "mamba": in_proj [x; z] as Mamba's, out_proj) apart from the layer's
        // feed_forward (JambaMLP, or experts per expert or stacked as MixtralExperts).
        {.family = "Jamba", .container = "layers", .suffix = R"(mamba\.in_proj\.weight)", .type = T::MlpUp, .layout = L::UpGate,
         .modelTypes = {"jamba"}, .subBlock = "mamba"},
        {.family = "Jamba", .container = "layers", .suffix = R"(mamba\.out_proj\.weight)", .type = T::MlpDown, .modelTypes = {"jamba"},
         .subBlock = "mamba"},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.gate_proj\.weight)", .type = T::MlpGate, .modelTypes = {"jamba"}},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.up_proj\.weight)", .type = T::MlpUp, .modelTypes = {"jamba"}},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.down_proj\.weight)", .type = T::MlpDown, .modelTypes = {"jamba"}},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.experts\.(?<expert>\d+)\.gate_proj\.weight)", .type = T::MlpGate,
         .modelTypes = {"jamba"}},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.experts\.(?<expert>\d+)\.up_proj\.weight)", .type = T::MlpUp,
         .modelTypes = {"jamba"}},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.experts\.(?<expert>\d+)\.down_proj\.weight)", .type = T::MlpDown,
         .modelTypes = {"jamba"}},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.experts\.gate_up_proj)", .type = T::MlpGate, .layout = L::ExpertsGateUp,
         .modelTypes = {"jamba"}, .partner = "feed_forward.experts.down_proj"},
        {.family = "Jamba", .container = "layers", .suffix = R"(feed_forward\.experts\.down_proj)", .type = T::MlpDown, .layout = L::ExpertsWhole,
         .modelTypes = {"jamba"}},

        // @families-rwkv-exaone (#44)
        // RWKV-6 and RWKV-7 (BlinkDL/RWKV-LM; HF remote code names the same modules rwkv.blocks.N.attention / feed_forward).
        // Time mix RWKV_Tmix_x060: "r = self.receptance(xr)", "k = self.key(xk)", "v = self.value(xv)", "g =
        // F.silu(self.gate(xg))", "x = self.output(x * g)"; x070 the same without gate. Channel mix RWKV_CMix_x060:
        // "k = self.key(xk)", "k = torch.relu(k) ** 2", "kv = self.value(k)", "return torch.sigmoid(self.receptance(xr)) *
        // kv"; x070 has no receptance. Only in layers with the time mix's decay (x060 att.time_decay, x070 att.w0), so
        // another family's blocks.N.att.key is not taken for RWKV's.
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:att|attention)\.(?:time_maa(?:_rkvw)?_w[12]|time_decay_w[12]|gate_w[12]|[wavg][12]))",
         .ignoreReason = "RWKV's low-rank factors of its data-dependent token shift, decay, in-context learning rate, value residual "
                         "and gate (raw parameters used as tanh(x @ W1) @ W2; not attention or MLP matrices)",
         .needsSibling = kRwkvDecay},
        {.family = "RWKV", .container = "blocks",
         .suffix = R"((?:(?:att|attention)\.(?:time_maa_[xwkvrg]|time_mix_[kvrg]|time_decay|time_faaaa|time_first|time_state|x_[rwkvag]|k_k|k_a|r_k|[wav]0)|(?:ffn|feed_forward)\.(?:time_maa_[kr]|time_mix_[kr]|x_k)))",
         .ignoreReason = "RWKV's per-channel token-shift, decay and bonus vectors ([1, 1, C], [heads, head_size]) or learned initial "
                         "state (not attention or MLP matrices)",
         .needsSibling = kRwkvDecay},
        // RWKV-6's gate [A, C] multiplies the time mix's output before att.output: none of Q, K, V, O, and not an MLP's.
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:att|attention)\.gate\.weight)",
         .ignoreReason = "RWKV-6's output gate (silu(gate(x)) multiplies the time mix's output before att.output; none of Q, K, V, O)",
         .needsSibling = kRwkvDecay},
        // Receptance plays the query (r·k weights v in the WKV recurrence), key and value theirs, output projects back.
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:att|attention)\.receptance\.weight)", .type = T::Q, .needsSibling = kRwkvDecay},
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:att|attention)\.key\.weight)", .type = T::K, .needsSibling = kRwkvDecay},
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:att|attention)\.value\.weight)", .type = T::V, .needsSibling = kRwkvDecay},
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:att|attention)\.output\.weight)", .type = T::O, .needsSibling = kRwkvDecay},
        // The channel mix is the MLP: key [F, C] up, value [C, F] down. receptance [C, C] is its gate: an input
        // projection whose activation (sigmoid) multiplies the other path elementwise, as a GLU's gate does, though
        // after the down projection (so it is C × C, not F × C).
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:ffn|feed_forward)\.key\.weight)", .type = T::MlpUp, .needsSibling = kRwkvDecay},
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:ffn|feed_forward)\.value\.weight)", .type = T::MlpDown, .needsSibling = kRwkvDecay},
        {.family = "RWKV", .container = "blocks", .suffix = R"((?:ffn|feed_forward)\.receptance\.weight)", .type = T::MlpGate, .needsSibling = kRwkvDecay},
        // EXAONE 3.0/3.5 (LG AI's modeling_exaone.py, model_type exaone): ExaoneAttention under attn.attention (q_proj,
        // k_proj, v_proj, out_proj); ExaoneGatedMLP "hidden_act = self.act(self.c_fc_0(x))", "hidden_linear =
        // self.c_fc_1(x)", then c_proj (typed MLP_DOWN by the GPT-2 row: container h, mlp.c_proj).
        {.family = "EXAONE", .container = "h", .suffix = R"(attn\.attention\.q_proj\.weight)", .type = T::Q},
        {.family = "EXAONE", .container = "h", .suffix = R"(attn\.attention\.k_proj\.weight)", .type = T::K},
        {.family = "EXAONE", .container = "h", .suffix = R"(attn\.attention\.v_proj\.weight)", .type = T::V},
        {.family = "EXAONE", .container = "h", .suffix = R"(attn\.attention\.out_proj\.weight)", .type = T::O},
        {.family = "EXAONE", .container = "h", .suffix = R"(mlp\.c_fc_0\.weight)", .type = T::MlpGate, .needsSibling = "mlp.c_fc_1.weight"},
        {.family = "EXAONE", .container = "h", .suffix = R"(mlp\.c_fc_1\.weight)", .type = T::MlpUp, .needsSibling = "mlp.c_fc_0.weight"},

        // @families-encoders-vision (#26: DistilBERT … Mamba-2)

        // DistilBERT (modeling_distilbert.py): transformer.layer.N.attention.{q,k,v,out}_lin, ffn.lin1 / ffn.lin2.
        {.family = "DistilBERT", .container = "layer", .suffix = R"(attention\.q_lin\.weight)", .type = T::Q},
        {.family = "DistilBERT", .container = "layer", .suffix = R"(attention\.k_lin\.weight)", .type = T::K},
        {.family = "DistilBERT", .container = "layer", .suffix = R"(attention\.v_lin\.weight)", .type = T::V},
        {.family = "DistilBERT", .container = "layer", .suffix = R"(attention\.out_lin\.weight)", .type = T::O},
        {.family = "DistilBERT", .container = "layer", .suffix = R"(ffn\.lin1\.weight)", .type = T::MlpUp},
        {.family = "DistilBERT", .container = "layer", .suffix = R"(ffn\.lin2\.weight)", .type = T::MlpDown},
        // ALBERT (modeling_albert.py): albert_layer_groups.G.albert_layers.I: one set of matrices that every one of the
        // num_hidden_layers layers applies, so layer I of its group (0 in every released ALBERT).
        {.family = "ALBERT (layers share one set)", .container = "albert_layers", .suffix = R"(attention\.query\.weight)", .type = T::Q},
        {.family = "ALBERT (layers share one set)", .container = "albert_layers", .suffix = R"(attention\.key\.weight)", .type = T::K},
        {.family = "ALBERT (layers share one set)", .container = "albert_layers", .suffix = R"(attention\.value\.weight)", .type = T::V},
        {.family = "ALBERT (layers share one set)", .container = "albert_layers", .suffix = R"(attention\.dense\.weight)", .type = T::O},
        {.family = "ALBERT (layers share one set)", .container = "albert_layers", .suffix = R"(ffn\.weight)", .type = T::MlpUp},
        {.family = "ALBERT (layers share one set)", .container = "albert_layers", .suffix = R"(ffn_output\.weight)", .type = T::MlpDown},
        // DeBERTa-v2/v3 (modeling_deberta_v2.py, DisentangledSelfAttention): query_proj, key_proj, value_proj; without
        // share_att_key, pos_key_proj / pos_query_proj project the relative position embeddings (block "position").
        // attention.output.dense, intermediate.dense and output.dense are read by the BERT rows.
        {.family = "DeBERTa-v2", .container = "layer", .suffix = R"(attention\.self\.query_proj\.weight)", .type = T::Q},
        {.family = "DeBERTa-v2", .container = "layer", .suffix = R"(attention\.self\.key_proj\.weight)", .type = T::K},
        {.family = "DeBERTa-v2", .container = "layer", .suffix = R"(attention\.self\.value_proj\.weight)", .type = T::V},
        {.family = "DeBERTa-v2", .container = "layer", .suffix = R"(attention\.self\.pos_key_proj\.weight)", .type = T::K, .subBlock = "position"},
        {.family = "DeBERTa-v2", .container = "layer", .suffix = R"(attention\.self\.pos_query_proj\.weight)", .type = T::Q, .subBlock = "position"},
        // Swin (modeling_swin.py): encoder.layers.S (a stage).blocks.B (window attention); block "stageS+1", layer B.
        {.family = "Swin", .container = R"(layers\.\d+\.blocks)", .suffix = R"(attention\.self\.query\.weight)", .type = T::Q, .layout = L::SwinStage},
        {.family = "Swin", .container = R"(layers\.\d+\.blocks)", .suffix = R"(attention\.self\.key\.weight)", .type = T::K, .layout = L::SwinStage},
        {.family = "Swin", .container = R"(layers\.\d+\.blocks)", .suffix = R"(attention\.self\.value\.weight)", .type = T::V, .layout = L::SwinStage},
        {.family = "Swin", .container = R"(layers\.\d+\.blocks)", .suffix = R"(attention\.output\.dense\.weight)", .type = T::O, .layout = L::SwinStage},
        {.family = "Swin", .container = R"(layers\.\d+\.blocks)", .suffix = R"(intermediate\.dense\.weight)", .type = T::MlpUp, .layout = L::SwinStage},
        {.family = "Swin", .container = R"(layers\.\d+\.blocks)", .suffix = R"(output\.dense\.weight)", .type = T::MlpDown, .layout = L::SwinStage},
        // DINOv2 (HF modeling_dinov2.py) Dinov2SwiGLUFFN: weights_in [gate; up] (x1, x2 = chunk(2); silu(x1) * x2), weights_out.
        {.family = "DINOv2 (HF)", .container = "layer", .suffix = R"(mlp\.weights_in\.weight)", .type = T::MlpGate, .layout = L::GateUp},
        {.family = "DINOv2 (HF)", .container = "layer", .suffix = R"(mlp\.weights_out\.weight)", .type = T::MlpDown},
        // Wav2Vec2 (modeling_wav2vec2.py): encoder.layers.N.attention.{q,k,v,out}_proj (BART's attention),
        // feed_forward.intermediate_dense / output_dense.
        {.family = "Wav2Vec2", .container = "layers", .suffix = R"(attention\.q_proj\.weight)", .type = T::Q},
        {.family = "Wav2Vec2", .container = "layers", .suffix = R"(attention\.k_proj\.weight)", .type = T::K},
        {.family = "Wav2Vec2", .container = "layers", .suffix = R"(attention\.v_proj\.weight)", .type = T::V},
        {.family = "Wav2Vec2", .container = "layers", .suffix = R"(attention\.out_proj\.weight)", .type = T::O},
        {.family = "Wav2Vec2", .container = "layers", .suffix = R"(feed_forward\.intermediate_dense\.weight)", .type = T::MlpUp},
        {.family = "Wav2Vec2", .container = "layers", .suffix = R"(feed_forward\.output_dense\.weight)", .type = T::MlpDown},
        // SAM's vision encoder (transformers vision_encoder.layers.N, segment-anything image_encoder.blocks.N, whose
        // attn.qkv / attn.proj the timm rows read): attn.qkv [Q; K; V] (reshape(B, H·W, 3, heads, -1)), attn.proj,
        // mlp.lin1 / mlp.lin2 (MLPBlock).
        {.family = "SAM", .container = "layers", .suffix = R"(attn\.qkv\.weight)", .layout = L::QkvThirds, .modelTypes = {"sam", "sam_vision_model"}},
        {.family = "SAM", .container = "layers", .suffix = R"(attn\.proj\.weight)", .type = T::O, .modelTypes = {"sam", "sam_vision_model"}},
        {.family = "SAM", .container = "layers|blocks", .suffix = R"(mlp\.lin1\.weight)", .type = T::MlpUp},
        {.family = "SAM", .container = "layers|blocks", .suffix = R"(mlp\.lin2\.weight)", .type = T::MlpDown},
        // SAM's mask decoder (transformers SamTwoWayAttentionBlock, segment-anything TwoWayAttentionBlock): self_attn (the
        // self_attn rows), the two cross-attentions cross_attn_token_to_image and cross_attn_image_to_token (cross blocks
        // of their own), mlp.lin1 / lin2 (above); the TwoWayTransformer's final_attn_token_to_image after the last layer.
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_token_to_image\.q_proj\.weight)", .type = T::Q, .subBlock = "token-to-image", .cross = true},
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_token_to_image\.k_proj\.weight)", .type = T::K, .subBlock = "token-to-image", .cross = true},
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_token_to_image\.v_proj\.weight)", .type = T::V, .subBlock = "token-to-image", .cross = true},
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_token_to_image\.out_proj\.weight)", .type = T::O, .subBlock = "token-to-image", .cross = true},
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_image_to_token\.q_proj\.weight)", .type = T::Q, .subBlock = "image-to-token", .cross = true},
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_image_to_token\.k_proj\.weight)", .type = T::K, .subBlock = "image-to-token", .cross = true},
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_image_to_token\.v_proj\.weight)", .type = T::V, .subBlock = "image-to-token", .cross = true},
        {.family = "SAM mask decoder", .container = "layers", .suffix = R"(cross_attn_image_to_token\.out_proj\.weight)", .type = T::O, .subBlock = "image-to-token", .cross = true},
        {.family = "SAM mask decoder", .suffix = R"((?<stack>(?:.+\.)?mask_decoder\.transformer)\.final_attn_token_to_image\.q_proj\.weight)", .type = T::Q,
         .subBlock = "final-token-to-image", .cross = true, .layerless = true},
        {.family = "SAM mask decoder", .suffix = R"((?<stack>(?:.+\.)?mask_decoder\.transformer)\.final_attn_token_to_image\.k_proj\.weight)", .type = T::K,
         .subBlock = "final-token-to-image", .cross = true, .layerless = true},
        {.family = "SAM mask decoder", .suffix = R"((?<stack>(?:.+\.)?mask_decoder\.transformer)\.final_attn_token_to_image\.v_proj\.weight)", .type = T::V,
         .subBlock = "final-token-to-image", .cross = true, .layerless = true},
        {.family = "SAM mask decoder", .suffix = R"((?<stack>(?:.+\.)?mask_decoder\.transformer)\.final_attn_token_to_image\.out_proj\.weight)", .type = T::O,
         .subBlock = "final-token-to-image", .cross = true, .layerless = true},
        // Mamba-2 (transformers Mamba2Mixer, mamba_ssm Mamba2; mixers with dt_bias, which Mamba-1's lack): in_proj rows
        // [z; x; B; C; dt], z as the gate, x as the up projection (as Mamba's), B, C, dt untyped; out_proj the down projection.
        {.family = "Mamba-2 (in_proj's B, C, dt rows: scan parameters, not typed)", .container = "layers", .suffix = R"(mixer\.in_proj\.weight)",
         .layout = L::Mamba2InProj, .needsSibling = "mixer.dt_bias", .partner = "mixer.out_proj.weight"},
        {.family = "Mamba-2", .container = "layers", .suffix = R"(mixer\.out_proj\.weight)", .type = T::MlpDown, .needsSibling = "mixer.dt_bias"},
        // SigLIP's vision pooling head (modeling_siglip.py SiglipMultiheadAttentionPoolingHead: "self.attention =
        // torch.nn.MultiheadAttention(config.hidden_size, config.num_attention_heads, batch_first=True)", "self.mlp =
        // SiglipMLP(config)"), in no numbered layer: block vision-head, layer 0. in_proj_weight is [3E, E], rows Q|K|V.
        {.family = "SigLIP pooling head", .suffix = R"((?:.+\.)?vision_model\.head\.attention\.in_proj_weight)", .layout = L::QkvThirds,
         .unnamedStack = "vision-head", .layerless = true},
        {.family = "SigLIP pooling head", .suffix = R"((?:.+\.)?vision_model\.head\.attention\.out_proj\.weight)", .type = T::O,
         .unnamedStack = "vision-head", .layerless = true},
        {.family = "SigLIP pooling head", .suffix = R"((?:.+\.)?vision_model\.head\.mlp\.fc1\.weight)", .type = T::MlpUp,
         .unnamedStack = "vision-head", .layerless = true},
        {.family = "SigLIP pooling head", .suffix = R"((?:.+\.)?vision_model\.head\.mlp\.fc2\.weight)", .type = T::MlpDown,
         .unnamedStack = "vision-head", .layerless = true},
        // LLaVA's projector (modeling_llava.py LlavaMultiModalProjector: linear_1, act, linear_2; LLaVA-NeXT's is "Copied
        // from transformers.models.llava.modeling_llava.LlavaMultiModalProjector") between the vision tower and the
        // language model: block projector, layer 0.
        {.family = "LLaVA projector", .suffix = R"((?:.+\.)?multi_modal_projector\.linear_1\.weight)", .type = T::MlpUp,
         .modelTypes = {"llava", "llava_next"}, .unnamedStack = "projector", .layerless = true},
        {.family = "LLaVA projector", .suffix = R"((?:.+\.)?multi_modal_projector\.linear_2\.weight)", .type = T::MlpDown,
         .modelTypes = {"llava", "llava_next"}, .unnamedStack = "projector", .layerless = true},

        // Mamba (HF and mamba_ssm, Mamba-1 mixers only: they have x_proj): in_proj rows [x; z], x feeds
        // the scan (typed as the up projection) and z gates it; out_proj is the down projection.
        {.family = "Mamba", .container = "layers", .suffix = R"(mixer\.in_proj\.weight)", .type = T::MlpUp, .layout = L::GluUpGate,
         .needsSibling = "mixer.x_proj.weight", .partner = "mixer.out_proj.weight"},
        {.family = "Mamba", .container = "layers", .suffix = R"(mixer\.out_proj\.weight)", .type = T::MlpDown, .needsSibling = "mixer.x_proj.weight"},
    };
    TensorNameRules rules;
    for (const Row &row : table) {
        Rule rule;
        rule.pattern = row.layerless ? QRegularExpression(QStringLiteral(R"(^(?<base>)(?:%1)$)").arg(QLatin1String(row.suffix)))
                                     : layerPattern(row.container, row.suffix);
        rule.layerless = row.layerless;
        Q_ASSERT_X(rule.pattern.isValid(), "TensorNameRules", row.suffix);
        rule.family = QString::fromLatin1(row.family);
        rule.type = row.type;
        rule.layout = row.layout;
        for (const char *modelType : row.modelTypes)
            rule.modelTypes << QString::fromLatin1(modelType);
        rule.expert = QString::fromLatin1(row.expert);
        rule.subBlock = QString::fromLatin1(row.subBlock);
        rule.cross = row.cross;
        rule.ignore = row.ignoreReason != nullptr;
        rule.reason = row.ignoreReason ? QString::fromLatin1(row.ignoreReason) : QString();
        rule.unnamedStack = QString::fromLatin1(row.unnamedStack);
        rule.needsSibling = QString::fromLatin1(row.needsSibling);
        rule.partner = QString::fromLatin1(row.partner);
        rules.m_rules.append(rule);
    }
    rules.m_identity = QStringLiteral("builtin-%1").arg(kBuiltInRulesVersion);
    return rules;
}

std::optional<TensorNameRules> TensorNameRules::withUserRules(const QString &jsonPath, QString *error)
{
    QFile file(jsonPath);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: %2").arg(jsonPath, file.errorString());
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QByteArray text = file.read(4 << 20);
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1: invalid JSON: %2").arg(jsonPath, parseError.errorString());
        return std::nullopt;
    }
    const QJsonArray list = doc.isArray() ? doc.array() : doc.object().value(QLatin1String("rules")).toArray();
    const QJsonValue config = doc.object().value(QLatin1String("config"));
    if (!config.isUndefined() && !config.isObject()) {
        *error = QStringLiteral("%1: \"config\" must be an object, e.g. {\"num_attention_heads\": 12}").arg(jsonPath);
        return std::nullopt;
    }
    if (list.isEmpty() && config.toObject().isEmpty()) {
        *error = QStringLiteral("%1: no rules (expected {\"rules\": [ … ]} and/or {\"config\": { … }})").arg(jsonPath);
        return std::nullopt;
    }
    static const QHash<QString, FusedLayout> splits = {
        {"none", FusedLayout::None},           {"qkv", FusedLayout::QkvThirds},         {"qkv_gqa", FusedLayout::QkvContiguous},
        {"qkv_per_head", FusedLayout::QkvPerHead}, {"qkv_grouped", FusedLayout::QkvGrouped}, {"gate_up", FusedLayout::GateUp},
        {"up_gate", FusedLayout::UpGate},      {"mla_kv_a", FusedLayout::MlaKvA},       {"mla_kv_b", FusedLayout::MlaKvB}};
    TensorNameRules user;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QJsonObject o = list[i].toObject();
        const QString where = QStringLiteral("%1: rule %2").arg(jsonPath).arg(i + 1);
        Rule rule;
        rule.family = QStringLiteral("rules file rule %1").arg(i + 1);
        rule.pattern = QRegularExpression(o.value(QLatin1String("pattern")).toString());
        if (!rule.pattern.isValid() || rule.pattern.pattern().isEmpty()) {
            *error = QStringLiteral("%1: invalid pattern: %2").arg(where, rule.pattern.errorString());
            return std::nullopt;
        }
        rule.ignore = o.value(QLatin1String("ignore")).toBool(false);
        rule.reason = QStringLiteral("ignored by a user rule");
        const QStringList groups = rule.pattern.namedCaptureGroups();
        if (!rule.ignore && rule.pattern.captureCount() < 1) {
            *error = QStringLiteral("%1: the pattern needs a group that captures the layer number").arg(where);
            return std::nullopt;
        }
        const QString splitName = o.value(QLatin1String("split")).toString(QStringLiteral("none"));
        if (!splits.contains(splitName)) {
            *error = QStringLiteral("%1: unknown split '%2' (none, qkv, qkv_gqa, qkv_per_head, qkv_grouped, gate_up, "
                                    "up_gate, mla_kv_a, mla_kv_b)").arg(where, splitName);
            return std::nullopt;
        }
        rule.layout = splits.value(splitName);
        const auto type = matrixTypeFromCsvName(o.value(QLatin1String("type")).toString());
        if (!rule.ignore && rule.layout == FusedLayout::None && !type) {
            *error = QStringLiteral("%1: type must be one of Q, K, V, O, MLP_UP, MLP_DOWN, MLP_GATE").arg(where);
            return std::nullopt;
        }
        rule.type = type.value_or(MatrixType::Q);
        // A user's rule names its block (or captures it); it is never guessed from the name.
        if (!groups.contains(QLatin1String("block")))
            rule.fixedBlock = o.value(QLatin1String("block")).toString();
        rule.expert = o.value(QLatin1String("expert")).toVariant().toString();
        rule.cross = o.value(QLatin1String("cross")).toBool(false);
        user.m_rules.append(rule);
    }
    user.m_userConfig = config.toObject().toVariantMap();
    user.m_userRulesPath = jsonPath;
    const TensorNameRules builtIn = TensorNameRules::builtIn();
    user.m_rules.append(builtIn.m_rules);
    user.m_identity = QStringLiteral("user-%1-%2")
                          .arg(QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha1).toHex()))
                          .arg(kBuiltInRulesVersion);
    return user;
}

std::optional<RuleMatch> TensorNameRules::match(const QString &tensorName, const ModelConfig &config,
                                                const std::function<bool(const QString &)> &exists) const
{
    // No model names a tensor with a control character, and a pattern's $ matches before a final
    // "\n": such a name ("….q_proj.weight\n") is never typed.
    if (printableText(tensorName) != tensorName)
        return std::nullopt;
    const QString name = withoutWrapperPrefixes(tensorName);
    const QString modelType = config.modelType();
    for (const Rule &rule : m_rules) {
        if (!modelType.isEmpty() && !rule.modelTypes.isEmpty() && !rule.modelTypes.contains(modelType))
            continue;
        const QRegularExpressionMatch m = rule.pattern.match(name);
        if (!m.hasMatch())
            continue;
        const QString base = m.captured(QStringLiteral("base"));
        if (!rule.needsSibling.isEmpty() && !hasSibling(base, rule.needsSibling, exists))
            continue;
        RuleMatch out;
        out.family = rule.family;
        out.ignored = rule.ignore;
        out.reason = rule.reason;
        if (rule.ignore)
            return out;
        out.type = rule.type;
        out.layout = rule.layout;
        const QString layer = rule.pattern.namedCaptureGroups().contains(QLatin1String("layer"))
                                  ? m.captured(QStringLiteral("layer"))
                                  : m.captured(1);
        bool ok = rule.layerless;
        out.layer = rule.layerless ? 0 : layer.toInt(&ok);
        if (!ok || out.layer < 0)
            continue; // not a layer number after all (a user's group captured something else)
        const QString expert = m.captured(QStringLiteral("expert"));
        out.expert = expert.isEmpty() ? rule.expert : expert;
        out.stack = m.captured(QStringLiteral("stack"));
        out.unnamedStack = rule.unnamedStack;
        out.subBlock = rule.subBlock;
        out.cross = rule.cross;
        out.fixedBlock = rule.fixedBlock;
        if (const QString block = m.captured(QStringLiteral("block")); !block.isEmpty())
            out.fixedBlock = block;
        if (!rule.partner.isEmpty())
            out.partner = base + QLatin1Char('.') + rule.partner;
        return out;
    }
    return std::nullopt;
}

} // namespace rankscope
