// One Meta Llama checkpoint of several model-parallel files (consolidated.00.pth …, params.json;
// io/metallama/MetaLlamaLayout.h): every file opened as a torch.save archive (its pickle only, never
// executed), their shapes checked against params.json, and each matrix joined from its files'
// shares when it is read (MegatronShardMerge, with fairscale's splits), one matrix at a time.
#pragma once

#include "io/CheckpointReader.h"
#include "io/megatron/MegatronShardMerge.h"
#include "io/metallama/MetaLlamaLayout.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace rankscope {

class MetaLlamaReader : public CheckpointReader {
public:
    // `files`: consolidated.00.pth … in rank order, then params.json.
    static std::unique_ptr<MetaLlamaReader> open(const QStringList &files, QString *error);

    QString formatName() const override { return QStringLiteral("meta-llama"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    // params.json, under its own keys and those the analysis reads (num_attention_heads, …).
    QVariantMap modelConfig() const override { return m_params.modelConfig(); }
    // "MP 2 (consolidated.00.pth … consolidated.01.pth), dim 16, n_heads 4, …": how it was sharded.
    QString sharding() const { return m_sharding; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    MetaLlamaReader() = default;
    bool load(const QStringList &files, QString *error);

    std::vector<std::unique_ptr<TorchCheckpointReader>> m_files;
    MetaLlamaParams m_params;
    MegatronShardMerge m_merge;
    QList<TensorInfo> m_tensors;
    QString m_sharding;
};

} // namespace rankscope
