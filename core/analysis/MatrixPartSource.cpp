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

RowMajorMatrix MatrixPartSource::widened() const
{
    RowMajorMatrix out(rows(), cols());
    widenBlock(0, rows(), 0, cols(), out.data());
    return out;
}

} // namespace rankscope
