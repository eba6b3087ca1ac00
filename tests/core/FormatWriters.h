// Writers for the reader tests: safetensors (single and sharded), .npy/.npz and HDF5 files with
// known values, written the way their reference libraries lay them out.
#pragma once

#include "TorchCheckpointWriter.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QtEndian>
#include <cstring>

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
// `metadata`: the writer's own notes in "__metadata__" beside the reference writer's "format".
inline QByteArray safetensorsFile(const QList<SafeTensor> &tensors, const QByteArray &headerOverride = {}, const QJsonObject &metadata = {})
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
    QJsonObject notes = metadata;
    notes.insert("format", "pt");
    header.insert("__metadata__", notes);
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

// np.savez (stored) and np.savez_compressed (deflated) archives.
inline QByteArray npzArchive(const QList<QPair<QString, QByteArray>> &entries, bool compressed)
{
    return zipArchive(entries, compressed);
}

} // namespace rankscope::test
