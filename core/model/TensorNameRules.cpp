#include "model/TensorNameRules.h"

#include "io/PrintableText.h"
#include "model/MatrixIdentity.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

namespace rankscope {

namespace {

// Bumped whenever the built-in rules change what a tensor becomes, so cached analyses typed by an
// older table are analysed again rather than shown under the old typing.
constexpr int kBuiltInRulesVersion = 2;

QRegularExpression layerPattern(const char *container, const char *suffix)
{
    // The stack is everything before the container, the layer the number after it; siblings of the
    // tensor in the same layer are found from the base.
    return QRegularExpression(QStringLiteral(R"(^(?<base>(?:(?<stack>.+?)\.)?(?:%1)\.(?<layer>\d+))\.%2$)")
                                  .arg(QLatin1String(container), QLatin1String(suffix)));
}

} // namespace

QString TensorNameRules::withoutWrapperPrefixes(const QString &name)
{
    QStringList kept;
    for (const QString &part : name.split(QLatin1Char('.')))
        if (part != QLatin1String("_orig_mod") && part != QLatin1String("module") &&
            part != QLatin1String("_checkpoint_wrapped_module") && part != QLatin1String("_fsdp_wrapped_module"))
            kept.append(part);
    return kept.join(QLatin1Char('.'));
}

bool TensorNameRules::looksLikeAttentionOrMlp(const QString &tensorName)
{
    static const QSet<QString> words = {
        "attn", "attention", "self_attn", "self_attention", "selfattention", "encdecattention", "encoder_attn",
        "crossattention", "cross_attn", "cross_attention", "multihead_attn", "mlp", "ffn", "feed_forward",
        "feedforward", "ff", "densereludense", "mixer", "experts", "expert", "shared_expert", "shared_experts",
        "intermediate", "block_sparse_moe", "moe", "q_proj", "k_proj", "v_proj", "o_proj", "out_proj", "qkv",
        "qkv_proj", "wqkv", "query", "key", "value", "query_key_value", "c_attn", "c_fc", "in_proj", "fc1", "fc2",
        "fc_in", "fc_out", "gate_proj", "up_proj", "down_proj", "gate_up_proj", "w1", "w2", "w3", "wi", "wo",
        "wi_0", "wi_1", "wq", "wk", "wv", "dense_h_to_4h", "dense_4h_to_h", "att_proj", "attn_out", "ff_proj",
        "ff_out", "linear1", "linear2"};
    const QStringList parts = withoutWrapperPrefixes(tensorName).toLower().split(QLatin1Char('.'));
    if (parts.size() < 3)
        return false;
    const QString &leaf = parts.last();
    if (leaf != QLatin1String("weight") && !leaf.endsWith(QLatin1String("_weight")) && leaf != QLatin1String("kernel") &&
        !leaf.startsWith(QLatin1String("kernel:")))
        return false;
    bool numbered = false, named = false;
    for (const QString &p : parts) {
        bool isNumber = false;
        p.toLongLong(&isNumber);
        numbered |= isNumber;
        named |= words.contains(p) || words.contains(p.section(QLatin1Char('_'), 0, -2));
        if (p.contains(QLatin1String("norm")) || p.startsWith(QLatin1String("ln_")) || p == QLatin1String("ln"))
            return false; // normalisation weights are never matrices
    }
    return numbered && named;
}

TensorNameRules TensorNameRules::builtIn()
{
    using T = MatrixType;
    using L = FusedLayout;
    // One row per tensor name; the first row that applies decides. Every layout was read from the
    // family's forward() (docs/naming-rules.md quotes the lines).
    struct Row {
        const char *family;
        const char *container; // the module list holding the layers
        const char *suffix;    // after "<container>.<layer>."
        T type = T::Q;
        L layout = L::None;
        std::initializer_list<const char *> modelTypes = {}; // empty: any model
        const char *expert = "";
        const char *subBlock = "";
        bool cross = false;
        const char *ignoreReason = nullptr;
        const char *unnamedStack = "";
        const char *needsSibling = ""; // in the same layer
        const char *partner = "";      // in the same layer
    };
    static const char *const kRouter = "the MoE router (scores experts; not a matrix type)";
    static const char *const kAny = "layers|layer|h|blocks|block|resblocks";
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
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.(?:SelfAttention|EncDecAttention)\.relative_attention_bias\.weight)",
         .ignoreReason = "T5's relative position bias table [buckets, heads] (not a matrix type)"},
        {.family = "Mamba", .container = "layers", .suffix = R"(mixer\.(?:x_proj|dt_proj)\.weight)",
         .ignoreReason = "Mamba's selective-scan parameter projection (not a matrix type)"},
        {.family = "DeepSeek FP8", .container = kAny, .suffix = R"(.+\.weight_scale_inv)",
         .ignoreReason = "FP8 block scales (applied to the weight they belong to)"},
        {.family = "Phi-2 (original)", .container = "h|layers", .suffix = R"(mlp\.(?:fc_in|fc_out)\.weight)", .modelTypes = phiMsft,
         .ignoreReason = "not used by the model's forward() (listed in _keys_to_ignore_on_load_unexpected)"},

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

        // Meta's original LLaMA names.
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wq\.weight)", .type = T::Q},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wk\.weight)", .type = T::K},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wv\.weight)", .type = T::V},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(attention\.wo\.weight)", .type = T::O},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(feed_forward\.w1\.weight)", .type = T::MlpGate},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(feed_forward\.w3\.weight)", .type = T::MlpUp},
        {.family = "Meta LLaMA", .container = "layers", .suffix = R"(feed_forward\.w2\.weight)", .type = T::MlpDown},

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
        {.family = "MoE (fused experts)", .container = "layers", .suffix = R"(mlp\.experts\.gate_up_proj)", .type = T::MlpGate, .layout = L::ExpertsGateUp},
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

        // T5 and T5 v1.1: block.N.layer.0 self-attention, decoder layer.1 cross-attention, then the MLP;
        // the gated MLP applies the activation to wi_0 (the gate) and multiplies by wi_1.
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.SelfAttention\.q\.weight)", .type = T::Q},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.SelfAttention\.k\.weight)", .type = T::K},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.SelfAttention\.v\.weight)", .type = T::V},
        {.family = "T5", .container = "block", .suffix = R"(layer\.\d+\.SelfAttention\.o\.weight)", .type = T::O},
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

        // Mamba (HF and mamba_ssm, Mamba-1 mixers only: they have x_proj): in_proj rows [x; z], x feeds
        // the scan (typed as the up projection) and z gates it; out_proj is the down projection.
        {.family = "Mamba", .container = "layers", .suffix = R"(mixer\.in_proj\.weight)", .type = T::MlpUp, .layout = L::GluUpGate,
         .needsSibling = "mixer.x_proj.weight", .partner = "mixer.out_proj.weight"},
        {.family = "Mamba", .container = "layers", .suffix = R"(mixer\.out_proj\.weight)", .type = T::MlpDown, .needsSibling = "mixer.x_proj.weight"},
    };
    TensorNameRules rules;
    for (const Row &row : table) {
        Rule rule;
        rule.pattern = layerPattern(row.container, row.suffix);
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
        if (!rule.needsSibling.isEmpty() && !(exists && exists(base + QLatin1Char('.') + rule.needsSibling)))
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
        bool ok = false;
        out.layer = layer.toInt(&ok);
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
