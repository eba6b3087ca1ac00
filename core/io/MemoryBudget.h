// How much memory reading a file may cost. One matrix may take a quarter of the memory available
// as float64 (what readMatrix widens it to, and a bound on the Gram matrix the solver forms beside
// the stored tensor and one block; several workers hold one each), or what
// RANKSCOPE_MAX_MATRIX_BYTES says; a larger matrix is
// refused before anything is allocated, so one absurd tensor never ends the run.
#pragma once

#include <QString>

namespace rankscope {

class MemoryBudget {
public:
    // No compressed byte becomes more than this many (deflate's limit, the best any filter RankScope
    // reads achieves): a larger declared size is a lie or a bomb.
    static constexpr quint64 kMaxInflationRatio = 1032;

    // Memory the system can give now: MemAvailable, within the cgroup's limit where there is one.
    static qint64 availableBytes();
    // The float64 bytes one matrix may take: RANKSCOPE_MAX_MATRIX_BYTES (a number of bytes, with an
    // optional K, M or G suffix for 1024-based units) when set, else a quarter of availableBytes().
    static qint64 maxMatrixBytes();
    // Why a matrix of that many float64 bytes is refused, or empty when it fits.
    static QString matrixProblem(qint64 rows, qint64 cols);
    // "16.9 GB"
    static QString bytesText(qint64 bytes);
};

} // namespace rankscope
