#include "analysis/execution/MatrixPartSource.h"

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

MatrixPartSource::MatrixPartSource(std::shared_ptr<const LowRankFactors> product, const MatrixPart &part)
    : m_product(std::move(product)), m_part(part), m_rowsAxis(part.axis == MatrixPart::Axis::Rows)
{
}

qint64 MatrixPartSource::rows() const { return m_rowsAxis ? m_part.extent() : tensorRows(); }

qint64 MatrixPartSource::cols() const { return m_rowsAxis ? tensorCols() : m_part.extent(); }

std::optional<LowRankFactors> MatrixPartSource::lowRankFactors() const
{
    if (!m_product)
        return std::nullopt;
    LowRankFactors part{{}, {}, m_product->scale};
    const Eigen::MatrixXd &cut = m_rowsAxis ? m_product->left : m_product->right;
    Eigen::MatrixXd taken(m_part.extent(), cut.cols());
    for (qint64 i = 0; i < taken.rows(); ++i)
        taken.row(i) = cut.row(tensorLine(i));
    (m_rowsAxis ? part.left : part.right) = std::move(taken);
    (m_rowsAxis ? part.right : part.left) = m_rowsAxis ? m_product->right : m_product->left;
    return part;
}

void MatrixPartSource::widenBlock(qint64 row, qint64 rowCount, qint64 col, qint64 colCount, double *dst) const
{
    if (m_product) {
        // Only the opt-ins that need W's entries (--delta, --heads, rand_distance) come here.
        const LowRankFactors part = *lowRankFactors();
        Eigen::Map<RowMajorMatrix>(dst, rowCount, colCount) =
            part.scale * part.left.middleRows(row, rowCount) * part.right.middleRows(col, colCount).transpose();
        return;
    }
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
    if (m_product) {
        // The part's factors as read (float64) and the scale: what decides its entries.
        const LowRankFactors part = *lowRankFactors();
        const qint64 shape[3] = {rows(), cols(), part.left.cols()};
        hash.add("lowrank", 8);
        hash.add(reinterpret_cast<const char *>(shape), sizeof shape);
        hash.add(reinterpret_cast<const char *>(&part.scale), sizeof part.scale);
        hash.add(reinterpret_cast<const char *>(part.left.data()), std::size_t(part.left.size()) * sizeof(double));
        hash.add(reinterpret_cast<const char *>(part.right.data()), std::size_t(part.right.size()) * sizeof(double));
        return hash.value();
    }
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
