// Naming rules: the built-ins on arbitrary names, shapes and head counts, arbitrary user-rule JSON
// files, and the sharded-checkpoint index parser.
#include "FuzzInput.h"
#include "analysis/execution/MatrixPartExtractor.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "model/CheckpointLayout.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6)
        return 0;
    static const rankscope::TensorNameRules builtIn = rankscope::TensorNameRules::builtIn();
    const QList<qint64> shape = data[0] % 4 == 0 ? QList<qint64>{qint64(data[1] % 5), qint64(data[1] % 13), qint64(data[2] % 13)}
                                                 : QList<qint64>{qint64(data[1] % 13), qint64(data[2] % 13)};
    rankscope::ModelConfig config;
    config.addSource({{"num_attention_heads", data[3] % 5}, {"num_key_value_heads", data[4] % 5}, {"hidden_size", data[5] % 13},
                      {"model_type", data[5] % 2 ? "falcon" : "gpt_bigcode"}},
                     QStringLiteral("fuzz"));
    const QString name = QString::fromUtf8(reinterpret_cast<const char *>(data + 6), qsizetype(size - 6));
    const rankscope::CheckpointLayout layout = rankscope::CheckpointLayout::plan({{name, shape, "float32"}}, config, builtIn);
    for (const rankscope::PlannedTensor &t : layout.typed) {
        const rankscope::RowMajorMatrix tensor = rankscope::RowMajorMatrix::Ones(shape[shape.size() - 2], shape.last());
        for (const rankscope::MatrixPart &part : t.parts)
            rankscope::extractMatrixPart(tensor, part);
    }
    const QString rulesPath = rankscope::fuzz::writeInput(data + 6, size - 6, QStringLiteral("rules.json"));
    QString error;
    if (const auto user = rankscope::TensorNameRules::withUserRules(rulesPath, &error))
        rankscope::CheckpointLayout::plan({{QStringLiteral("blocks.3.attn.qkv.weight"), {12, 4}, "float32"}}, config, *user);
    const QString index = rankscope::fuzz::writeInput(data + 6, size - 6, QStringLiteral("model.safetensors.index.json"));
    rankscope::openCheckpoint(index, &error);
    return 0;
}
