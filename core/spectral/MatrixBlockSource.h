// A matrix the solver reads a block at a time, widened to float64 as it asks: the Gram matrix is
// accumulated from row (or column) blocks, so nothing ever holds a float64 copy of a whole tensor.
#pragma once

#include <Eigen/Core>
#include <QtGlobal>
#include <optional>

namespace rankscope {

// A matrix known as the product scale · left · rightᵀ of two thin factors (left: rows × r, right:
// cols × r): a LoRA update ΔW = s·B·A. Its spectrum comes from the factors (lowRankSpectrum), never
// from the rows × cols product.
struct LowRankFactors {
    Eigen::MatrixXd left;
    Eigen::MatrixXd right;
    double scale = 1;
};

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
    // The factors, when the matrix is held as a low-rank product (then the solver reads no block).
    virtual std::optional<LowRankFactors> lowRankFactors() const { return std::nullopt; }
};

} // namespace rankscope
