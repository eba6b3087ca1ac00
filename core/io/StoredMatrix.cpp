#include "io/StoredMatrix.h"

#include <cstring>

namespace rankscope {

StoredMatrix::StoredMatrix(QByteArray bytes, const QString &dtype, bool bigEndian, qint64 rows, qint64 cols,
                           qint64 first, qint64 rowStride, qint64 colStride)
    : m_bytes(std::move(bytes)), m_dtype(dtype), m_type(elementTypeOf(dtype)), m_elementSize(elementSize(dtype)),
      m_bigEndian(bigEndian), m_rows(rows), m_cols(cols), m_first(first), m_rowStride(rowStride < 0 ? cols : rowStride),
      m_colStride(colStride)
{
}

StoredMatrix StoredMatrix::fromDouble(const RowMajorMatrix &values)
{
    QByteArray bytes(reinterpret_cast<const char *>(values.data()), qsizetype(values.size() * sizeof(double)));
    return StoredMatrix(std::move(bytes), QStringLiteral("float64"), QSysInfo::ByteOrder == QSysInfo::BigEndian,
                        values.rows(), values.cols());
}

bool StoredMatrix::elementsInside() const
{
    if (m_elementSize <= 0 || m_rows <= 0 || m_cols <= 0 || m_first < 0 || m_rowStride < 0 || m_colStride < 0)
        return false;
    // The farthest element, in 128 bits: strides come from files and their products can overflow.
    const __int128 last = __int128(m_first) + __int128(m_rows - 1) * m_rowStride + __int128(m_cols - 1) * m_colStride;
    return (last + 1) * m_elementSize <= m_bytes.size();
}

void StoredMatrix::widenRow(qint64 row, qint64 col, qint64 count, double *dst) const
{
    const char *src = m_bytes.constData() + (m_first + row * m_rowStride + col * m_colStride) * m_elementSize;
    decodeElements(m_type, src, count, m_bigEndian, dst, m_colStride * m_elementSize);
}

void StoredMatrix::copyRow(qint64 row, qint64 col, qint64 count, char *dst) const
{
    const char *src = m_bytes.constData() + (m_first + row * m_rowStride + col * m_colStride) * m_elementSize;
    if (m_colStride == 1) {
        std::memcpy(dst, src, std::size_t(count * m_elementSize));
        return;
    }
    for (qint64 c = 0; c < count; ++c)
        std::memcpy(dst + c * m_elementSize, src + c * m_colStride * m_elementSize, std::size_t(m_elementSize));
}

void StoredMatrix::hashRow(qint64 row, qint64 col, qint64 count, StoredBytesHash &hash) const
{
    const char *src = m_bytes.constData() + (m_first + row * m_rowStride + col * m_colStride) * m_elementSize;
    if (m_colStride == 1) {
        hash.add(src, std::size_t(count * m_elementSize));
        return;
    }
    for (qint64 c = 0; c < count; ++c)
        hash.add(src + c * m_colStride * m_elementSize, std::size_t(m_elementSize));
}

RowMajorMatrix StoredMatrix::widened() const
{
    RowMajorMatrix out(m_rows, m_cols);
    for (qint64 r = 0; r < m_rows; ++r)
        widenRow(r, 0, m_cols, out.row(r).data());
    return out;
}

} // namespace rankscope
