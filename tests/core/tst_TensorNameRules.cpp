#include "analysis/MatrixPartExtractor.h"
#include "model/TensorNameRules.h"

#include <QFile>
#include <QTemporaryDir>
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
        const TensorAssignment a = rules.assign("gpt_neox.layers.0.attention.query_key_value.weight", {12, 3}, {2, 0});
        QCOMPARE(a.parts.size(), 3);
        QCOMPARE(extractMatrixPart(fused, a.parts[0]), q);
        QCOMPARE(extractMatrixPart(fused, a.parts[1]), k);
        QCOMPARE(extractMatrixPart(fused, a.parts[2]), v);
    }

    // Phi-3: qkv_proj rows Q|K|V with 4 query heads and 2 key/value heads of dim 2 (hidden 8).
    void phi3GqaAndGateUpSplitBack()
    {
        const RowMajorMatrix q = numbered(8, 8, 0), k = numbered(4, 8, 100), v = numbered(4, 8, 200);
        RowMajorMatrix fused(16, 8);
        fused << q, k, v;
        const TensorAssignment a = rules.assign("model.layers.3.self_attn.qkv_proj.weight", {16, 8}, {4, 2});
        QCOMPARE(a.parts.size(), 3);
        QCOMPARE(extractMatrixPart(fused, a.parts[0]), q);
        QCOMPARE(extractMatrixPart(fused, a.parts[1]), k);
        QCOMPARE(extractMatrixPart(fused, a.parts[2]), v);
        QVERIFY(rules.assign("model.layers.3.self_attn.qkv_proj.weight", {16, 8}).parts.isEmpty());

        const RowMajorMatrix gate = numbered(6, 4, 0), up = numbered(6, 4, 50);
        RowMajorMatrix gateUp(12, 4);
        gateUp << gate, up;
        const TensorAssignment g = rules.assign("model.layers.3.mlp.gate_up_proj.weight", {12, 4});
        QCOMPARE(g.parts.size(), 2);
        QCOMPARE(g.parts[0].type, MatrixType::MlpGate);
        QCOMPARE(extractMatrixPart(gateUp, g.parts[0]), gate);
        QCOMPARE(extractMatrixPart(gateUp, g.parts[1]), up);
        // OLMo's ff_proj is the other way round: [up; gate].
        const TensorAssignment o = rules.assign("model.transformer.blocks.1.ff_proj.weight", {12, 4});
        QCOMPARE(o.parts[0].type, MatrixType::MlpUp);
        QCOMPARE(extractMatrixPart(gateUp, o.parts[1]), up);
        QCOMPARE(o.parts[1].type, MatrixType::MlpGate);
    }

    void userRulesComeFirst()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("rules.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"rules\": [\n"
            "            {\"pattern\": \"^blocks\\\\.(\\\\d+)\\\\.attn\\\\.qkv\\\\.weight$\", \"split\": \"qkv\"},\n"
            "            {\"pattern\": \"^blocks\\\\.(\\\\d+)\\\\.mlp\\\\.fc1\\\\.weight$\", \"type\": \"MLP_UP\"},\n"
            "            {\"pattern\": \"^transformer\\\\.h\\\\.0\\\\.mlp\\\\.c_fc\\\\.weight$\", \"ignore\": true}\n"
            "        ]}");
        f.close();
        QString error;
        const auto user = TensorNameRules::withUserRules(path, &error);
        QVERIFY2(user, qPrintable(error));
        QCOMPARE(user->assign("blocks.5.attn.qkv.weight", {12, 4}).parts.size(), 3);
        QCOMPARE(user->assign("blocks.5.mlp.fc1.weight", {16, 4}).parts[0].type, MatrixType::MlpUp);
        QCOMPARE(user->assign("blocks.5.mlp.fc1.weight", {16, 4}).parts[0].layer, 5);
        QVERIFY(user->assign("transformer.h.0.mlp.c_fc.weight", {16, 4}).skipReason.contains("user rule"));
        QCOMPARE(user->assign("transformer.h.1.mlp.c_fc.weight", {16, 4}).parts.size(), 1); // built-ins still apply

        for (const QByteArray &bad : {QByteArray("{"), QByteArray("{\"rules\": []}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"(\", \"type\": \"Q\"}]}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"^x$\", \"type\": \"Q\"}]}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"^x(\\\\d+)$\", \"type\": \"QQ\"}]}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"^x(\\\\d+)$\", \"split\": \"thirds\"}]}")}) {
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(bad);
            f.close();
            QVERIFY2(!TensorNameRules::withUserRules(path, &error), bad.constData());
            QVERIFY(error.startsWith(path));
        }
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
