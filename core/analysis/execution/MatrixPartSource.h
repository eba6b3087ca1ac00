// One typed matrix of a stored tensor (the whole of it, or the rows or columns a fused tensor's part
// occupies), widened to float64 a block at a time as the solver asks: part selection, widening and
// FP8 block scales happen per block, never on a float64 copy of the tensor.
#pragma once

#include "io/StoredMatrix.h"
#include "model/MatrixPart.h"
#include "spectral/MatrixBlockSource.h"

#include <memory>

namespace rankscope {

class MatrixPartSource : public MatrixBlockSource {
public:
    // FP8 weights stored with per-block scales (DeepSeek-V3's weight_scale_inv, quantization_config's
    // weight_block_size): element (r, c) of the stored tensor times scales(r / blockRows, c / blockCols).
    struct BlockScales {
        RowMajorMatrix scales;
        qint64 blockRows = 0, blockCols = 0;
        // Whether the scales are the grid of ceil(rows / blockRows) × ceil(cols / blockCols) blocks.
        bool fit(qint64 rows, qint64 cols) const;
    };

    // The part must fit the tensor (MatrixPart::fits, which the layout checked), the scales the
    // tensor (BlockScales::fit). Several parts may share one stored tensor.
    MatrixPartSource(std::shared_ptr<const StoredMatrix> tensor, const MatrixPart &part,
                     std::shared_ptr<const BlockScales> scales = nullptr);
    // A part of a tensor held as a low-rank product (a LoRA update, PlannedTensorRead): the part's
    // rows (or columns) are those rows of the left (or right) factor, so the part is a low-rank
    // product too, and its spectrum comes from its factors.
    MatrixPartSource(std::shared_ptr<const LowRankFactors> product, const MatrixPart &part);

    qint64 rows() const override;
    qint64 cols() const override;
    void widenBlock(qint64 row, qint64 rowCount, qint64 col, qint64 colCount, double *dst) const override;
    std::optional<LowRankFactors> lowRankFactors() const override;
    RowMajorMatrix widened() const;
    // The fingerprint of what the matrix holds as stored: its dtype, shape, the stored bytes of its
    // elements row by row, and its block scales (StoredBytesHash; never 0).
    quint64 contentHash() const;

private:
    // Where row (or column) i of the part lies in the tensor.
    qint64 tensorLine(qint64 i) const { return i / m_part.count * m_part.groupSize + m_part.offset + i % m_part.count; }

    qint64 tensorRows() const { return m_tensor ? m_tensor->rows() : m_product->left.rows(); }
    qint64 tensorCols() const { return m_tensor ? m_tensor->cols() : m_product->right.rows(); }

    std::shared_ptr<const StoredMatrix> m_tensor;
    std::shared_ptr<const LowRankFactors> m_product; // instead of m_tensor
    MatrixPart m_part;
    bool m_rowsAxis;
    std::shared_ptr<const BlockScales> m_scales;
};

} // namespace rankscope
