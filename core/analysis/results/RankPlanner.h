// The rank planner: from the singular values the analysis stored for every attention and MLP matrix
// of one step, a rank per matrix for a target — a parameter budget (--keep), an energy per matrix
// (--energy) or a largest relative Frobenius error per matrix (--max-error). Nothing is read again:
// a truncation's energy and error are sums of the stored spectrum (docs/metrics.md, "The rank planner").
#pragma once

#include "analysis/results/RunAnalysis.h"

#include <Eigen/Core>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

struct RankTarget {
    enum class Kind { Keep, Energy, MaxError };
    Kind kind = Kind::Keep;
    double value = 0.5;
    // "--keep 0.4": the option that asks for it.
    QString text() const;
    // "keeping 40% of the parameters": what a figure's reader is told, without the option.
    QString words() const;
    // What each kind takes, as the command line says it when refused.
    static QString optionName(Kind kind);
};

// One matrix of the step as the planner takes it: who it is, its shape and its spectrum.
struct PlanMatrix {
    MatrixIdentity id;
    QString tensor; // "…c_attn.weight[Q]": the source tensor, with the part for a split
    qint64 rows = 0;
    qint64 cols = 0;
    Eigen::VectorXd singularValues; // descending; missing trailing values count as zero
};

// The rank chosen for one matrix and what it costs and keeps.
struct PlannedRank {
    MatrixIdentity id;
    QString tensor;
    qint64 rows = 0;
    qint64 cols = 0;
    int rank = 0;             // the truncation's rank; min(rows, cols) when kept dense
    bool dense = false;       // factors of this rank would cost mn or more: the matrix stays as it is
    double energyKept = 1;    // Σ_{i≤rank} σᵢ² / Σσᵢ² (1 for a zero matrix)
    double relativeError = 0; // ‖W − W_rank‖_F / ‖W‖_F = sqrt(Σ_{i>rank} σᵢ² / Σσᵢ²) (0 for a zero matrix)
    qint64 paramsBefore = 0;  // mn
    qint64 paramsAfter = 0;   // rank·(m + n), or mn when dense
    double energy = 0;        // Σσᵢ², to total the plan
    double energyLost = 0;    // Σ_{i>rank} σᵢ²
    qint64 paramsSaved() const { return paramsBefore - paramsAfter; }
};

struct RankPlan {
    RankTarget target;
    qint64 step = 0;
    bool unnumbered = false;
    QString rule; // the rule the ranks were chosen by, in words
    QList<PlannedRank> matrices;
    QStringList notes; // matrices of the step left out of the plan, and why
    qint64 paramsBefore = 0;
    qint64 paramsAfter = 0;
    double energy = 0;     // Σ over matrices of Σσᵢ²
    double energyLost = 0; // Σ over matrices of what their truncation drops
    // --keep: the budget ⌊fraction × paramsBefore⌋ and the most energy any plan within it could
    // keep (the concave relaxation's optimum; the plan keeps energy − energyLost of it). NaN for
    // the other targets.
    double budget = 0;
    double optimumEnergyBound = 0;

    qint64 paramsSaved() const { return paramsBefore - paramsAfter; }
    double keptFraction() const { return paramsBefore > 0 ? double(paramsAfter) / double(paramsBefore) : 1.0; }
    // sqrt(Σ lost / Σ energy): the relative Frobenius error of all the planned matrices as one.
    double totalRelativeError() const;
};

// One point of the error-vs-budget curve: the greedy's plan at a budget it uses up exactly.
struct BudgetPoint {
    double keptFraction = 0;  // parameters after / before
    double relativeError = 0; // RankPlan::totalRelativeError of that plan
};

class RankPlanner {
public:
    explicit RankPlanner(const QList<PlanMatrix> &matrices);
    // The matrices of the run's checkpoint at `step` (nullopt: the last step); those without a
    // usable spectrum are left out and named in notes().
    static RankPlanner forStep(const RunAnalysis &run, std::optional<qint64> step = std::nullopt);

    RankPlan plan(const RankTarget &target) const;
    // The smallest --keep: rank 1 for every matrix (or dense, where rank 1 costs as much).
    double smallestKeep() const;
    // Why no plan meets the target at this step (a --keep below smallestKeep()), in the words
    // `rankscope plan` and `export --figure plan` refuse it with; empty when one does.
    QString targetProblem(const RankTarget &target) const;
    qint64 parameters() const { return m_parameters; }
    qint64 step() const { return m_step; }
    bool unnumbered() const { return m_unnumbered; }
    bool isEmpty() const { return m_matrices.isEmpty(); }
    QStringList notes() const { return m_notes; }
    // The budget greedy's plans at every budget it uses up exactly, from rank 1 everywhere to
    // every matrix dense; at most maxPoints of them (evenly thinned, both ends kept), and the
    // point at 1 when the last steps keep no energy.
    QList<BudgetPoint> budgetCurve(int maxPoints = 400) const;

    // The rule each target is planned by, as the outputs state it.
    static QString ruleText(RankTarget::Kind kind);

private:
    // What the planner precomputes for a matrix: the energy kept at each rank and lost after it.
    struct Prepared {
        PlanMatrix matrix;
        int fullRank = 0;          // min(rows, cols)
        int firstDenseRank = 0;    // the smallest rank whose factors cost mn or more
        QList<double> kept;        // kept[k] = Σ_{i≤k} σᵢ², k = 0 … fullRank
        QList<double> lost;        // lost[k] = Σ_{i>k} σᵢ², summed from the smallest
        double total() const { return kept.last(); }
        qint64 cost(int rank) const; // rank·(m + n), capped at mn
    };
    // A step of the budget greedy: matrix `matrix` from its hull vertex to the next.
    struct HullStep {
        int matrix = 0;
        int toRank = 0; // fullRank: the step to the matrix kept dense
        qint64 cost = 0;
        double energy = 0;
        double ratio = 0;
    };

    RankPlanner() = default;
    static Prepared prepare(const PlanMatrix &matrix);
    PlannedRank planned(const Prepared &p, int rank) const;
    int startRank(const Prepared &p) const;
    int energyRankOf(const Prepared &p, double energy) const;
    int errorRankOf(const Prepared &p, double maxError) const;
    // Each matrix's steps along the upper concave hull of its (parameters, energy kept) points,
    // all sorted by energy per parameter, most first (ties: matrix, then step, in order).
    QList<HullStep> sortedHullSteps() const;
    // The budget greedy's ranks, and the relaxation's optimum it stays within.
    QList<int> budgetRanks(double budget, double *optimumBound) const;

    QList<Prepared> m_matrices;
    QStringList m_notes;
    qint64 m_parameters = 0;
    qint64 m_step = 0;
    bool m_unnumbered = false;
};

} // namespace rankscope
