// Every matrix of every family: a tiny checkpoint with the family's exact state_dict names and config
// keys (read from its source; docs/naming-rules.md cites them), fused tensors assembled as its
// forward() splits them, analysed end to end. Each matrix must come out once, with its block, layer,
// type, expert, shape and stable rank; anything attention/MLP-like not analysed must be reported.
#include "FamilyCheckpoint.h"
#include "model/CheckpointLayout.h"
#include "model/GenericTyping.h"
#include "TestSuite.h"

#include <QJsonArray>

namespace tst_architecturefamilies {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using T = MatrixType;
using M = Eigen::MatrixXd;
constexpr int H = 16, HEADS = 4, HD = 4, KV = 2, FF = 24, LAYERS = 2;

// Checks that the analysis holds exactly the expected matrices, and returns the tensors it reported.
QStringList verify(const FamilyCheckpoint &family, const RunAnalysis &run)
{
    QSet<MatrixIdentity> seen;
    for (const MatrixResult &r : run.results) {
        const MatrixIdentity key = r.identity();
        const QString what = QStringLiteral("%1 (%2)").arg(key.text(), r.tensor);
        if (!family.expected().contains(key)) {
            QTest::qFail(qPrintable("unexpected " + what), __FILE__, __LINE__);
            return {};
        }
        if (seen.contains(key)) {
            QTest::qFail(qPrintable("twice: " + what), __FILE__, __LINE__);
            return {};
        }
        seen.insert(key);
        const ExpectedMatrix &e = family.expected()[key];
        if (std::min(r.rows, r.cols) != std::min(e.rows, e.cols) || std::max(r.rows, r.cols) != std::max(e.rows, e.cols) ||
            std::abs(r.metrics.stableRank - e.stableRank) > 1e-4 * e.stableRank) {
            QTest::qFail(qPrintable(QStringLiteral("%1: %2×%3 stable rank %4, expected %5×%6 stable rank %7")
                                        .arg(what).arg(r.rows).arg(r.cols).arg(r.metrics.stableRank).arg(e.rows).arg(e.cols).arg(e.stableRank)),
                         __FILE__, __LINE__);
            return {};
        }
    }
    for (auto it = family.expected().begin(); it != family.expected().end(); ++it)
        if (!seen.contains(it.key())) {
            QStringList issues;
            for (const AnalysisIssue &i : run.issues)
                issues << i.text();
            QTest::qFail(qPrintable("missing " + it.key().text() + "; issues: " + issues.join("; ")), __FILE__, __LINE__);
            return {};
        }
    QStringList reported;
    for (const AnalysisIssue &issue : run.issues)
        reported << issue.tensor + ": " + issue.message;
    return reported;
}

#define VERIFY_CLEAN(family, run)                                                                                      \
    do {                                                                                                               \
        const QStringList reported = verify(family, run);                                                              \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
        QVERIFY2(reported.isEmpty(), qPrintable(reported.join("\n")));                                                 \
    } while (false)

// The leaves of separate Q, K, V and O weights under a module (each stored as <module><leaf>.weight).
struct AttentionLeaves {
    QString q, k, v, o;
};
const AttentionLeaves projLeaves{"q_proj", "k_proj", "v_proj", "o_proj"};      // LLaMA's self_attn
const AttentionLeaves outProjLeaves{"q_proj", "k_proj", "v_proj", "out_proj"}; // BART's, CLIP's, OPT's
const AttentionLeaves t5Leaves{"q", "k", "v", "o"};                             // T5's SelfAttention, EncDecAttention

// Separate Q [qRows, hidden], K and V [kvRows, hidden] and O [hidden, qRows], made and stored in that order; with
// biases, each weight's bias (its rows) right after it.
void qkvo(FamilyCheckpoint &f, const QString &module, const AttentionLeaves &leaves, int l, const QString &block, int qRows, int kvRows,
          int hidden = H, bool biases = false)
{
    const auto add = [&](const QString &leaf, T type, int rows, int cols) {
        f.add(module + leaf + ".weight", f.matrix(id(l, type, block), rows, cols));
        if (biases)
            f.addVector(module + leaf + ".bias", rows);
    };
    add(leaves.q, T::Q, qRows, hidden);
    add(leaves.k, T::K, kvRows, hidden);
    add(leaves.v, T::V, kvRows, hidden);
    add(leaves.o, T::O, hidden, qRows);
}

// The parts of a fused attention tensor: Q [qRows, H], K and V [kvRows, H], made in that order.
QList<M> qkv(FamilyCheckpoint &f, int l, const QString &block = {}, int qRows = H, int kvRows = H)
{
    const M q = f.matrix(id(l, T::Q, block), qRows, H), k = f.matrix(id(l, T::K, block), kvRows, H),
            v = f.matrix(id(l, T::V, block), kvRows, H);
    return {q, k, v};
}

// An MLP without a gate: <module><up>.weight [ff, hidden] and <module><down>.weight [hidden, ff], in that order.
void plainMlp(FamilyCheckpoint &f, const QString &module, const QString &up, const QString &down, int l, const QString &block = {},
              int ff = FF, int hidden = H)
{
    f.add(module + up + ".weight", f.matrix(id(l, T::MlpUp, block), ff, hidden));
    f.add(module + down + ".weight", f.matrix(id(l, T::MlpDown, block), hidden, ff));
}

// The leaves of a gated MLP's weights under a module (each stored as <module><leaf>.weight).
struct MlpLeaves {
    QString gate, up, down;
};
const MlpLeaves projMlp{"gate_proj", "up_proj", "down_proj"}; // LLaMA's mlp
const MlpLeaves t5Mlp{"wi_0", "wi_1", "wo"};                  // T5's gated DenseReluDense
const MlpLeaves litGptMlp{"fc_1", "fc_2", "proj"};            // litgpt's LLaMAMLP
const MlpLeaves mixtralMlp{"w1", "w3", "w2"};                 // Mixtral's experts

// A gated MLP: gate and up [ff, H], down [H, ff], made and stored in that order.
void gatedMlp(FamilyCheckpoint &f, const QString &module, const MlpLeaves &leaves, int l, const QString &block = {},
              const QString &expert = {}, int ff = FF)
{
    f.add(module + leaves.gate + ".weight", f.matrix(id(l, T::MlpGate, block, expert), ff, H));
    f.add(module + leaves.up + ".weight", f.matrix(id(l, T::MlpUp, block, expert), ff, H));
    f.add(module + leaves.down + ".weight", f.matrix(id(l, T::MlpDown, block, expert), H, ff));
}

// MoE experts one tensor each: <module>experts.E.<gate|up|down>.weight, gate and up [inner, H], down [H, inner].
void expertsEach(FamilyCheckpoint &f, const QString &module, const MlpLeaves &leaves, int l, int experts, int inner,
                 const QString &block = {})
{
    for (int e = 0; e < experts; ++e) {
        const QString x = QString::number(e);
        gatedMlp(f, module + "experts." + x + ".", leaves, l, block, x, inner);
    }
}

// MoE experts stacked (as transformers v5 keeps them): gateUp [E, 2·inner, H], [gate; up] per expert, and down
// [E, H, inner]; made expert by expert (gate, up, down) as expertsEach makes them.
void expertsStacked(FamilyCheckpoint &f, const QString &gateUp, const QString &down, int l, int experts, int inner)
{
    QList<M> gateUps, downs;
    for (int e = 0; e < experts; ++e) {
        const QString x = QString::number(e);
        const M g = f.matrix(id(l, T::MlpGate, {}, x), inner, H), u = f.matrix(id(l, T::MlpUp, {}, x), inner, H);
        gateUps << stackRows({g, u});
        downs << f.matrix(id(l, T::MlpDown, {}, x), H, inner);
    }
    f.add3d(gateUp, gateUps);
    f.add3d(down, downs);
}

// MoE experts as the Hub stores them (expertsEach, <module>experts.E.{gate,up,down}_proj) or as transformers v5 does
// (expertsStacked, <module>experts.gate_up_proj and <module>experts.down_proj).
void moeExperts(FamilyCheckpoint &f, const QString &module, int l, int experts, int inner, bool stacked)
{
    if (stacked)
        expertsStacked(f, module + "experts.gate_up_proj", module + "experts.down_proj", l, experts, inner);
    else
        expertsEach(f, module, projMlp, l, experts, inner);
}

// Mamba-1's mixers: backbone.layers.N.mixer.in_proj rows [x; z] (x up, z the gate), out_proj down; x_proj, dt_proj,
// (with conv1d, the depthwise [inner, 1, 4] convolution) and A_log are not types.
void mambaMixers(FamilyCheckpoint &f, int inner, bool conv1d)
{
    for (int l = 0; l < LAYERS; ++l) {
        const QString p = QStringLiteral("backbone.layers.%1.mixer.").arg(l);
        f.add(p + "in_proj.weight", stackRows({f.matrix(id(l, T::MlpUp), inner, H), f.matrix(id(l, T::MlpGate), inner, H)}));
        f.add(p + "out_proj.weight", f.matrix(id(l, T::MlpDown), H, inner));
        f.add(p + "x_proj.weight", f.other(6, inner));
        f.add(p + "dt_proj.weight", f.other(inner, 2));
        if (conv1d)
            f.add3d(p + "conv1d.weight", QList<M>(inner, f.other(1, 4)));
        f.add(p + "A_log", f.other(inner, 4));
    }
}

// BERT's attention (BertSelfAttention, ViTSelfAttention): <self>.{query,key,value} and attention.output.dense.
AttentionLeaves bertLeaves(const QString &self) { return {self + ".query", self + ".key", self + ".value", "attention.output.dense"}; }

// A BERT encoder layer: H×H attention as bertLeaves, intermediate.dense (up) and output.dense (down).
void bertLayer(FamilyCheckpoint &f, const QString &p, const QString &self, int l)
{
    qkvo(f, p, bertLeaves(self), l, {}, H, H);
    plainMlp(f, p, "intermediate.dense", "output.dense", l);
}

// A CLIP encoder layer (CLIPEncoderLayer, SiglipEncoderLayer): self_attn.{q,k,v,out}_proj [hidden, hidden], mlp.fc1 / fc2.
void clipLayer(FamilyCheckpoint &f, const QString &p, int l, const QString &block, int hidden = H, int ff = FF, bool biases = false)
{
    qkvo(f, p + "self_attn.", outProjLeaves, l, block, hidden, hidden, hidden, biases);
    plainMlp(f, p + "mlp.", "fc1", "fc2", l, block, ff, hidden);
}

// BART's encoder and decoder (BART, Whisper, M2M100): model.{encoder,decoder}.layers.N.self_attn.{q,k,v,out}_proj, the
// decoder's encoder_attn beside each (block decoder-cross), fc1 / fc2.
void bartLayers(FamilyCheckpoint &f)
{
    for (const QString stack : {"encoder", "decoder"})
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.%1.layers.%2.").arg(stack).arg(l);
            for (const auto &[leaf, type] : {std::pair{"q_proj", T::Q}, {"k_proj", T::K}, {"v_proj", T::V}, {"out_proj", T::O}}) {
                f.add(p + "self_attn." + leaf + ".weight", f.matrix(id(l, type, stack), H, H));
                if (stack == "decoder")
                    f.add(p + "encoder_attn." + leaf + ".weight", f.matrix(id(l, type, "decoder-cross"), H, H));
            }
            plainMlp(f, p, "fc1", "fc2", l, stack);
        }
}

// LLaMA-style layers: self_attn.{q,k,v,o}_proj and mlp.{gate,up,down}_proj.
void llamaLayers(FamilyCheckpoint &f, const QString &prefix, int headDim = HD)
{
    for (int l = 0; l < LAYERS; ++l) {
        const QString p = QStringLiteral("%1layers.%2.").arg(prefix).arg(l);
        qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * headDim, KV * headDim);
        gatedMlp(f, p + "mlp.", projMlp, l);
        f.addVector(p + "input_layernorm.weight", H);
    }
}

} // namespace

class TestArchitectureFamilies : public QObject {
    Q_OBJECT
private slots:
    void llamaFamily_data()
    {
        QTest::addColumn<QString>("modelType");
        QTest::addColumn<QString>("prefix");
        for (const char *type : {"llama", "mistral", "qwen2", "gemma", "gemma2", "olmo", "olmo2", "stablelm", "cohere"})
            QTest::newRow(type) << type << "model.";
        // Wrappers in front: DDP, torch.compile, Lightning's model., PEFT.
        QTest::newRow("module.") << "llama" << "module.model.";
        QTest::newRow("_orig_mod.") << "llama" << "_orig_mod.model.";
        QTest::newRow("lightning model.model.") << "llama" << "model.model.";
        QTest::newRow("_orig_mod.module.model.model.") << "llama" << "_orig_mod.module.model.model.";
    }
    void llamaFamily()
    {
        QFETCH(QString, modelType);
        QFETCH(QString, prefix);
        FamilyCheckpoint f;
        // Gemma's head_dim is not hidden / heads; Cohere's q_norm/k_norm are 2-D [heads, head_dim].
        const int headDim = modelType.startsWith("gemma") ? 8 : HD;
        llamaLayers(f, prefix, headDim);
        f.add(prefix + "embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        if (modelType == "cohere")
            for (int l = 0; l < LAYERS; ++l) {
                f.add(QStringLiteral("%1layers.%2.self_attn.q_norm.weight").arg(prefix).arg(l), f.other(HEADS, HD));
                f.add(QStringLiteral("%1layers.%2.self_attn.k_norm.weight").arg(prefix).arg(l), f.other(KV, HD));
            }
        f.setConfig({{"model_type", modelType}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"head_dim", headDim}});
        VERIFY_CLEAN(f, f.analyse());
    }

    void metaLlama()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("layers.%1.").arg(l);
            qkvo(f, p + "attention.", {"wq", "wk", "wv", "wo"}, l, {}, H, KV * HD);
            gatedMlp(f, p + "feed_forward.", {"w1", "w3", "w2"}, l);
        }
        f.add("tok_embeddings.weight", f.other(64, H));
        f.add("output.weight", f.other(64, H));
        VERIFY_CLEAN(f, f.analyse());
    }

    // torchtune's own names (modules/attention.py MultiHeadAttention q_proj, k_proj, v_proj, output_proj;
    // modules/feed_forward.py FeedForward "self.w1 = gate_proj", "self.w2 = down_proj", "self.w3 =
    // up_proj"): typed by the family's rows, not guessed by the generic pass. Without w3 (CLIP's MLP in
    // torchtune) w1 is the one input projection: up.
    void torchtune()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("layers.%1.").arg(l);
            qkvo(f, p + "attn.", {"q_proj", "k_proj", "v_proj", "output_proj"}, l, {}, H, KV * HD);
            gatedMlp(f, p + "mlp.", {"w1", "w3", "w2"}, l);
            f.addVector(p + "sa_norm.scale", H);
            f.addVector(p + "mlp_norm.scale", H);
        }
        f.add("tok_embeddings.weight", f.other(64, H));
        f.addVector("norm.scale", H);
        f.add("output.weight", f.other(64, H));
        const RunAnalysis run = f.analyse();
        VERIFY_CLEAN(f, run);
        QVERIFY2(!run.notes.join('\n').contains("no family rule knows"), qPrintable(run.notes.join('\n')));

        FamilyCheckpoint clip;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("layers.%1.").arg(l);
            qkvo(clip, p + "attn.", {"q_proj", "k_proj", "v_proj", "output_proj"}, l, {}, H, H);
            plainMlp(clip, p + "mlp.", "w1", "w2", l);
        }
        clip.add("token_embedding.weight", clip.other(64, H));
        const RunAnalysis ungated = clip.analyse();
        VERIFY_CLEAN(clip, ungated);
        QVERIFY2(!ungated.notes.join('\n').contains("no family rule knows"), qPrintable(ungated.notes.join('\n')));
    }

    void gptJ()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            qkvo(f, p + "attn.", outProjLeaves, l, {}, H, H);
            plainMlp(f, p + "mlp.", "fc_in", "fc_out", l);
        }
        f.add("transformer.wte.weight", f.other(64, H));
        f.setConfig({{"model_type", "gptj"}, {"n_head", HEADS}, {"n_embd", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // query_key_value rows are [head][q|k|v][head_dim] (view(..., heads, 3·head_size), chunk(3)).
    void gptNeoX()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("gpt_neox.layers.%1.").arg(l);
            f.add(p + "attention.query_key_value.weight", interleaveRows(qkv(f, l), {HD, HD, HD}, HEADS));
            f.add(p + "attention.dense.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "mlp.", "dense_h_to_4h", "dense_4h_to_h", l);
        }
        f.add("gpt_neox.embed_in.weight", f.other(64, H));
        f.add("embed_out.weight", f.other(64, H));
        f.setConfig({{"model_type", "gpt_neox"}, {"num_attention_heads", HEADS}, {"hidden_size", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Without config.json the per-head split cannot be made: the fused tensor is reported, naming the key.
    void gptNeoXWithoutConfigIsReported()
    {
        FamilyCheckpoint f;
        f.add("gpt_neox.layers.0.attention.query_key_value.weight", f.other(3 * H, H));
        f.add("gpt_neox.layers.0.attention.dense.weight", f.matrix(id(0, T::O), H, H));
        const RunAnalysis run = f.analyse();
        const QStringList reported = verify(f, run);
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("query_key_value") && reported[0].contains("num_attention_heads"), qPrintable(reported[0]));
    }

    // Falcon: rows [kv][heads/kv + 2][head_dim] in all three forms; the config's flags say which.
    void falcon_data()
    {
        QTest::addColumn<int>("kv");
        QTest::addColumn<QJsonObject>("config");
        QTest::newRow("7B multi-query") << 1 << QJsonObject{{"model_type", "falcon"}, {"num_attention_heads", HEADS}, {"multi_query", true}};
        QTest::newRow("40B new_decoder_architecture")
            << KV << QJsonObject{{"model_type", "falcon"}, {"num_attention_heads", HEADS}, {"num_kv_heads", KV}, {"new_decoder_architecture", true}};
        QTest::newRow("RW 40B (RefinedWeb)") << KV << QJsonObject{{"model_type", "RefinedWeb"}, {"n_head", HEADS}, {"n_head_kv", KV}};
        QTest::newRow("RW non-multi-query (RefinedWebModel)")
            << HEADS << QJsonObject{{"model_type", "RefinedWebModel"}, {"n_head", HEADS}, {"multi_query", false}};
        QTest::newRow("RW 7B (RefinedWebModel)") << 1 << QJsonObject{{"model_type", "RefinedWebModel"}, {"n_head", HEADS}, {"multi_query", true}};
    }
    void falcon()
    {
        QFETCH(int, kv);
        QFETCH(QJsonObject, config);
        FamilyCheckpoint f;
        const int perGroup = HEADS / kv;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            f.add(p + "self_attention.query_key_value.weight", interleaveRows(qkv(f, l, {}, H, kv * HD), {perGroup * HD, HD, HD}, kv));
            f.add(p + "self_attention.dense.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "mlp.", "dense_h_to_4h", "dense_4h_to_h", l, {}, 4 * H);
        }
        f.add("transformer.word_embeddings.weight", f.other(64, H));
        f.setConfig(config);
        VERIFY_CLEAN(f, f.analyse());
    }

    // Bloom: the official checkpoints have no "transformer." prefix; rows [head][q|k|v][head_dim].
    void bloom()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("h.%1.").arg(l);
            f.add(p + "self_attention.query_key_value.weight", interleaveRows(qkv(f, l), {HD, HD, HD}, HEADS));
            f.add(p + "self_attention.dense.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "mlp.", "dense_h_to_4h", "dense_4h_to_h", l, {}, 4 * H);
        }
        f.add("word_embeddings.weight", f.other(64, H));
        f.setConfig({{"model_type", "bloom"}, {"n_head", HEADS}, {"hidden_size", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    void opt_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::newRow("OPTForCausalLM") << "model.decoder.";
        QTest::newRow("converted (no model.)") << "decoder.";
    }
    void opt()
    {
        QFETCH(QString, prefix);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("%1layers.%2.").arg(prefix).arg(l);
            qkvo(f, p + "self_attn.", outProjLeaves, l, {}, H, H);
            plainMlp(f, p, "fc1", "fc2", l);
        }
        f.add(prefix + "embed_tokens.weight", f.other(64, 8));
        f.add(prefix + "embed_positions.weight", f.other(34, H));
        f.add(prefix + "project_in.weight", f.other(H, 8));
        f.add(prefix + "project_out.weight", f.other(8, H));
        f.setConfig({{"model_type", "opt"}, {"num_attention_heads", HEADS}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // GPT-BigCode: nn.Linear c_attn; multi-query [Q(C) | K(hd) | V(hd)], or [head][q|k|v] rows.
    void gptBigCode_data()
    {
        QTest::addColumn<bool>("multiQuery");
        QTest::addColumn<bool>("withConfig");
        QTest::newRow("multi_query") << true << true;
        QTest::newRow("multi_query, no config.json") << true << false;
        QTest::newRow("multi_query=False") << false << true;
    }
    void gptBigCode()
    {
        QFETCH(bool, multiQuery);
        QFETCH(bool, withConfig);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            const int kvRows = multiQuery ? HD : H;
            const QList<M> parts = qkv(f, l, {}, H, kvRows);
            f.add(p + "attn.c_attn.weight", multiQuery ? stackRows(parts) : interleaveRows(parts, {HD, HD, HD}, HEADS));
            f.add(p + "attn.c_proj.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "mlp.", "c_fc", "c_proj", l, {}, 4 * H);
        }
        f.add("transformer.wte.weight", f.other(64, H));
        f.add("transformer.wpe.weight", f.other(32, H));
        if (withConfig)
            f.setConfig({{"model_type", "gpt_bigcode"}, {"n_head", HEADS}, {"n_embd", H}, {"multi_query", multiQuery}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // HF GPT-2 is Conv1D: c_attn [C, 3C] holds Q|K|V as columns.
    void gpt2()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("h.%1.").arg(l);
            M qkv(H, 3 * H);
            qkv << f.matrix(id(l, T::Q), H, H), f.matrix(id(l, T::K), H, H), f.matrix(id(l, T::V), H, H);
            f.add(p + "attn.c_attn.weight", qkv);
            f.add(p + "attn.c_proj.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.c_fc.weight", f.matrix(id(l, T::MlpUp), H, 4 * H));
            f.add(p + "mlp.c_proj.weight", f.matrix(id(l, T::MlpDown), 4 * H, H));
        }
        f.add("wte.weight", f.other(64, H));
        f.setConfig({{"model_type", "gpt2"}, {"n_head", HEADS}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // A [3C, C] c_attn with no config (an HDF5 or NumPy export of nanoGPT, a state_dict saved without
    // model_args): nanoGPT's [Q; K; V], nearly always what it is, said once per run with how to say
    // otherwise. GPT-BigCode's per-head split stays config-driven (gptBigCode).
    void nanoGptWithoutConfig()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            f.add(p + "attn.c_attn.weight", stackRows(qkv(f, l)));
            f.add(p + "attn.c_proj.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "mlp.", "c_fc", "c_proj", l, {}, 4 * H);
        }
        f.add("transformer.wte.weight", f.other(64, H));
        const RunAnalysis run = f.analyse();
        VERIFY_CLEAN(f, run);
        QCOMPARE(run.notes.filter("read as nanoGPT's [Q; K; V]").size(), 1); // once per run, not per tensor
        QVERIFY2(run.notes.filter("read as nanoGPT's").first().contains("model_type gpt_bigcode"), qPrintable(run.notes.join('\n')));
    }

    // A torch.nn.MultiheadAttention saved on its own: in_proj_weight [3E, E] rows Q|K|V and out_proj,
    // no layer number: layer 0, not "no matrices recognised".
    void bareMultiheadAttention()
    {
        FamilyCheckpoint f;
        f.add("in_proj_weight", stackRows(qkv(f, 0)));
        f.addVector("in_proj_bias", 3 * H);
        f.add("out_proj.weight", f.matrix(id(0, T::O), H, H));
        f.addVector("out_proj.bias", H);
        VERIFY_CLEAN(f, f.analyse());
    }

    // LongT5 (modeling_longt5.py): the encoder's LongT5LayerLocalSelfAttention holds
    // `self.LocalSelfAttention = LongT5LocalAttention(...)`, the transient-global one
    // `self.TransientGlobalSelfAttention = LongT5TransientGlobalAttention(...)`, each with
    // q, k, v, o nn.Linear(d_model, inner_dim) and, in layer 0, relative_attention_bias (and
    // global_relative_attention_bias) nn.Embedding(buckets, heads); the decoder is T5's. These 8
    // encoder matrices were dropped with exit 0 and nothing said.
    void longT5_data()
    {
        QTest::addColumn<QString>("attention");
        QTest::newRow("transient-global") << "TransientGlobalSelfAttention";
        QTest::newRow("local") << "LocalSelfAttention";
    }
    void longT5()
    {
        QFETCH(QString, attention);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString e = QStringLiteral("encoder.block.%1.layer.").arg(l);
            qkvo(f, e + "0." + attention + ".", t5Leaves, l, "encoder", H, H);
            if (l == 0) {
                f.add(e + "0." + attention + ".relative_attention_bias.weight", f.other(32, HEADS));
                if (attention.startsWith("Transient"))
                    f.add(e + "0." + attention + ".global_relative_attention_bias.weight", f.other(32, HEADS));
            }
            gatedMlp(f, e + "1.DenseReluDense.", t5Mlp, l, "encoder");
            const QString d = QStringLiteral("decoder.block.%1.layer.").arg(l);
            qkvo(f, d + "0.SelfAttention.", t5Leaves, l, "decoder", H, H);
            qkvo(f, d + "1.EncDecAttention.", t5Leaves, l, "decoder-cross", H, H);
            gatedMlp(f, d + "2.DenseReluDense.", t5Mlp, l, "decoder");
        }
        f.add("shared.weight", f.other(64, H));
        f.setConfig({{"model_type", "longt5"}, {"encoder_attention_type", attention.startsWith("Local") ? "local" : "transient-global"}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // No family rule: a weight inside a numbered layer whose own module name says what it is is typed
    // by that name, said once per run; a fused name is never split; what nothing explains is
    // reported; known non-matrices (norms, embeddings, routers, position tables) are only listed.
    void genericPass()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("net.stack.%1.").arg(l);
            qkvo(f, p + "attention.", {"query", "key", "value", "dense"}, l, {}, H, H);
            gatedMlp(f, p + "ffn.", {"w1", "w3", "w2"}, l);
            f.add(p + "ffn.router.weight", f.other(4, H));
            f.add(p + "ffn.shared_experts.fc1.weight", f.matrix(id(l, T::MlpUp, {}, "shared"), FF, H));
            f.add(p + "attention.rel_pos_table.weight", f.other(15, HEADS));
            f.add(p + "attention.qk_norm.weight", f.other(HEADS, HD));
        }
        f.add("net.stack.0.mixer.qkv.weight", f.other(3 * H, H));     // fused: never split by a guess
        f.add("net.stack.1.mixer.adapter.weight", f.other(H, H));      // nothing says what it is
        f.add("net.embeddings.weight", f.other(64, H));
        f.add("net.head.weight", f.other(64, H));
        f.setConfig({{"model_type", "mystery"}});
        const RunAnalysis run = f.analyse();
        QStringList reported = verify(f, run);
        reported.sort();
        QCOMPARE(reported.size(), 2);
        QVERIFY2(reported[0].startsWith("net.stack.0.mixer.qkv.weight: a fused tensor (qkv)") && reported[0].contains("never guessed"),
                 qPrintable(reported[0]));
        QVERIFY2(reported[1].startsWith("net.stack.1.mixer.adapter.weight: inside layer 1, but neither a rule nor its name says"),
                 qPrintable(reported[1]));
        const QStringList notes = run.notes.filter("typed from their names alone");
        QCOMPARE(notes.size(), 1);
        QVERIFY2(notes.first().startsWith("16 tensors no family rule knows"), qPrintable(notes.first()));
        // A name that says nothing of its type, or says it twice over (a stage and a block), is not typed.
        const TensorNameRules rules = TensorNameRules::builtIn();
        const CheckpointLayout layout = CheckpointLayout::plan({{"model.stages.0.blocks.1.attn.q.weight", {H, H}, "float32"},
                                                                {"model.blocks.0.mlp.lin.weight", {H, H}, "float32"},
                                                                {"model.blocks.0.attn.q.weight", {HEADS, H, H}, "float32"},
                                                                {"model.blocks.0.ssm_mixer.out_proj.weight", {H, 2 * H}, "float32"},
                                                                {"model.blocks.0.attn.mask", {H, H}, "int64"}},
                                                               ModelConfig(), rules);
        QVERIFY(layout.typed.isEmpty());
        QCOMPARE(layout.reported().size(), 4); // a state-space mixer's out_proj is no attention output
        QCOMPARE(layout.leftOut.size(), 5);
        QVERIFY(!layout.leftOut.last().reported);
    }

    // MPT: Wqkv is [Q; K; V] (chunk(3), or llm-foundry's split with kv_n_heads under GQA).
    void mpt_data()
    {
        QTest::addColumn<int>("kv");
        QTest::newRow("multi-head") << HEADS;
        QTest::newRow("grouped (llm-foundry kv_n_heads)") << KV;
    }
    void mpt()
    {
        QFETCH(int, kv);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.blocks.%1.").arg(l);
            f.add(p + "attn.Wqkv.weight", stackRows(qkv(f, l, {}, H, kv * HD)));
            f.add(p + "attn.out_proj.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "ffn.", "up_proj", "down_proj", l, {}, 4 * H);
        }
        f.add("transformer.wte.weight", f.other(64, H));
        QJsonObject attn{{"attn_type", kv == HEADS ? "multihead_attention" : "grouped_query_attention"}};
        if (kv != HEADS)
            attn.insert("kv_n_heads", kv);
        f.setConfig({{"model_type", "mpt"}, {"n_heads", HEADS}, {"d_model", H}, {"attn_config", attn}});
        VERIFY_CLEAN(f, f.analyse());
    }

    void phi2()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", {"q_proj", "k_proj", "v_proj", "dense"}, l, {}, H, H);
            plainMlp(f, p + "mlp.", "fc1", "fc2", l);
        }
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "phi"}, {"num_attention_heads", HEADS}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Phi-2 as first published (phi-msft): mixer.Wqkv rows [Q; K; V]; unused mlp.fc_in/fc_out left out.
    void phi2Original()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            f.add(p + "mixer.Wqkv.weight", stackRows(qkv(f, l)));
            f.add(p + "mixer.out_proj.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "mlp.", "fc1", "fc2", l);
            f.add(p + "mlp.fc_in.weight", f.other(FF, H));
        }
        f.add("transformer.embd.wte.weight", f.other(64, H));
        f.add("lm_head.linear.weight", f.other(64, H));
        f.setConfig({{"model_type", "phi-msft"}, {"n_head", HEADS}, {"n_embd", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Phi-3: qkv_proj [Q | K(kv·hd) | V(kv·hd)] and gate_up_proj [gate; up] (chunk(2), act on the first).
    void phi3_data()
    {
        QTest::addColumn<bool>("withConfig");
        QTest::newRow("config.json") << true;
        QTest::newRow("no config.json: Q is the hidden size") << false;
    }
    void phi3()
    {
        QFETCH(bool, withConfig);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            f.add(p + "self_attn.qkv_proj.weight", stackRows(qkv(f, l, {}, H, KV * HD)));
            f.add(p + "self_attn.o_proj.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.gate_up_proj.weight", stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)}));
            f.add(p + "mlp.down_proj.weight", f.matrix(id(l, T::MlpDown), H, FF));
        }
        if (withConfig)
            f.setConfig({{"model_type", "phi3"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // OLMo v1 (hf_olmo): att_proj [Q; K; V] (fused_dims), ff_proj [up; gate] (SwiGLU: x, gate = chunk(2));
    // the top-level transformer.ff_out is the LM head.
    void olmoV1()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.transformer.blocks.%1.").arg(l);
            f.add(p + "att_proj.weight", stackRows(qkv(f, l, {}, H, KV * HD)));
            f.add(p + "attn_out.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "ff_proj.weight", stackRows({f.matrix(id(l, T::MlpUp), FF, H), f.matrix(id(l, T::MlpGate), FF, H)}));
            f.add(p + "ff_out.weight", f.matrix(id(l, T::MlpDown), H, FF));
        }
        f.add("model.transformer.wte.weight", f.other(64, H));
        f.add("model.transformer.ff_out.weight", f.other(64, H));
        f.setConfig({{"model_type", "hf_olmo"}, {"n_heads", HEADS}, {"n_kv_heads", KV}, {"d_model", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Mixtral: block_sparse_moe.experts.E.{w1 gate, w3 up, w2 down}; the router is not a type.
    void mixtral()
    {
        FamilyCheckpoint moe;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            moe.add(p + "self_attn.q_proj.weight", moe.matrix(id(l, T::Q), H, H));
            moe.add(p + "self_attn.o_proj.weight", moe.matrix(id(l, T::O), H, H));
            expertsEach(moe, p + "block_sparse_moe.", mixtralMlp, l, 3, FF);
            moe.add(p + "block_sparse_moe.gate.weight", moe.other(3, H));
        }
        moe.setConfig({{"model_type", "mixtral"}, {"num_attention_heads", HEADS}, {"num_local_experts", 3}});
        VERIFY_CLEAN(moe, moe.analyse());
    }

    // Qwen2-MoE: experts, one shared expert with its [1, d] gate, the router, and dense layers (mlp_only_layers).
    void qwen2Moe()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            f.add(p + "self_attn.q_proj.weight", f.matrix(id(l, T::Q), H, H));
            if (l == 0) { // mlp_only_layers: [0]
                gatedMlp(f, p + "mlp.", projMlp, l);
                continue;
            }
            expertsEach(f, p + "mlp.", projMlp, l, 4, 8);
            gatedMlp(f, p + "mlp.shared_expert.", projMlp, l, {}, "shared");
            f.add(p + "mlp.shared_expert_gate.weight", f.other(1, H));
            f.add(p + "mlp.gate.weight", f.other(4, H));
        }
        f.setConfig({{"model_type", "qwen2_moe"}, {"num_attention_heads", HEADS}, {"num_experts", 4}, {"mlp_only_layers", QJsonArray{0}}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // transformers v5 keeps experts stacked: gate_up_proj [E, 2I, H] ([gate; up] per expert), down_proj [E, H, I].
    void fusedExperts()
    {
        FamilyCheckpoint f;
        const int experts = 3, inner = 8;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            f.add(p + "self_attn.q_proj.weight", f.matrix(id(l, T::Q), H, H));
            expertsStacked(f, p + "mlp.experts.gate_up_proj", p + "mlp.experts.down_proj", l, experts, inner);
            f.add(p + "mlp.gate.weight", f.other(experts, H));
        }
        f.setConfig({{"model_type", "mixtral"}, {"num_attention_heads", HEADS}, {"hidden_size", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // DeepSeek-V2/V3 MLA: q_a (block latent), q_b; kv_a = [latent | rope key]; kv_b per head [k_nope | v];
    // a dense first layer, routed and shared experts, the router, and V3's multi-token-prediction layer.
    void deepSeek()
    {
        FamilyCheckpoint f;
        const int qLora = 12, kvLora = 8, nope = 4, rope = 2, vDim = 4, inner = 8;
        for (int l = 0; l <= LAYERS; ++l) { // layer LAYERS is the MTP module
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            const QString mtp = l == LAYERS ? QStringLiteral("mtp") : QString();
            auto block = [&](const QString &sub) { return mtp.isEmpty() ? sub : sub.isEmpty() ? mtp : mtp + "-" + sub; };
            f.add(p + "self_attn.q_a_proj.weight", f.matrix(id(l, T::Q, block("latent")), qLora, H));
            f.add(p + "self_attn.q_b_proj.weight", f.matrix(id(l, T::Q, block({})), HEADS * (nope + rope), qLora));
            f.add(p + "self_attn.kv_a_proj_with_mqa.weight",
                  stackRows({f.matrix(id(l, T::K, block("latent")), kvLora, H), f.matrix(id(l, T::K, block("rope")), rope, H)}));
            const M kNope = f.matrix(id(l, T::K, block({})), HEADS * nope, kvLora), v = f.matrix(id(l, T::V, block({})), HEADS * vDim, kvLora);
            f.add(p + "self_attn.kv_b_proj.weight", interleaveRows({kNope, v}, {nope, vDim}, HEADS));
            f.add(p + "self_attn.o_proj.weight", f.matrix(id(l, T::O, block({})), H, HEADS * vDim));
            f.addVector(p + "self_attn.kv_a_layernorm.weight", kvLora);
            if (l == 0) { // first_k_dense_replace = 1
                gatedMlp(f, p + "mlp.", projMlp, l);
                continue;
            }
            expertsEach(f, p + "mlp.", projMlp, l, 2, inner, block({}));
            gatedMlp(f, p + "mlp.shared_experts.", projMlp, l, block({}), "shared", inner);
            f.add(p + "mlp.gate.weight", f.other(2, H));
        }
        f.add(QStringLiteral("model.layers.%1.eh_proj.weight").arg(LAYERS), f.other(H, 2 * H));
        f.add(QStringLiteral("model.layers.%1.shared_head.head.weight").arg(LAYERS), f.other(64, H));
        f.setConfig({{"model_type", "deepseek_v3"}, {"num_attention_heads", HEADS}, {"num_hidden_layers", LAYERS}, {"q_lora_rank", qLora},
                     {"kv_lora_rank", kvLora}, {"qk_nope_head_dim", nope}, {"qk_rope_head_dim", rope}, {"v_head_dim", vDim},
                     {"n_routed_experts", 2}, {"n_shared_experts", 1}, {"first_k_dense_replace", 1}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // T5 v1.1: encoder and decoder stacks, decoder cross-attention (EncDecAttention) kept apart,
    // gated MLP wi_0 (gate) / wi_1 (up); the relative position bias is not a type.
    void t5()
    {
        FamilyCheckpoint f;
        const int inner = 12; // num_heads · d_kv need not be d_model
        for (const QString stack : {"encoder", "decoder"})
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("%1.block.%2.layer.").arg(stack).arg(l);
                qkvo(f, p + "0.SelfAttention.", t5Leaves, l, stack, inner, inner);
                if (l == 0)
                    f.add(p + "0.SelfAttention.relative_attention_bias.weight", f.other(32, HEADS));
                const QString mlp = stack == "encoder" ? "1" : "2";
                if (stack == "decoder")
                    qkvo(f, p + "1.EncDecAttention.", t5Leaves, l, "decoder-cross", inner, inner);
                gatedMlp(f, p + mlp + ".DenseReluDense.", t5Mlp, l, stack);
            }
        f.add("shared.weight", f.other(64, H));
        f.setConfig({{"model_type", "t5"}, {"num_heads", 3}, {"d_kv", 4}, {"d_model", H}, {"feed_forward_proj", "gated-gelu"}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // BART and Whisper: model.encoder / model.decoder layers, encoder_attn is the decoder's cross-attention.
    void bartWhisper_data()
    {
        QTest::addColumn<QString>("modelType");
        QTest::newRow("bart") << "bart";
        QTest::newRow("whisper") << "whisper";
    }
    void bartWhisper()
    {
        QFETCH(QString, modelType);
        FamilyCheckpoint f;
        bartLayers(f);
        f.add("model.shared.weight", f.other(64, H));
        f.add("final_logits_bias", f.other(1, 64));
        f.setConfig({{"model_type", modelType}, {"encoder_attention_heads", HEADS}, {"decoder_attention_heads", HEADS}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // BERT / RoBERTa / ViT (HF): one stack, so no block; attention.output.dense is O, output.dense MLP↓.
    void bertRobertaVit_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("attention");
        QTest::newRow("bert") << "bert." << "attention.self";
        QTest::newRow("roberta") << "roberta." << "attention.self";
        QTest::newRow("BertModel (no prefix)") << "" << "attention.self";
        QTest::newRow("vit") << "vit." << "attention.attention";
    }
    void bertRobertaVit()
    {
        QFETCH(QString, prefix);
        QFETCH(QString, attention);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("%1encoder.layer.%2.").arg(prefix).arg(l);
            bertLayer(f, p, attention, l);
        }
        f.add(prefix + "embeddings.word_embeddings.weight", f.other(64, H));
        f.add(prefix + "pooler.dense.weight", f.other(H, H));
        f.setConfig({{"num_attention_heads", HEADS}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // timm ViT: attn.qkv [Q; K; V] (reshape(B, N, 3, heads, hd)); mlp.fc1 one up projection, or
    // SwiGLUPacked's [gate; up] when fc2 takes half of it; SwiGLU's separate fc1_g / fc1_x.
    void timmVit_data()
    {
        QTest::addColumn<QString>("mlp");
        QTest::newRow("Mlp") << "plain";
        QTest::newRow("SwiGLUPacked") << "packed";
        QTest::newRow("SwiGLU") << "swiglu";
    }
    void timmVit()
    {
        QFETCH(QString, mlp);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("blocks.%1.").arg(l);
            f.add(p + "attn.qkv.weight", stackRows(qkv(f, l)));
            f.add(p + "attn.proj.weight", f.matrix(id(l, T::O), H, H));
            if (mlp == "plain") {
                f.add(p + "mlp.fc1.weight", f.matrix(id(l, T::MlpUp), FF, H));
            } else if (mlp == "packed") {
                f.add(p + "mlp.fc1.weight", stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)}));
            } else {
                f.add(p + "mlp.fc1_g.weight", f.matrix(id(l, T::MlpGate), FF, H));
                f.add(p + "mlp.fc1_x.weight", f.matrix(id(l, T::MlpUp), FF, H));
            }
            f.add(p + "mlp.fc2.weight", f.matrix(id(l, T::MlpDown), H, FF));
        }
        f.add("head.weight", f.other(10, H));
        VERIFY_CLEAN(f, f.analyse());
    }

    // CLIP (HF): text_model and vision_model towers are blocks "text" and "vision".
    void clip()
    {
        FamilyCheckpoint f;
        for (const auto &[tower, block] : {std::pair{"text_model", "text"}, {"vision_model", "vision"}})
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("%1.encoder.layers.%2.").arg(tower).arg(l);
                clipLayer(f, p, l, block);
            }
        f.add("text_model.embeddings.position_embedding.weight", f.other(8, H));
        f.add("visual_projection.weight", f.other(8, H));
        f.setConfig({{"model_type", "clip"}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // OpenAI CLIP / open_clip: transformer.resblocks (text) and visual.transformer.resblocks (vision),
    // nn.MultiheadAttention's in_proj_weight [3E, E] rows Q|K|V.
    void openAiClip()
    {
        FamilyCheckpoint f;
        for (const auto &[prefix, block] : {std::pair{"transformer", "text"}, {"visual.transformer", "vision"}})
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("%1.resblocks.%2.").arg(prefix).arg(l);
                f.add(p + "attn.in_proj_weight", stackRows(qkv(f, l, block)));
                f.add(p + "attn.out_proj.weight", f.matrix(id(l, T::O, block), H, H));
                plainMlp(f, p + "mlp.", "c_fc", "c_proj", l, block, 4 * H);
            }
        f.add("text_projection", f.other(H, 8));
        f.add("positional_embedding", f.other(8, H));
        VERIFY_CLEAN(f, f.analyse());
    }

    // torch.nn.Transformer: encoder.layers / decoder.layers, multihead_attn the cross-attention; and a
    // standalone TransformerDecoder (one stack: its cross-attention is block "cross").
    void torchTransformer_data()
    {
        QTest::addColumn<bool>("whole");
        QTest::newRow("nn.Transformer") << true;
        QTest::newRow("nn.TransformerDecoder") << false;
    }
    void torchTransformer()
    {
        QFETCH(bool, whole);
        FamilyCheckpoint f;
        const QStringList stacks = whole ? QStringList{"encoder", "decoder"} : QStringList{""};
        for (const QString &stack : stacks)
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = stack.isEmpty() ? QStringLiteral("layers.%1.").arg(l) : QStringLiteral("%1.layers.%2.").arg(stack).arg(l);
                f.add(p + "self_attn.in_proj_weight", stackRows(qkv(f, l, stack)));
                f.add(p + "self_attn.out_proj.weight", f.matrix(id(l, T::O, stack), H, H));
                if (stack != "encoder") {
                    const QString cross = stack.isEmpty() ? "cross" : stack + "-cross";
                    f.add(p + "multihead_attn.in_proj_weight", stackRows(qkv(f, l, cross)));
                    f.add(p + "multihead_attn.out_proj.weight", f.matrix(id(l, T::O, cross), H, H));
                }
                plainMlp(f, p, "linear1", "linear2", l, stack);
            }
        VERIFY_CLEAN(f, f.analyse());
    }

    // Mamba: in_proj rows [x; z] (chunk(2)): x the up projection, z the gate; out_proj down;
    // x_proj and dt_proj are scan parameters, not types.
    void mamba()
    {
        FamilyCheckpoint f;
        const int inner = 2 * H;
        mambaMixers(f, inner, false);
        f.add("backbone.embeddings.weight", f.other(64, H));
        f.setConfig({{"model_type", "mamba"}, {"hidden_size", H}, {"intermediate_size", inner}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // @tests-decoders-1
    // #26, decoders-1 (Qwen3, Qwen3-MoE, Gemma 3, Llama 4, GPT-OSS, OLMoE, Granite, GraniteMoE). Names, shapes and
    // layouts from huggingface/transformers src/transformers/models/<m>/modeling_<m>.py (quoted per test).

    // Qwen3 (modeling_qwen3.py): q_proj nn.Linear(hidden, heads·head_dim), head_dim from the config (not
    // hidden/heads); "self.q_norm = Qwen3RMSNorm(self.head_dim, …)" is 1-D; Qwen3MLP gate/up/down.
    void qwen3()
    {
        FamilyCheckpoint f;
        const int headDim = 8; // Qwen3-8B: hidden 4096, 32 heads, head_dim 128
        llamaLayers(f, "model.", headDim);
        for (int l = 0; l < LAYERS; ++l) {
            f.addVector(QStringLiteral("model.layers.%1.self_attn.q_norm.weight").arg(l), headDim);
            f.addVector(QStringLiteral("model.layers.%1.self_attn.k_norm.weight").arg(l), headDim);
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "qwen3"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"head_dim", headDim},
                     {"hidden_size", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Qwen3-MoE (modeling_qwen3_moe.py): "self.gate = nn.Linear(config.hidden_size, config.num_experts, bias=False)"
    // (the router), "self.experts = nn.ModuleList([Qwen3MoeMLP(config, intermediate_size=config.moe_intermediate_size)
    // …])" on the Hub; no shared expert; layers in mlp_only_layers are one Qwen3MoeMLP. transformers v5 stacks the
    // experts (conversion_mapping.py: mapping["qwen3_moe"] = qwen2_moe's: "mlp.experts.*.gate_proj.weight",
    // "mlp.experts.*.up_proj.weight" → "mlp.experts.gate_up_proj" by MergeModulelist(dim=0), Concatenate(dim=1);
    // down_proj by MergeModulelist(dim=0)), read back as "gate, up = F.linear(x, self.gate_up_proj[e]).chunk(2, dim=-1)".
    void qwen3Moe_data()
    {
        QTest::addColumn<bool>("stacked");
        QTest::newRow("Hub: one tensor per expert") << false;
        QTest::newRow("transformers v5: stacked experts") << true;
    }
    void qwen3Moe()
    {
        QFETCH(bool, stacked);
        FamilyCheckpoint f;
        const int experts = 4, inner = 8, headDim = 8;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * headDim, KV * headDim);
            f.addVector(p + "self_attn.q_norm.weight", headDim);
            f.addVector(p + "self_attn.k_norm.weight", headDim);
            if (l == 0) { // mlp_only_layers: [0]
                gatedMlp(f, p + "mlp.", projMlp, l);
                continue;
            }
            moeExperts(f, p + "mlp.", l, experts, inner, stacked);
            f.add(p + "mlp.gate.weight", f.other(experts, H));
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "qwen3_moe"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"head_dim", headDim},
                     {"hidden_size", H}, {"num_experts", experts}, {"moe_intermediate_size", inner}, {"mlp_only_layers", QJsonArray{0}}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Gemma 3 (modeling_gemma3.py). Text: Gemma3Attention q/k/v/o_proj with head_dim from the config and 1-D
    // q_norm/k_norm; Gemma3MLP gate/up/down; four 1-D norms per layer. Gemma3ForConditionalGeneration as on the Hub
    // ("_checkpoint_conversion_mapping = {"^language_model.model": "model.language_model", "^vision_tower":
    // "model.vision_tower", "^multi_modal_projector": "model.multi_modal_projector", "^language_model.lm_head":
    // "lm_head"}": the Hub's names are the keys, what transformers ≥ 4.52 saves the values). "self.vision_tower =
    // AutoModel.from_config(config=config.vision_config)" is SigLIP's vision model: vision_model.encoder.layers.N.
    // self_attn.{q,k,v,out}_proj, mlp.fc1/fc2 (SiglipMLP). Gemma3MultiModalProjector's mm_input_projection_weight
    // [vision hidden, text hidden] is no layer's matrix.
    void gemma3_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("vision");
        QTest::addColumn<QString>("projector");
        QTest::newRow("Gemma3ForCausalLM (text)") << "model." << "" << "";
        QTest::newRow("Gemma3ForConditionalGeneration, Hub names")
            << "language_model.model." << "vision_tower.vision_model." << "multi_modal_projector.";
        QTest::newRow("Gemma3ForConditionalGeneration, saved by transformers >= 4.52")
            << "model.language_model." << "model.vision_tower.vision_model." << "model.multi_modal_projector.";
    }
    void gemma3()
    {
        QFETCH(QString, text);
        QFETCH(QString, vision);
        QFETCH(QString, projector);
        FamilyCheckpoint f;
        const int headDim = 8, visionHidden = 12, visionFf = 20;
        const QString textBlock = vision.isEmpty() ? QString() : QStringLiteral("text");
        // The vision stack's prefix names "vision" and "encoder", the text stack's "language": blocks text and vision
        // ("encoder" names a block only beside a decoder).
        const QString visionBlock = QStringLiteral("vision");
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("%1layers.%2.").arg(text).arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, textBlock, HEADS * headDim, KV * headDim);
            f.addVector(p + "self_attn.q_norm.weight", headDim);
            f.addVector(p + "self_attn.k_norm.weight", headDim);
            gatedMlp(f, p + "mlp.", projMlp, l, textBlock);
            for (const char *norm : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"})
                f.addVector(p + norm + ".weight", H);
        }
        f.add(text + "embed_tokens.weight", f.other(64, H));
        if (!vision.isEmpty()) {
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("%1encoder.layers.%2.").arg(vision).arg(l);
                clipLayer(f, p, l, visionBlock, visionHidden, visionFf, true); // with biases
                f.addVector(p + "layer_norm1.weight", visionHidden);
                f.addVector(p + "layer_norm2.weight", visionHidden);
            }
            f.add(vision + "embeddings.position_embedding.weight", f.other(16, visionHidden));
            f.addVector(vision + "post_layernorm.weight", visionHidden);
            f.add(projector + "mm_input_projection_weight", f.other(visionHidden, H));
            f.addVector(projector + "mm_soft_emb_norm.weight", visionHidden);
            f.add(text.startsWith("model.") ? "lm_head.weight" : "language_model.lm_head.weight", f.other(64, H));
            f.setConfig({{"model_type", "gemma3"}, {"architectures", QJsonArray{"Gemma3ForConditionalGeneration"}},
                         {"text_config", QJsonObject{{"model_type", "gemma3_text"}, {"num_attention_heads", HEADS},
                                                     {"num_key_value_heads", KV}, {"head_dim", headDim}, {"hidden_size", H}}},
                         {"vision_config", QJsonObject{{"model_type", "siglip_vision_model"}, {"hidden_size", visionHidden}}}});
        } else {
            f.setConfig({{"model_type", "gemma3_text"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"head_dim", headDim},
                         {"hidden_size", H}});
        }
        VERIFY_CLEAN(f, f.analyse());
    }

    // Llama 4 text (modeling_llama4.py). Llama4TextExperts: "self.gate_up_proj = nn.Parameter(torch.zeros(
    // self.num_experts, self.hidden_size, 2 * self.expert_dim))", "self.down_proj = nn.Parameter(torch.empty((
    // self.num_experts, self.expert_dim, self.hidden_size)))"; forward "gate_up = torch.bmm(hidden_states,
    // self.gate_up_proj)", "gate, up = gate_up.chunk(2, dim=-1)", "torch.bmm((up * self.act_fn(gate)), self.down_proj)":
    // stored [E, in, out] (x @ W), the gate the first half of the columns. Llama4TextMoe: "self.experts",
    // "self.router = Llama4Router(config)" (nn.Linear(hidden, experts)), "self.shared_expert = Llama4TextMLP(config)".
    // Llama4TextDecoderLayer: "if self.is_moe_layer: self.feed_forward = Llama4TextMoe(config) else: self.feed_forward =
    // Llama4TextMLP(config, intermediate_size=config.intermediate_size_mlp)". The Hub's Llama4ForConditionalGeneration
    // (convert_llama4_weights_to_hf.py: "language_model.model.layers.\1.feed_forward.experts.gate_up_proj" =
    // torch.cat((gate_proj, up_proj), dim=-1)); its vision encoder "vision_model.model.layers.N.self_attn.{q,k,v,o}_proj",
    // "mlp.fc1/fc2" (Llama4VisionEncoderLayer). Stored orientation is kept: an expert's gate is [hidden, I] as stored.
    void llama4_data()
    {
        QTest::addColumn<bool>("multimodal");
        QTest::addColumn<bool>("perExpert");
        QTest::addColumn<bool>("withConfig");
        QTest::newRow("Llama4ForCausalLM (text)") << false << false << true;
        QTest::newRow("Llama4ForConditionalGeneration, Hub names") << true << false << true;
        QTest::newRow("no config.json: down_proj proves the orientation") << false << false << false;
        // convert_llama4_weights_to_hf.py with OFFLINE_QUANT_COMPATIBLE: "expert_key = new_key.replace("experts.",
        // f"experts.{i}.")", "state_dict[expert_key] = expert.transpose(0, 1).contiguous()  # [OUT, IN]".
        QTest::newRow("llm-compressor: one nn.Linear per expert") << true << true << true;
    }
    void llama4()
    {
        QFETCH(bool, multimodal);
        QFETCH(bool, perExpert);
        QFETCH(bool, withConfig);
        FamilyCheckpoint f;
        const int experts = 3, inner = 8, visionHidden = 12, visionFf = 20;
        const QString text = multimodal ? "language_model.model." : "model.";
        const QString tb = multimodal ? "text" : "";
        // [a^T | b^T]: x @ W with a's outputs in the first columns.
        auto columns = [](const M &a, const M &b) {
            M out(a.cols(), a.rows() + b.rows());
            out << a.transpose(), b.transpose();
            return out;
        };
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("%1layers.%2.").arg(text).arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, tb, HEADS * HD, KV * HD);
            f.addVector(p + "input_layernorm.weight", H);
            if (l % 2 == 0) { // interleave_moe_layer_step 2: moe_layers [1]; a dense layer of intermediate_size_mlp
                gatedMlp(f, p + "feed_forward.", projMlp, l, tb);
                continue;
            }
            QList<M> gateUp, down;
            for (int e = 0; e < experts; ++e) {
                const QString x = QString::number(e);
                const M g = f.matrix(id(l, T::MlpGate, tb, x), inner, H), u = f.matrix(id(l, T::MlpUp, tb, x), inner, H);
                const M d = f.matrix(id(l, T::MlpDown, tb, x), H, inner);
                if (perExpert) {
                    f.add(p + "feed_forward.experts." + x + ".gate_proj.weight", g);
                    f.add(p + "feed_forward.experts." + x + ".up_proj.weight", u);
                    f.add(p + "feed_forward.experts." + x + ".down_proj.weight", d);
                }
                gateUp << columns(g, u);
                down << M(d.transpose());
            }
            if (!perExpert) {
                f.add3d(p + "feed_forward.experts.gate_up_proj", gateUp);
                f.add3d(p + "feed_forward.experts.down_proj", down);
            }
            f.add(p + "feed_forward.router.weight", f.other(experts, H));
            gatedMlp(f, p + "feed_forward.shared_expert.", projMlp, l, tb, "shared", inner);
        }
        f.add(text + "embed_tokens.weight", f.other(64, H));
        const QJsonObject textConfig{{"model_type", "llama4_text"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV},
                                     {"head_dim", HD}, {"hidden_size", H}, {"intermediate_size", inner},
                                     {"intermediate_size_mlp", FF}, {"num_local_experts", experts}, {"interleave_moe_layer_step", 2}};
        if (multimodal) {
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("vision_model.model.layers.%1.").arg(l);
                qkvo(f, p + "self_attn.", projLeaves, l, "vision", visionHidden, visionHidden, visionHidden, true);
                plainMlp(f, p + "mlp.", "fc1", "fc2", l, "vision", visionFf, visionHidden);
            }
            f.add("vision_model.patch_embedding.linear.weight", f.other(visionHidden, 48));
            f.add("vision_model.positional_embedding_vlm", f.other(17, visionHidden));
            f.addVector("vision_model.class_embedding", visionHidden);
            // Llama4VisionPixelShuffleMLP's Llama4VisionMLP2 (fc1, fc2), in no layer: block vision-adapter, layer 0.
            f.add("vision_model.vision_adapter.mlp.fc1.weight", f.matrix(id(0, T::MlpUp, "vision-adapter"), visionFf, visionHidden));
            f.add("vision_model.vision_adapter.mlp.fc2.weight", f.matrix(id(0, T::MlpDown, "vision-adapter"), visionFf, visionFf));
            f.add("multi_modal_projector.linear_1.weight", f.other(H, visionFf));
            f.add("language_model.lm_head.weight", f.other(64, H));
            f.setConfig({{"model_type", "llama4"}, {"architectures", QJsonArray{"Llama4ForConditionalGeneration"}},
                         {"text_config", textConfig}, {"vision_config", QJsonObject{{"hidden_size", visionHidden}}}});
        } else {
            f.add("lm_head.weight", f.other(64, H));
            if (withConfig)
                f.setConfig(textConfig);
        }
        VERIFY_CLEAN(f, f.analyse());
    }

    // Llama 4's rows take only what Llama 4 stores: stacked experts in the other orientation ([E, 2I, hidden], as
    // transformers v5 stores other families' feed_forward.experts) are refused under model_type llama4, and without a
    // config a feed_forward stack with no shared expert beside it (Jamba's, LFM2's) is not taken for Llama 4's.
    void llama4RowsTakeOnlyLlama4Stacks()
    {
        const int experts = 3, inner = 8;
        auto plan = [&](const QVariantMap &config, bool sharedExpert) {
            QList<NamedShape> tensors{{"model.layers.1.feed_forward.experts.gate_up_proj", {experts, 2 * inner, H}, "float32"},
                                      {"model.layers.1.feed_forward.experts.down_proj", {experts, H, inner}, "float32"}};
            if (sharedExpert)
                tensors.append({"model.layers.1.feed_forward.shared_expert.gate_proj.weight", {inner, H}, "float32"});
            ModelConfig c;
            c.addSource(config, "config.json");
            return CheckpointLayout::plan(tensors, c, TensorNameRules::builtIn());
        };
        const CheckpointLayout llama4 = plan({{"model_type", "llama4_text"}, {"hidden_size", H}}, true);
        QStringList refused;
        for (const LeftOutTensor &t : llama4.reported())
            refused << t.tensor;
        QVERIFY2(refused.contains("model.layers.1.feed_forward.experts.gate_up_proj"), qPrintable(refused.join(", ")));
        for (const PlannedTensor &t : llama4.typed)
            QVERIFY2(t.tensor != "model.layers.1.feed_forward.experts.gate_up_proj", qPrintable(t.family));
        // Not claimed, not even to be refused: a later family's rule (or the generic pass) decides.
        const CheckpointLayout other = plan({}, false);
        for (const PlannedTensor &t : other.typed)
            QVERIFY2(!t.family.startsWith("Llama 4"), qPrintable(t.tensor + " typed by " + t.family));
        for (const LeftOutTensor &t : other.leftOut)
            QVERIFY2(!t.reason.contains("x @ W"), qPrintable(t.tensor + ": " + t.reason));
    }

    // What GPT-OSS's other tensors are, said as such: the router, the experts' 2-D biases, MXFP4 scales left listed (those
    // of a pair the reader refused; a valid pair is listed as the dequantized tensor, tst_Mxfp4Experts).
    void gptOssLeftOutSayWhat()
    {
        const QString p = "model.layers.0.mlp.";
        const QList<NamedShape> tensors{{p + "router.weight", {4, 64}, "BF16"},
                                        {p + "experts.gate_up_proj_bias", {4, 128}, "BF16"},
                                        {p + "experts.down_proj_bias", {4, 64}, "BF16"},
                                        {p + "experts.gate_up_proj_scales", {4, 128, 2}, "U8"}};
        ModelConfig config;
        config.addSource({{"model_type", "gpt_oss"}}, "config.json");
        const CheckpointLayout layout = CheckpointLayout::plan(tensors, config, TensorNameRules::builtIn());
        QVERIFY(layout.typed.isEmpty());
        QHash<QString, LeftOutTensor> left;
        for (const LeftOutTensor &t : layout.leftOut)
            left.insert(t.tensor, t);
        QCOMPARE(left.size(), tensors.size());
        QVERIFY(left[p + "router.weight"].reason.contains("router") && !left[p + "router.weight"].reported);
        for (const char *bias : {"experts.gate_up_proj_bias", "experts.down_proj_bias"})
            QVERIFY2(left[p + bias].reason.contains("biases") && !left[p + bias].reported, qPrintable(left[p + bias].reason));
        QVERIFY2(left[p + "experts.gate_up_proj_scales"].reason.contains("MXFP4 block scales"), qPrintable(left[p + "experts.gate_up_proj_scales"].reason));
        QVERIFY(!left[p + "experts.gate_up_proj_scales"].reported);
    }

    // GPT-OSS (modeling_gpt_oss.py). GptOssExperts: "self.gate_up_proj = nn.Parameter(torch.empty(self.num_experts,
    // self.hidden_size, 2 * self.expert_dim))", "self.gate_up_proj_bias = nn.Parameter(torch.empty(self.num_experts,
    // 2 * self.expert_dim))", "self.down_proj = nn.Parameter(torch.empty((self.num_experts, self.expert_dim,
    // self.hidden_size)))", "self.down_proj_bias …(self.num_experts, self.hidden_size)"; forward "gate_up = current_state @
    // self.gate_up_proj[expert_idx] + …", "gate, up = gate_up[..., ::2], gate_up[..., 1::2]": gate and up interleaved by
    // column. GptOssTopKRouter ("self.weight = nn.Parameter(torch.empty(self.num_experts, self.hidden_dim))"), as
    // mlp.router; "self.sinks = nn.Parameter(torch.empty(config.num_attention_heads))". This is the bf16 layout
    // (a dequantized or fine-tuned checkpoint); the Hub's MXFP4 one is read dequantized (tst_Mxfp4Experts).
    void gptOss_data()
    {
        QTest::addColumn<bool>("withConfig");
        QTest::addColumn<bool>("sizesOnly");
        QTest::newRow("config.json") << true << false;
        QTest::newRow("no config.json: the interleave is not assumed") << false << false;
        // hidden_size 16 = 2 × intermediate_size 8: the sizes alone fit the v5 [E, 2I, H] reading of
        // [E, H, 2I]; down_proj [E, I, H] beside it says otherwise (it was split in wrong halves).
        QTest::newRow("sizes without model_type: down_proj proves the orientation") << false << true;
    }
    void gptOss()
    {
        QFETCH(bool, withConfig);
        QFETCH(bool, sizesOnly);
        FamilyCheckpoint f;
        const int experts = 3, inner = 8, headDim = 8;
        // Columns gate₀, up₀, gate₁, up₁, …: x @ W with gate = [..., ::2], up = [..., 1::2].
        auto interleaved = [](const M &gate, const M &up) {
            M out(gate.cols(), 2 * gate.rows());
            for (Eigen::Index j = 0; j < gate.rows(); ++j) {
                out.col(2 * j) = gate.row(j).transpose();
                out.col(2 * j + 1) = up.row(j).transpose();
            }
            return out;
        };
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * headDim, KV * headDim);
            for (const char *bias : {"q_proj", "k_proj", "v_proj", "o_proj"})
                f.addVector(p + "self_attn." + bias + ".bias", 4);
            f.addVector(p + "self_attn.sinks", HEADS);
            f.add(p + "mlp.router.weight", f.other(experts, H));
            f.addVector(p + "mlp.router.bias", experts);
            QList<M> gateUp, down;
            for (int e = 0; e < experts; ++e) {
                const QString x = QString::number(e);
                if (withConfig) {
                    const M g = f.matrix(id(l, T::MlpGate, {}, x), inner, H), u = f.matrix(id(l, T::MlpUp, {}, x), inner, H);
                    gateUp << interleaved(g, u);
                } else {
                    gateUp << f.other(H, 2 * inner);
                }
                down << M(f.matrix(id(l, T::MlpDown, {}, x), H, inner).transpose());
            }
            f.add3d(p + "mlp.experts.gate_up_proj", gateUp);
            f.add(p + "mlp.experts.gate_up_proj_bias", f.other(experts, 2 * inner));
            f.add3d(p + "mlp.experts.down_proj", down);
            f.add(p + "mlp.experts.down_proj_bias", f.other(experts, H));
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        if (withConfig) {
            f.setConfig({{"model_type", "gpt_oss"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"head_dim", headDim},
                         {"hidden_size", H}, {"intermediate_size", inner}, {"num_local_experts", experts}});
            VERIFY_CLEAN(f, f.analyse());
            return;
        }
        if (sizesOnly)
            f.setConfig({{"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"head_dim", headDim}, {"hidden_size", H},
                         {"intermediate_size", inner}});
        // Without model_type nothing says the columns interleave: each gate_up_proj is reported, naming the key.
        const RunAnalysis run = f.analyse();
        const QStringList reported = verify(f, run);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(reported.size(), LAYERS);
        for (const QString &r : reported)
            QVERIFY2(r.contains("mlp.experts.gate_up_proj") && r.contains("gpt_oss"), qPrintable(r));
    }

    // GPT-OSS as published on the Hub (MXFP4 …_blocks with …_scales) is read dequantized: tests/core/io/tst_Mxfp4Experts.cpp.

    // RWKV-6 (RWKV-LM RWKV-v5/src/model.py RWKV_Tmix_x060, RWKV_CMix_x060) and RWKV-7 (RWKV-v7 RWKV_Tmix_x070,
    // RWKV_CMix_x070), and the HF remote code's names for RWKV-6 (rwkv.blocks.N.attention / feed_forward). Time mix:
    // "r = self.receptance(xr)", "k = self.key(xk)", "v = self.value(xv)", x060 "g = F.silu(self.gate(xg))", "x =
    // self.output(x * g)"; "ww = torch.tanh(xw @ self.time_decay_w1) @ self.time_decay_w2" (x060), "a =
    // torch.sigmoid(self.a0 + (xa @ self.a1) @ self.a2)", "g = torch.sigmoid(xg @ self.g1) @ self.g2" (x070). Channel
    // mix: "k = torch.relu(k) ** 2", "kv = self.value(k)", "return torch.sigmoid(self.receptance(xr)) * kv" (x060;
    // x070 returns self.value(k), no receptance). nn.Linear(in, out): receptance/key/value [A, C], output [C, A],
    // ffn.key [F, C], ffn.value [C, F], ffn.receptance [C, C].
    void rwkv_data()
    {
        QTest::addColumn<int>("version");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("RWKV-6 (RWKV-LM)") << 6 << "";
        QTest::newRow("RWKV-7 (RWKV-LM)") << 7 << "";
        QTest::newRow("RWKV-6 (HF remote code)") << 6 << "rwkv.";
    }
    void rwkv()
    {
        QFETCH(int, version);
        QFETCH(QString, prefix);
        const bool hf = !prefix.isEmpty();
        const QString att = hf ? "attention." : "att.", ffn = hf ? "feed_forward." : "ffn.";
        FamilyCheckpoint f;
        const int A = version == 6 ? 12 : H, F = version == 6 ? FF : 4 * H, lora = 4;
        auto vector3 = [&](const QString &name, int n) { f.add3d(name, {f.other(1, n)}); };
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = prefix + QStringLiteral("blocks.%1.").arg(l);
            for (const char *norm : {"ln1", "ln2"})
                f.addVector(p + norm + ".weight", H);
            f.add(p + att + "receptance.weight", f.matrix(id(l, T::Q), A, H));
            f.add(p + att + "key.weight", f.matrix(id(l, T::K), A, H));
            f.add(p + att + "value.weight", f.matrix(id(l, T::V), A, H));
            f.add(p + att + "output.weight", f.matrix(id(l, T::O), H, A));
            f.addVector(p + att + "ln_x.weight", A);
            if (version == 6) {
                f.add(p + att + "gate.weight", f.other(A, H));
                for (const char *x : {"time_maa_x", "time_maa_w", "time_maa_k", "time_maa_v", "time_maa_r", "time_maa_g"})
                    vector3(p + att + x, H);
                f.add(p + att + "time_maa_w1", f.other(H, 5 * lora));
                f.add3d(p + att + "time_maa_w2", {f.other(lora, H), f.other(lora, H), f.other(lora, H), f.other(lora, H), f.other(lora, H)});
                vector3(p + att + "time_decay", A);
                f.add(p + att + "time_decay_w1", f.other(H, lora));
                f.add(p + att + "time_decay_w2", f.other(lora, A));
                f.add(p + att + "time_faaaa", f.other(HEADS, A / HEADS));
                f.add(p + ffn + "receptance.weight", f.matrix(id(l, T::MlpGate), H, H));
                for (const char *x : {"time_maa_k", "time_maa_r"})
                    vector3(p + ffn + x, H);
            } else {
                for (const char *x : {"x_r", "x_w", "x_k", "x_v", "x_a", "x_g", "w0", "a0", "v0", "k_k", "k_a"})
                    vector3(p + att + x, H);
                for (const char *w : {"w", "a", "v", "g"}) {
                    f.add(p + att + w + "1", f.other(H, lora));
                    f.add(p + att + w + "2", f.other(lora, H));
                }
                f.add(p + att + "r_k", f.other(HEADS, H / HEADS));
                vector3(p + ffn + "x_k", H);
            }
            f.add(p + ffn + "key.weight", f.matrix(id(l, T::MlpUp), F, H));
            f.add(p + ffn + "value.weight", f.matrix(id(l, T::MlpDown), H, F));
        }
        f.addVector(prefix + "blocks.0.ln0.weight", H);
        f.add(prefix + (hf ? "embeddings.weight" : "emb.weight"), f.other(64, H));
        f.addVector(prefix + "ln_out.weight", H);
        f.add("head.weight", f.other(64, H));
        VERIFY_CLEAN(f, f.analyse());
    }

    // What RWKV's other parameters are, said as such; and another family's blocks.N.att.key, in a layer without the
    // time mix's decay, is not taken for RWKV's.
    void rwkvLeftOutSayWhat()
    {
        const QString p = "blocks.0.att.";
        const QList<NamedShape> tensors{{p + "time_decay", {1, 1, 16}, "F32"}, {p + "gate.weight", {16, 16}, "F32"},
                                        {p + "time_decay_w1", {16, 4}, "F32"},  {p + "time_maa_w2", {5, 4, 16}, "F32"},
                                        {p + "key.weight", {16, 16}, "F32"},    {"blocks.1.att.key.weight", {16, 16}, "F32"},
                                        {"blocks.1.att.output.weight", {16, 16}, "F32"}};
        const CheckpointLayout layout = CheckpointLayout::plan(tensors, ModelConfig(), TensorNameRules::builtIn());
        QHash<QString, LeftOutTensor> left;
        for (const LeftOutTensor &t : layout.leftOut)
            left.insert(t.tensor, t);
        QVERIFY2(left[p + "time_decay"].reason.contains("decay") && !left[p + "time_decay"].reported, qPrintable(left[p + "time_decay"].reason));
        QVERIFY2(left[p + "gate.weight"].reason.contains("output gate") && !left[p + "gate.weight"].reported,
                 qPrintable(left[p + "gate.weight"].reason));
        for (const char *lowRank : {"time_decay_w1", "time_maa_w2"})
            QVERIFY2(left[p + lowRank].reason.contains("low-rank") && !left[p + lowRank].reported, qPrintable(left[p + lowRank].reason));
        for (const PlannedTensor &t : layout.typed)
            QVERIFY2(t.family == (t.tensor.startsWith("blocks.0.") ? "RWKV" : GenericTyping::familyName()), qPrintable(t.tensor + ": " + t.family));
    }

    // EXAONE 3.0/3.5 (LG AI's modeling_exaone.py, model_type exaone; vLLM's port "Adapted from …/EXAONE-3.0-7.8B-Instruct/
    // blob/main/modeling_exaone.py"): transformer.h.N.attn.attention.{q_proj, k_proj, v_proj, out_proj} (grouped-query:
    // num_key_value_heads), ExaoneGatedMLP "hidden_act = self.act(self.c_fc_0(x))", "hidden_linear = self.c_fc_1(x)",
    // c_proj: c_fc_0 the gate, c_fc_1 up, c_proj down.
    void exaone()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            f.addVector(p + "ln_1.weight", H);
            qkvo(f, p + "attn.attention.", outProjLeaves, l, {}, HEADS * HD, KV * HD);
            f.addVector(p + "ln_2.weight", H);
            f.add(p + "mlp.c_fc_0.weight", f.matrix(id(l, T::MlpGate), FF, H));
            f.add(p + "mlp.c_fc_1.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "mlp.c_proj.weight", f.matrix(id(l, T::MlpDown), H, FF));
        }
        f.add("transformer.wte.weight", f.other(64, H));
        f.addVector("transformer.ln_f.weight", H);
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "exaone"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"hidden_size", H},
                     {"num_layers", LAYERS}, {"intermediate_size", FF}, {"activation_function", "silu"}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // OLMoE (modeling_olmoe.py / modular_olmoe.py): OlmoeAttention's "self.q_norm = OlmoeRMSNorm(config.hidden_size)"
    // and k_norm are 1-D; OlmoeSparseMoeBlock "self.gate = nn.Linear(config.hidden_size, self.num_experts,
    // bias=False)", "self.experts = OlmoeExperts(config)" (an nn.ModuleList of OlmoeMLP gate/up/down) on the Hub;
    // transformers v5 stacks them as qwen2_moe's (conversion_mapping.py: mapping["olmoe"] = mapping["qwen2_moe"]).
    void olmoe_data()
    {
        QTest::addColumn<bool>("stacked");
        QTest::newRow("Hub: one tensor per expert") << false;
        QTest::newRow("transformers v5: stacked experts") << true;
    }
    void olmoe()
    {
        QFETCH(bool, stacked);
        FamilyCheckpoint f;
        const int experts = 4, inner = 8;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, H, H);
            f.addVector(p + "self_attn.q_norm.weight", H);
            f.addVector(p + "self_attn.k_norm.weight", H);
            moeExperts(f, p + "mlp.", l, experts, inner, stacked);
            f.add(p + "mlp.gate.weight", f.other(experts, H));
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "olmoe"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", HEADS}, {"hidden_size", H},
                     {"num_experts", experts}, {"intermediate_size", inner}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Granite (modeling_granite.py): LLaMA's names (self_attn.{q,k,v,o}_proj, mlp.{gate,up,down}_proj); its
    // multipliers are scalars in the config.
    void granite()
    {
        FamilyCheckpoint f;
        llamaLayers(f, "model.");
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "granite"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"hidden_size", H},
                     {"attention_multiplier", 0.25}, {"residual_multiplier", 0.22}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // GraniteMoE (modeling_granitemoe.py): GraniteMoeParallelExperts "self.weight = nn.Parameter(torch.empty(num_experts,
    // output_size, input_size))" used as "F.linear(input_list[i], self.weight[i])"; GraniteMoeMoE "self.input_linear =
    // GraniteMoeParallelExperts(config.num_local_experts, self.input_size, self.hidden_size * 2)", "self.output_linear =
    // GraniteMoeParallelExperts(config.num_local_experts, self.hidden_size, self.input_size)", "self.router =
    // GraniteMoeTopKGating(…)" whose "self.layer = nn.Linear(input_size, num_experts, bias=False)"; forward
    // "chunked_hidden_states = hidden_states.chunk(2, dim=-1)", "self.activation(chunked_hidden_states[0]) *
    // chunked_hidden_states[1]": input_linear [E, 2I, H] of [gate; up] per expert, output_linear [E, H, I], as
    // block_sparse_moe. GraniteMoeShared (modular_granitemoeshared.py) adds "self.shared_mlp = … GraniteMoeSharedMLP(config)"
    // with "self.input_linear = nn.Linear(self.input_size, self.hidden_size * 2, bias=False)" chunked alike and
    // "self.output_linear = nn.Linear(self.hidden_size, self.input_size, bias=False)".
    void graniteMoe_data()
    {
        QTest::addColumn<QString>("modelType");
        QTest::newRow("granitemoe") << "granitemoe";
        QTest::newRow("granitemoeshared (shared_mlp)") << "granitemoeshared";
    }
    void graniteMoe()
    {
        QFETCH(QString, modelType);
        FamilyCheckpoint f;
        const int experts = 3, inner = 8, sharedInner = 12;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, H, KV * HD);
            expertsStacked(f, p + "block_sparse_moe.input_linear.weight", p + "block_sparse_moe.output_linear.weight", l, experts, inner);
            f.add(p + "block_sparse_moe.router.layer.weight", f.other(experts, H));
            if (modelType == "granitemoeshared") {
                f.add(p + "shared_mlp.input_linear.weight", stackRows({f.matrix(id(l, T::MlpGate, {}, "shared"), sharedInner, H),
                                                                      f.matrix(id(l, T::MlpUp, {}, "shared"), sharedInner, H)}));
                f.add(p + "shared_mlp.output_linear.weight", f.matrix(id(l, T::MlpDown, {}, "shared"), H, sharedInner));
            }
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.setConfig({{"model_type", modelType}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"hidden_size", H},
                     {"intermediate_size", inner}, {"num_local_experts", experts}, {"shared_intermediate_size", sharedInner}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // @tests-decoders-2
    // #26, decoders-2. Every matrix typed by a family rule: no note that a tensor was typed from its name alone.
#define D2_VERIFY_FAMILY(family, run)                                                                                 \
    do {                                                                                                               \
        const RunAnalysis d2Run = (run);                                                                               \
        VERIFY_CLEAN(family, d2Run);                                                                                   \
        for (const QString &note : d2Run.notes)                                                                        \
            QVERIFY2(!note.contains("no family rule"), qPrintable(note));                                              \
    } while (false)

    // StarCoder2 (transformers modeling_starcoder2.py): LLaMA-named attention with grouped K/V,
    // "self.c_fc = nn.Linear(embed_dim, config.intermediate_size)", "self.c_proj = nn.Linear(config.intermediate_size, embed_dim)".
    void starCoder2()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * HD, KV * HD);
            plainMlp(f, p + "mlp.", "c_fc", "c_proj", l);
            f.addVector(p + "input_layernorm.weight", H);
            f.addVector(p + "mlp.c_fc.bias", FF);
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.setConfig({{"model_type", "starcoder2"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"hidden_size", H}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // Nemotron (modeling_nemotron.py): LLaMA-named attention, NemotronMLP "self.up_proj", "self.down_proj",
    // forward "self.down_proj(self.act_fn(self.up_proj(x)))" (no gate).
    void nemotron()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * HD, KV * HD);
            plainMlp(f, p + "mlp.", "up_proj", "down_proj", l);
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "nemotron"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"head_dim", HD}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // InternLM2 (InternLM's modeling_internlm2.py): "self.wqkv = nn.Linear(self.hidden_size, (self.num_heads +
    // 2 * self.num_key_value_heads) * self.head_dim)", forward "rearrange(qkv_states, 'b q (h gs d) -> b q h gs d',
    // gs=2 + self.num_key_value_groups)", q = [..., :num_key_value_groups, :], k = [..., -2, :], v = [..., -1, :];
    // attention.wo, feed_forward "self.w2(self.act_fn(self.w1(x)) * self.w3(x))".
    void internLm2()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            f.add(p + "attention.wqkv.weight", interleaveRows(qkv(f, l, {}, HEADS * HD, KV * HD), {HEADS / KV * HD, HD, HD}, KV));
            f.add(p + "attention.wo.weight", f.matrix(id(l, T::O), H, HEADS * HD));
            gatedMlp(f, p + "feed_forward.", {"w1", "w3", "w2"}, l);
            f.addVector(p + "attention_norm.weight", H);
            f.addVector(p + "ffn_norm.weight", H);
        }
        f.add("model.tok_embeddings.weight", f.other(64, H));
        f.add("output.weight", f.other(64, H));
        f.setConfig({{"model_type", "internlm2"}, {"architectures", QJsonArray{"InternLM2ForCausalLM"}}, {"num_attention_heads", HEADS},
                     {"num_key_value_heads", KV}, {"hidden_size", H}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // gpt-fast names its [Q; K; V] attention.wqkv too: without model_type internlm2 the grouped split is not made.
    void internLm2WqkvWithoutModelTypeIsReported()
    {
        FamilyCheckpoint f;
        f.add("model.layers.0.attention.wqkv.weight", f.other((HEADS + 2 * KV) * HD, H));
        f.add("model.layers.0.attention.wo.weight", f.matrix(id(0, T::O), H, H));
        f.setConfig({{"num_attention_heads", HEADS}, {"num_key_value_heads", KV}});
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("wqkv") && reported[0].contains("model_type internlm2"), qPrintable(reported[0]));
    }

    // Baichuan / Baichuan2 (modeling_baichuan.py): "self.W_pack = nn.Linear(self.hidden_size, 3 * self.hidden_size)",
    // forward "proj.unflatten(-1, (3, self.hidden_size))": rows [Q; K; V]; o_proj and a LLaMA MLP; NormHead lm_head.
    void baichuan()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            f.add(p + "self_attn.W_pack.weight", stackRows(qkv(f, l)));
            f.add(p + "self_attn.o_proj.weight", f.matrix(id(l, T::O), H, H));
            gatedMlp(f, p + "mlp.", projMlp, l);
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "baichuan"}, {"num_attention_heads", HEADS}, {"hidden_size", H}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // DBRX (transformers modeling_dbrx.py): "self.Wqkv = nn.Linear(self.hidden_size, self.hidden_size + 2 *
    // self.num_key_value_heads * self.head_dim)", split "[self.hidden_size, kv·hd, kv·hd]" (kv_n_heads in attn_config);
    // DbrxExpertGLU "self.w1 = nn.Parameter(torch.empty(moe_num_experts * ffn_hidden_size, hidden_size))" (v1, w2
    // alike), DbrxExperts "self.mlp.w1.view(moe_num_experts, ffn_hidden_size, hidden_size)": expert e is rows
    // e·F…(e+1)·F; "gate_proj = x.matmul(expert_w1.t())", "up_proj = x.matmul(expert_v1.t())", "down_proj =
    // intermediate_states.matmul(expert_w2)" (w2's block is [F, d]: the down projection transposed);
    // DbrxRouter "self.layer = nn.Linear(self.hidden_size, self.moe_num_experts)".
    void dbrx()
    {
        FamilyCheckpoint f;
        const int experts = 3, inner = 8;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.blocks.%1.").arg(l);
            f.add(p + "norm_attn_norm.attn.Wqkv.weight", stackRows(qkv(f, l, {}, H, KV * HD)));
            f.add(p + "norm_attn_norm.attn.out_proj.weight", f.matrix(id(l, T::O), H, H));
            f.addVector(p + "norm_attn_norm.norm_1.weight", H);
            f.addVector(p + "norm_attn_norm.norm_2.weight", H);
            f.add(p + "ffn.router.layer.weight", f.other(experts, H));
            QList<M> w1, v1, w2;
            for (int e = 0; e < experts; ++e) {
                const QString x = QString::number(e);
                w1 << f.matrix(id(l, T::MlpGate, {}, x), inner, H);
                v1 << f.matrix(id(l, T::MlpUp, {}, x), inner, H);
                w2 << f.matrix(id(l, T::MlpDown, {}, x), inner, H);
            }
            f.add(p + "ffn.experts.mlp.w1", stackRows(w1));
            f.add(p + "ffn.experts.mlp.v1", stackRows(v1));
            f.add(p + "ffn.experts.mlp.w2", stackRows(w2));
        }
        f.add("transformer.wte.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "dbrx"}, {"d_model", H}, {"n_heads", HEADS}, {"n_layers", LAYERS},
                     {"attn_config", QJsonObject{{"kv_n_heads", KV}}},
                     {"ffn_config", QJsonObject{{"ffn_hidden_size", inner}, {"moe_num_experts", experts}}}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // ChatGLM2/3 and GLM-4 (THUDM's modeling_chatglm.py): SelfAttention "self.query_key_value = nn.Linear(
    // config.hidden_size, self.qkv_hidden_size)"; under multi_query_attention "mixed_x_layer.split([heads · hn,
    // groups · hn, groups · hn])" (hn = kv_channels, groups = multi_query_group_num), otherwise "view(... heads,
    // 3 * hn)" and split_tensor_along_last_dim(3): per head; MLP "self.dense_h_to_4h = nn.Linear(hidden_size,
    // ffn_hidden_size * 2)" with swiglu "x = torch.chunk(x, 2, dim=-1); F.silu(x[0]) * x[1]": [gate; up].
    void chatGlm_data()
    {
        QTest::addColumn<bool>("multiQuery");
        QTest::newRow("ChatGLM2/3, GLM-4 (multi_query_attention)") << true;
        QTest::newRow("multi_query_attention false (per head)") << false;
    }
    void chatGlm()
    {
        QFETCH(bool, multiQuery);
        FamilyCheckpoint f;
        const int kvChannels = 6, groups = 2; // kv_channels need not be hidden_size / heads
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.encoder.layers.%1.").arg(l);
            const int kvRows = (multiQuery ? groups : HEADS) * kvChannels;
            const QList<M> parts = qkv(f, l, {}, HEADS * kvChannels, kvRows);
            f.add(p + "self_attention.query_key_value.weight",
                  multiQuery ? stackRows(parts) : interleaveRows(parts, {kvChannels, kvChannels, kvChannels}, HEADS));
            f.add(p + "self_attention.dense.weight", f.matrix(id(l, T::O), H, HEADS * kvChannels));
            f.add(p + "mlp.dense_h_to_4h.weight", stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)}));
            f.add(p + "mlp.dense_4h_to_h.weight", f.matrix(id(l, T::MlpDown), H, FF));
            f.addVector(p + "input_layernorm.weight", H);
            f.addVector(p + "post_attention_layernorm.weight", H);
        }
        f.add("transformer.embedding.word_embeddings.weight", f.other(64, H));
        f.add("transformer.output_layer.weight", f.other(64, H));
        f.addVector("transformer.rotary_pos_emb.inv_freq", 2);
        f.setConfig({{"model_type", "chatglm"}, {"architectures", QJsonArray{"ChatGLMModel"}}, {"num_attention_heads", HEADS},
                     {"kv_channels", kvChannels}, {"multi_query_attention", multiQuery}, {"multi_query_group_num", groups},
                     {"hidden_size", H}, {"ffn_hidden_size", FF}, {"num_layers", LAYERS}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // Without model_type chatglm the same names are Megatron-LM's (query_key_value per group, dense_h_to_4h
    // gated only under swiglu): both are reported, not split, and dense_h_to_4h is not taken as one up projection.
    void chatGlmWithoutModelTypeIsReported_data()
    {
        QTest::addColumn<QJsonObject>("config");
        QTest::newRow("no config.json") << QJsonObject{};
        QTest::newRow("model_type chatglm, no head counts") << QJsonObject{{"model_type", "chatglm"}, {"architectures", QJsonArray{"ChatGLMModel"}}};
    }
    void chatGlmWithoutModelTypeIsReported()
    {
        QFETCH(QJsonObject, config);
        FamilyCheckpoint f;
        f.add("transformer.encoder.layers.0.self_attention.query_key_value.weight", f.other(H + 2 * 2 * HD, H));
        f.add("transformer.encoder.layers.0.self_attention.dense.weight", f.matrix(id(0, T::O), H, H));
        const M dense = stackRows({f.other(FF, H), f.other(FF, H)});
        f.add("transformer.encoder.layers.0.mlp.dense_4h_to_h.weight", f.matrix(id(0, T::MlpDown), H, FF));
        f.add("transformer.embedding.word_embeddings.weight", f.other(64, H));
        const bool typed = !config.isEmpty();
        if (typed) // with model_type chatglm dense_h_to_4h is [gate; up] whatever the head counts
            f.add("transformer.encoder.layers.0.mlp.dense_h_to_4h.weight",
                  stackRows({f.matrix(id(0, T::MlpGate), FF, H), f.matrix(id(0, T::MlpUp), FF, H)}));
        else
            f.add("transformer.encoder.layers.0.mlp.dense_h_to_4h.weight", dense);
        f.setConfig(config);
        QStringList reported = verify(f, f.analyse());
        if (QTest::currentTestFailed())
            return;
        reported.sort();
        QCOMPARE(reported.size(), typed ? 1 : 2);
        if (!typed)
            QVERIFY2(reported[0].startsWith("transformer.encoder.layers.0.mlp.dense_h_to_4h.weight") && reported[0].contains("model_type chatglm"),
                     qPrintable(reported[0]));
        QVERIFY2(reported.last().startsWith("transformer.encoder.layers.0.self_attention.query_key_value.weight") &&
                     reported.last().contains(typed ? "num_attention_heads" : "model_type chatglm"),
                 qPrintable(reported.last()));
    }

    // GLM and GLM-4 in transformers (model_type glm, glm4; THUDM/glm-4-9b-chat-hf): LLaMA-named attention,
    // "class GlmMLP(Phi3MLP)": gate_up_proj [gate; up] ("gate, up_states = up_states.chunk(2, dim=-1)").
    void glmTransformers_data()
    {
        QTest::addColumn<QString>("modelType");
        QTest::newRow("glm") << "glm";
        QTest::newRow("glm4") << "glm4";
    }
    void glmTransformers()
    {
        QFETCH(QString, modelType);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * HD, KV * HD);
            f.add(p + "mlp.gate_up_proj.weight", stackRows({f.matrix(id(l, T::MlpGate), FF, H), f.matrix(id(l, T::MlpUp), FF, H)}));
            f.add(p + "mlp.down_proj.weight", f.matrix(id(l, T::MlpDown), H, FF));
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.setConfig({{"model_type", modelType}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // PhiMoE (modeling_phimoe.py): Mixtral's names on the Hub (block_sparse_moe.experts.E.w1/w3/w2,
    // block_sparse_moe.gate); transformers v5 stacks the experts (PhimoeExperts(MixtralExperts): gate_up_proj
    // [E, 2I, H], down_proj [E, H, I]) under mlp, with the router "self.router = PhimoeTopKRouter(config)".
    void phiMoe_data()
    {
        QTest::addColumn<bool>("stacked");
        QTest::newRow("Hub (block_sparse_moe)") << false;
        QTest::newRow("transformers v5 (stacked experts, mlp.router)") << true;
    }
    void phiMoe()
    {
        QFETCH(bool, stacked);
        FamilyCheckpoint f;
        const int experts = 2, inner = 8;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * HD, KV * HD);
            if (stacked) {
                expertsStacked(f, p + "mlp.experts.gate_up_proj", p + "mlp.experts.down_proj", l, experts, inner);
                f.add(p + "mlp.router.weight", f.other(experts, H));
            } else {
                expertsEach(f, p + "block_sparse_moe.", mixtralMlp, l, experts, inner);
                f.add(p + "block_sparse_moe.gate.weight", f.other(experts, H));
            }
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "phimoe"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"hidden_size", H},
                     {"num_local_experts", experts}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // Jamba (modeling_jamba.py): ALL_DECODER_LAYER_TYPES {"attention": self_attn, "mamba": JambaMambaMixer};
    // every layer has a feed_forward, JambaMLP or JambaSparseMoeBlock ("self.router = nn.Linear(...)", experts
    // per expert on the Hub, stacked MixtralExperts in v5). The mixer: "self.in_proj = nn.Linear(hidden_size,
    // intermediate_size * 2)", "hidden_states, gate = projected_states.chunk(2, dim=1)" ([x; z] as Mamba's),
    // x_proj, dt_proj (scan parameters), out_proj. Mixer matrices are block "mamba", apart from the MLP's.
    void jamba_data()
    {
        QTest::addColumn<bool>("stacked");
        QTest::newRow("Hub (experts.E.*_proj)") << false;
        QTest::newRow("transformers v5 (stacked experts)") << true;
    }
    void jamba()
    {
        QFETCH(bool, stacked);
        FamilyCheckpoint f;
        const int inner = 2 * H, state = 4, dtRank = 2, experts = 2, layers = 4, attentionLayer = 2;
        for (int l = 0; l < layers; ++l) {
            const QString p = QStringLiteral("model.layers.%1.").arg(l);
            if (l == attentionLayer) {
                qkvo(f, p + "self_attn.", projLeaves, l, {}, HEADS * HD, KV * HD);
            } else {
                const QString m = p + "mamba.";
                f.add(m + "in_proj.weight", stackRows({f.matrix(id(l, T::MlpUp, "mamba"), inner, H), f.matrix(id(l, T::MlpGate, "mamba"), inner, H)}));
                f.add(m + "x_proj.weight", f.other(dtRank + 2 * state, inner));
                f.add(m + "dt_proj.weight", f.other(inner, dtRank));
                f.add(m + "out_proj.weight", f.matrix(id(l, T::MlpDown, "mamba"), H, inner));
                f.add(m + "A_log", f.other(inner, state));
                QList<M> conv; // nn.Conv1d(groups=intermediate_size): [I, 1, d_conv]
                for (int i = 0; i < inner; ++i)
                    conv << f.other(1, 4);
                f.add3d(m + "conv1d.weight", conv);
                f.addVector(m + "D", inner);
                f.addVector(m + "dt_layernorm.weight", dtRank);
            }
            f.addVector(p + "input_layernorm.weight", H);
            f.addVector(p + "pre_ff_layernorm.weight", H);
            if (l % 2 == 0) { // expert_layer_period 2, offset 1
                gatedMlp(f, p + "feed_forward.", projMlp, l);
                continue;
            }
            f.add(p + "feed_forward.router.weight", f.other(experts, H));
            moeExperts(f, p + "feed_forward.", l, experts, FF, stacked);
        }
        f.add("model.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "jamba"}, {"num_attention_heads", HEADS}, {"num_key_value_heads", KV}, {"hidden_size", H},
                     {"mamba_expand", 2}, {"mamba_d_state", state}, {"mamba_dt_rank", dtRank}, {"num_experts", experts},
                     {"attn_layer_period", 4}, {"attn_layer_offset", attentionLayer}, {"expert_layer_period", 2}, {"expert_layer_offset", 1}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // Persimmon (modeling_persimmon.py): "self.query_key_value = nn.Linear(self.hidden_size, 3 * self.hidden_size)",
    // _split_heads "fused_qkv.view(batch_size, seq_length, self.num_heads, 3, self.head_dim)": per head; self_attn.dense;
    // PersimmonMLP dense_h_to_4h / dense_4h_to_h. Fuyu (modeling_fuyu.py) holds it as "self.language_model" beside
    // "self.vision_embed_tokens = nn.Linear(patch_size * patch_size * num_channels, hidden_size)".
    void persimmonFuyu_data()
    {
        QTest::addColumn<QString>("modelType");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("persimmon") << "persimmon" << "model.";
        QTest::newRow("fuyu") << "fuyu" << "language_model.model.";
    }
    void persimmonFuyu()
    {
        QFETCH(QString, modelType);
        QFETCH(QString, prefix);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("%1layers.%2.").arg(prefix).arg(l);
            f.add(p + "self_attn.query_key_value.weight", interleaveRows(qkv(f, l), {HD, HD, HD}, HEADS));
            f.add(p + "self_attn.dense.weight", f.matrix(id(l, T::O), H, H));
            f.addVector(p + "self_attn.q_layernorm.weight", HD);
            f.addVector(p + "self_attn.k_layernorm.weight", HD);
            plainMlp(f, p + "mlp.", "dense_h_to_4h", "dense_4h_to_h", l);
        }
        f.add(prefix + "embed_tokens.weight", f.other(64, H));
        if (modelType == "fuyu") {
            f.add("language_model.lm_head.weight", f.other(64, H));
            f.add("vision_embed_tokens.weight", f.other(H, 12));
        }
        f.setConfig({{"model_type", modelType}, {"num_attention_heads", HEADS}, {"hidden_size", H}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // CodeGen (modeling_codegen.py): "self.qkv_proj = nn.Linear(self.embed_dim, self.embed_dim * 3)", forward
    // "mp_num = 4", "qkv_split = qkv.reshape(qkv.shape[:-1] + (mp_num, -1))", "local_dim = self.head_dim *
    // self.num_attention_heads // mp_num", "query, value, key = torch.split(qkv_split, local_dim, dim=-1)";
    // out_proj and GPT-J's fc_in / fc_out.
    void codeGen()
    {
        FamilyCheckpoint f;
        const int mp = 4, local = H / mp;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            const M q = f.matrix(id(l, T::Q), H, H), k = f.matrix(id(l, T::K), H, H), v = f.matrix(id(l, T::V), H, H);
            f.add(p + "attn.qkv_proj.weight", interleaveRows({q, v, k}, {local, local, local}, mp));
            f.add(p + "attn.out_proj.weight", f.matrix(id(l, T::O), H, H));
            plainMlp(f, p + "mlp.", "fc_in", "fc_out", l);
        }
        f.add("transformer.wte.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "codegen"}, {"n_head", HEADS}, {"n_embd", H}});
        D2_VERIFY_FAMILY(f, f.analyse());
    }

    // litgpt (litgpt/model.py): CausalSelfAttention "self.qkv = nn.Linear(config.n_embd, (config.n_head + 2 *
    // config.n_query_groups) * config.head_size)", "q, k, v = qkv.split((query_size, key_size, value_size))";
    // checkpoints from before #1013 ("Drop interleave placement in QKV matrix") hold attn.attn, which
    // _load_from_state_dict turns into qkv with qkv_reassemble: "torch.chunk(param, config.n_query_groups)", each
    // "split [head_size * q_per_kv, head_size, head_size]". GptNeoxMLP fc / proj; LLaMAMLP "F.silu(x_fc_1) * x_fc_2",
    // proj; LLaMAMoE gate (router), experts.E.*. No config.json: n_head, n_query_groups, head_size (model_config.yaml)
    // come from a --rules file's "config".
    void litGpt_data()
    {
        QTest::addColumn<bool>("legacy");
        QTest::addColumn<QString>("mlp");
        QTest::newRow("attn.qkv, LLaMAMLP") << false << "llama";
        QTest::newRow("attn.qkv, GptNeoxMLP") << false << "neox";
        QTest::newRow("attn.qkv, LLaMAMoE") << false << "moe";
        QTest::newRow("legacy attn.attn (interleaved), LLaMAMLP") << true << "llama";
    }
    void litGpt()
    {
        QFETCH(bool, legacy);
        QFETCH(QString, mlp);
        FamilyCheckpoint f;
        const int headSize = 6, groups = KV; // head_size need not be n_embd / n_head
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            const QList<M> parts = qkv(f, l, {}, HEADS * headSize, groups * headSize);
            if (legacy)
                f.add(p + "attn.attn.weight", interleaveRows(parts, {HEADS / groups * headSize, headSize, headSize}, groups));
            else
                f.add(p + "attn.qkv.weight", stackRows(parts));
            f.add(p + "attn.proj.weight", f.matrix(id(l, T::O), H, HEADS * headSize));
            f.addVector(p + "norm_1.weight", H);
            if (mlp == "neox") {
                plainMlp(f, p + "mlp.", "fc", "proj", l);
            } else if (mlp == "llama") {
                gatedMlp(f, p + "mlp.", litGptMlp, l);
            } else {
                f.add(p + "mlp.gate.weight", f.other(2, H));
                expertsEach(f, p + "mlp.", litGptMlp, l, 2, 8);
            }
        }
        f.add("transformer.wte.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        QTemporaryDir dir;
        const QString rulesPath = dir.filePath("litgpt.json");
        saveBytes(rulesPath, QJsonDocument(QJsonObject{{"config", QJsonObject{{"n_head", HEADS}, {"n_query_groups", groups},
                                                                              {"head_size", headSize}, {"n_embd", H}}}})
                                 .toJson());
        QString error;
        const auto rules = TensorNameRules::withUserRules(rulesPath, &error);
        QVERIFY2(rules, qPrintable(error));
        D2_VERIFY_FAMILY(f, f.analyse(*rules));
    }

    // Without n_head (model_config.yaml is not read) litgpt's attn.qkv is reported with the keys to give.
    void litGptWithoutConfigIsReported()
    {
        FamilyCheckpoint f;
        f.add("transformer.h.0.attn.qkv.weight", f.other(3 * H, H));
        f.add("transformer.h.0.attn.proj.weight", f.matrix(id(0, T::O), H, H));
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("attn.qkv") && reported[0].contains("n_head") && reported[0].contains("n_query_groups"),
                 qPrintable(reported[0]));
    }

    // CodeGen's [4 blocks][q | v | k] is taken only under model_type codegen.
    void codeGenQkvWithoutModelTypeIsReported()
    {
        FamilyCheckpoint f;
        f.add("transformer.h.0.attn.qkv_proj.weight", f.other(3 * H, H));
        f.add("transformer.h.0.attn.out_proj.weight", f.matrix(id(0, T::O), H, H));
        f.setConfig({{"n_head", HEADS}, {"n_embd", H}});
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("qkv_proj") && reported[0].contains("model_type codegen"), qPrintable(reported[0]));
    }

    // DBRX's experts without the router beside them: how many there are is not guessed.
    void dbrxExpertsWithoutRouterAreReported()
    {
        FamilyCheckpoint f;
        f.add("transformer.blocks.0.norm_attn_norm.attn.out_proj.weight", f.matrix(id(0, T::O), H, H));
        f.add("transformer.blocks.0.ffn.experts.mlp.w1", f.other(2 * 8, H));
        f.setConfig({{"model_type", "dbrx"}, {"d_model", H}, {"n_heads", HEADS}});
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("ffn.router.layer.weight"), qPrintable(reported[0]));
    }

    // @tests-encoders-vision

    // DistilBERT (transformers modeling_distilbert.py): MultiHeadSelfAttention "self.q_lin = nn.Linear(in_features=
    // config.dim, out_features=config.dim)", k_lin, v_lin, out_lin; FFN "self.lin1 = nn.Linear(in_features=config.dim,
    // out_features=config.hidden_dim)", lin2; Transformer "self.layer = nn.ModuleList([TransformerBlock(config) …])".
    void distilBert()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("distilbert.transformer.layer.%1.").arg(l);
            qkvo(f, p + "attention.", {"q_lin", "k_lin", "v_lin", "out_lin"}, l, {}, H, H);
            plainMlp(f, p + "ffn.", "lin1", "lin2", l);
            f.addVector(p + "sa_layer_norm.weight", H);
            f.addVector(p + "output_layer_norm.weight", H);
        }
        f.add("distilbert.embeddings.word_embeddings.weight", f.other(64, H));
        f.add("distilbert.embeddings.position_embeddings.weight", f.other(32, H));
        f.add("vocab_transform.weight", f.other(H, H));
        f.add("vocab_projector.weight", f.other(64, H));
        f.setConfig({{"model_type", "distilbert"}, {"n_heads", HEADS}, {"dim", H}, {"hidden_dim", FF}, {"n_layers", LAYERS}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // ALBERT (modeling_albert.py): AlbertTransformer "self.albert_layer_groups = nn.ModuleList([AlbertLayerGroup(config)
    // for _ in range(config.num_hidden_groups)])", AlbertLayerGroup "self.albert_layers = nn.ModuleList([AlbertLayer(
    // config) for _ in range(config.inner_group_num)])", and each of the num_hidden_layers layers runs
    // "self.albert_layer_groups[group_idx]": the stored matrices are one set shared by all layers, typed once as layer 0
    // (the group's layers 0… with inner_group_num > 1; a block per group with num_hidden_groups > 1). AlbertAttention
    // query, key, value, dense (O); AlbertLayer "self.ffn = nn.Linear(config.hidden_size, config.intermediate_size)",
    // "self.ffn_output"; embedding_hidden_mapping_in (embedding → hidden) is not a type.
    void albert_data()
    {
        QTest::addColumn<int>("groups");
        QTest::addColumn<int>("inner");
        QTest::newRow("one shared layer (every released ALBERT)") << 1 << 1;
        QTest::newRow("inner_group_num 2") << 1 << 2;
        QTest::newRow("num_hidden_groups 2") << 2 << 1;
    }
    void albert()
    {
        QFETCH(int, groups);
        QFETCH(int, inner);
        FamilyCheckpoint f;
        const int embedding = 8;
        for (int g = 0; g < groups; ++g)
            for (int i = 0; i < inner; ++i) {
                const QString stack = QStringLiteral("albert.encoder.albert_layer_groups.%1").arg(g);
                const QString block = groups == 1 ? QString() : QString(stack).replace('.', '-');
                const QString p = QStringLiteral("%1.albert_layers.%2.").arg(stack).arg(i);
                qkvo(f, p + "attention.", {"query", "key", "value", "dense"}, i, block, H, H);
                plainMlp(f, p, "ffn", "ffn_output", i, block);
                f.addVector(p + "attention.LayerNorm.weight", H);
                f.addVector(p + "full_layer_layer_norm.weight", H);
            }
        f.add("albert.embeddings.word_embeddings.weight", f.other(64, embedding));
        f.add("albert.encoder.embedding_hidden_mapping_in.weight", f.other(H, embedding));
        f.add("albert.pooler.weight", f.other(H, H));
        f.add("predictions.dense.weight", f.other(embedding, H));
        f.add("predictions.decoder.weight", f.other(64, embedding));
        f.setConfig({{"model_type", "albert"}, {"num_attention_heads", HEADS}, {"hidden_size", H}, {"embedding_size", embedding},
                     {"num_hidden_layers", 12}, {"num_hidden_groups", groups}, {"inner_group_num", inner}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // DeBERTa-v2 / v3 (modeling_deberta_v2.py): DisentangledSelfAttention "self.query_proj = nn.Linear(config.hidden_size,
    // self.all_head_size, bias=True)", key_proj, value_proj; without share_att_key also "self.pos_key_proj" (the keys of
    // the relative positions, used by c2p) and "self.pos_query_proj" (their queries, p2c): K and Q of block "position".
    // Output / intermediate dense as BERT's; ConvLayer's "nn.Conv1d" and rel_embeddings are not types.
    void debertaV2_data()
    {
        QTest::addColumn<bool>("shareAttKey");
        QTest::newRow("share_att_key (DeBERTa-v3, v2-xlarge)") << true;
        QTest::newRow("pos_key_proj, pos_query_proj") << false;
    }
    void debertaV2()
    {
        QFETCH(bool, shareAttKey);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("deberta.encoder.layer.%1.").arg(l);
            f.add(p + "attention.self.query_proj.weight", f.matrix(id(l, T::Q), H, H));
            f.add(p + "attention.self.key_proj.weight", f.matrix(id(l, T::K), H, H));
            f.add(p + "attention.self.value_proj.weight", f.matrix(id(l, T::V), H, H));
            if (!shareAttKey) {
                f.add(p + "attention.self.pos_key_proj.weight", f.matrix(id(l, T::K, "position"), H, H));
                f.add(p + "attention.self.pos_query_proj.weight", f.matrix(id(l, T::Q, "position"), H, H));
            }
            f.add(p + "attention.output.dense.weight", f.matrix(id(l, T::O), H, H));
            f.addVector(p + "attention.output.LayerNorm.weight", H);
            plainMlp(f, p, "intermediate.dense", "output.dense", l);
        }
        f.add("deberta.embeddings.word_embeddings.weight", f.other(64, H));
        f.add("deberta.encoder.rel_embeddings.weight", f.other(16, H));
        f.add3d("deberta.encoder.conv.conv.weight", QList<M>(H, f.other(H, 3)));
        f.add("lm_predictions.lm_head.dense.weight", f.other(H, H));
        f.setConfig({{"model_type", "deberta-v2"}, {"num_attention_heads", HEADS}, {"hidden_size", H}, {"relative_attention", true},
                     {"share_att_key", shareAttKey}, {"pos_att_type", QJsonArray{"p2c", "c2p"}}, {"position_buckets", 8},
                     {"conv_kernel_size", 3}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Encoders named as BERT or ViT, read by the BERT rows as they stand: ELECTRA (modeling_electra.py:
    // ElectraSelfAttention query/key/value, "self.embeddings_project = nn.Linear(config.embedding_size,
    // config.hidden_size)"), ESM-2 (modeling_esm.py: EsmSelfAttention query/key/value with rotary_embeddings,
    // EsmAttention's own LayerNorm, the contact head), BEiT (modeling_beit.py: BeitSelfAttention "self.key =
    // nn.Linear(config.hidden_size, self.all_head_size, bias=False)", relative_position_bias_table, lambda_1 / lambda_2)
    // and DeiT (modeling_deit.py: ViT's names, "distillation_token").
    void bertNamedEncoders_data()
    {
        QTest::addColumn<QString>("model");
        for (const char *model : {"electra", "esm", "beit", "deit"})
            QTest::newRow(model) << model;
    }
    void bertNamedEncoders()
    {
        QFETCH(QString, model);
        const bool vision = model == "beit" || model == "deit";
        const QString attention = vision ? "attention.attention" : "attention.self";
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("%1.encoder.layer.%2.").arg(model).arg(l);
            bertLayer(f, p, attention, l);
            if (model == "esm") {
                f.addVector(p + "attention.LayerNorm.weight", H);
                f.addVector(p + "attention.self.rotary_embeddings.inv_freq", HD / 2);
                f.addVector(p + "LayerNorm.weight", H);
            }
            if (model == "beit") {
                f.add(p + "attention.attention.relative_position_bias.relative_position_bias_table", f.other(12, HEADS));
                f.addVector(p + "lambda_1", H);
                f.addVector(p + "lambda_2", H);
            }
            if (vision)
                f.addVector(p + "layernorm_before.weight", H);
        }
        if (model == "electra") {
            f.add("electra.embeddings.word_embeddings.weight", f.other(64, 8));
            f.add("electra.embeddings_project.weight", f.other(H, 8));
            f.add("discriminator_predictions.dense.weight", f.other(H, H));
            f.add("discriminator_predictions.dense_prediction.weight", f.other(1, H));
        } else if (model == "esm") {
            f.add("esm.embeddings.word_embeddings.weight", f.other(33, H));
            f.add("esm.contact_head.regression.weight", f.other(1, LAYERS * HEADS));
            f.add("lm_head.dense.weight", f.other(H, H));
            f.add("lm_head.decoder.weight", f.other(33, H));
        } else {
            f.add3d(model + ".embeddings.cls_token", {f.other(1, H)});
            f.add("classifier.weight", f.other(10, H));
            if (model == "deit") {
                f.add3d("deit.embeddings.distillation_token", {f.other(1, H)});
                f.add3d("deit.embeddings.position_embeddings", {f.other(6, H)});
                f.add("distillation_classifier.weight", f.other(10, H));
            }
        }
        f.setConfig({{"model_type", model}, {"num_attention_heads", HEADS}, {"hidden_size", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // M2M100 (modeling_m2m_100.py): encoder and decoder layers as MBart's: self_attn, the decoder's encoder_attn
    // (block decoder-cross), "self.fc1 = nn.Linear(self.embed_dim, config.encoder_ffn_dim)", fc2.
    void m2m100()
    {
        FamilyCheckpoint f;
        bartLayers(f);
        f.add("model.shared.weight", f.other(64, H));
        f.add("model.encoder.embed_tokens.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        f.setConfig({{"model_type", "m2m_100"}, {"encoder_attention_heads", HEADS}, {"decoder_attention_heads", HEADS}, {"d_model", H}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Swin (modeling_swin.py): SwinEncoder "self.layers" of SwinStage, SwinStage "self.blocks" of SwinLayer (window
    // attention); SwinSelfAttention query/key/value, SwinSelfOutput dense (O), SwinIntermediate dense (up), SwinOutput
    // dense (down). Stage layers.S is block "stage{S+1}" (SwinConfig.stage_names), the layer is the block's index in its
    // stage; the relative position bias table and the patch merging's reduction are not types.
    void swin_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::newRow("SwinForImageClassification") << "swin.";
        QTest::newRow("SwinModel") << "";
        QTest::newRow("Donut's encoder (DonutSwinModel)") << "encoder.";
    }
    void swin()
    {
        QFETCH(QString, prefix);
        FamilyCheckpoint f;
        const int depths[] = {2, 3}, embed = 8, window = 2;
        for (int s = 0; s < 2; ++s) {
            const int dim = embed << s;
            const QString block = QStringLiteral("stage%1").arg(s + 1);
            for (int b = 0; b < depths[s]; ++b) {
                const QString p = QStringLiteral("%1encoder.layers.%2.blocks.%3.").arg(prefix).arg(s).arg(b);
                f.add(p + "attention.self.query.weight", f.matrix(id(b, T::Q, block), dim, dim));
                f.add(p + "attention.self.key.weight", f.matrix(id(b, T::K, block), dim, dim));
                f.add(p + "attention.self.value.weight", f.matrix(id(b, T::V, block), dim, dim));
                f.add(p + "attention.self.relative_position_bias_table", f.other((2 * window - 1) * (2 * window - 1), 2 << s));
                f.add(p + "attention.output.dense.weight", f.matrix(id(b, T::O, block), dim, dim));
                plainMlp(f, p, "intermediate.dense", "output.dense", b, block, 4 * dim, dim);
                f.addVector(p + "layernorm_before.weight", dim);
            }
            if (s == 0) {
                f.add(prefix + "encoder.layers.0.downsample.reduction.weight", f.other(2 * dim, 4 * dim));
                f.addVector(prefix + "encoder.layers.0.downsample.norm.weight", 4 * dim);
            }
        }
        f.add("classifier.weight", f.other(10, 2 * embed));
        f.setConfig({{"model_type", prefix == "encoder." ? "donut-swin" : "swin"}, {"embed_dim", embed}, {"depths", QJsonArray{2, 3}},
                     {"num_heads", QJsonArray{2, 4}}, {"window_size", window}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // SigLIP (modeling_siglip.py): text_model and vision_model towers of SiglipEncoderLayer (SiglipAttention q/k/v/out_proj,
    // SiglipMLP fc1/fc2, as CLIP's), and the vision tower's SiglipMultiheadAttentionPoolingHead ("self.probe",
    // "self.attention = torch.nn.MultiheadAttention(config.hidden_size, config.num_attention_heads, batch_first=True)":
    // in_proj_weight [3E, E] rows Q|K|V and out_proj; "self.mlp = SiglipMLP(config)"), in no numbered layer: block
    // vision-head, layer 0. With or without the head (whose prefix names no stack) the towers are text and vision, as
    // CLIP's. The text tower's "self.head = nn.Linear(embed_dim,
    // embed_dim)" is a projection, not a type.
    void siglip_data()
    {
        QTest::addColumn<bool>("text");
        QTest::addColumn<bool>("head");
        QTest::newRow("SiglipModel") << true << true;
        QTest::newRow("SiglipVisionModel") << false << true;
        QTest::newRow("vision_use_head false") << true << false;
    }
    void siglip()
    {
        QFETCH(bool, text);
        QFETCH(bool, head);
        FamilyCheckpoint f;
        QList<std::pair<QString, QString>> towers;
        if (text)
            towers << std::pair{QStringLiteral("text_model"), QStringLiteral("text")};
        towers << std::pair{QStringLiteral("vision_model"), head || text ? QStringLiteral("vision") : QString()};
        for (const auto &[tower, block] : towers)
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("%1.encoder.layers.%2.").arg(tower).arg(l);
                clipLayer(f, p, l, block);
                f.addVector(p + "layer_norm1.weight", H);
            }
        if (text) {
            f.add("text_model.embeddings.token_embedding.weight", f.other(64, H));
            f.add("text_model.embeddings.position_embedding.weight", f.other(8, H));
            f.add("text_model.head.weight", f.other(H, H));
        }
        f.add("vision_model.embeddings.position_embedding.weight", f.other(4, H));
        if (head) {
            const QString block = "vision-head";
            f.add3d("vision_model.head.probe", {f.other(1, H)});
            f.add("vision_model.head.attention.in_proj_weight", stackRows(qkv(f, 0, block)));
            f.add("vision_model.head.attention.out_proj.weight", f.matrix(id(0, T::O, block), H, H));
            f.addVector("vision_model.head.layernorm.weight", H);
            plainMlp(f, "vision_model.head.mlp.", "fc1", "fc2", 0, block);
        }
        f.setConfig({{"model_type", text ? "siglip" : "siglip_vision_model"}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // DINOv2 (HF modeling_dinov2.py): ViT's attention names; Dinov2MLP fc1 / fc2, or Dinov2SwiGLUFFN "self.weights_in =
    // nn.Linear(in_features, 2 * hidden_features, bias=True)" cut as "x1, x2 = hidden_state.chunk(2, dim=-1); hidden =
    // nn.functional.silu(x1) * x2" ([gate; up]) and "self.weights_out" (down); layer_scale lambda1 is not a matrix.
    void dinov2Hf_data()
    {
        QTest::addColumn<bool>("swiglu");
        QTest::newRow("Dinov2MLP") << false;
        QTest::newRow("Dinov2SwiGLUFFN (use_swiglu_ffn)") << true;
    }
    void dinov2Hf()
    {
        QFETCH(bool, swiglu);
        FamilyCheckpoint f;
        const int hidden = 16; // SwiGLU's hidden_features
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("dinov2.encoder.layer.%1.").arg(l);
            qkvo(f, p, bertLeaves("attention.attention"), l, {}, H, H);
            if (swiglu) {
                f.add(p + "mlp.weights_in.weight", stackRows({f.matrix(id(l, T::MlpGate), hidden, H), f.matrix(id(l, T::MlpUp), hidden, H)}));
                f.add(p + "mlp.weights_out.weight", f.matrix(id(l, T::MlpDown), H, hidden));
            } else {
                plainMlp(f, p + "mlp.", "fc1", "fc2", l);
            }
            f.addVector(p + "layer_scale1.lambda1", H);
            f.addVector(p + "layer_scale2.lambda1", H);
            f.addVector(p + "norm1.weight", H);
        }
        f.add3d("dinov2.embeddings.cls_token", {f.other(1, H)});
        f.add("dinov2.embeddings.mask_token", f.other(1, H));
        f.add3d("dinov2.embeddings.position_embeddings", {f.other(5, H)});
        f.setConfig({{"model_type", "dinov2"}, {"num_attention_heads", HEADS}, {"hidden_size", H}, {"use_swiglu_ffn", swiglu}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Wav2Vec2 (modeling_wav2vec2.py): Wav2Vec2EncoderLayer "self.attention = Wav2Vec2Attention(…)" (BART's "self.k_proj
    // = nn.Linear(embed_dim, embed_dim, bias=bias)", v_proj, q_proj, out_proj) and "self.feed_forward =
    // Wav2Vec2FeedForward(config)" ("self.intermediate_dense = nn.Linear(config.hidden_size, config.intermediate_size)",
    // output_dense). The convolutional feature encoder, the weight-normed positional convolution, the feature projection
    // and the pretraining quantizer are not types.
    void wav2vec2()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("wav2vec2.encoder.layers.%1.").arg(l);
            qkvo(f, p + "attention.", outProjLeaves, l, {}, H, H);
            plainMlp(f, p + "feed_forward.", "intermediate_dense", "output_dense", l);
            f.addVector(p + "layer_norm.weight", H);
            f.addVector(p + "final_layer_norm.weight", H);
        }
        for (int c = 0; c < 2; ++c)
            f.add3d(QStringLiteral("wav2vec2.feature_extractor.conv_layers.%1.conv.weight").arg(c), QList<M>(8, f.other(c == 0 ? 1 : 8, 3)));
        f.add3d("wav2vec2.encoder.pos_conv_embed.conv.weight_g", {f.other(1, 4)});
        f.add3d("wav2vec2.encoder.pos_conv_embed.conv.weight_v", QList<M>(H, f.other(H / 2, 4)));
        f.add("wav2vec2.feature_projection.projection.weight", f.other(H, 8));
        f.add3d("quantizer.codevectors", {f.other(8, 4)});
        f.add("quantizer.weight_proj.weight", f.other(8, 8));
        f.add("project_hid.weight", f.other(4, H));
        f.add("project_q.weight", f.other(4, 4));
        f.setConfig({{"model_type", "wav2vec2"}, {"num_attention_heads", HEADS}, {"hidden_size", H}, {"conv_dim", QJsonArray{8, 8}}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // SAM's vision encoder: transformers (modeling_sam.py) SamVisionEncoder "self.layers", SamVisionAttention "self.qkv =
    // nn.Linear(config.hidden_size, config.hidden_size * 3, bias=config.qkv_bias)", cut as forward()'s "qkv =
    // self.qkv(hidden_states).reshape(B, H * W, 3, self.num_attention_heads, -1)" ([Q; K; V]), "self.proj", SamMLPBlock
    // "self.lin1 = nn.Linear(config.hidden_size, config.mlp_dim)", lin2; and segment-anything's own (image_encoder.py:
    // ImageEncoderViT "self.blocks", Attention "self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)", "self.proj";
    // common.py MLPBlock lin1 / lin2). The decomposed relative position tables rel_pos_h / rel_pos_w are not types.
    // The whole model adds the mask decoder (SamTwoWayAttentionBlock / TwoWayAttentionBlock): self_attn,
    // "self.cross_attn_token_to_image" and "self.cross_attn_image_to_token" (q/k/v/out_proj with internal_dim =
    // hidden_size // downsample_rate: cross blocks of their own), mlp lin1 / lin2, and the TwoWayTransformer's
    // "self.final_attn_token_to_image" after the last layer (layer 0 of its own block); the hypernetwork and IoU MLPs
    // (SamFeedForward proj_in / layers / proj_out, segment-anything's MLP layers) are prediction heads.
    void sam_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<bool>("whole");
        QTest::newRow("transformers SamVisionModel") << "vision_encoder.layers." << false;
        QTest::newRow("transformers SamModel") << "vision_encoder.layers." << true;
        QTest::newRow("segment-anything image encoder") << "image_encoder.blocks." << false;
        QTest::newRow("segment-anything Sam") << "image_encoder.blocks." << true;
    }
    void sam()
    {
        QFETCH(QString, prefix);
        QFETCH(bool, whole);
        const bool hf = prefix.startsWith("vision_encoder");
        const QString vision = whole ? "vision-encoder" : "";
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = prefix + QString::number(l) + ".";
            f.add(p + "attn.qkv.weight", stackRows(qkv(f, l, vision)));
            f.add(p + "attn.proj.weight", f.matrix(id(l, T::O, vision), H, H));
            f.add(p + "attn.rel_pos_h", f.other(7, HD));
            f.add(p + "attn.rel_pos_w", f.other(7, HD));
            plainMlp(f, p + "mlp.", "lin1", "lin2", l, vision);
            f.addVector(p + (hf ? "layer_norm1.weight" : "norm1.weight"), H);
        }
        if (whole) {
            const int inner = H / 2; // attention_downsample_rate 2
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("mask_decoder.transformer.layers.%1.").arg(l);
                qkvo(f, p + "self_attn.", outProjLeaves, l, "decoder", H, H);
                qkvo(f, p + "cross_attn_token_to_image.", outProjLeaves, l, "decoder-token-to-image-cross", inner, inner);
                qkvo(f, p + "cross_attn_image_to_token.", outProjLeaves, l, "decoder-image-to-token-cross", inner, inner);
                plainMlp(f, p + "mlp.", "lin1", "lin2", l, "decoder");
                f.addVector(p + (hf ? "layer_norm1.weight" : "norm1.weight"), H);
            }
            qkvo(f, "mask_decoder.transformer.final_attn_token_to_image.", outProjLeaves, 0, "decoder-final-token-to-image-cross", inner, inner);
            f.add("mask_decoder.iou_token.weight", f.other(1, H));
            f.add("mask_decoder.mask_tokens.weight", f.other(4, H));
            for (int m = 0; m < 4; ++m) {
                const QString p = QStringLiteral("mask_decoder.output_hypernetworks_mlps.%1.").arg(m);
                if (hf) {
                    f.add(p + "proj_in.weight", f.other(H, H));
                    f.add(p + "layers.0.weight", f.other(H, H));
                    f.add(p + "proj_out.weight", f.other(H / 8, H));
                } else {
                    f.add(p + "layers.0.weight", f.other(H, H));
                    f.add(p + "layers.1.weight", f.other(H, H));
                    f.add(p + "layers.2.weight", f.other(H / 8, H));
                }
            }
            f.add(QString("mask_decoder.iou_prediction_head.") + (hf ? "proj_in.weight" : "layers.0.weight"), f.other(8, H));
            f.add(QString("mask_decoder.iou_prediction_head.") + (hf ? "layers.0.weight" : "layers.1.weight"), f.other(8, 8));
            f.add(QString("mask_decoder.iou_prediction_head.") + (hf ? "proj_out.weight" : "layers.2.weight"), f.other(4, 8));
            if (hf) {
                f.add("shared_image_embedding.positional_embedding", f.other(2, H / 2));
                f.add("prompt_encoder.point_embed.0.weight", f.other(1, H));
            } else {
                f.add("prompt_encoder.pe_layer.positional_encoding_gaussian_matrix", f.other(2, H / 2));
                f.add("prompt_encoder.point_embeddings.0.weight", f.other(1, H));
            }
            f.add("prompt_encoder.no_mask_embed.weight", f.other(1, H));
        }
        if (hf)
            f.setConfig({{"model_type", whole ? "sam" : "sam_vision_model"}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // LLaVA (modeling_llava.py): "self.vision_tower = AutoModel.from_config(config.vision_config)" (CLIP's vision model),
    // "self.multi_modal_projector = LlavaMultiModalProjector(config)", "self.language_model =
    // AutoModelForCausalLM.from_config(config.text_config)"; newer transformers save them as model.vision_tower,
    // model.multi_modal_projector, model.language_model (its _checkpoint_conversion_mapping). The tower, the projector
    // (LlavaMultiModalProjector linear_1, act, linear_2: up and down, in no numbered layer: layer 0) and the language
    // model are blocks of their own.
    void llava_data()
    {
        QTest::addColumn<QString>("modelType");
        QTest::addColumn<QString>("vision");
        QTest::addColumn<QString>("language");
        QTest::newRow("Hub layout") << "llava" << "vision_tower.vision_model.encoder.layers." << "language_model.model.layers.";
        QTest::newRow("LlavaModel (model.*)") << "llava" << "model.vision_tower.vision_model.encoder.layers." << "model.language_model.layers.";
        QTest::newRow("LLaVA-NeXT") << "llava_next" << "vision_tower.vision_model.encoder.layers." << "language_model.model.layers.";
    }
    void llava()
    {
        QFETCH(QString, modelType);
        QFETCH(QString, vision);
        QFETCH(QString, language);
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = vision + QString::number(l) + ".";
            clipLayer(f, p, l, "vision");
            const QString q = language + QString::number(l) + ".";
            qkvo(f, q + "self_attn.", projLeaves, l, "text", HEADS * HD, KV * HD);
            gatedMlp(f, q + "mlp.", projMlp, l, "text");
        }
        const QString top = vision.startsWith("model.") ? "model." : "";
        f.add(top + "vision_tower.vision_model.embeddings.position_embedding.weight", f.other(5, H));
        f.add(language.startsWith("model.") ? "model.language_model.embed_tokens.weight" : "language_model.model.embed_tokens.weight", f.other(64, H));
        f.add(top.isEmpty() ? "language_model.lm_head.weight" : "lm_head.weight", f.other(64, H));
        plainMlp(f, top + "multi_modal_projector.", "linear_1", "linear_2", 0, "projector", H);
        f.setConfig({{"model_type", modelType}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // Mamba-2: in_proj rows [z; x; B; C; dt] (cutMamba2InProj quotes transformers' Mamba2Mixer and mamba_ssm's Mamba2):
    // z the gate and x the up projection, as Mamba's; B, C and dt (the scan's parameters) are not typed; out_proj the
    // down projection. The depthwise conv1d, A_log, D, dt_bias and the gated norm are not matrices.
    void mamba2_data()
    {
        QTest::addColumn<bool>("hfConfig");
        QTest::newRow("transformers Mamba2 (n_groups, state_size, num_heads)") << true;
        QTest::newRow("mamba_ssm (config without the sizes)") << false;
    }
    void mamba2()
    {
        QFETCH(bool, hfConfig);
        FamilyCheckpoint f;
        const int inner = 2 * H, groups = 2, state = 4, heads = 4; // head_dim 8
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("backbone.layers.%1.mixer.").arg(l);
            const M z = f.matrix(id(l, T::MlpGate), inner, H), x = f.matrix(id(l, T::MlpUp), inner, H);
            f.add(p + "in_proj.weight", stackRows({z, x, f.other(groups * state, H), f.other(groups * state, H), f.other(heads, H)}));
            f.add(p + "out_proj.weight", f.matrix(id(l, T::MlpDown), H, inner));
            f.add3d(p + "conv1d.weight", QList<M>(inner + 2 * groups * state, f.other(1, 4)));
            f.addVector(p + "A_log", heads);
            f.addVector(p + "D", heads);
            f.addVector(p + "dt_bias", heads);
            f.addVector(p + "norm.weight", inner);
            f.addVector(QStringLiteral("backbone.layers.%1.norm.weight").arg(l), H);
        }
        f.add("backbone.embeddings.weight", f.other(64, H));
        f.add("lm_head.weight", f.other(64, H));
        if (hfConfig)
            f.setConfig({{"model_type", "mamba2"}, {"hidden_size", H}, {"expand", 2}, {"n_groups", groups}, {"state_size", state},
                         {"num_heads", heads}, {"head_dim", 8}});
        else
            f.setConfig({{"d_model", H}, {"n_layer", LAYERS}, {"ssm_cfg", QJsonObject{{"layer", "Mamba2"}}}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // A Mamba-2 in_proj whose rows do not add up to the config's sizes is reported, not split.
    void mamba2ThatContradictsTheConfigIsReported()
    {
        FamilyCheckpoint f;
        const QString p = "backbone.layers.0.mixer.";
        f.add(p + "in_proj.weight", f.other(4 * H + 8, H));
        f.add(p + "out_proj.weight", f.matrix(id(0, T::MlpDown), H, 2 * H));
        f.addVector(p + "dt_bias", 4);
        f.setConfig({{"model_type", "mamba2"}, {"n_groups", 1}, {"state_size", 4}, {"num_heads", 4}});
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("in_proj") && reported[0].contains("dt (4)"), qPrintable(reported[0]));
    }

    // Rows kept to the model types whose source was read: SAM's layers.N.attn.qkv in another model is reported
    // (a fused tensor no family rule splits), not cut in thirds.
    void samQkvRowNeedsSamModelType()
    {
        FamilyCheckpoint f;
        f.add("vision_encoder.layers.0.attn.qkv.weight", f.other(3 * H, H));
        f.add("vision_encoder.layers.0.mlp.lin1.weight", f.matrix(id(0, T::MlpUp), FF, H));
        f.setConfig({{"model_type", "some_other_vit"}});
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].startsWith("vision_encoder.layers.0.attn.qkv.weight"), qPrintable(reported[0]));
    }

    // Mamba-1 as saved (HF and mamba_ssm): the depthwise "self.conv1d = nn.Conv1d(…, groups=self.intermediate_size)"
    // [inner, 1, kernel] is a convolution, not an unknown attention/MLP weight (the generic pass says so).
    void mambaConv1dIsNotReported()
    {
        FamilyCheckpoint f;
        const int inner = 2 * H;
        mambaMixers(f, inner, true);
        f.setConfig({{"model_type", "mamba"}, {"hidden_size", H}, {"intermediate_size", inner}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // A split that does not fit the config is refused, not guessed.
    void layoutThatContradictsTheConfigIsReported()
    {
        FamilyCheckpoint f;
        f.add("transformer.h.0.self_attention.query_key_value.weight", f.other(H + 2 * HD, H)); // multi-query rows
        f.add("transformer.h.0.self_attention.dense.weight", f.matrix(id(0, T::O), H, H));
        f.setConfig({{"model_type", "falcon"}, {"num_attention_heads", HEADS}, {"new_decoder_architecture", true}, {"num_kv_heads", KV}});
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("config says 2"), qPrintable(reported[0]));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestArchitectureFamilies)
} // namespace tst_architecturefamilies

#include "tst_ArchitectureFamilies.moc"
