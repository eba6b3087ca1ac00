#include "io/ShardedCheckpointReader.h"

#include "io/CheckpointFormats.h"
#include "base/PrintableText.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace rankscope {

QString ShardedCheckpointReader::unusableShardReason(const QDir &folder, const QString &shardFile)
{
    if (shardFile.trimmed().isEmpty())
        return QStringLiteral("an empty name");
    if (QDir::isAbsolutePath(shardFile) || shardFile.split(QLatin1Char('/')).contains(QLatin1String("..")))
        return QStringLiteral("outside the index's folder");
    if (shardFile.endsWith(QLatin1String(".index.json")))
        return QStringLiteral("a shard index itself (an index names weights files, not other indexes)");
    if (QFileInfo(folder.filePath(shardFile)).isDir())
        return QStringLiteral("a folder, not a weights file");
    return {};
}

std::unique_ptr<ShardedCheckpointReader> ShardedCheckpointReader::open(const QString &indexPath, QString *error)
{
    // An index is a sidecar like any other: read only when it is a small regular file.
    QString readError;
    const std::optional<QJsonObject> index = readSmallJsonObject(indexPath, kMaxShardIndexBytes, &readError);
    if (!index) {
        *error = QStringLiteral("%1: cannot be read (%2)").arg(QFileInfo(indexPath).fileName(), readError);
        return nullptr;
    }
    const QJsonObject weightMap = index->value("weight_map").toObject();
    if (weightMap.isEmpty()) {
        *error = QStringLiteral("%1: no weight_map").arg(QFileInfo(indexPath).fileName());
        return nullptr;
    }
    std::unique_ptr<ShardedCheckpointReader> reader(new ShardedCheckpointReader);
    const QDir folder = QFileInfo(indexPath).dir();
    QHash<QString, CheckpointReader *> shardByFile;
    QHash<QString, QHash<QString, TensorInfo>> infoByShard;
    for (auto it = weightMap.begin(); it != weightMap.end(); ++it) {
        const QString shardFile = it.value().toString();
        if (const QString reason = unusableShardReason(folder, shardFile); !reason.isEmpty()) {
            *error = QStringLiteral("the index names '%1' as the shard of %2, but it is %3")
                         .arg(printableText(shardFile.left(200)), printableText(it.key().left(200)), reason);
            return nullptr;
        }
        if (!shardByFile.contains(shardFile)) {
            const QString shardPath = folder.filePath(shardFile);
            if (!QFileInfo::exists(shardPath)) {
                *error = QStringLiteral("shard %1 named by the index is missing").arg(shardFile);
                return nullptr;
            }
            QString shardError;
            std::unique_ptr<CheckpointReader> shard = openCheckpointFile(shardPath, &shardError);
            if (!shard) {
                *error = QStringLiteral("%1: %2").arg(shardFile, shardError);
                return nullptr;
            }
            for (const TensorInfo &t : shard->tensors())
                infoByShard[shardFile].insert(t.name, t);
            for (const QString &warning : shard->warnings())
                reader->m_warnings << QStringLiteral("%1: %2").arg(shardFile, warning);
            reader->m_format = shard->formatName() + QStringLiteral(" (sharded)");
            shardByFile.insert(shardFile, shard.get());
            reader->m_shards.push_back(std::move(shard));
        }
        if (!infoByShard[shardFile].contains(it.key())) {
            *error = QStringLiteral("the index puts %1 in %2, which does not hold it").arg(it.key(), shardFile);
            return nullptr;
        }
        reader->m_tensors.append(infoByShard[shardFile].value(it.key()));
        reader->m_shardOf.insert(it.key(), shardByFile.value(shardFile));
    }
    return reader;
}

std::unique_ptr<ShardedCheckpointReader> ShardedCheckpointReader::openShards(const QStringList &shardPaths, QString *error)
{
    std::unique_ptr<ShardedCheckpointReader> reader(new ShardedCheckpointReader);
    QHash<QString, QString> fileOf; // tensor name → shard it was found in
    for (const QString &path : shardPaths) {
        const QString shardFile = QFileInfo(path).fileName();
        QString shardError;
        std::unique_ptr<CheckpointReader> shard = openCheckpointFile(path, &shardError);
        if (!shard) {
            *error = QStringLiteral("%1: %2").arg(shardFile, shardError);
            return nullptr;
        }
        for (const TensorInfo &t : shard->tensors()) {
            if (fileOf.contains(t.name)) {
                *error = QStringLiteral("%1 is in both %2 and %3").arg(t.name, fileOf.value(t.name), shardFile);
                return nullptr;
            }
            fileOf.insert(t.name, shardFile);
            reader->m_tensors.append(t);
            reader->m_shardOf.insert(t.name, shard.get());
        }
        reader->m_format = shard->formatName() + QStringLiteral(" (sharded)");
        reader->m_shards.push_back(std::move(shard));
    }
    return reader;
}

StoredRead ShardedCheckpointReader::readElements(const TensorInfo &tensor, qint64 slice, qint64, qint64)
{
    return m_shardOf.value(tensor.name)->readStoredMatrix(tensor.name, slice);
}

bool ShardedCheckpointReader::readsPackedSlices() const
{
    return std::all_of(m_shards.begin(), m_shards.end(), [](const auto &shard) { return shard->readsPackedSlices(); });
}

PackedRead ShardedCheckpointReader::readPackedElements(const TensorInfo &view, qint64 slice, qint64, qint64)
{
    return m_shardOf.value(view.name)->readPackedSlice(view.name, slice);
}

} // namespace rankscope
