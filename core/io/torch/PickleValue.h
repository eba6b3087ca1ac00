// The value tree a non-executing unpickler builds: plain data, plus records of what torch's
// rebuild functions would have made (storages, tensors). Nothing here can run code.
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <memory>
#include <vector>

namespace rankscope {

struct PickleValue;
// Values refer to each other by plain pointers into the arena that owns them all (a pickle can
// hold cycles: a dict inside itself), so a reference never keeps anything alive.
using PickleRef = PickleValue *;

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
    // An Opaque object's constructor arguments are in `items` (what NEWOBJ or REDUCE passed) and
    // what BUILD gave it is `state` (a dataclass's or argparse.Namespace's dict of fields, a
    // tuple for classes with __setstate__): kept as data, never applied or run.
    PickleRef state = nullptr;

    bool isString() const { return kind == Kind::String; }
    // For a Dict: the value under a string key, or null.
    PickleRef value(const QString &key) const;
};

// Owns every value of one unpickled object graph.
class PickleArena {
public:
    PickleRef make(PickleValue::Kind kind)
    {
        m_values.push_back(std::make_unique<PickleValue>());
        m_values.back()->kind = kind;
        return m_values.back().get();
    }
    size_t size() const { return m_values.size(); }

private:
    std::vector<std::unique_ptr<PickleValue>> m_values;
};

} // namespace rankscope
