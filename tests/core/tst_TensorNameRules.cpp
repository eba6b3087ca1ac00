#include "analysis/MatrixPartExtractor.h"
#include "model/TensorNameRules.h"

#include <QTest>

using namespace rankscope;

namespace {
RowMajorMatrix numbered(int rows, int cols, double base)
{
    RowMajorMatrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m(r, c) = base + r * cols + c;
    return m;
}
} // namespace

class TestTensorNameRules : public QObject {
    Q_OBJECT
    const TensorNameRules rules = TensorNameRules::builtIn();

    void expectSingle(const QString &name, MatrixType type, int layer)
    {
        const TensorAssignment a = rules.assign(name, {8, 8});
        QVERIFY2(a.parts.size() == 1, qPrintable(name + ": " + a.skipReason));
        QCOMPARE(a.parts[0].type, type);
        QCOMPARE(a.parts[0].layer, layer);
        QCOMPARE(a.parts[0].label, name);
    }

private slots:
    void families()
    {
        using T = MatrixType;
        expectSingle("transformer.h.3.attn.c_proj.weight", T::O, 3);
        expectSingle("transformer.h.3.mlp.c_fc.weight", T::MlpUp, 3);
        expectSingle("transformer.h.3.mlp.c_proj.weight", T::MlpDown, 3);
        expectSingle("transformer.h.11.attn.c_k.weight", T::K, 11);               // nanochat
        expectSingle("model.layers.7.self_attn.v_proj.weight", T::V, 7);          // LLaMA (HF)
        expectSingle("model.layers.7.mlp.gate_proj.weight", T::MlpGate, 7);
        expectSingle("layers.2.feed_forward.w1.weight", T::MlpGate, 2);           // Meta
        expectSingle("layers.2.feed_forward.w3.weight", T::MlpUp, 2);
        expectSingle("layers.2.feed_forward.w2.weight", T::MlpDown, 2);
        expectSingle("gpt_neox.layers.5.mlp.dense_4h_to_h.weight", T::MlpDown, 5); // NeoX
        expectSingle("bert.encoder.layer.4.attention.output.dense.weight", T::O, 4); // BERT
        expectSingle("bert.encoder.layer.4.output.dense.weight", T::MlpDown, 4);
        expectSingle("encoder.layer.4.intermediate.dense.weight", T::MlpUp, 4);
    }

    void wrapperPrefixesAreIgnored()
    {
        QCOMPARE(TensorNameRules::withoutWrapperPrefixes("_orig_mod.module.transformer.h.0._checkpoint_wrapped_module.mlp.c_fc.weight"),
                 QStringLiteral("transformer.h.0.mlp.c_fc.weight"));
        const TensorAssignment a = rules.assign("_orig_mod.transformer.h.2.mlp.c_fc.weight", {256, 64});
        QCOMPARE(a.parts.size(), 1);
        QCOMPARE(a.parts[0].layer, 2);
        QCOMPARE(a.parts[0].label, QStringLiteral("_orig_mod.transformer.h.2.mlp.c_fc.weight"));
    }

    void otherTensorsAreSkippedWithAReason()
    {
        for (const char *name : {"transformer.wte.weight", "lm_head.weight", "transformer.h.0.ln_1.weight",
                                 "model.embed_tokens.weight", "transformer.h.0.attn.c_proj.bias"}) {
            const TensorAssignment a = rules.assign(name, {8, 8});
            QVERIFY2(a.parts.isEmpty(), name);
            QVERIFY(!a.skipReason.isEmpty());
        }
    }

    // nanoGPT's c_attn is [3C, C] with rows Q|K|V: built from known Q, K, V it splits back to them.
    void nanoGptFusedRowsSplitBack()
    {
        const RowMajorMatrix q = numbered(4, 4, 0), k = numbered(4, 4, 100), v = numbered(4, 4, 200);
        RowMajorMatrix fused(12, 4);
        fused << q, k, v;
        const TensorAssignment a = rules.assign("transformer.h.1.attn.c_attn.weight", {12, 4});
        QCOMPARE(a.parts.size(), 3);
        QCOMPARE(a.parts[1].label, QStringLiteral("transformer.h.1.attn.c_attn.weight[K]"));
        QCOMPARE(extractMatrixPart(fused, a.parts[0]), q);
        QCOMPARE(extractMatrixPart(fused, a.parts[1]), k);
        QCOMPARE(extractMatrixPart(fused, a.parts[2]), v);
    }

    // HF GPT-2's Conv1D c_attn is [C, 3C]: split by columns.
    void gpt2FusedColumnsSplitBack()
    {
        const RowMajorMatrix q = numbered(4, 4, 0), k = numbered(4, 4, 100), v = numbered(4, 4, 200);
        RowMajorMatrix fused(4, 12);
        fused << q, k, v;
        const TensorAssignment a = rules.assign("h.0.attn.c_attn.weight", {4, 12});
        QCOMPARE(a.parts.size(), 3);
        QCOMPARE(extractMatrixPart(fused, a.parts[0]), q);
        QCOMPARE(extractMatrixPart(fused, a.parts[1]), k);
        QCOMPARE(extractMatrixPart(fused, a.parts[2]), v);
    }

    // NeoX: rows are [head][q|k|v][head_dim]; 2 heads of dim 2.
    void neoxPerHeadSplitBack()
    {
        const RowMajorMatrix q = numbered(4, 3, 0), k = numbered(4, 3, 100), v = numbered(4, 3, 200);
        RowMajorMatrix fused(12, 3);
        fused << q.topRows(2), k.topRows(2), v.topRows(2), q.bottomRows(2), k.bottomRows(2), v.bottomRows(2);
        QVERIFY(rules.assign("gpt_neox.layers.0.attention.query_key_value.weight", {12, 3}).parts.isEmpty()); // no head count
        const TensorAssignment a = rules.assign("gpt_neox.layers.0.attention.query_key_value.weight", {12, 3}, 2);
        QCOMPARE(a.parts.size(), 3);
        QCOMPARE(extractMatrixPart(fused, a.parts[0]), q);
        QCOMPARE(extractMatrixPart(fused, a.parts[1]), k);
        QCOMPARE(extractMatrixPart(fused, a.parts[2]), v);
    }

    void fusedShapeThatDoesNotSplitIsReported()
    {
        const TensorAssignment a = rules.assign("transformer.h.0.attn.c_attn.weight", {10, 4});
        QVERIFY(a.parts.isEmpty());
        QVERIFY(a.skipReason.contains("three equal parts"));
    }
};

QTEST_GUILESS_MAIN(TestTensorNameRules)
#include "tst_TensorNameRules.moc"
