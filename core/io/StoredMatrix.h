// One matrix as its file stores it: the element bytes, their dtype and byte order, and where each
// element lies. Widened to float64 a row segment at a time, so that a float32 tensor never needs
// a float64 copy of itself (a 16384×4096 float32 MLP matrix is 256 MB stored, 512 MB widened).
#pragma once

#include "io/ElementDecoder.h"
#include "io/StoredBytesHash.h"

#include <Eigen/Core>
#include <QByteArray>
#include <QString>

namespace rankscope {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class StoredMatrix {
public:
    StoredMatrix() = default;
    // Element (r, c) is at bytes + (first + r·rowStride + c·colStride)·elementSize; the caller
    // has checked that every such element lies inside bytes. rowStride −1 means cols (row-major).
    StoredMatrix(QByteArray bytes, const QString &dtype, bool bigEndian, qint64 rows, qint64 cols,
                 qint64 first = 0, qint64 rowStride = -1, qint64 colStride = 1);
    // A float64 matrix held as it is (tests, and matrices computed rather than read).
    static StoredMatrix fromDouble(const RowMajorMatrix &values);

    qint64 rows() const { return m_rows; }
    qint64 cols() const { return m_cols; }
    const QString &dtype() const { return m_dtype; }
    // Whether every element (r, c) lies inside the bytes held, for a known dtype: checked once
    // before any widening, whatever the reader promised (a reader's bounds slip is an error
    // message, not a read past the buffer).
    bool elementsInside() const;
    // What holding it costs: the stored bytes (never more than the file's share of them).
    qint64 storedBytes() const { return m_bytes.size(); }
    // The bytes held and their byte order: what a reader joining tensor-parallel shards copies.
    const QByteArray &bytes() const { return m_bytes; }
    bool bigEndian() const { return m_bigEndian; }

    // Elements col … col + count − 1 of one row, widened into dst.
    void widenRow(qint64 row, qint64 col, qint64 count, double *dst) const;
    // The stored bytes of elements col … col + count − 1 of one row, in order, into dst (count ·
    // element size bytes): what a reader stitching chunks copies, so that a float32 or bfloat16
    // tensor is never held widened.
    void copyRow(qint64 row, qint64 col, qint64 count, char *dst) const;
    // The stored bytes of elements col … col + count − 1 of one row, in order, into a fingerprint.
    void hashRow(qint64 row, qint64 col, qint64 count, StoredBytesHash &hash) const;
    // The whole matrix in float64 (the exact SVD and the tests want it all at once).
    RowMajorMatrix widened() const;

private:
    QByteArray m_bytes;
    QString m_dtype;
    ElementType m_type = ElementType::Unsupported;
    int m_elementSize = 0;
    bool m_bigEndian = false;
    qint64 m_rows = 0, m_cols = 0;
    qint64 m_first = 0, m_rowStride = 0, m_colStride = 1;
};

} // namespace rankscope
