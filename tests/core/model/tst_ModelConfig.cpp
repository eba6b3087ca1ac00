#include "model/ModelConfig.h"
#include "TestSuite.h"

#include <cmath>
#include <limits>

namespace tst_modelconfig {

using namespace rankscope;

class TestModelConfig : public QObject {
    Q_OBJECT
private slots:
    void startsEmpty()
    {
        const ModelConfig config;
        QVERIFY(config.isEmpty());
        QVERIFY(config.sources().isEmpty());
        QCOMPARE(config.modelType(), QString());
        QVERIFY(config.architectures().isEmpty());
        QCOMPARE(config.describeModel(), QString());
        QCOMPARE(config.heads(), std::nullopt);
        QCOMPARE(config.kvHeads(), std::nullopt);
    }

    // A key comes from the first source that has it; a source is listed only when it gave one.
    void earlierSourcesWin()
    {
        ModelConfig config;
        config.addSource({{"num_attention_heads", 32}, {"model_type", "llama"}}, QStringLiteral("the rules file"));
        config.addSource({{"num_attention_heads", 16}, {"num_key_value_heads", 8}}, QStringLiteral("the checkpoint"));
        config.addSource({{"num_attention_heads", 4}}, QStringLiteral("config.json"));
        config.addSource({}, QStringLiteral("an empty file"));
        QCOMPARE(config.heads(), 32);
        QCOMPARE(config.kvHeads(), 8);
        QCOMPARE(config.modelType(), QStringLiteral("llama"));
        QCOMPARE(config.sources(), (QStringList{QStringLiteral("the rules file"), QStringLiteral("the checkpoint")}));
        QVERIFY(!config.isEmpty());
        QVERIFY(config.contains(QStringLiteral("num_key_value_heads")));
        QVERIFY(!config.contains(QStringLiteral("n_head")));
    }

    // Keys of the known nested sections count as the model's own, after the source's top-level
    // keys; a section that is no known one, and any map value, is not a value.
    void readsNestedSections()
    {
        ModelConfig config;
        config.addSource({{"model_type", "mpt"},
                          {"n_heads", 24},
                          {"attn_config", QVariantMap{{"kv_n_heads", 8}, {"n_heads", 99}}},
                          {"ffn_config", QVariantMap{{"moe_num_experts", 16}}},
                          {"unknown_section", QVariantMap{{"n_layers", 7}}}},
                         QStringLiteral("config.json"));
        config.addSource({{"model_args", QVariantMap{{"n_head", 12}, {"n_layer", 6}}}}, QStringLiteral("nanoGPT's model_args"));
        QCOMPARE(config.integer({QStringLiteral("n_heads")}), 24); // not attn_config's 99
        QCOMPARE(config.kvHeads(), 8);
        QCOMPARE(config.integer({QStringLiteral("moe_num_experts")}), 16);
        QCOMPARE(config.integer({QStringLiteral("n_layer")}), 6);
        QVERIFY(!config.contains(QStringLiteral("n_layers")));
        QVERIFY(!config.contains(QStringLiteral("attn_config")));
        QVERIFY(!config.contains(QStringLiteral("unknown_section")));
        QCOMPARE(config.sources(), (QStringList{QStringLiteral("config.json"), QStringLiteral("nanoGPT's model_args")}));

        // A source of nothing but sections no one reads gives nothing, and is not listed.
        config.addSource({{"unknown_section", QVariantMap{{"x", 1}}}, {"model_args", QVariantMap{{"n_head", 3}}}},
                         QStringLiteral("a later file"));
        QCOMPARE(config.sources().size(), 2);
        QCOMPARE(config.integer({QStringLiteral("n_head")}), 12);
    }

    // The first key present with a whole number; values that are not one are passed over for the
    // next key, never truncated or wrapped.
    void readsWholeNumbers()
    {
        ModelConfig config;
        config.addSource({{"fraction", 2.5},
                          {"nan", std::nan("")},
                          {"infinite", std::numeric_limits<double>::infinity()},
                          {"huge", 1e300},
                          {"past_limit", 2e15},
                          {"at_limit", 1e15},
                          {"negative", -3},
                          {"text", "forty"},
                          {"text_number", "40"},
                          {"float_whole", 48.0},
                          {"null", QVariant::fromValue(nullptr)},
                          {"list", QVariantList{1, 2}},
                          {"good", 7}},
                         QStringLiteral("s"));
        for (const char *key : {"fraction", "nan", "infinite", "huge", "past_limit", "text", "null", "list", "absent"})
            QVERIFY2(!config.integer({QLatin1String(key)}), key);
        QCOMPARE(config.integer({QStringLiteral("at_limit")}), qint64(1e15));
        QCOMPARE(config.integer({QStringLiteral("negative")}), -3);
        QCOMPARE(config.integer({QStringLiteral("text_number")}), 40);
        QCOMPARE(config.integer({QStringLiteral("float_whole")}), 48);

        QString found = QStringLiteral("untouched");
        QCOMPARE(config.integer({QStringLiteral("fraction"), QStringLiteral("nan"), QStringLiteral("absent"), QStringLiteral("good")}, &found), 7);
        QCOMPARE(found, QStringLiteral("good"));
        found = QStringLiteral("untouched");
        QVERIFY(!config.integer({QStringLiteral("fraction"), QStringLiteral("text")}, &found));
        QCOMPARE(found, QStringLiteral("untouched"));
        QVERIFY(!config.integer({}));
    }

    // Head counts under every family's key, in the order the keys are listed.
    void readsHeadCounts()
    {
        for (const QString &key : ModelConfig::headKeys()) {
            ModelConfig config;
            config.addSource({{key, 20}}, QStringLiteral("s"));
            QCOMPARE(config.heads(), 20);
        }
        for (const QString &key : ModelConfig::kvHeadKeys()) {
            ModelConfig config;
            config.addSource({{key, 4}}, QStringLiteral("s"));
            QCOMPARE(config.kvHeads(), 4);
        }
        ModelConfig both;
        both.addSource({{"n_heads", 3}, {"num_attention_heads", 5}}, QStringLiteral("s"));
        QCOMPARE(both.heads(), 5);
        QString found;
        QCOMPARE(both.integer(ModelConfig::headKeys(), &found), 5);
        QCOMPARE(found, QStringLiteral("num_attention_heads"));
    }

    // Key/value heads: an explicit positive count, else one under multi_query, else none; a count
    // of zero or below is no count.
    void readsKeyValueHeads()
    {
        auto kv = [](const QVariantMap &values) {
            ModelConfig config;
            config.addSource(values, QStringLiteral("s"));
            return config.kvHeads();
        };
        QCOMPARE(kv({{"multi_query", true}}), 1);
        QCOMPARE(kv({{"multi_query", 1}}), 1);
        QCOMPARE(kv({{"multi_query", false}}), std::nullopt);
        QCOMPARE(kv({{"multi_query", true}, {"num_kv_heads", 2}}), 2);
        QCOMPARE(kv({{"num_key_value_heads", 0}, {"multi_query", true}}), 1);
        QCOMPARE(kv({{"num_key_value_heads", -2}}), std::nullopt);
        QCOMPARE(kv({{"num_key_value_heads", 0}}), std::nullopt);
        QCOMPARE(kv({{"num_key_value_heads", 2.5}, {"n_head_kv", 2}}), 2);
    }

    // Flags: a boolean, or a whole number (0 false); anything else is no answer.
    void readsFlags()
    {
        ModelConfig config;
        config.addSource({{"yes", true}, {"no", false}, {"one", 1}, {"zero", 0}, {"text_one", "1"}, {"word", "true"}, {"null", QVariant::fromValue(nullptr)}},
                         QStringLiteral("s"));
        QCOMPARE(config.flag(QStringLiteral("yes")), true);
        QCOMPARE(config.flag(QStringLiteral("no")), false);
        QCOMPARE(config.flag(QStringLiteral("one")), true);
        QCOMPARE(config.flag(QStringLiteral("zero")), false);
        QCOMPARE(config.flag(QStringLiteral("text_one")), true);
        QCOMPARE(config.flag(QStringLiteral("word")), std::nullopt);
        QCOMPARE(config.flag(QStringLiteral("null")), std::nullopt);
        QCOMPARE(config.flag(QStringLiteral("absent")), std::nullopt);
    }

    // What a message about an unknown model calls it.
    void describesTheModel()
    {
        ModelConfig both;
        both.addSource({{"model_type", "falcon"}, {"architectures", QVariantList{"FalconForCausalLM", "FalconModel"}}}, QStringLiteral("s"));
        QCOMPARE(both.architectures(), (QStringList{QStringLiteral("FalconForCausalLM"), QStringLiteral("FalconModel")}));
        QCOMPARE(both.describeModel(), QStringLiteral("model_type falcon, architectures FalconForCausalLM, FalconModel"));
        ModelConfig typeOnly;
        typeOnly.addSource({{"model_type", "gpt2"}}, QStringLiteral("s"));
        QCOMPARE(typeOnly.describeModel(), QStringLiteral("model_type gpt2"));
        ModelConfig architecturesOnly;
        architecturesOnly.addSource({{"architectures", QVariantList{"MyModel"}}}, QStringLiteral("s"));
        QCOMPARE(architecturesOnly.describeModel(), QStringLiteral("architectures MyModel"));
        QCOMPARE(architecturesOnly.modelType(), QString());
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestModelConfig)
} // namespace tst_modelconfig

#include "tst_ModelConfig.moc"
