// The naming rules themselves: wrapper prefixes, which names read as attention/MLP weights, a user's
// JSON rules (types, splits, blocks, experts, config), cutting parts out of a tensor, and the draft
// rules `info --suggest-rules` writes. The families are tested end to end in tst_ArchitectureFamilies.
#include "analysis/execution/MatrixPartExtractor.h"
#include "model/CheckpointLayout.h"
#include "model/RuleSuggestions.h"
#include "TestSuite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

namespace tst_tensornamerules {

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

CheckpointLayout plan(const QList<NamedShape> &tensors, const QVariantMap &config = {},
                      const TensorNameRules &rules = TensorNameRules::builtIn())
{
    ModelConfig c;
    c.addSource(config, QStringLiteral("test"));
    return CheckpointLayout::plan(tensors, c, rules);
}

QString writeRules(QTemporaryDir &dir, const QByteArray &json)
{
    const QString path = dir.filePath("rules.json");
    QFile f(path);
    f.open(QIODevice::WriteOnly | QIODevice::Truncate);
    f.write(json);
    return path;
}
} // namespace

class TestTensorNameRules : public QObject {
    Q_OBJECT
private slots:
    void wrapperPrefixesAreIgnored()
    {
        QCOMPARE(TensorNameRules::withoutWrapperPrefixes("_orig_mod.module.transformer.h.0._checkpoint_wrapped_module.mlp.c_fc.weight"),
                 QStringLiteral("transformer.h.0.mlp.c_fc.weight"));
        const CheckpointLayout l = plan({{"_orig_mod.transformer.h.2.mlp.c_fc.weight", {256, 64}, "float32"}});
        QCOMPARE(l.typed.size(), 1);
        QCOMPARE(l.typed[0].parts[0].id.layer, 2);
        QCOMPARE(l.typed[0].parts[0].label, QStringLiteral("_orig_mod.transformer.h.2.mlp.c_fc.weight"));
    }

    // A pattern's $ matches before a final "\n": "…q_proj.weight\n" was typed as Q. No model names a
    // tensor with a control character, and no rule types one.
    void namesWithControlCharactersAreNeverTyped()
    {
        QCOMPARE(plan({{"model.layers.0.self_attn.q_proj.weight", {16, 16}, "float32"}}).typed.size(), 1);
        for (const char *name : {"model.layers.0.self_attn.q_proj.weight\n", "model.layers.0.self_attn.q_proj.weight\r",
                                 "model.layers.0.self_attn.q_proj\x1b[2K.weight", "transformer.h.0.attn.c_proj.weight\n"}) {
            const CheckpointLayout layout = plan({{name, {16, 16}, "float32"}});
            QVERIFY2(layout.typed.isEmpty(), name);
        }
    }

    // What reads like an attention or MLP weight is analysed or reported, never left out quietly;
    // what is known not to be one (embeddings, heads, norms, a mixer's parameters) is left out quietly.
    void attentionAndMlpLookalikes()
    {
        for (const char *name : {"model.layers.3.self_attn.qkv.weight", "encoder.layers.0.mlp.fc_gate.weight", "blocks.2.attn.in_proj_weight",
                                 "transformer.layers.7.attention.wqkv.weight", "h.1.ffn.w_in.weight"}) {
            const CheckpointLayout layout = plan({{name, {48, 16}, "float32"}});
            QVERIFY2(layout.typed.size() + layout.reported().size() == 1, name);
        }
        for (const char *name : {"model.embed_tokens.weight", "lm_head.weight", "model.layers.3.self_attn.q_norm.weight",
                                 "model.layers.3.input_layernorm.weight", "bert.pooler.dense.weight", "model.layers.2.mixer.A_log",
                                 "transformer.h.0.ln_1.weight"}) {
            const CheckpointLayout layout = plan({{name, {16, 16}, "float32"}});
            QVERIFY2(layout.typed.isEmpty() && layout.reported().isEmpty() && layout.leftOut.size() == 1, name);
        }
    }

    void otherTensorsAreLeftOutQuietly()
    {
        const CheckpointLayout l = plan({{"transformer.wte.weight", {8, 8}, "float32"},
                                         {"lm_head.weight", {8, 8}, "float32"},
                                         {"model.layers.0.mlp.gate.weight", {4, 8}, "float32"}, // a router
                                         {"transformer.h.0.attn.c_proj.bias", {8}, "float32"}});
        QVERIFY(l.typed.isEmpty());
        QCOMPARE(l.leftOut.size(), 3); // the 1-D bias is not listed at all
        QVERIFY(l.reported().isEmpty());
        QVERIFY(l.leftOut[2].reason.contains("router"));
    }

    void partsCutGroupedRowsAndColumns()
    {
        // [head][q|k|v][head_dim] with 2 heads of 2 rows: Q is rows 0-1 and 6-7.
        const RowMajorMatrix fused = numbered(12, 3, 0);
        MatrixPart q;
        q.groups = 2;
        q.groupSize = 6;
        q.offset = 0;
        q.count = 2;
        RowMajorMatrix expected(4, 3);
        expected << fused.middleRows(0, 2), fused.middleRows(6, 2);
        QCOMPARE(extractMatrixPart(fused, q), expected);
        MatrixPart v = q;
        v.offset = 4;
        expected << fused.middleRows(4, 2), fused.middleRows(10, 2);
        QCOMPARE(extractMatrixPart(fused, v), expected);
        MatrixPart columns;
        columns.axis = MatrixPart::Axis::Columns;
        columns.groupSize = 3;
        columns.offset = 1;
        columns.count = 2;
        QCOMPARE(extractMatrixPart(fused, columns), RowMajorMatrix(fused.rightCols(2)));
        MatrixPart tooBig = q;
        tooBig.groups = 3;
        QCOMPARE(extractMatrixPart(fused, tooBig).size(), 0);
    }

    void blockScalesMultiplyEachBlock()
    {
        RowMajorMatrix w = RowMajorMatrix::Ones(5, 3);
        RowMajorMatrix scales(3, 2);
        scales << 1, 2, 3, 4, 5, 6;
        QVERIFY(applyBlockScales(w, scales, 2, 2));
        QCOMPARE(w(0, 0), 1.0);
        QCOMPARE(w(1, 2), 2.0);
        QCOMPARE(w(3, 1), 3.0);
        QCOMPARE(w(4, 2), 6.0);
        RowMajorMatrix again = RowMajorMatrix::Ones(5, 3);
        QVERIFY(!applyBlockScales(again, scales, 4, 2)); // a 4-row block gives 2 block rows, not 3
    }

    void userRulesComeFirst()
    {
        QTemporaryDir dir;
        const QString path = writeRules(dir, R"({"rules": [
            {"pattern": "^blocks\\.(\\d+)\\.attn\\.qkv\\.weight$", "split": "qkv"},
            {"pattern": "^blocks\\.(?<layer>\\d+)\\.moe\\.(?<expert>\\d+)\\.fc1\\.weight$", "type": "MLP_UP"},
            {"pattern": "^vis\\.blocks\\.(\\d+)\\.fc1\\.weight$", "type": "MLP_UP", "block": "vision"},
            {"pattern": "^transformer\\.h\\.0\\.mlp\\.c_fc\\.weight$", "ignore": true}],
            "config": {"num_attention_heads": 4}})");
        QString error;
        const auto user = TensorNameRules::withUserRules(path, &error);
        QVERIFY2(user, qPrintable(error));
        QCOMPARE(user->userConfig().value("num_attention_heads").toInt(), 4);
        QVERIFY(user->identity().startsWith("user-"));
        const CheckpointLayout l = plan({{"blocks.5.attn.qkv.weight", {12, 4}, "float32"},
                                         {"blocks.5.moe.3.fc1.weight", {16, 4}, "float32"},
                                         {"vis.blocks.1.fc1.weight", {16, 4}, "float32"},
                                         {"transformer.h.0.mlp.c_fc.weight", {16, 4}, "float32"},
                                         {"transformer.h.1.mlp.c_fc.weight", {16, 4}, "float32"}},
                                        {}, *user);
        QCOMPARE(l.typed.size(), 4);
        QCOMPARE(l.typed[0].parts.size(), 3);
        QCOMPARE(l.typed[1].parts[0].id, (MatrixIdentity{{}, 5, MatrixType::MlpUp, "3"}));
        QCOMPARE(l.typed[2].parts[0].id, (MatrixIdentity{"vision", 1, MatrixType::MlpUp, {}}));
        QVERIFY(l.leftOut[0].reason.contains("user rule"));
        QCOMPARE(l.typed[3].tensor, QStringLiteral("transformer.h.1.mlp.c_fc.weight")); // built-ins still apply
    }

    // A user's rule may use every key the built-in rules use (they are the same form of file):
    // container and suffix, a layerless module, the families' own splits with their partner, a
    // model type, a reason shown as written.
    void userRulesTakeTheBuiltInRulesKeys()
    {
        QTemporaryDir dir;
        QString error;
        const auto user = TensorNameRules::withUserRules(writeRules(dir, QStringLiteral(R"({"rules": [
            {"container": "stages|blocks", "suffix": "ffn\.w_in\.weight", "type": "MLP_UP", "split": "glu_gate_up", "partner": "ffn.w_out.weight"},
            {"container": "stages|blocks", "suffix": "ffn\.w_out\.weight", "type": "MLP_DOWN"},
            {"container": "blocks", "suffix": "attn\.rel\.weight", "ignore": true, "reason": "a position table → not a matrix"},
            {"suffix": "pool\.proj\.weight", "layerless": true, "type": "O", "unnamed_stack": "pool"},
            {"container": "blocks", "suffix": "only\.weight", "type": "Q", "model_types": ["other_model"]}]})").toUtf8()), &error);
        QVERIFY2(user, qPrintable(error));
        const CheckpointLayout l = plan({{"net.stages.2.ffn.w_in.weight", {16, 4}, "float32"},
                                         {"net.stages.2.ffn.w_out.weight", {4, 8}, "float32"},
                                         {"blocks.0.attn.rel.weight", {9, 4}, "float32"},
                                         {"pool.proj.weight", {4, 4}, "float32"},
                                         {"blocks.1.only.weight", {4, 4}, "float32"}},
                                        {{"model_type", "llama"}}, *user);
        QCOMPARE(l.typed.size(), 3);
        QCOMPARE(l.typed[0].parts.size(), 2); // [gate; up]: the down projection takes half of its rows
        QCOMPARE(l.typed[0].parts[0].id, (MatrixIdentity{{}, 2, MatrixType::MlpGate, {}}));
        QCOMPARE(l.typed[0].parts[1].id, (MatrixIdentity{{}, 2, MatrixType::MlpUp, {}}));
        QCOMPARE(l.typed[2].parts[0].id.type, MatrixType::O);
        QCOMPARE(l.leftOut.size(), 2);
        QCOMPARE(l.leftOut[0].reason, QStringLiteral("a position table → not a matrix"));
        QCOMPARE(l.leftOut[1].tensor, QStringLiteral("blocks.1.only.weight")); // another model type's rule
    }

    // The built-in rules are read from their resource whole, their non-ASCII text as written.
    void builtInRulesAreReadWhole()
    {
        const CheckpointLayout l = plan({{"swin.encoder.layers.0.downsample.reduction.weight", {8, 16}, "float32"}});
        QCOMPARE(l.leftOut.size(), 1);
        QCOMPARE(l.leftOut[0].reason, QStringLiteral("Swin's patch merging between stages (4C → 2C; not an attention or MLP matrix)"));
        QCOMPARE(TensorNameRules::builtIn().identity(), QStringLiteral("builtin-7"));
    }

    void invalidUserRulesSayWhichRule()
    {
        QTemporaryDir dir;
        QString error;
        for (const QByteArray &bad : {QByteArray("{"), QByteArray("{\"rules\": []}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"(\", \"type\": \"Q\"}]}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"^x$\", \"type\": \"Q\"}]}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"^x(\\\\d+)$\", \"type\": \"QQ\"}]}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"^x(\\\\d+)$\", \"split\": \"thirds\"}]}"),
                                      QByteArray("{\"rules\": [{\"pattern\": \"^x(\\\\d+)$\", \"type\": \"Q\"}], \"config\": 3}")}) {
            const QString path = writeRules(dir, bad);
            QVERIFY2(!TensorNameRules::withUserRules(path, &error), bad.constData());
            QVERIFY(error.startsWith(path));
        }
    }

    // No two matrices of a checkpoint share an identity: the second is reported, not overwritten.
    void identityClashesAreReported()
    {
        QTemporaryDir dir;
        QString error;
        const auto user = TensorNameRules::withUserRules(writeRules(dir, R"({"rules": [
            {"pattern": "^a\\.(\\d+)\\.w\\.weight$", "type": "Q"}, {"pattern": "^b\\.(\\d+)\\.w\\.weight$", "type": "Q"}]})"), &error);
        QVERIFY2(user, qPrintable(error));
        const CheckpointLayout l = plan({{"a.0.w.weight", {4, 4}, "float32"}, {"b.0.w.weight", {4, 4}, "float32"}}, {}, *user);
        QCOMPARE(l.typed.size(), 1);
        QCOMPARE(l.reported().size(), 1);
        QVERIFY(l.reported()[0].reason.contains("already"));
    }

    void suggestionsGeneraliseNamesAndGuessTypes()
    {
        QCOMPARE(RuleSuggestions::patternFor("_orig_mod.model.blocks.3.moe.experts.7.w_in.weight"),
                 QStringLiteral(R"(^model\.blocks\.(?<layer>\d+)\.moe\.experts\.(?<expert>\d+)\.w_in\.weight$)"));
        const QList<LeftOutTensor> untyped = {{"enc.layers.0.attn.wqkv.weight", {48, 16}, "x", true},
                                              {"enc.layers.1.attn.wqkv.weight", {48, 16}, "x", true},
                                              {"enc.layers.2.attn.to_q.weight", {16, 16}, "x", true},
                                              {"enc.layers.0.ffn.fc1.weight", {64, 16}, "x", true},
                                              {"enc.layers.0.ffn.mystery.weight", {64, 16}, "x", true}};
        const QJsonArray rules = RuleSuggestions::draft(untyped, {}).object().value("rules").toArray();
        QCOMPARE(rules.size(), 4); // layers 0 and 1 of wqkv share one rule
        QCOMPARE(rules[0].toObject().value("split").toString(), QStringLiteral("qkv"));
        QCOMPARE(rules[1].toObject().value("type").toString(), QStringLiteral("Q"));
        QCOMPARE(rules[2].toObject().value("type").toString(), QStringLiteral("MLP_UP"));
        QCOMPARE(rules[3].toObject().value("type").toString(), QStringLiteral("?"));
        // The draft loads once its unknown type is filled in, and then types every tensor.
        QJsonObject doc = RuleSuggestions::draft(untyped, {}).object();
        QJsonArray edited = doc.value("rules").toArray();
        QJsonObject last = edited[3].toObject();
        last.insert("type", "MLP_DOWN");
        edited[3] = last;
        doc.insert("rules", edited);
        doc.insert("config", QJsonObject{{"num_attention_heads", 4}});
        QTemporaryDir dir;
        QString error;
        const auto user = TensorNameRules::withUserRules(writeRules(dir, QJsonDocument(doc).toJson()), &error);
        QVERIFY2(user, qPrintable(error));
        QList<NamedShape> shapes;
        for (const LeftOutTensor &t : untyped)
            shapes.append({t.tensor, t.shape, "float32"});
        const CheckpointLayout typed = plan(shapes, {}, *user);
        QVERIFY2(typed.reported().isEmpty(), qPrintable(typed.reported().value(0).tensor + ": " + typed.reported().value(0).reason));
        QCOMPARE(typed.matrixCount(), 3 + 3 + 3);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTensorNameRules)
} // namespace tst_tensornamerules

#include "tst_TensorNameRules.moc"
