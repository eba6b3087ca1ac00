// The `.metadata` file of a torch.distributed.checkpoint (DCP) folder, as FileSystemWriter writes
// it (torch/distributed/checkpoint/metadata.py, filesystem.py): a pickle of a Metadata dataclass
// giving, per fully qualified name, a tensor's global size, dtype and chunks, or a BYTE_IO object;
// and, per chunk, the file and bytes that hold it. Read with the non-executing unpickler, and only
// when every global it names is one of the classes DCP (or Megatron-Core's MCoreMetadata) writes,
// or builtins.getattr called only as Python 3.11.0–3.11.4 pickle an enum member: getattr(DCP's
// memory-format enum, one of its member names).
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

// Where one chunk's bytes lie: a torch.save archive at [offset, offset + length) of a file of the
// folder (filesystem._StorageInfo).
struct DcpStorage {
    QString relativePath;
    qint64 offset = -1;
    qint64 length = -1;
    QStringList transforms; // transform_descriptors: the bytes went through stream transforms
};

struct DcpChunk {
    QList<qint64> offsets; // in the global tensor
    QList<qint64> sizes;
    std::optional<DcpStorage> storage; // none when storage_data has no entry for (fqn, offsets)
};

struct DcpTensor {
    QString fqn;
    QString dtype; // "float32", "bfloat16", … (torch's primary dtype names)
    QList<qint64> size;
    QList<DcpChunk> chunks;
};

struct DcpMetadata {
    QList<DcpTensor> tensors; // in the order of state_dict_metadata
    QStringList objects;      // BYTE_IO entries (torch.save'd Python objects): never weights
    QHash<QString, DcpStorage> objectStorage; // where each BYTE_IO entry's torch.save archive is
    QString version;          // Metadata.version ("1.0.0" from torch's newest writer), or empty
    QString metadataClass;    // Metadata or MCoreMetadata, qualified

    // The metadata a .metadata pickle describes, or nullopt and what is wrong: a class outside the
    // allow-list (named), getattr called on anything but a memory-format enum member (the call
    // named), a field of the wrong kind, a chunk whose rank differs from its tensor's.
    static std::optional<DcpMetadata> parse(const QByteArray &pickle, QString *error);
    // The only globals a DCP .metadata may name, qualified as the pickle names them.
    static const QSet<QString> &allowedGlobals();
};

} // namespace rankscope
