#include "io/dcp/DcpMetadata.h"

#include "base/PrintableText.h"
#include "io/torch/PickleReader.h"

#include <QHash>

namespace rankscope {

namespace {

using Kind = PickleValue::Kind;

const QString kMetadataModule = QStringLiteral("torch.distributed.checkpoint.metadata.");
const QString kShardModule = QStringLiteral("torch.distributed._shard.sharded_tensor.metadata.");
const QString kGetattr = QStringLiteral("builtins.getattr");

// The class an opaque object was made from, without its module ("TensorStorageMetadata"), or empty.
QString className(PickleRef v)
{
    return v && v->kind == Kind::Opaque ? v->text.section(QLatin1Char('.'), -1) : QString();
}

// A dataclass's fields: its BUILD state dict (a dataclass pickles as NEWOBJ + BUILD of __dict__).
PickleRef fieldsOf(PickleRef v) { return v && v->kind == Kind::Opaque && v->state && v->state->kind == Kind::Dict ? v->state : nullptr; }

PickleRef field(PickleRef v, const char *name)
{
    const PickleRef fields = fieldsOf(v);
    return fields ? fields->value(QLatin1String(name)) : nullptr;
}

// torch.Size (a tuple once read) or a list of ints; nullopt for anything else or a negative entry.
std::optional<QList<qint64>> sizeOf(PickleRef v)
{
    if (!v || (v->kind != Kind::Tuple && v->kind != Kind::List))
        return std::nullopt;
    QList<qint64> out;
    for (const PickleRef &item : v->items) {
        if (!item || item->kind != Kind::Int || item->integer < 0)
            return std::nullopt;
        out << item->integer;
    }
    return out;
}

QString sizeText(const QList<qint64> &size)
{
    QStringList parts;
    for (const qint64 d : size)
        parts << QString::number(d);
    return QStringLiteral("[%1]").arg(parts.join(QLatin1String(", ")));
}

// TensorProperties' state is the 5-tuple of its __getstate__ (dtype first); a dict is read too.
QString dtypeOf(PickleRef properties)
{
    PickleRef dtype = nullptr;
    if (properties && properties->state && properties->state->kind == Kind::Tuple && !properties->state->items.isEmpty())
        dtype = properties->state->items.first();
    else
        dtype = field(properties, "dtype");
    return dtype && dtype->kind == Kind::Global && dtype->text.startsWith(QLatin1String("torch.")) ? dtype->text.mid(6) : QString();
}

// The key storage_data uses for a chunk: the fqn and the chunk's offsets (MetadataIndex.index is a hint only).
QString chunkKey(const QString &fqn, const QList<qint64> &offsets) { return fqn + QLatin1Char('\n') + sizeText(offsets); }

// storage_data: MetadataIndex(fqn, offset) → _StorageInfo(relative_path, offset, length[, transform_descriptors]).
bool readStorageData(PickleRef storageData, QHash<QString, DcpStorage> &out, QHash<QString, DcpStorage> &objects, QString *error)
{
    if (!storageData || storageData->kind != Kind::Dict) {
        *error = QStringLiteral("its storage_data is not a dict: it does not say where any chunk is");
        return false;
    }
    for (const auto &[key, value] : storageData->entries) {
        const PickleRef fqn = field(key, "fqn");
        if (className(key) != QLatin1String("MetadataIndex") || !fqn || !fqn->isString() || className(value) != QLatin1String("_StorageInfo")) {
            *error = QStringLiteral("its storage_data holds an entry that is not MetadataIndex → _StorageInfo");
            return false;
        }
        const PickleRef path = field(value, "relative_path"), offset = field(value, "offset"), length = field(value, "length");
        if (!path || !path->isString() || !offset || offset->kind != Kind::Int || !length || length->kind != Kind::Int) {
            *error = QStringLiteral("the storage of %1 has no relative_path, offset and length").arg(printableText(fqn->text.left(200)));
            return false;
        }
        DcpStorage storage{path->text, offset->integer, length->integer, {}};
        if (const PickleRef transforms = field(value, "transform_descriptors"); transforms && transforms->kind != Kind::None) {
            for (const PickleRef &t : transforms->items)
                storage.transforms << (t && t->isString() ? t->text : QStringLiteral("?"));
            if (storage.transforms.isEmpty())
                storage.transforms << QStringLiteral("?");
        }
        // A BYTE_IO key has no offset (MetadataIndex leaves it out of its __dict__).
        if (const std::optional<QList<qint64>> at = sizeOf(field(key, "offset")))
            out.insert(chunkKey(fqn->text, *at), storage);
        else
            objects.insert(fqn->text, storage);
    }
    return true;
}

std::optional<DcpTensor> readTensor(const QString &fqn, PickleRef meta, const QHash<QString, DcpStorage> &storage, QString *error)
{
    DcpTensor tensor;
    tensor.fqn = fqn;
    const QString shown = printableText(fqn.left(200));
    const std::optional<QList<qint64>> size = sizeOf(field(meta, "size"));
    tensor.dtype = dtypeOf(field(meta, "properties"));
    const PickleRef chunks = field(meta, "chunks");
    if (!size || tensor.dtype.isEmpty() || !chunks || chunks->kind != Kind::List) {
        *error = QStringLiteral("the entry of %1 has no size, dtype and chunks").arg(shown);
        return std::nullopt;
    }
    tensor.size = *size;
    for (const PickleRef &chunk : chunks->items) {
        const std::optional<QList<qint64>> offsets = sizeOf(field(chunk, "offsets")), sizes = sizeOf(field(chunk, "sizes"));
        if (className(chunk) != QLatin1String("ChunkStorageMetadata") || !offsets || !sizes) {
            *error = QStringLiteral("a chunk of %1 is not a ChunkStorageMetadata with offsets and sizes").arg(shown);
            return std::nullopt;
        }
        if (offsets->size() != size->size() || sizes->size() != size->size()) {
            *error = QStringLiteral("a chunk of %1 at %2 has another rank than the tensor's %3").arg(shown, sizeText(*offsets), sizeText(*size));
            return std::nullopt;
        }
        const auto at = storage.constFind(chunkKey(fqn, *offsets));
        tensor.chunks.append({*offsets, *sizes, at == storage.constEnd() ? std::nullopt : std::optional<DcpStorage>(*at)});
    }
    return tensor;
}

QString pythonText(PickleRef v, int depth = 0);

// The items of a tuple, list or call, comma-separated: four at most, and none past two levels deep.
QString itemsText(PickleRef v, int depth)
{
    QStringList items;
    for (qsizetype i = 0; i < v->items.size() && i < 4 && depth < 2; ++i)
        items << pythonText(v->items[i], depth + 1);
    if (items.size() < v->items.size())
        items << QStringLiteral("…");
    return items.join(QLatin1String(", "));
}

// A pickled value as Python would write it in a message: a global by name, a string quoted, a call
// or a tuple with its items.
QString pythonText(PickleRef v, int depth)
{
    if (!v)
        return QStringLiteral("?");
    switch (v->kind) {
    case Kind::None: return QStringLiteral("None");
    case Kind::Bool: return v->integer ? QStringLiteral("True") : QStringLiteral("False");
    case Kind::Int: return QString::number(v->integer);
    case Kind::Float: return QString::number(v->real);
    case Kind::String: return QLatin1Char('\'') + printableText(v->text.left(80)) + QLatin1Char('\'');
    case Kind::Global: return printableText(v->text.left(200));
    case Kind::Opaque: return printableText(v->text.left(200)) + QLatin1Char('(') + itemsText(v, depth) + QLatin1Char(')');
    case Kind::List: return QLatin1Char('[') + itemsText(v, depth) + QLatin1Char(']');
    case Kind::Tuple: return QLatin1Char('(') + itemsText(v, depth) + (v->items.size() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
    case Kind::Dict: return QStringLiteral("{…}");
    default: return QStringLiteral("…");
    }
}

// getattr(<enum class>, '<member>') naming a member of DCP's memory-format enum: how Python 3.11.0
// to 3.11.4 pickle an Enum member, by name (python/cpython#26658). Before 3.11, and from 3.11.5 and
// 3.12 on (#105348), Python pickles it by value, <enum class>(0), which needs no getattr.
// TensorProperties.__getstate__ puts one in every tensor's entry. The enum is _MEM_FORMAT_ENCODING
// of torch/distributed/checkpoint/metadata.py, or its older _shard copy MEM_FORMAT_ENCODING; both
// have exactly these three members.
bool isMemoryFormatMember(PickleRef args)
{
    static const QSet<QString> enums = {kMetadataModule + QStringLiteral("_MEM_FORMAT_ENCODING"),
                                        kShardModule + QStringLiteral("MEM_FORMAT_ENCODING")};
    static const QSet<QString> members = {QStringLiteral("TORCH_CONTIGUOUS_FORMAT"), QStringLiteral("TORCH_CHANNELS_LAST"),
                                          QStringLiteral("TORCH_PRESERVE_FORMAT")};
    if (!args || args->kind != Kind::Tuple || args->items.size() != 2)
        return false;
    const PickleRef cls = args->items[0], name = args->items[1];
    return cls && cls->kind == Kind::Global && enums.contains(cls->text) && name && name->isString() && members.contains(name->text);
}

// Why the pickle's use of builtins.getattr is not that of a DCP writer under Python 3.11.0–3.11.4,
// or empty. getattr reaches any attribute of anything (getattr(os, 'system'), a class's
// __init__.__globals__), so it is allowed only as the call that names an enum member, and only
// called: never kept, passed on or instantiated, and its member never given a state by BUILD.
QString getattrProblem(const PickleResult &result)
{
    if (result.globalsNotOnlyCalled.contains(kGetattr))
        return QStringLiteral("uses builtins.getattr other than by calling it, which torch.distributed.checkpoint never writes: not read");
    for (const PickleCall &call : result.calls) {
        if (call.callable != kGetattr)
            continue;
        // REDUCE calls getattr(*args): its arguments as the call would read.
        const QString text = call.args && call.args->kind == Kind::Tuple ? itemsText(call.args, 0) : QLatin1Char('*') + pythonText(call.args);
        if (!isMemoryFormatMember(call.args))
            return QStringLiteral("calls getattr(%1), which is not how Python names a member of DCP's memory-format enum: not read").arg(text);
        if (call.value && call.value->state)
            return QStringLiteral("calls getattr(%1) and gives the member a state (BUILD), which torch.distributed.checkpoint never writes: not read")
                .arg(text);
    }
    return {};
}

} // namespace

const QSet<QString> &DcpMetadata::allowedGlobals()
{
    static const QSet<QString> allowed = [] {
        QSet<QString> names;
        for (const char *cls : {"Metadata", "TensorStorageMetadata", "ChunkStorageMetadata", "BytesStorageMetadata", "TensorProperties",
                                "_MEM_FORMAT_ENCODING", "StorageMeta", "MetadataIndex"})
            names << kMetadataModule + QLatin1String(cls);
        // Before pytorch/pytorch#116248 (early 2024) DCP pickled the _shard copy of TensorProperties.
        names << kShardModule + QStringLiteral("TensorProperties") << kShardModule + QStringLiteral("MEM_FORMAT_ENCODING");
        names << QStringLiteral("torch.distributed.checkpoint.filesystem._StorageInfo")
              << QStringLiteral("megatron.core.dist_checkpointing.strategies.torch.MCoreMetadata") << QStringLiteral("torch.Size")
              << QStringLiteral("torch.serialization._get_layout");
        for (const char *dtype : {"uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "float32", "float64",
                                  "bfloat16", "complex32", "complex64", "complex128", "bool", "qint8", "quint8", "qint32", "quint4x2",
                                  "quint2x4", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"})
            names << QStringLiteral("torch.") + QLatin1String(dtype);
        for (const char *other : {"strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged",
                                  "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"})
            names << QStringLiteral("torch.") + QLatin1String(other);
        // StorageMeta.checkpoint_id is the pathlib.Path the writer was given (pathlib._local since Python 3.13).
        for (const char *path : {"Path", "PosixPath", "WindowsPath", "PurePath", "PurePosixPath", "PureWindowsPath"})
            names << QStringLiteral("pathlib.") + QLatin1String(path) << QStringLiteral("pathlib._local.") + QLatin1String(path);
        return names;
    }();
    return allowed;
}

std::optional<DcpMetadata> DcpMetadata::parse(const QByteArray &pickle, QString *error)
{
    const PickleResult result = readPickle(pickle);
    for (const QString &global : result.globals) {
        if (global == kGetattr) {
            if (const QString problem = getattrProblem(result); !problem.isEmpty()) {
                *error = problem;
                return std::nullopt;
            }
            continue;
        }
        if (!allowedGlobals().contains(global)) {
            *error = QStringLiteral("names %1, which is not a class torch.distributed.checkpoint writes: not read")
                         .arg(printableText(global.left(200)));
            return std::nullopt;
        }
    }
    if (!result.error.isEmpty()) {
        *error = result.error;
        return std::nullopt;
    }
    const PickleRef root = result.root;
    const PickleRef entries = field(root, "state_dict_metadata");
    if (!className(root).endsWith(QLatin1String("Metadata")) || !entries || entries->kind != Kind::Dict) {
        *error = QStringLiteral("is not a pickled Metadata with a state_dict_metadata dict");
        return std::nullopt;
    }
    QHash<QString, DcpStorage> storage;
    DcpMetadata metadata;
    if (!readStorageData(field(root, "storage_data"), storage, metadata.objectStorage, error))
        return std::nullopt;
    metadata.metadataClass = root->text;
    if (const PickleRef version = field(root, "version"); version && version->isString())
        metadata.version = version->text;
    for (const auto &[key, value] : entries->entries) {
        if (!key || !key->isString()) {
            *error = QStringLiteral("its state_dict_metadata has a key that is not a string");
            return std::nullopt;
        }
        const QString kind = className(value);
        if (kind == QLatin1String("BytesStorageMetadata")) {
            metadata.objects << key->text;
            continue;
        }
        if (kind != QLatin1String("TensorStorageMetadata")) {
            *error = QStringLiteral("the entry of %1 is neither tensor nor bytes metadata").arg(printableText(key->text.left(200)));
            return std::nullopt;
        }
        std::optional<DcpTensor> tensor = readTensor(key->text, value, storage, error);
        if (!tensor)
            return std::nullopt;
        metadata.tensors.append(std::move(*tensor));
    }
    return metadata;
}

} // namespace rankscope
