#include "analysis/execution/MatrixPartExtractor.h"

#include "analysis/execution/MatrixPartSource.h"

namespace rankscope {

RowMajorMatrix extractMatrixPart(const RowMajorMatrix &tensor, const MatrixPart &part)
{
    if (!part.fits(part.axis == MatrixPart::Axis::Rows ? tensor.rows() : tensor.cols()))
        return {};
    return MatrixPartSource(std::make_shared<StoredMatrix>(StoredMatrix::fromDouble(tensor)), part).widened();
}

bool applyBlockScales(RowMajorMatrix &weights, const RowMajorMatrix &scales, qint64 blockRows, qint64 blockCols)
{
    auto grid = std::make_shared<MatrixPartSource::BlockScales>(MatrixPartSource::BlockScales{scales, blockRows, blockCols});
    if (!grid->fit(weights.rows(), weights.cols()))
        return false;
    const MatrixPart whole = MatrixPart::whole({}, {}, weights.rows());
    weights = MatrixPartSource(std::make_shared<StoredMatrix>(StoredMatrix::fromDouble(weights)), whole, grid).widened();
    return true;
}

} // namespace rankscope
