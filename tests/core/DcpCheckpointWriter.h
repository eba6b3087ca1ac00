// Writes torch.distributed.checkpoint folders for the reader tests, byte for byte as the writers do:
// - `.metadata`: pickle.dump(metadata) with Python's default protocol 4 (Python 3.8–3.13), as
//   CPython's _pickle.c writes it (PROTO, one FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL; a
//   dataclass as <class> EMPTY_TUPLE NEWOBJ MEMOIZE <state> BUILD, no BUILD when its __dict__ is
//   empty; dicts of one item as SETITEM, longer ones MARK … SETITEMS). The classes and fields are
//   those of pytorch/pytorch torch/distributed/checkpoint/metadata.py and filesystem.py at the
//   revision with CURRENT_DCP_VERSION = "1.0.0" (Metadata.version, _StorageInfo.__getstate__
//   dropping None fields, TensorProperties.__getstate__ a 5-tuple), and Megatron-Core's
//   MCoreMetadata (megatron/core/dist_checkpointing/strategies/torch.py, 2024-06 … 2025-12).
// - each chunk: torch.save(tensor) at protocol 2 (GLOBAL, BINPUT, BINUNICODE, BINPERSID), one
//   stored zip archive "archive/…" per chunk, written back to back in its rank's __R_0.distcp,
//   BYTE_IO items first (filesystem.py _write_files_from_queue).
// Equal strings share one memo entry, as CPython's identity memo does for the interned names of
// classes and fields.
#pragma once

#include "TorchCheckpointWriter.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QMap>
#include <QString>
#include <memory>
#include <optional>

namespace rankscope::test {

struct Py;
using PyRef = std::shared_ptr<Py>;

// A Python object as pickle sees it.
struct Py {
    enum Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, NewObj, Reduce, PersId } kind = None;
    qint64 integer = 0;
    double real = 0;
    QString text;                     // Str; Global: "module\nname"
    QList<PyRef> items;               // Tuple, List; Reduce: its args tuple is items[0]; PersId: its tuple is items[0]
    QList<QPair<PyRef, PyRef>> entries;
    PyRef callable;                   // NewObj: the class; Reduce: the callable
    PyRef state;                      // NewObj, Reduce: BUILD state (null: none)
};

inline PyRef pyNone() { return std::make_shared<Py>(); }
inline PyRef pyBool(bool v) { auto p = std::make_shared<Py>(); p->kind = Py::Bool; p->integer = v; return p; }
inline PyRef pyInt(qint64 v) { auto p = std::make_shared<Py>(); p->kind = Py::Int; p->integer = v; return p; }
inline PyRef pyFloat(double v) { auto p = std::make_shared<Py>(); p->kind = Py::Float; p->real = v; return p; }
inline PyRef pyStr(const QString &s) { auto p = std::make_shared<Py>(); p->kind = Py::Str; p->text = s; return p; }
inline PyRef pyTuple(QList<PyRef> items) { auto p = std::make_shared<Py>(); p->kind = Py::Tuple; p->items = std::move(items); return p; }
inline PyRef pyList(QList<PyRef> items) { auto p = std::make_shared<Py>(); p->kind = Py::List; p->items = std::move(items); return p; }
inline PyRef pyDict(QList<QPair<PyRef, PyRef>> entries) { auto p = std::make_shared<Py>(); p->kind = Py::Dict; p->entries = std::move(entries); return p; }
inline PyRef pyIntTuple(const QList<qint64> &values)
{
    QList<PyRef> items;
    for (const qint64 v : values)
        items << pyInt(v);
    return pyTuple(items);
}

// Objects that are one object in Python (a class, a dtype) are one PyRef here, so that the
// pickler memoizes them as CPython does.
class PyObjects {
public:
    PyRef global(const QString &module, const QString &name)
    {
        PyRef &g = m_globals[module + QLatin1Char('\n') + name];
        if (!g) {
            g = std::make_shared<Py>();
            g->kind = Py::Global;
            g->text = module + QLatin1Char('\n') + name;
        }
        return g;
    }
    PyRef newObj(const QString &module, const QString &name, PyRef state)
    {
        auto p = std::make_shared<Py>();
        p->kind = Py::NewObj;
        p->callable = global(module, name);
        p->state = std::move(state);
        return p;
    }
    PyRef reduce(PyRef callable, PyRef args)
    {
        auto p = std::make_shared<Py>();
        p->kind = Py::Reduce;
        p->callable = std::move(callable);
        p->items << std::move(args);
        return p;
    }
    // A dataclass's __dict__, keyed by its (interned) field names.
    PyRef fields(const QList<QPair<const char *, PyRef>> &values)
    {
        QList<QPair<PyRef, PyRef>> entries;
        for (const auto &[name, value] : values)
            entries.append({interned(QLatin1String(name)), value});
        return pyDict(entries);
    }
    PyRef interned(const QString &s)
    {
        PyRef &p = m_strings[s];
        if (!p)
            p = pyStr(s);
        return p;
    }
    // An object Python has once (torch.strided, an enum member), made by the caller on first use.
    PyRef &singleton(const QString &name) { return m_singletons[name]; }
    // torch.Size(values): THPSize_reduce gives (torch.Size, (tuple(self),)).
    PyRef size(const QList<qint64> &values) { return reduce(global("torch", "Size"), pyTuple({pyIntTuple(values)})); }

private:
    QHash<QString, PyRef> m_globals;
    QHash<QString, PyRef> m_strings;
    QHash<QString, PyRef> m_singletons;
};

// CPython's pickler for the objects above, at protocol 2 (torch.save) or 4 (pickle.dump's default).
class Pickler {
public:
    explicit Pickler(int protocol) : m_protocol(protocol) {}

    QByteArray dump(const PyRef &root)
    {
        save(root);
        m_body.append('.');
        QByteArray out("\x80", 1);
        out.append(char(m_protocol));
        if (m_protocol >= 4) { // one frame: every test pickle is far below the 64 KiB frame target
            out.append('\x95');
            appendLE<quint64>(out, quint64(m_body.size()));
        }
        return out + m_body;
    }

private:
    template <typename T>
    static void appendLE(QByteArray &b, T v)
    {
        char c[sizeof(T)];
        qToLittleEndian(v, c);
        b.append(c, sizeof(T));
    }
    void memoize(const Py *p)
    {
        const quint32 index = quint32(m_memo.size());
        m_memo.insert(p, index);
        if (m_protocol >= 4) {
            m_body.append('\x94');
        } else if (index < 256) {
            m_body.append('q').append(char(index));
        } else {
            m_body.append('r');
            appendLE<quint32>(m_body, index);
        }
    }
    bool fromMemo(const Py *p)
    {
        const auto it = m_memo.constFind(p);
        if (it == m_memo.constEnd())
            return false;
        if (*it < 256) {
            m_body.append('h').append(char(*it));
        } else {
            m_body.append('j');
            appendLE<quint32>(m_body, *it);
        }
        return true;
    }
    void saveInt(qint64 v)
    {
        if (v >= 0 && v <= 0xff) {
            m_body.append('K').append(char(v));
        } else if (v >= 0 && v <= 0xffff) {
            m_body.append('M');
            appendLE<quint16>(m_body, quint16(v));
        } else if (v >= -(qint64(1) << 31) && v < (qint64(1) << 31)) {
            m_body.append('J');
            appendLE<qint32>(m_body, qint32(v));
        } else { // LONG1: little-endian two's complement, as short as the value allows
            QByteArray digits;
            appendLE<qint64>(digits, v);
            while (digits.size() > 1 && ((digits.back() == 0 && !(digits[digits.size() - 2] & 0x80)) ||
                                         (digits.back() == char(0xff) && (digits[digits.size() - 2] & 0x80))))
                digits.chop(1);
            m_body.append('\x8a').append(char(digits.size())).append(digits);
        }
    }
    void saveStr(const Py *p)
    {
        const QByteArray utf8 = p->text.toUtf8();
        if (m_protocol >= 4 && utf8.size() < 256) {
            m_body.append('\x8c').append(char(utf8.size()));
        } else {
            m_body.append('X');
            appendLE<quint32>(m_body, quint32(utf8.size()));
        }
        m_body.append(utf8);
        memoize(p);
    }
    void saveGlobal(const Py *p)
    {
        const QString module = p->text.section(QLatin1Char('\n'), 0, 0), name = p->text.section(QLatin1Char('\n'), 1);
        if (m_protocol >= 4) {
            save(names.interned(module));
            save(names.interned(name));
            m_body.append('\x93');
        } else {
            m_body.append('c').append(module.toUtf8()).append('\n').append(name.toUtf8()).append('\n');
        }
        memoize(p);
    }
    void saveTuple(const Py *p)
    {
        if (p->items.isEmpty()) {
            m_body.append(')');
            return;
        }
        const bool small = p->items.size() <= 3;
        if (!small)
            m_body.append('(');
        for (const PyRef &item : p->items)
            save(item);
        m_body.append(small ? "\x85\x86\x87"[p->items.size() - 1] : 't');
        memoize(p);
    }
    // CPython's batch_list / batch_dict: one item alone, more in MARK … batches.
    void saveList(const Py *p)
    {
        m_body.append(']');
        memoize(p);
        if (p->items.size() == 1) {
            save(p->items.first());
            m_body.append('a');
        } else if (!p->items.isEmpty()) {
            m_body.append('(');
            for (const PyRef &item : p->items)
                save(item);
            m_body.append('e');
        }
    }
    void saveDict(const Py *p)
    {
        m_body.append('}');
        memoize(p);
        if (p->entries.size() == 1) {
            save(p->entries.first().first);
            save(p->entries.first().second);
            m_body.append('s');
        } else if (!p->entries.isEmpty()) {
            m_body.append('(');
            for (const auto &[key, value] : p->entries) {
                save(key);
                save(value);
            }
            m_body.append('u');
        }
    }
    void save(const PyRef &ref)
    {
        const Py *p = ref.get();
        if (p->kind == Py::None) { m_body.append('N'); return; }
        if (p->kind == Py::Bool) { m_body.append(p->integer ? '\x88' : '\x89'); return; }
        if (p->kind == Py::Int) { saveInt(p->integer); return; }
        if (p->kind == Py::Float) {
            m_body.append('G');
            char c[8];
            qToBigEndian(p->real, c);
            m_body.append(c, 8);
            return;
        }
        if (p->kind == Py::PersId) { save(p->items.first()); m_body.append('Q'); return; }
        if (fromMemo(p))
            return;
        switch (p->kind) {
        case Py::Str: saveStr(p); break;
        case Py::Global: saveGlobal(p); break;
        case Py::Tuple: saveTuple(p); break;
        case Py::List: saveList(p); break;
        case Py::Dict: saveDict(p); break;
        case Py::NewObj:
            save(p->callable);
            m_body.append(')').append('\x81');
            memoize(p);
            break;
        case Py::Reduce:
            save(p->callable);
            save(p->items.first());
            m_body.append('R');
            memoize(p);
            break;
        default: break;
        }
        if ((p->kind == Py::NewObj || p->kind == Py::Reduce) && p->state) {
            save(p->state);
            m_body.append('b');
        }
    }

    int m_protocol;
    QByteArray m_body;
    QHash<const Py *, quint32> m_memo;
    PyObjects names; // module and class names, each one string object as in CPython
};

// torch.save(obj) into a stream: protocol 2 data.pkl, little-endian, "archive/" as the record
// prefix (a stream has no file name to take it from), storages as archive/data/<key>.
inline QByteArray torchSaveArchive(const PyRef &object, const QList<QPair<QString, QByteArray>> &storages)
{
    QList<QPair<QString, QByteArray>> entries{{"archive/data.pkl", Pickler(2).dump(object)}, {"archive/byteorder", "little"}};
    for (const auto &[key, data] : storages)
        entries.append({"archive/data/" + key, data});
    entries.append(qMakePair(QStringLiteral("archive/version"), QByteArray("3\n")));
    return zipArchive(entries);
}

// What torch.save writes for a CPU float32 tensor (Tensor._reduce_ex_internal): _rebuild_tensor_v2(
// storage as persistent id ('storage', torch.FloatStorage, '0', 'cpu', numel), offset, size,
// stride, requires_grad False, OrderedDict() of backward hooks).
inline QByteArray torchSaveTensor(const QList<float> &storage, qint64 offset, const QList<qint64> &size, const QList<qint64> &stride)
{
    PyObjects o;
    auto pid = std::make_shared<Py>();
    pid->kind = Py::PersId;
    pid->items << pyTuple({pyStr("storage"), o.global("torch", "FloatStorage"), pyStr("0"), pyStr("cpu"), pyInt(storage.size())});
    const PyRef hooks = o.reduce(o.global("collections", "OrderedDict"), pyTuple({}));
    const PyRef tensor = o.reduce(o.global("torch._utils", "_rebuild_tensor_v2"),
                                  pyTuple({pid, pyInt(offset), pyIntTuple(size), pyIntTuple(stride), pyBool(false), hooks}));
    return torchSaveArchive(tensor, {{"0", rawBytes(storage)}});
}

// One chunk of a DCP tensor and where the test puts it; the storage fields can be overridden to
// make hostile metadata.
struct DcpChunkSpec {
    QList<qint64> offsets, sizes;
    QString file;                 // "__0_0.distcp"
    QList<qint64> stride = {};    // empty: contiguous; else the saved view's strides (a transposed chunk)
    QString pathOverride = {};    // relative_path written instead of file
    std::optional<qint64> offsetOverride = {}, lengthOverride = {};
    QStringList transforms = {};  // transform_descriptors
    QList<qint64> declaredOffsets = {}, declaredSizes = {}; // what .metadata says instead of the chunk written
};

struct DcpTensorSpec {
    QString fqn;
    QList<qint64> size;
    QList<DcpChunkSpec> chunks;
    QList<float> values = {};     // the global tensor, row-major; empty: element i is 1 + i
    QList<qint64> declaredSize = {}; // what .metadata says instead of size
};

// A BYTE_IO item: torch.save of a Python object, written first in its file.
struct DcpObjectSpec {
    QString fqn;
    QString file;
    PyRef object;
};

// How the Python that ran pickle.dump writes an Enum member (CPython's Enum.__reduce_ex__): by value,
// <enum class>(0), in 3.10 and before and again from 3.11.5 and 3.12 on (python/cpython#105348); by
// name, getattr(<enum class>, 'TORCH_CONTIGUOUS_FORMAT'), in 3.11.0–3.11.4 (#26658), Debian 12's
// 3.11.2 among them. getattr is a builtin function: pickled as the global builtins.getattr.
enum class EnumPickling { ByValue, ByName };

struct DcpFolderSpec {
    QList<DcpTensorSpec> tensors;
    QList<DcpObjectSpec> objects;
    bool megatron = false;        // MCoreMetadata, no planner_data (flatten_state_dict=False)
    QString checkpointId = "/ckpt/step-10";
    PyRef extraPlannerData = {};  // planner_data to write instead (a hostile global, say)
    EnumPickling enumPickling = EnumPickling::ByValue;
    // TensorProperties and MEM_FORMAT_ENCODING of torch.distributed._shard.sharded_tensor.metadata,
    // as DCP pickled them before pytorch/pytorch#116248 (torch 2.2 and before).
    bool shardProperties = false;
    PyRef memoryFormat = {};      // TensorProperties' memory-format encoding to write instead (a hostile getattr call)
    // dist_cp.save({stateDictKey: state_dict}) with DefaultSavePlanner (Accelerate's FSDP saves): the
    // fqns are "stateDictKey.name", and flatten_state_dict's planner_data maps each to the path
    // (stateDictKey, name). Empty: each fqn's path is (fqn,).
    QString stateDictKey = {};
};

inline qint64 elementCount(const QList<qint64> &shape)
{
    qint64 n = 1;
    for (const qint64 d : shape)
        n *= d;
    return n;
}

// The chunk's elements as torch.save stores them: a contiguous copy, or laid out by `stride`.
inline QList<float> chunkStorage(const DcpTensorSpec &t, const DcpChunkSpec &c)
{
    const qsizetype rank = t.size.size();
    QList<qint64> stride = c.stride;
    if (stride.isEmpty()) {
        stride = QList<qint64>(rank, 1);
        for (qsizetype d = rank - 2; d >= 0; --d)
            stride[d] = stride[d + 1] * c.sizes[d + 1];
    }
    qint64 span = 1;
    for (qsizetype d = 0; d < rank; ++d)
        span += (c.sizes[d] - 1) * stride[d];
    QList<float> out(span, 0.0f);
    QList<qint64> index(rank, 0);
    for (qint64 n = 0; n < elementCount(c.sizes); ++n) {
        qint64 rest = n, global = 0, local = 0, globalStride = 1;
        for (qsizetype d = rank - 1; d >= 0; --d) {
            index[d] = rest % c.sizes[d];
            rest /= c.sizes[d];
        }
        for (qsizetype d = rank - 1; d >= 0; --d) {
            global += (c.offsets[d] + index[d]) * globalStride;
            globalStride *= t.size[d];
            local += index[d] * stride[d];
        }
        out[local] = t.values.isEmpty() ? float(1 + global) : t.values[global];
    }
    return out;
}

inline QList<qint64> chunkStride(const DcpTensorSpec &t, const DcpChunkSpec &c)
{
    if (!c.stride.isEmpty())
        return c.stride;
    QList<qint64> stride(t.size.size(), 1);
    for (qsizetype d = t.size.size() - 2; d >= 0; --d)
        stride[d] = stride[d + 1] * c.sizes[d + 1];
    return stride;
}

class DcpFolderWriter {
public:
    // Writes the .distcp files and .metadata into folder; false if a file cannot be written.
    static bool write(const QString &folder, const DcpFolderSpec &spec)
    {
        QDir().mkpath(folder);
        QMap<QString, QByteArray> files;
        QHash<QString, QPair<qint64, qint64>> placed; // "fqn\nchunk i" → (offset, length)
        for (const DcpObjectSpec &o : spec.objects) {
            const QByteArray bytes = torchSaveArchive(o.object, {});
            placed.insert(o.fqn, {files[o.file].size(), bytes.size()});
            files[o.file].append(bytes);
        }
        for (const DcpTensorSpec &t : spec.tensors)
            for (qsizetype i = 0; i < t.chunks.size(); ++i) {
                const DcpChunkSpec &c = t.chunks[i];
                const QByteArray bytes = torchSaveTensor(chunkStorage(t, c), 0, c.sizes, chunkStride(t, c));
                placed.insert(t.fqn + QLatin1Char('\n') + QString::number(i), {files[c.file].size(), bytes.size()});
                files[c.file].append(bytes);
            }
        for (auto it = files.begin(); it != files.end(); ++it)
            if (!writeBytes(QDir(folder).filePath(it.key()), *it))
                return false;
        return writeBytes(QDir(folder).filePath(".metadata"), Pickler(4).dump(metadata(spec, placed)));
    }

    static bool writeBytes(const QString &path, const QByteArray &bytes)
    {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    }

private:
    static constexpr const char *kMeta = "torch.distributed.checkpoint.metadata";
    static constexpr const char *kShard = "torch.distributed._shard.sharded_tensor.metadata";

    // TensorProperties.__getstate__: (dtype, layout, requires_grad, memory_format encoding,
    // pin_memory). torch.strided and the enum member are one object each: memoized after their first use.
    static PyRef properties(PyObjects &o, const DcpFolderSpec &spec)
    {
        PyRef &layout = o.singleton("torch.strided");
        if (!layout)
            layout = o.reduce(o.global("torch.serialization", "_get_layout"), pyTuple({pyStr("torch.strided")}));
        const char *module = spec.shardProperties ? kShard : kMeta;
        PyRef &format = o.singleton("TORCH_CONTIGUOUS_FORMAT");
        if (!format) {
            const PyRef enumClass = o.global(module, spec.shardProperties ? "MEM_FORMAT_ENCODING" : "_MEM_FORMAT_ENCODING");
            format = spec.memoryFormat ? spec.memoryFormat : memoryFormatMember(o, enumClass, spec.enumPickling);
        }
        return o.newObj(module, "TensorProperties", pyTuple({o.global("torch", "float32"), layout, pyBool(false), format, pyBool(false)}));
    }

    // _MEM_FORMAT_ENCODING.TORCH_CONTIGUOUS_FORMAT (value 0) as `pickling` writes it.
    static PyRef memoryFormatMember(PyObjects &o, const PyRef &enumClass, EnumPickling pickling)
    {
        if (pickling == EnumPickling::ByName)
            return o.reduce(o.global("builtins", "getattr"), pyTuple({enumClass, pyStr("TORCH_CONTIGUOUS_FORMAT")}));
        return o.reduce(enumClass, pyTuple({pyInt(0)}));
    }

    static PyRef metadata(const DcpFolderSpec &spec, const QHash<QString, QPair<qint64, qint64>> &placed)
    {
        PyObjects o;
        QList<QPair<PyRef, PyRef>> entries, storage, planner;
        for (const DcpObjectSpec &obj : spec.objects) {
            const PyRef fqn = pyStr(obj.fqn);
            entries.append({fqn, o.newObj(kMeta, "BytesStorageMetadata", nullptr)});
            const PyRef index = o.newObj(kMeta, "MetadataIndex", o.fields({{"fqn", fqn}, {"index", pyNone()}}));
            const auto [offset, length] = placed.value(obj.fqn);
            storage.append({index, storageInfo(o, obj.file, offset, length, {})});
            planner.append({fqn, pyTuple({fqn})});
        }
        for (const DcpTensorSpec &t : spec.tensors) {
            const PyRef fqn = pyStr(t.fqn);
            QList<PyRef> chunks;
            for (qsizetype i = 0; i < t.chunks.size(); ++i) {
                const DcpChunkSpec &c = t.chunks[i];
                const QList<qint64> &at = c.declaredOffsets.isEmpty() ? c.offsets : c.declaredOffsets;
                const QList<qint64> &sizes = c.declaredSizes.isEmpty() ? c.sizes : c.declaredSizes;
                chunks << o.newObj(kMeta, "ChunkStorageMetadata", o.fields({{"offsets", o.size(at)}, {"sizes", o.size(sizes)}}));
                // MetadataIndex.__init__ makes its own torch.Size(offset).
                const PyRef index = o.newObj(kMeta, "MetadataIndex", o.fields({{"fqn", fqn}, {"index", pyInt(i)}, {"offset", o.size(at)}}));
                const auto [offset, length] = placed.value(t.fqn + QLatin1Char('\n') + QString::number(i));
                storage.append({index, storageInfo(o, c.pathOverride.isEmpty() ? c.file : c.pathOverride, c.offsetOverride.value_or(offset),
                                                   c.lengthOverride.value_or(length), c.transforms)});
            }
            entries.append({fqn, o.newObj(kMeta, "TensorStorageMetadata",
                                          o.fields({{"properties", properties(o, spec)},
                                                    {"size", o.size(t.declaredSize.isEmpty() ? t.size : t.declaredSize)},
                                                    {"chunks", pyList(chunks)}}))});
            const QString key = spec.stateDictKey + QLatin1Char('.');
            planner.append({fqn, !spec.stateDictKey.isEmpty() && t.fqn.startsWith(key) ? pyTuple({o.interned(spec.stateDictKey), pyStr(t.fqn.mid(key.size()))})
                                                                                        : pyTuple({fqn})});
        }
        const PyRef path = o.reduce(o.global("pathlib", "PosixPath"), pyTuple({pyStr("/"), pyStr("ckpt"), pyStr(spec.checkpointId.section('/', -1))}));
        const PyRef storageMeta = o.newObj(kMeta, "StorageMeta", o.fields({{"checkpoint_id", path}, {"save_id", pyStr("3f0c5a52-0d1e-4c1b-9a57-2f2d7c1f9e10")},
                                                                         {"load_id", pyNone()}, {"modules", pyList({})}}));
        QList<QPair<const char *, PyRef>> fields = {{"state_dict_metadata", pyDict(entries)},
                                                    {"planner_data", spec.extraPlannerData ? spec.extraPlannerData : spec.megatron ? pyNone() : pyDict(planner)},
                                                    {"storage_data", pyDict(storage)}, {"storage_meta", storageMeta}, {"version", pyStr("1.0.0")}};
        if (spec.megatron)
            fields.append({"mcore_data", pyDict({})});
        return spec.megatron ? o.newObj("megatron.core.dist_checkpointing.strategies.torch", "MCoreMetadata", o.fields(fields))
                             : o.newObj(kMeta, "Metadata", o.fields(fields));
    }

    // _StorageInfo.__getstate__ leaves out None fields: transform_descriptors only when set.
    static PyRef storageInfo(PyObjects &o, const QString &path, qint64 offset, qint64 length, const QStringList &transforms)
    {
        QList<QPair<const char *, PyRef>> fields = {{"relative_path", o.interned(path)}, {"offset", pyInt(offset)}, {"length", pyInt(length)}};
        if (!transforms.isEmpty()) {
            QList<PyRef> items;
            for (const QString &t : transforms)
                items << pyStr(t);
            fields.append({"transform_descriptors", pyList(items)});
        }
        return o.newObj("torch.distributed.checkpoint.filesystem", "_StorageInfo", o.fields(fields));
    }
};

// The folder the DCP fuzz target and its regression replays put each input beside as `.metadata`:
// w [2, 8] in two [2, 4] chunks of __0_0.distcp, at bytes 0 and 644.
inline DcpFolderSpec dcpFuzzFolder()
{
    return {{{"w", {2, 8}, {{{0, 0}, {2, 4}, "__0_0.distcp"}, {{0, 4}, {2, 4}, "__0_0.distcp"}}}}, {}};
}

} // namespace rankscope::test
