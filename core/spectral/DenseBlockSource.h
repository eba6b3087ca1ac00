// A float64 matrix already in memory as a MatrixBlockSource: what the tests and benchmarks hand
// the solver.
#pragma once

#include "spectral/MatrixBlockSource.h"

#include <Eigen/Core>

namespace rankscope {

// A float64 matrix already in memory, column-major (Eigen's default): its transpose is row-major.
class DenseBlockSource : public MatrixBlockSource {
public:
    explicit DenseBlockSource(const Eigen::Ref<const Eigen::MatrixXd> &columnMajor) : m_matrix(columnMajor) {}
    // Row-major rows × cols is the column-major matrix transposed: the same singular values.
    qint64 rows() const override { return m_matrix.cols(); }
    qint64 cols() const override { return m_matrix.rows(); }
    void widenBlock(qint64 row, qint64 rowCount, qint64 col, qint64 colCount, double *dst) const override
    {
        for (qint64 r = 0; r < rowCount; ++r)
            for (qint64 c = 0; c < colCount; ++c)
                dst[r * colCount + c] = m_matrix(col + c, row + r);
    }
    const double *rowMajorData() const override
    {
        return m_matrix.outerStride() == m_matrix.rows() ? m_matrix.data() : nullptr;
    }

private:
    Eigen::Ref<const Eigen::MatrixXd> m_matrix;
};

} // namespace rankscope
