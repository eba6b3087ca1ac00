// Checkpoints of a run that do not belong where they stand, found from its results alone (fresh or
// loaded from a results file), so that `info`, `analyze` and the window name them. Public suites
// have shipped a checkpoint that is another step's weights again, or holds the wrong step:
//   - identical: every matrix of the checkpoint has the content fingerprint (MatrixResult::
//     contentHash), shape and dtype of the same matrix at an earlier step, and the two hold the
//     same matrices;
//   - out of line: a checkpoint whose metrics jump against both neighbours by more than the run
//     otherwise moves. Per metric (spectral norm, Frobenius norm, stable rank, effective rank) and
//     matrix, with x its values at the run's checkpoints in step order: at an interior checkpoint
//     i the jump is min(|xᵢ − xᵢ₋₁|, |xᵢ − xᵢ₊₁|) when xᵢ lies above both neighbours or below both
//     (0 otherwise); the scale is the median of |xⱼ₊₁ − xⱼ| over the matrix's other consecutive
//     pairs (those not touching i; at least kMinOtherPairs of them), never below kRelativeFloor·|xᵢ|.
//     The matrix is out of line when the jump exceeds kJumpFactor × the scale; the checkpoint is,
//     for that metric, when at least half of its matrices judged are (docs/metrics.md).
// Nothing is hidden or dropped: a finding is a warning beside the results.
#pragma once

#include "analysis/results/MatrixResult.h"

#include <QList>
#include <QString>

namespace rankscope {

struct TrajectoryFinding {
    enum class Kind { Identical, OutOfLine };
    Kind kind = Kind::Identical;
    qint64 step = 0;
    bool unnumbered = false;
    QString text; // said as it is: "step 2000 repeats step 1000: its 48 analysed matrices are bit-identical …"
};

class TrajectoryCheck {
public:
    static constexpr double kJumpFactor = 8.0;
    static constexpr double kRelativeFloor = 1e-6;
    static constexpr int kMinOtherPairs = 2;

    // Results in any order; the identical first, then the out of line, each by step.
    static QList<TrajectoryFinding> of(const QList<MatrixResult> &results);
    static QList<TrajectoryFinding> identicalCheckpoints(const QList<MatrixResult> &results);
    static QList<TrajectoryFinding> outOfLineSteps(const QList<MatrixResult> &results);
};

} // namespace rankscope
