#include "analysis/MatrixPartExtractor.h"

namespace rankscope {

RowMajorMatrix extractMatrixPart(const RowMajorMatrix &tensor, const MatrixPart &part)
{
    const bool rows = part.axis == MatrixPart::Axis::Rows;
    if (!part.fits(rows ? tensor.rows() : tensor.cols()))
        return {};
    if (part.groups == 1 && part.offset == 0 && part.count == part.groupSize)
        return tensor;
    RowMajorMatrix out(rows ? part.extent() : tensor.rows(), rows ? tensor.cols() : part.extent());
    for (qint64 g = 0; g < part.groups; ++g) {
        const qint64 from = g * part.groupSize + part.offset, to = g * part.count;
        if (rows)
            out.middleRows(to, part.count) = tensor.middleRows(from, part.count);
        else
            out.middleCols(to, part.count) = tensor.middleCols(from, part.count);
    }
    return out;
}

bool applyBlockScales(RowMajorMatrix &weights, const RowMajorMatrix &scales, qint64 blockRows, qint64 blockCols)
{
    if (blockRows <= 0 || blockCols <= 0 || (weights.rows() + blockRows - 1) / blockRows != scales.rows() || (weights.cols() + blockCols - 1) / blockCols != scales.cols())
        return false;
    for (qint64 r = 0; r < weights.rows(); ++r)
        for (qint64 c = 0; c < weights.cols(); ++c)
            weights(r, c) *= scales(r / blockRows, c / blockCols);
    return true;
}

} // namespace rankscope
