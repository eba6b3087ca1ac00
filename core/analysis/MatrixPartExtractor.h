// Cuts one typed matrix out of a stored tensor: the whole tensor, or the rows or columns a
// fused tensor's part occupies.
#pragma once

#include "io/CheckpointReader.h"
#include "model/TensorNameRules.h"

namespace rankscope {
RowMajorMatrix extractMatrixPart(const RowMajorMatrix &tensor, const MatrixPart &part);
}
