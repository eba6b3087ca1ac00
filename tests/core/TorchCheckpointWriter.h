// Writes small torch.save-format archives for the reader tests: the pickle protocol-2 bytes
// torch would write for nanoGPT's {'model': OrderedDict(name → tensor), 'iter_num': step,
// 'model_args': {'n_head': heads}} and a stored zip.
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QtEndian>
#include <algorithm>
#include <cstring>
#include <zlib.h>

namespace rankscope::test {

struct FakeTensor {
    QString name;
    QString storageClass; // "FloatStorage", "HalfStorage", …
    QString key;
    qint64 numel;
    qint64 offset;
    QList<qint64> shape;
    QList<qint64> stride;
};

class PickleBuilder {
public:
    PickleBuilder &op(char c) { bytes.append(c); return *this; }
    PickleBuilder &str(const QString &s)
    {
        const QByteArray utf8 = s.toUtf8();
        bytes.append('X');
        appendLE<quint32>(quint32(utf8.size()));
        bytes.append(utf8);
        return *this;
    }
    PickleBuilder &integer(qint64 v) { bytes.append('J'); appendLE<qint32>(qint32(v)); return *this; }
    PickleBuilder &global(const char *module, const char *name)
    {
        bytes.append('c').append(module).append('\n').append(name).append('\n');
        return *this;
    }
    PickleBuilder &intTuple(const QList<qint64> &values)
    {
        op('(');
        for (qint64 v : values)
            integer(v);
        return op('t');
    }
    QByteArray bytes;

private:
    template <typename T>
    void appendLE(T v)
    {
        char buffer[sizeof(T)];
        qToLittleEndian(v, buffer);
        bytes.append(buffer, sizeof(T));
    }
};

inline QByteArray torchPickle(const QList<FakeTensor> &tensors, qint64 step, qint64 heads = 4)
{
    PickleBuilder p;
    p.op('\x80').op('\x02').op('}').op('(').str("model").global("collections", "OrderedDict").op(')').op('R').op('(');
    for (const FakeTensor &t : tensors) {
        p.str(t.name).global("torch._utils", "_rebuild_tensor_v2").op('(');
        p.op('(').str("storage").global("torch", t.storageClass.toLatin1().constData()).str(t.key).str("cpu").integer(t.numel).op('t').op('Q');
        p.integer(t.offset).intTuple(t.shape).intTuple(t.stride).op('\x89');
        p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
    }
    p.op('u').str("iter_num").integer(step);
    p.str("model_args").op('}').op('(').str("n_head").integer(heads).op('u');
    p.op('u').op('.');
    return p.bytes;
}

inline QByteArray rawDeflate(const QByteArray &in)
{
    z_stream s{};
    deflateInit2(&s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(int(deflateBound(&s, uLong(in.size()))), '\0');
    s.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(in.constData()));
    s.avail_in = uInt(in.size());
    s.next_out = reinterpret_cast<Bytef *>(out.data());
    s.avail_out = uInt(out.size());
    deflate(&s, Z_FINISH);
    out.resize(qsizetype(s.total_out));
    deflateEnd(&s);
    return out;
}

// A zip archive whose entries are stored (as torch.save and np.savez write them) or deflated
// (np.savez_compressed). Like torch.save, the local headers carry no sizes: only the directory does.
inline QByteArray zipArchive(const QList<QPair<QString, QByteArray>> &entries, bool deflate = false)
{
    QByteArray out, directory;
    auto u16 = [](QByteArray &b, quint16 v) { char c[2]; qToLittleEndian(v, c); b.append(c, 2); };
    auto u32 = [](QByteArray &b, quint32 v) { char c[4]; qToLittleEndian(v, c); b.append(c, 4); };
    for (const auto &[name, data] : entries) {
        const QByteArray stored = deflate ? rawDeflate(data) : data;
        const quint16 method = deflate ? 8 : 0;
        const quint32 crc = quint32(crc32(0, reinterpret_cast<const Bytef *>(data.constData()), uInt(data.size())));
        const quint32 offset = quint32(out.size());
        const QByteArray n = name.toUtf8();
        u32(out, 0x04034b50); u16(out, 20); u16(out, 8); u16(out, method); u16(out, 0); u16(out, 0);
        u32(out, 0); u32(out, 0); u32(out, 0);
        u16(out, quint16(n.size())); u16(out, 0);
        out.append(n).append(stored);
        u32(directory, 0x02014b50); u16(directory, 20); u16(directory, 20); u16(directory, 8); u16(directory, method);
        u16(directory, 0); u16(directory, 0); u32(directory, crc);
        u32(directory, quint32(stored.size())); u32(directory, quint32(data.size()));
        u16(directory, quint16(n.size())); u16(directory, 0); u16(directory, 0); u16(directory, 0); u16(directory, 0);
        u32(directory, 0); u32(directory, offset);
        directory.append(n);
    }
    const quint32 directoryOffset = quint32(out.size());
    out.append(directory);
    u32(out, 0x06054b50); u16(out, 0); u16(out, 0);
    u16(out, quint16(entries.size())); u16(out, quint16(entries.size()));
    u32(out, quint32(directory.size())); u32(out, directoryOffset); u16(out, 0);
    return out;
}

template <typename T>
QByteArray rawBytes(const QList<T> &values, bool bigEndian = false)
{
    QByteArray out;
    for (T v : values) {
        char buffer[sizeof(T)];
        std::memcpy(buffer, &v, sizeof(T));
        if (bigEndian)
            std::reverse(buffer, buffer + sizeof(T));
        out.append(buffer, sizeof(T));
    }
    return out;
}

} // namespace rankscope::test
