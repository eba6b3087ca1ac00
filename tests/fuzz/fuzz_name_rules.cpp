// Naming rules: the built-ins on arbitrary names and shapes, and arbitrary user-rule JSON files,
// including the sharded-checkpoint index parser.
#include "FuzzInput.h"
#include "analysis/MatrixPartExtractor.h"
#include "io/CheckpointReader.h"
#include "model/TensorNameRules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    static const rankscope::TensorNameRules builtIn = rankscope::TensorNameRules::builtIn();
    const QList<qint64> shape{qint64(data[0] % 13), qint64(data[1] % 13)};
    const rankscope::AttentionHeads heads{data[2] % 5, data[3] % 5};
    const QString name = QString::fromUtf8(reinterpret_cast<const char *>(data + 4), qsizetype(size - 4));
    const rankscope::TensorAssignment a = builtIn.assign(name, shape, heads);
    if (shape[0] > 0 && shape[1] > 0) {
        const rankscope::RowMajorMatrix tensor = rankscope::RowMajorMatrix::Ones(shape[0], shape[1]);
        for (const rankscope::MatrixPart &part : a.parts)
            rankscope::extractMatrixPart(tensor, part);
    }
    const QString rulesPath = rankscope::fuzz::writeInput(data + 4, size - 4, QStringLiteral("rules.json"));
    QString error;
    if (const auto user = rankscope::TensorNameRules::withUserRules(rulesPath, &error))
        user->assign(QStringLiteral("blocks.3.attn.qkv.weight"), {12, 4}, heads);
    const QString index = rankscope::fuzz::writeInput(data + 4, size - 4, QStringLiteral("model.safetensors.index.json"));
    rankscope::openCheckpoint(index, &error);
    return 0;
}
