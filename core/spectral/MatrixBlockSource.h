// A matrix the solver reads a block at a time, widened to float64 as it asks: the Gram matrix is
// accumulated from row (or column) blocks, so nothing ever holds a float64 copy of a whole tensor.
#pragma once

#include <QtGlobal>

namespace rankscope {

class MatrixBlockSource {
public:
    virtual ~MatrixBlockSource() = default;
    virtual qint64 rows() const = 0;
    virtual qint64 cols() const = 0;
    // Rows row … row + rowCount − 1, columns col … col + colCount − 1, in float64, row-major into dst
    // (leading dimension colCount).
    virtual void widenBlock(qint64 row, qint64 rowCount, qint64 col, qint64 colCount, double *dst) const = 0;
    // The whole matrix, row-major float64, when it is already held so (then no block is copied).
    virtual const double *rowMajorData() const { return nullptr; }
};

} // namespace rankscope
