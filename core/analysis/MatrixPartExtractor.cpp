#include "analysis/MatrixPartExtractor.h"

namespace rankscope {

RowMajorMatrix extractMatrixPart(const RowMajorMatrix &tensor, const MatrixPart &part)
{
    using Axis = MatrixPart::Axis;
    switch (part.axis) {
    case Axis::Whole: return tensor;
    case Axis::Rows: return tensor.middleRows(part.begin, part.count);
    case Axis::Columns: return tensor.middleCols(part.begin, part.count);
    case Axis::HeadInterleavedRows: {
        // rows are [head][q|k|v][head_dim]: part.begin picks q, k or v, part.count is head_dim.
        RowMajorMatrix out(part.heads * part.count, tensor.cols());
        for (int h = 0; h < part.heads; ++h)
            out.middleRows(h * part.count, part.count) = tensor.middleRows((h * 3 + part.begin) * part.count, part.count);
        return out;
    }
    }
    return tensor;
}

} // namespace rankscope
