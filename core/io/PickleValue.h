// The value tree a non-executing unpickler builds: plain data, plus records of what torch's
// rebuild functions would have made (storages, tensors). Nothing here can run code.
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <memory>

namespace rankscope {

struct PickleValue;
using PickleRef = std::shared_ptr<PickleValue>;

// What _rebuild_tensor_v2/_v3 would build: a view of elements of a storage in the archive.
struct TensorRecord {
    QString storageKey;     // the archive entry data/<key>
    QString dtype;          // "float32", "float16", "bfloat16", "float64", or another torch dtype name
    qint64 storageNumel = 0;
    qint64 offset = 0;      // in elements
    QList<qint64> shape;
    QList<qint64> stride;   // in elements
};

struct PickleValue {
    enum class Kind { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict, Global, Storage, Tensor, Opaque };
    Kind kind = Kind::None;
    qint64 integer = 0;
    double real = 0;
    QString text;                               // String; "module.name" for Global and Opaque
    QByteArray bytes;
    QList<PickleRef> items;                     // List, Tuple
    QList<QPair<PickleRef, PickleRef>> entries; // Dict, in insertion order
    TensorRecord tensor;                        // Storage (key, dtype, numel) and Tensor

    static PickleRef make(Kind kind) { auto v = std::make_shared<PickleValue>(); v->kind = kind; return v; }

    bool isString() const { return kind == Kind::String; }
    // For a Dict: the value under a string key, or null.
    PickleRef value(const QString &key) const;
};

} // namespace rankscope
