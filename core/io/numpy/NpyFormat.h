// The .npy header: magic, version, and the Python-literal dict with descr, fortran_order and shape.
#pragma once

#include "io/CheckpointReader.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>

namespace rankscope {

struct NpyHeader {
    QString dtype;       // "float32", "float16", "float64", or the descr for others ("<i8", "|O")
    bool bigEndian = false;
    bool fortranOrder = false;
    QList<qint64> shape;
    qint64 dataOffset = 0; // bytes from the start of the .npy data
    qint64 elementSize = 0;
    bool supported = false; // a float dtype RankScope widens
};

class NpyFormat {
public:
    // head: at least the first bytes of the file (the header is read from them); object dtypes
    // and malformed headers give nullopt and an error.
    static std::optional<NpyHeader> parseHeader(const QByteArray &head, QString *error);
    static bool hasMagic(const QByteArray &head);
    // One rows×cols matrix of the array whose data (after the header) is `data`: the whole of a 2-D
    // array, slice `slice` of a 3-D one, or, with slice -1 and data of one matrix, that matrix.
    // The data is checked against its size first; the matrix keeps the bytes as stored.
    static StoredRead decodeMatrix(const NpyHeader &header, const QByteArray &data, qint64 rows, qint64 cols, qint64 slice = -1);
    // Bytes the array's data needs, or -1 when the shape overflows.
    static qint64 dataBytes(const NpyHeader &header);
    static constexpr qint64 kMaxHeaderBytes = 1 << 20;
};

} // namespace rankscope
