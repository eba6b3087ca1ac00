// Writers for the reader tests: safetensors (single and sharded), .npy/.npz and HDF5 files with
// known values, written the way their reference libraries lay them out.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QtEndian>
#include <cstring>
#include <zlib.h>

namespace rankscope::test {

inline void saveBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    f.open(QIODevice::WriteOnly | QIODevice::Truncate);
    f.write(bytes);
}

struct SafeTensor {
    QString name;
    QString dtype; // "F32", "F16", "BF16", "F64", …
    QList<qint64> shape;
    QByteArray data;
};

// header JSON padded with spaces to a multiple of 8, as the reference writer does.
inline QByteArray safetensorsFile(const QList<SafeTensor> &tensors, const QByteArray &headerOverride = {})
{
    QJsonObject header;
    QByteArray data;
    for (const SafeTensor &t : tensors) {
        QJsonArray shape;
        for (qint64 d : t.shape)
            shape.append(d);
        header.insert(t.name, QJsonObject{{"dtype", t.dtype}, {"shape", shape},
                                          {"data_offsets", QJsonArray{data.size(), data.size() + t.data.size()}}});
        data.append(t.data);
    }
    header.insert("__metadata__", QJsonObject{{"format", "pt"}});
    QByteArray json = headerOverride.isEmpty() ? QJsonDocument(header).toJson(QJsonDocument::Compact) : headerOverride;
    while (json.size() % 8)
        json.append(' ');
    QByteArray out(8, '\0');
    qToLittleEndian<quint64>(quint64(json.size()), out.data());
    return out + json + data;
}

inline QByteArray npyFile(const QString &descr, const QList<qint64> &shape, const QByteArray &data, bool fortran = false)
{
    QStringList dims;
    for (qint64 d : shape)
        dims << QString::number(d);
    QString dict = QStringLiteral("{'descr': '%1', 'fortran_order': %2, 'shape': (%3%4), }")
                       .arg(descr, fortran ? "True" : "False", dims.join(", "), shape.size() == 1 ? "," : "");
    QByteArray header = dict.toLatin1();
    while ((10 + header.size() + 1) % 64)
        header.append(' ');
    header.append('\n');
    QByteArray out("\x93NUMPY\x01\x00", 8);
    char length[2];
    qToLittleEndian<quint16>(quint16(header.size()), length);
    out.append(length, 2);
    return out + header + data;
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

// A zip whose entries are deflated (np.savez_compressed) or stored (np.savez).
inline QByteArray npzArchive(const QList<QPair<QString, QByteArray>> &entries, bool compressed)
{
    QByteArray out, directory;
    auto u16 = [](QByteArray &b, quint16 v) { char c[2]; qToLittleEndian(v, c); b.append(c, 2); };
    auto u32 = [](QByteArray &b, quint32 v) { char c[4]; qToLittleEndian(v, c); b.append(c, 4); };
    for (const auto &[name, data] : entries) {
        const QByteArray stored = compressed ? rawDeflate(data) : data;
        const quint16 method = compressed ? 8 : 0;
        const quint32 crc = quint32(crc32(0, reinterpret_cast<const Bytef *>(data.constData()), uInt(data.size())));
        const quint32 offset = quint32(out.size());
        const QByteArray n = name.toUtf8();
        u32(out, 0x04034b50); u16(out, 20); u16(out, 0); u16(out, method); u16(out, 0); u16(out, 0);
        u32(out, crc); u32(out, quint32(stored.size())); u32(out, quint32(data.size()));
        u16(out, quint16(n.size())); u16(out, 0);
        out.append(n).append(stored);
        u32(directory, 0x02014b50); u16(directory, 20); u16(directory, 20); u16(directory, 0); u16(directory, method);
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

} // namespace rankscope::test
