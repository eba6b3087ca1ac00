// A checkpoint split over several files by an index (model.safetensors.index.json or
// pytorch_model.bin.index.json): each tensor is read from the shard its weight_map names. Shards
// without an index are read as the union of their tensors.
#pragma once

#include "io/CheckpointReader.h"

#include <QDir>
#include <QHash>

namespace rankscope {

class ShardedCheckpointReader : public CheckpointReader {
public:
    static std::unique_ptr<ShardedCheckpointReader> open(const QString &indexPath, QString *error);
    // Shards written without an index (model-00001-of-00002.safetensors, …): every tensor of each.
    static std::unique_ptr<ShardedCheckpointReader> openShards(const QStringList &shardPaths, QString *error);

    // Why a file name an index's weight_map gives cannot be one of its shards (empty when it can,
    // or is merely missing): a name leading out of the index's folder, a folder ('.'), or another
    // index (an index naming itself, or two naming each other, would be read without end).
    static QString unusableShardReason(const QDir &folder, const QString &shardFile);

    QString formatName() const override { return m_format; }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    QStringList warnings() const override { return m_warnings; } // each shard's, named
    bool readsPackedSlices() const override;

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;
    PackedRead readPackedElements(const TensorInfo &view, qint64 slice, qint64 rows, qint64 cols) override;

private:
    QString m_format;
    QList<TensorInfo> m_tensors;
    QStringList m_warnings;
    QHash<QString, CheckpointReader *> m_shardOf;
    std::vector<std::unique_ptr<CheckpointReader>> m_shards;
};

} // namespace rankscope
