// Cuts one typed matrix out of a float64 tensor (or one slice of it) at once: the whole matrix, or
// the rows or columns a fused tensor's part occupies in each of its groups. The analysis itself cuts
// parts a block at a time (MatrixPartSource, which these use); these serve callers holding float64.
#pragma once

#include "io/CheckpointReader.h"
#include "model/MatrixPart.h"

namespace rankscope {
// An empty matrix when the part does not fit the tensor (the layout checked it already).
RowMajorMatrix extractMatrixPart(const RowMajorMatrix &tensor, const MatrixPart &part);
// FP8 weights stored with per-block scales: each block of blockRows × blockCols elements times its
// scale. False when the scales are not the grid of ceil(rows / blockRows) × ceil(cols / blockCols)
// blocks (MatrixPartSource::BlockScales).
bool applyBlockScales(RowMajorMatrix &weights, const RowMajorMatrix &scales, qint64 blockRows, qint64 blockCols);
}
