#include "model/GenericTyping.h"
#include "TestSuite.h"

#include "model/MatrixIdentity.h"

namespace tst_generictyping {

using namespace rankscope;

namespace {

using Kind = GenericVerdict::Kind;
using T = MatrixType;

constexpr int kNoType = -1;

QList<qint64> matrix() { return {64, 32}; }

} // namespace

class TestGenericTyping : public QObject {
    Q_OBJECT

    // A row: the tensor (a 64×32 float32 matrix unless shape or dtype say otherwise), the sibling
    // tensors the checkpoint holds, and the verdict.
    struct Row {
        Row(const char *name, const QList<qint64> &shape = matrix(), const char *dtype = "float32", const QStringList &siblings = {})
            : name(QLatin1String(name)), shape(shape), dtype(QLatin1String(dtype)), siblings(siblings)
        {
        }
        QString name;
        QList<qint64> shape;
        QString dtype;
        QStringList siblings;
    };

    static void typed(const char *tag, const Row &row, T type, int layer, const QString &stack = {}, const QString &expert = {}, bool cross = false)
    {
        QTest::newRow(tag) << row.name << row.shape << row.dtype << row.siblings << int(Kind::Typed) << QString() << int(type) << layer
                           << stack << expert << cross;
    }
    static void verdict(const char *tag, const Row &row, Kind kind, const QString &reason)
    {
        QTest::newRow(tag) << row.name << row.shape << row.dtype << row.siblings << int(kind) << reason << kNoType << 0 << QString()
                           << QString() << false;
    }

    // Names whose module says the type, alone or inside an attention or MLP module.
    static void addTypedRows()
    {
        // A module name that says its type by itself, inside a numbered layer.
        typed("llama q_proj", {"model.layers.3.self_attn.q_proj.weight"}, T::Q, 3, "model");
        typed("wrapped k_proj", {"_orig_mod.module.model.layers.12.self_attn.k_proj.weight"}, T::K, 12, "model");
        typed("gpt-2 c_fc", {"transformer.h.0.mlp.c_fc.weight"}, T::MlpUp, 0, "transformer");
        typed("keras kernel", {"layers.4.attention.value.kernel:0"}, T::V, 4);
        typed("case kept in the stack", {"Encoder.Layers.1.Attn.Q_Proj.Weight"}, T::Q, 1, "Encoder");
        typed("pytorch out_proj", {"encoder.layers.0.self_attn.out_proj.weight"}, T::O, 0, "encoder");
        typed("gate_proj", {"model.layers.2.mlp.gate_proj.weight"}, T::MlpGate, 2, "model");
        typed("down_proj of a deep stack", {"model.vision.encoder.layers.5.mlp.down_proj.weight"}, T::MlpDown, 5, "model.vision.encoder");

        // Words that say a type only inside an attention or an MLP module.
        typed("gpt-2 c_proj in attn", {"transformer.h.0.attn.c_proj.weight"}, T::O, 0, "transformer");
        typed("gpt-2 c_proj in mlp", {"transformer.h.0.mlp.c_proj.weight"}, T::MlpDown, 0, "transformer");
        typed("bert intermediate dense", {"encoder.layer.2.intermediate.dense.weight"}, T::MlpUp, 2, "encoder");
        typed("bert output dense", {"encoder.layer.2.output.dense.weight"}, T::MlpDown, 2, "encoder");
        typed("bert attention output dense", {"encoder.layer.2.attention.output.dense.weight"}, T::O, 2, "encoder");
        verdict("dense outside attention and mlp", {"model.layers.0.block.dense.weight"}, Kind::Reported,
                "inside layer 0, but neither a rule nor its name says which matrix it is");

        // w1/w2/w3: gated (w1 gate, w3 up) when the layer has a w3, else w1 up.
        typed("w1 beside w3", {"layers.0.feed_forward.w1.weight", matrix(), "bfloat16", {"layers.0.feed_forward.w3.weight"}}, T::MlpGate, 0);
        typed("w1 alone", {"layers.0.feed_forward.w1.weight"}, T::MlpUp, 0);
        typed("w3 of a gated layer", {"layers.0.feed_forward.w3.weight", matrix(), "float32", {"layers.0.feed_forward.w3.weight"}}, T::MlpUp, 0);
        typed("w2", {"layers.0.feed_forward.w2.weight"}, T::MlpDown, 0);
        verdict("w3 with no gate", {"layers.0.feed_forward.w3.weight"}, Kind::Reported, "neither a rule nor its name");
        typed("w1 of a wrapped expert", {"module.model.layers.1.block_sparse_moe.experts.7.w1.weight", matrix(), "float16",
                                         {"model.layers.1.block_sparse_moe.experts.7.w3.weight"}},
              T::MlpGate, 1, "model", "7");

        // Experts, shared experts and cross-attention.
        typed("routed expert", {"model.layers.4.mlp.experts.15.up_proj.weight"}, T::MlpUp, 4, "model", "15");
        typed("shared expert", {"model.layers.4.mlp.shared_expert.up_proj.weight"}, T::MlpUp, 4, "model", kSharedExpert);
        typed("shared mlp", {"model.layers.4.shared_mlp.fc1.weight"}, T::MlpUp, 4, "model", kSharedExpert);
        typed("cross-attention", {"model.decoder.layers.1.encoder_attn.k_proj.weight"}, T::K, 1, "model.decoder", {}, true);
        typed("t5-like cross attention", {"decoder.blocks.0.cross_attn.q.weight"}, T::Q, 0, "decoder", {}, true);

    }

    // Names known not to be a matrix, and names inside a layer that are not analysed.
    static void addUntypedRows()
    {
        // Known not to be matrices: left out, never reported.
        verdict("embedding", {"model.embed_tokens.weight"}, Kind::NotAMatrix, "not an attention or MLP matrix (an embedding table)");
        verdict("gpt-2 wte", {"transformer.wte.weight"}, Kind::NotAMatrix, "(an embedding table)");
        verdict("layer norm", {"model.layers.0.input_layernorm.weight"}, Kind::NotAMatrix, "(a normalisation weight)");
        verdict("ln_1", {"transformer.h.0.ln_1.weight"}, Kind::NotAMatrix, "(a normalisation weight)");
        verdict("lm head", {"lm_head.weight"}, Kind::NotAMatrix, "(an output head or pooler)");
        verdict("classifier", {"classifier.weight"}, Kind::NotAMatrix, "(an output head or pooler)");
        verdict("moe router", {"model.layers.0.mlp.gate.weight"}, Kind::NotAMatrix, "(an MoE router (scores experts))");
        verdict("rotary table", {"model.layers.0.self_attn.rotary_emb.inv_freq", {32}}, Kind::NotAMatrix, "(a position table)");
        verdict("relative bias", {"encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"}, Kind::NotAMatrix,
                "(a position table)");
        verdict("convolution kernel", {"model.layers.0.mixer.conv1d.weight", {64, 1, 4}}, Kind::NotAMatrix, "(a convolution kernel)");
        verdict("int8 weight", {"model.layers.0.self_attn.q_proj.weight", matrix(), "int8"}, Kind::NotAMatrix,
                "(an integer or boolean buffer, not a weight)");
        verdict("uint8 weight", {"model.layers.0.self_attn.q_proj.weight", matrix(), "uint8"}, Kind::NotAMatrix, "integer or boolean");
        verdict("bool mask", {"transformer.h.0.attn.bias", {1, 1, 8, 8}, "bool"}, Kind::NotAMatrix, "integer or boolean");
        verdict("four dimensions", {"model.layers.0.self_attn.q_proj.weight", {2, 2, 2, 2}}, Kind::NotAMatrix, "(a tensor of 4 dimensions)");
        verdict("bare module parameter", {"model.layers.0.mixer.A_log"}, Kind::NotAMatrix, "(a parameter of its module, not a weight)");
        verdict("unnumbered weight", {"pre.dense.weight"}, Kind::NotAMatrix, "(outside every numbered layer)");

        // Inside a layer, or named like a weight, and not analysed: said why.
        verdict("bare expert stack", {"model.layers.0.block_sparse_moe.experts.w1", {8, 64, 32}}, Kind::Reported,
                "a parameter named like an attention/MLP weight, but no rule knows its layout");
        verdict("bare unnumbered q_proj", {"q_proj"}, Kind::Reported, "a parameter named like an attention/MLP weight");
        verdict("q_proj outside a layer", {"q_proj.weight"}, Kind::Reported, "outside any numbered layer: no rule says which layer it is");
        verdict("numbered twice", {"stages.1.blocks.2.attn.q_proj.weight"}, Kind::Reported, "numbered twice (1 and 2: a stage and a block?)");
        verdict("3-d weight", {"model.layers.0.mlp.experts.down.weight", {8, 64, 32}}, Kind::Reported, "a 3-D stack no rule knows the layout of");
        verdict("fused qkv", {"model.layers.0.self_attn.qkv_proj.weight"}, Kind::Reported, "a fused tensor (qkv_proj) that no family rule splits");
        verdict("fused c_attn", {"transformer.h.0.attn.c_attn.weight"}, Kind::Reported, "a fused tensor (c_attn)");
        verdict("fused in_proj_weight", {"encoder.layers.0.self_attn.in_proj_weight"}, Kind::Reported, "a fused tensor (in_proj)");
        verdict("fused gate_up", {"model.layers.0.mlp.gate_up_proj.weight"}, Kind::Reported, "a fused tensor (gate_up_proj)");
        verdict("a layer's own weight", {"layers.0.weight"}, Kind::Reported, "the weight of layer 0 itself");
        verdict("mamba out_proj", {"backbone.layers.0.mixer.out_proj.weight"}, Kind::Reported, "inside layer 0, but neither a rule nor its name");
        verdict("conv of rank 2", {"model.layers.0.conv.weight"}, Kind::Reported, "inside layer 0");
    }

private slots:
    void classifies_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QList<qint64>>("shape");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QStringList>("siblings");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("reason"); // a part of the reason
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("layer");
        QTest::addColumn<QString>("stack");
        QTest::addColumn<QString>("expert");
        QTest::addColumn<bool>("cross");
        addTypedRows();
        addUntypedRows();
    }

    void classifies()
    {
        QFETCH(QString, name);
        QFETCH(QList<qint64>, shape);
        QFETCH(QString, dtype);
        QFETCH(QStringList, siblings);
        QFETCH(int, kind);
        QFETCH(QString, reason);
        QFETCH(int, type);
        QFETCH(int, layer);
        QFETCH(QString, stack);
        QFETCH(QString, expert);
        QFETCH(bool, cross);
        const GenericVerdict v = GenericTyping::classify(name, shape, dtype, [&](const QString &n) { return siblings.contains(n); });
        QVERIFY2(int(v.kind) == kind, qPrintable(QStringLiteral("kind %1 (%2), expected %3").arg(int(v.kind)).arg(v.reason).arg(kind)));
        if (v.kind != Kind::Typed) {
            QVERIFY2(v.reason.contains(reason), qPrintable(v.reason));
            return;
        }
        QVERIFY(v.reason.isEmpty());
        QCOMPARE(v.match.family, GenericTyping::familyName());
        QCOMPARE(csvName(v.match.type), csvName(T(type)));
        QCOMPARE(v.match.layer, layer);
        QCOMPARE(v.match.stack, stack);
        QCOMPARE(v.match.expert, expert);
        QCOMPARE(v.match.cross, cross);
        QCOMPARE(v.match.layout, FusedLayout::None);
        QVERIFY(!v.match.ignored);
    }

    // The w3 sibling is looked up by its name without wrapper prefixes, and a classification
    // without a lookup at all (no checkpoint to ask) takes the layer as ungated.
    void asksForTheSiblingByItsUnwrappedName()
    {
        QStringList asked;
        GenericTyping::classify(QStringLiteral("_fsdp_wrapped_module.layers.2.ffn.w1.weight"), matrix(), QStringLiteral("float32"),
                                [&](const QString &n) { asked << n; return false; });
        QCOMPARE(asked, QStringList{QStringLiteral("layers.2.ffn.w3.weight")});
        const GenericVerdict v = GenericTyping::classify(QStringLiteral("layers.2.ffn.w1.weight"), matrix(), QStringLiteral("float32"), {});
        QCOMPARE(v.kind, Kind::Typed);
        QCOMPARE(v.match.type, T::MlpUp);
    }

    // A hostile or odd name never crashes and never types: empty, dots only, a huge layer number.
    void oddNamesAreNeverTyped()
    {
        for (const char *name : {"", ".", "..", "weight", ".weight", "0", "0.weight", "layers..weight"}) {
            const GenericVerdict v = GenericTyping::classify(QLatin1String(name), matrix(), QStringLiteral("float32"), {});
            QVERIFY2(v.kind != Kind::Typed, name);
        }
        const GenericVerdict huge = GenericTyping::classify(QStringLiteral("layers.99999999999999999999.q_proj.weight"), matrix(),
                                                            QStringLiteral("float32"), {});
        QVERIFY2(huge.kind != Kind::Typed, qPrintable(huge.reason));
    }

    // A layer number past what a layer can be is no layer 0 (where it would meet the real layer
    // 0's matrix): it is reported, as the family rules refuse it.
    void refusesLayerNumbersTooLargeForALayer()
    {
        for (const char *name : {"layers.2147483648.self_attn.q_proj.weight", "layers.4294967296.self_attn.q_proj.weight"}) {
            const GenericVerdict v = GenericTyping::classify(QLatin1String(name), matrix(), QStringLiteral("float32"), {});
            QVERIFY2(v.kind == Kind::Reported, qPrintable(QStringLiteral("%1: kind %2, layer %3").arg(name).arg(int(v.kind)).arg(v.match.layer)));
            QVERIFY2(v.reason.contains(QStringLiteral("too large")), qPrintable(v.reason));
        }
        const GenericVerdict largest = GenericTyping::classify(QStringLiteral("layers.2147483647.self_attn.q_proj.weight"), matrix(),
                                                               QStringLiteral("float32"), {});
        QCOMPARE(largest.kind, Kind::Typed);
        QCOMPARE(largest.match.layer, 2147483647);
    }

    void familyNameIsStable() { QCOMPARE(GenericTyping::familyName(), QStringLiteral("generic (by its name alone)")); }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestGenericTyping)
} // namespace tst_generictyping

#include "tst_GenericTyping.moc"
