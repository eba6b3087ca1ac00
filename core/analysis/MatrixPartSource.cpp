#include "analysis/MatrixPartSource.h"

#include <algorithm>

namespace rankscope {

bool MatrixPartSource::BlockScales::fit(qint64 rows, qint64 cols) const
{
    return blockRows > 0 && blockCols > 0 && (rows + blockRows - 1) / blockRows == scales.rows() &&
           (cols + blockCols - 1) / blockCols == scales.cols();
}

MatrixPartSource::MatrixPartSource(std::shared_ptr<const StoredMatrix> tensor, const MatrixPart &part,
                                   std::shared_ptr<const BlockScales> scales)
    : m_tensor(std::move(tensor)), m_part(part), m_rowsAxis(part.axis == MatrixPart::Axis::Rows), m_scales(std::move(scales))
{
}

qint64 MatrixPartSource::rows() const { return m_rowsAxis ? m_part.extent() : m_tensor->rows(); }

qint64 MatrixPartSource::cols() const { return m_rowsAxis ? m_tensor->cols() : m_part.extent(); }

void MatrixPartSource::widenBlock(qint64 row, qint64 rowCount, qint64 col, qint64 colCount, double *dst) const
{
    for (qint64 r = 0; r < rowCount; ++r) {
        const qint64 tensorRow = m_rowsAxis ? tensorLine(row + r) : row + r;
        double *out = dst + r * colCount;
        // The columns come in runs that are consecutive in the tensor: all of them for a row part, up
        // to the end of a group for a column part.
        for (qint64 c = 0; c < colCount;) {
            const qint64 partCol = col + c;
            const qint64 run = m_rowsAxis ? colCount - c : std::min(colCount - c, m_part.count - partCol % m_part.count);
            const qint64 tensorCol = m_rowsAxis ? partCol : tensorLine(partCol);
            m_tensor->widenRow(tensorRow, tensorCol, run, out + c);
            if (m_scales) {
                const auto scaleRow = m_scales->scales.row(tensorRow / m_scales->blockRows);
                for (qint64 k = 0; k < run; ++k)
                    out[c + k] *= scaleRow((tensorCol + k) / m_scales->blockCols);
            }
            c += run;
        }
    }
}

quint64 MatrixPartSource::contentHash() const
{
    StoredBytesHash hash;
    const QByteArray dtype = m_tensor->dtype().toUtf8();
    const qint64 shape[2] = {rows(), cols()};
    hash.add(dtype.constData(), std::size_t(dtype.size()) + 1);
    hash.add(reinterpret_cast<const char *>(shape), sizeof shape);
    // The runs of widenBlock: a row part's rows whole, a column part's columns a group at a time.
    for (qint64 r = 0; r < rows(); ++r) {
        const qint64 tensorRow = m_rowsAxis ? tensorLine(r) : r;
        for (qint64 c = 0; c < cols();) {
            const qint64 run = m_rowsAxis ? cols() - c : std::min(cols() - c, m_part.count - c % m_part.count);
            m_tensor->hashRow(tensorRow, m_rowsAxis ? c : tensorLine(c), run, hash);
            c += run;
        }
    }
    if (m_scales)
        hash.add(reinterpret_cast<const char *>(m_scales->scales.data()), std::size_t(m_scales->scales.size()) * sizeof(double));
    return hash.value();
}

RowMajorMatrix MatrixPartSource::widened() const
{
    RowMajorMatrix out(rows(), cols());
    widenBlock(0, rows(), 0, cols(), out.data());
    return out;
}

} // namespace rankscope
