// Every matrix of every family: a tiny checkpoint with the family's exact state_dict names and config
// keys (read from its source; docs/naming-rules.md cites them), fused tensors assembled as its
// forward() splits them, analysed end to end. Each matrix must come out once, with its block, layer,
// type, expert, shape and stable rank; anything attention/MLP-like not analysed must be reported.
#include "FamilyCheckpoint.h"

#include <QJsonArray>

using namespace rankscope;
using namespace rankscope::test;

namespace {

using T = MatrixType;
using M = Eigen::MatrixXd;
constexpr int H = 16, HEADS = 4, HD = 4, KV = 2, FF = 24, LAYERS = 2;

MatrixIdentity id(int layer, T type, const QString &block = {}, const QString &expert = {}) { return {block, layer, type, expert}; }

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

// LLaMA-style layers: self_attn.{q,k,v,o}_proj and mlp.{gate,up,down}_proj.
void llamaLayers(FamilyCheckpoint &f, const QString &prefix, int headDim = HD)
{
    for (int l = 0; l < LAYERS; ++l) {
        const QString p = QStringLiteral("%1layers.%2.").arg(prefix).arg(l);
        f.add(p + "self_attn.q_proj.weight", f.matrix(id(l, T::Q), HEADS * headDim, H));
        f.add(p + "self_attn.k_proj.weight", f.matrix(id(l, T::K), KV * headDim, H));
        f.add(p + "self_attn.v_proj.weight", f.matrix(id(l, T::V), KV * headDim, H));
        f.add(p + "self_attn.o_proj.weight", f.matrix(id(l, T::O), H, HEADS * headDim));
        f.add(p + "mlp.gate_proj.weight", f.matrix(id(l, T::MlpGate), FF, H));
        f.add(p + "mlp.up_proj.weight", f.matrix(id(l, T::MlpUp), FF, H));
        f.add(p + "mlp.down_proj.weight", f.matrix(id(l, T::MlpDown), H, FF));
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
            f.add(p + "attention.wq.weight", f.matrix(id(l, T::Q), H, H));
            f.add(p + "attention.wk.weight", f.matrix(id(l, T::K), KV * HD, H));
            f.add(p + "attention.wv.weight", f.matrix(id(l, T::V), KV * HD, H));
            f.add(p + "attention.wo.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "feed_forward.w1.weight", f.matrix(id(l, T::MlpGate), FF, H));
            f.add(p + "feed_forward.w3.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "feed_forward.w2.weight", f.matrix(id(l, T::MlpDown), H, FF));
        }
        f.add("tok_embeddings.weight", f.other(64, H));
        f.add("output.weight", f.other(64, H));
        VERIFY_CLEAN(f, f.analyse());
    }

    void gptJ()
    {
        FamilyCheckpoint f;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            f.add(p + "attn.q_proj.weight", f.matrix(id(l, T::Q), H, H));
            f.add(p + "attn.k_proj.weight", f.matrix(id(l, T::K), H, H));
            f.add(p + "attn.v_proj.weight", f.matrix(id(l, T::V), H, H));
            f.add(p + "attn.out_proj.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.fc_in.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "mlp.fc_out.weight", f.matrix(id(l, T::MlpDown), H, FF));
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
            const M q = f.matrix(id(l, T::Q), H, H), k = f.matrix(id(l, T::K), H, H), v = f.matrix(id(l, T::V), H, H);
            f.add(p + "attention.query_key_value.weight", interleaveRows({q, k, v}, {HD, HD, HD}, HEADS));
            f.add(p + "attention.dense.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.dense_h_to_4h.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "mlp.dense_4h_to_h.weight", f.matrix(id(l, T::MlpDown), H, FF));
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
            const M q = f.matrix(id(l, T::Q), H, H), k = f.matrix(id(l, T::K), kv * HD, H), v = f.matrix(id(l, T::V), kv * HD, H);
            f.add(p + "self_attention.query_key_value.weight", interleaveRows({q, k, v}, {perGroup * HD, HD, HD}, kv));
            f.add(p + "self_attention.dense.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.dense_h_to_4h.weight", f.matrix(id(l, T::MlpUp), 4 * H, H));
            f.add(p + "mlp.dense_4h_to_h.weight", f.matrix(id(l, T::MlpDown), H, 4 * H));
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
            const M q = f.matrix(id(l, T::Q), H, H), k = f.matrix(id(l, T::K), H, H), v = f.matrix(id(l, T::V), H, H);
            f.add(p + "self_attention.query_key_value.weight", interleaveRows({q, k, v}, {HD, HD, HD}, HEADS));
            f.add(p + "self_attention.dense.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.dense_h_to_4h.weight", f.matrix(id(l, T::MlpUp), 4 * H, H));
            f.add(p + "mlp.dense_4h_to_h.weight", f.matrix(id(l, T::MlpDown), H, 4 * H));
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
            f.add(p + "self_attn.q_proj.weight", f.matrix(id(l, T::Q), H, H));
            f.add(p + "self_attn.k_proj.weight", f.matrix(id(l, T::K), H, H));
            f.add(p + "self_attn.v_proj.weight", f.matrix(id(l, T::V), H, H));
            f.add(p + "self_attn.out_proj.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "fc1.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "fc2.weight", f.matrix(id(l, T::MlpDown), H, FF));
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
            const M q = f.matrix(id(l, T::Q), H, H), k = f.matrix(id(l, T::K), kvRows, H), v = f.matrix(id(l, T::V), kvRows, H);
            f.add(p + "attn.c_attn.weight", multiQuery ? stackRows({q, k, v}) : interleaveRows({q, k, v}, {HD, HD, HD}, HEADS));
            f.add(p + "attn.c_proj.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.c_fc.weight", f.matrix(id(l, T::MlpUp), 4 * H, H));
            f.add(p + "mlp.c_proj.weight", f.matrix(id(l, T::MlpDown), H, 4 * H));
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

    // A [3C, C] c_attn with nothing to say whether it is nanoGPT's or GPT-BigCode's: not split, reported.
    void ambiguousCAttnIsReported()
    {
        FamilyCheckpoint f;
        f.add("transformer.h.0.attn.c_attn.weight", f.other(3 * H, H));
        f.add("transformer.h.0.attn.c_proj.weight", f.matrix(id(0, T::O), H, H));
        const QStringList reported = verify(f, f.analyse());
        QCOMPARE(reported.size(), 1);
        QVERIFY2(reported[0].contains("model_type"), qPrintable(reported[0]));
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
            f.add(p + "attn.Wqkv.weight", stackRows({f.matrix(id(l, T::Q), H, H), f.matrix(id(l, T::K), kv * HD, H), f.matrix(id(l, T::V), kv * HD, H)}));
            f.add(p + "attn.out_proj.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "ffn.up_proj.weight", f.matrix(id(l, T::MlpUp), 4 * H, H));
            f.add(p + "ffn.down_proj.weight", f.matrix(id(l, T::MlpDown), H, 4 * H));
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
            f.add(p + "self_attn.q_proj.weight", f.matrix(id(l, T::Q), H, H));
            f.add(p + "self_attn.k_proj.weight", f.matrix(id(l, T::K), H, H));
            f.add(p + "self_attn.v_proj.weight", f.matrix(id(l, T::V), H, H));
            f.add(p + "self_attn.dense.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.fc1.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "mlp.fc2.weight", f.matrix(id(l, T::MlpDown), H, FF));
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
            f.add(p + "mixer.Wqkv.weight", stackRows({f.matrix(id(l, T::Q), H, H), f.matrix(id(l, T::K), H, H), f.matrix(id(l, T::V), H, H)}));
            f.add(p + "mixer.out_proj.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "mlp.fc1.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "mlp.fc2.weight", f.matrix(id(l, T::MlpDown), H, FF));
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
            f.add(p + "self_attn.qkv_proj.weight", stackRows({f.matrix(id(l, T::Q), H, H), f.matrix(id(l, T::K), KV * HD, H), f.matrix(id(l, T::V), KV * HD, H)}));
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
            f.add(p + "att_proj.weight", stackRows({f.matrix(id(l, T::Q), H, H), f.matrix(id(l, T::K), KV * HD, H), f.matrix(id(l, T::V), KV * HD, H)}));
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
            for (int e = 0; e < 3; ++e) {
                const QString x = QString::number(e);
                moe.add(p + "block_sparse_moe.experts." + x + ".w1.weight", moe.matrix(id(l, T::MlpGate, {}, x), FF, H));
                moe.add(p + "block_sparse_moe.experts." + x + ".w3.weight", moe.matrix(id(l, T::MlpUp, {}, x), FF, H));
                moe.add(p + "block_sparse_moe.experts." + x + ".w2.weight", moe.matrix(id(l, T::MlpDown, {}, x), H, FF));
            }
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
                f.add(p + "mlp.gate_proj.weight", f.matrix(id(l, T::MlpGate), FF, H));
                f.add(p + "mlp.up_proj.weight", f.matrix(id(l, T::MlpUp), FF, H));
                f.add(p + "mlp.down_proj.weight", f.matrix(id(l, T::MlpDown), H, FF));
                continue;
            }
            for (int e = 0; e < 4; ++e) {
                const QString x = QString::number(e);
                f.add(p + "mlp.experts." + x + ".gate_proj.weight", f.matrix(id(l, T::MlpGate, {}, x), 8, H));
                f.add(p + "mlp.experts." + x + ".up_proj.weight", f.matrix(id(l, T::MlpUp, {}, x), 8, H));
                f.add(p + "mlp.experts." + x + ".down_proj.weight", f.matrix(id(l, T::MlpDown, {}, x), H, 8));
            }
            f.add(p + "mlp.shared_expert.gate_proj.weight", f.matrix(id(l, T::MlpGate, {}, "shared"), FF, H));
            f.add(p + "mlp.shared_expert.up_proj.weight", f.matrix(id(l, T::MlpUp, {}, "shared"), FF, H));
            f.add(p + "mlp.shared_expert.down_proj.weight", f.matrix(id(l, T::MlpDown, {}, "shared"), H, FF));
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
            QList<M> gateUp, down;
            for (int e = 0; e < experts; ++e) {
                const QString x = QString::number(e);
                gateUp << stackRows({f.matrix(id(l, T::MlpGate, {}, x), inner, H), f.matrix(id(l, T::MlpUp, {}, x), inner, H)});
                down << f.matrix(id(l, T::MlpDown, {}, x), H, inner);
            }
            f.add3d(p + "mlp.experts.gate_up_proj", gateUp);
            f.add3d(p + "mlp.experts.down_proj", down);
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
                f.add(p + "mlp.gate_proj.weight", f.matrix(id(l, T::MlpGate), FF, H));
                f.add(p + "mlp.up_proj.weight", f.matrix(id(l, T::MlpUp), FF, H));
                f.add(p + "mlp.down_proj.weight", f.matrix(id(l, T::MlpDown), H, FF));
                continue;
            }
            for (int e = 0; e < 2; ++e) {
                const QString x = QString::number(e);
                f.add(p + "mlp.experts." + x + ".gate_proj.weight", f.matrix(id(l, T::MlpGate, block({}), x), inner, H));
                f.add(p + "mlp.experts." + x + ".up_proj.weight", f.matrix(id(l, T::MlpUp, block({}), x), inner, H));
                f.add(p + "mlp.experts." + x + ".down_proj.weight", f.matrix(id(l, T::MlpDown, block({}), x), H, inner));
            }
            f.add(p + "mlp.shared_experts.gate_proj.weight", f.matrix(id(l, T::MlpGate, block({}), "shared"), inner, H));
            f.add(p + "mlp.shared_experts.up_proj.weight", f.matrix(id(l, T::MlpUp, block({}), "shared"), inner, H));
            f.add(p + "mlp.shared_experts.down_proj.weight", f.matrix(id(l, T::MlpDown, block({}), "shared"), H, inner));
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
                f.add(p + "0.SelfAttention.q.weight", f.matrix(id(l, T::Q, stack), inner, H));
                f.add(p + "0.SelfAttention.k.weight", f.matrix(id(l, T::K, stack), inner, H));
                f.add(p + "0.SelfAttention.v.weight", f.matrix(id(l, T::V, stack), inner, H));
                f.add(p + "0.SelfAttention.o.weight", f.matrix(id(l, T::O, stack), H, inner));
                if (l == 0)
                    f.add(p + "0.SelfAttention.relative_attention_bias.weight", f.other(32, HEADS));
                const QString mlp = stack == "encoder" ? "1" : "2";
                if (stack == "decoder") {
                    const QString cross = "decoder-cross";
                    f.add(p + "1.EncDecAttention.q.weight", f.matrix(id(l, T::Q, cross), inner, H));
                    f.add(p + "1.EncDecAttention.k.weight", f.matrix(id(l, T::K, cross), inner, H));
                    f.add(p + "1.EncDecAttention.v.weight", f.matrix(id(l, T::V, cross), inner, H));
                    f.add(p + "1.EncDecAttention.o.weight", f.matrix(id(l, T::O, cross), H, inner));
                }
                f.add(p + mlp + ".DenseReluDense.wi_0.weight", f.matrix(id(l, T::MlpGate, stack), FF, H));
                f.add(p + mlp + ".DenseReluDense.wi_1.weight", f.matrix(id(l, T::MlpUp, stack), FF, H));
                f.add(p + mlp + ".DenseReluDense.wo.weight", f.matrix(id(l, T::MlpDown, stack), H, FF));
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
        for (const QString stack : {"encoder", "decoder"})
            for (int l = 0; l < LAYERS; ++l) {
                const QString p = QStringLiteral("model.%1.layers.%2.").arg(stack).arg(l);
                for (const auto &[leaf, type] : {std::pair{"q_proj", T::Q}, {"k_proj", T::K}, {"v_proj", T::V}, {"out_proj", T::O}}) {
                    f.add(p + "self_attn." + leaf + ".weight", f.matrix(id(l, type, stack), H, H));
                    if (stack == "decoder")
                        f.add(p + "encoder_attn." + leaf + ".weight", f.matrix(id(l, type, "decoder-cross"), H, H));
                }
                f.add(p + "fc1.weight", f.matrix(id(l, T::MlpUp, stack), FF, H));
                f.add(p + "fc2.weight", f.matrix(id(l, T::MlpDown, stack), H, FF));
            }
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
            f.add(p + attention + ".query.weight", f.matrix(id(l, T::Q), H, H));
            f.add(p + attention + ".key.weight", f.matrix(id(l, T::K), H, H));
            f.add(p + attention + ".value.weight", f.matrix(id(l, T::V), H, H));
            f.add(p + "attention.output.dense.weight", f.matrix(id(l, T::O), H, H));
            f.add(p + "intermediate.dense.weight", f.matrix(id(l, T::MlpUp), FF, H));
            f.add(p + "output.dense.weight", f.matrix(id(l, T::MlpDown), H, FF));
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
            f.add(p + "attn.qkv.weight", stackRows({f.matrix(id(l, T::Q), H, H), f.matrix(id(l, T::K), H, H), f.matrix(id(l, T::V), H, H)}));
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
                for (const auto &[leaf, type] : {std::pair{"q_proj", T::Q}, {"k_proj", T::K}, {"v_proj", T::V}, {"out_proj", T::O}})
                    f.add(p + "self_attn." + leaf + ".weight", f.matrix(id(l, type, block), H, H));
                f.add(p + "mlp.fc1.weight", f.matrix(id(l, T::MlpUp, block), FF, H));
                f.add(p + "mlp.fc2.weight", f.matrix(id(l, T::MlpDown, block), H, FF));
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
                f.add(p + "attn.in_proj_weight", stackRows({f.matrix(id(l, T::Q, block), H, H), f.matrix(id(l, T::K, block), H, H),
                                                            f.matrix(id(l, T::V, block), H, H)}));
                f.add(p + "attn.out_proj.weight", f.matrix(id(l, T::O, block), H, H));
                f.add(p + "mlp.c_fc.weight", f.matrix(id(l, T::MlpUp, block), 4 * H, H));
                f.add(p + "mlp.c_proj.weight", f.matrix(id(l, T::MlpDown, block), H, 4 * H));
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
                f.add(p + "self_attn.in_proj_weight", stackRows({f.matrix(id(l, T::Q, stack), H, H), f.matrix(id(l, T::K, stack), H, H),
                                                                 f.matrix(id(l, T::V, stack), H, H)}));
                f.add(p + "self_attn.out_proj.weight", f.matrix(id(l, T::O, stack), H, H));
                if (stack != "encoder") {
                    const QString cross = stack.isEmpty() ? "cross" : stack + "-cross";
                    f.add(p + "multihead_attn.in_proj_weight", stackRows({f.matrix(id(l, T::Q, cross), H, H), f.matrix(id(l, T::K, cross), H, H),
                                                                          f.matrix(id(l, T::V, cross), H, H)}));
                    f.add(p + "multihead_attn.out_proj.weight", f.matrix(id(l, T::O, cross), H, H));
                }
                f.add(p + "linear1.weight", f.matrix(id(l, T::MlpUp, stack), FF, H));
                f.add(p + "linear2.weight", f.matrix(id(l, T::MlpDown, stack), H, FF));
            }
        VERIFY_CLEAN(f, f.analyse());
    }

    // Mamba: in_proj rows [x; z] (chunk(2)): x the up projection, z the gate; out_proj down;
    // x_proj and dt_proj are scan parameters, not types.
    void mamba()
    {
        FamilyCheckpoint f;
        const int inner = 2 * H;
        for (int l = 0; l < LAYERS; ++l) {
            const QString p = QStringLiteral("backbone.layers.%1.mixer.").arg(l);
            f.add(p + "in_proj.weight", stackRows({f.matrix(id(l, T::MlpUp), inner, H), f.matrix(id(l, T::MlpGate), inner, H)}));
            f.add(p + "out_proj.weight", f.matrix(id(l, T::MlpDown), H, inner));
            f.add(p + "x_proj.weight", f.other(6, inner));
            f.add(p + "dt_proj.weight", f.other(inner, 2));
            f.add(p + "A_log", f.other(inner, 4));
        }
        f.add("backbone.embeddings.weight", f.other(64, H));
        f.setConfig({{"model_type", "mamba"}, {"hidden_size", H}, {"intermediate_size", inner}});
        VERIFY_CLEAN(f, f.analyse());
    }

    // A model no rule knows: its attention/MLP-looking tensors are each reported, with the model named.
    void unknownModelIsReported()
    {
        FamilyCheckpoint f;
        f.add("transformer.encoder.layers.0.self_attention.query_key_value.weight", f.other(3 * H, H));
        f.add("transformer.encoder.layers.0.mlp.dense_h_to_4h.weight", f.other(2 * FF, H));
        f.add("transformer.embedding.word_embeddings.weight", f.other(64, H));
        f.setConfig({{"model_type", "chatglm"}, {"architectures", QJsonArray{"ChatGLMModel"}}});
        const RunAnalysis run = f.analyse();
        QVERIFY(run.results.isEmpty());
        QStringList tensors;
        for (const AnalysisIssue &issue : run.issues)
            if (!issue.wholeFile) {
                tensors << issue.tensor;
                QVERIFY2(issue.message.contains("model_type chatglm"), qPrintable(issue.message));
            }
        tensors.sort();
        QCOMPARE(tensors, (QStringList{"transformer.encoder.layers.0.mlp.dense_h_to_4h.weight",
                                       "transformer.encoder.layers.0.self_attention.query_key_value.weight"}));
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

QTEST_GUILESS_MAIN(TestArchitectureFamilies)
#include "tst_ArchitectureFamilies.moc"
