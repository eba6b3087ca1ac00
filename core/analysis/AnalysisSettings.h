// What the user asks of one analysis: the solver, the opt-in metrics, where the results go, and
// the processes that share it. RunAnalyzer runs it; AnalysisSettingsKey says which of it decides
// the stored spectra.
#pragma once

#include "model/MatrixIdentity.h"
#include "spectral/SingularValueSolver.h"
#include "spectral/MetricCatalog.h"

#include <QSet>
#include <QString>
#include <memory>
#include <optional>

namespace rankscope {

class AnalysisTeam;
class DeviceGramSolver;

inline constexpr int kDefaultSubspaceK = 16;

struct AnalysisSettings {
    double energy = kDefaultEnergy;
    int jobs = 0; // 0: one worker per core
    SvdMethod method = SvdMethod::FastGram;
    // The Gram path's LAPACK eigensolver: by size (what RankScope uses), or one forced for tests
    // that check both give the contract's results.
    Eigensolver eigensolver = Eigensolver::BySize;
    // Where the results are kept (empty: nowhere). Saved when the analysis ends and, while it runs,
    // after a checkpoint once autosaveSeconds have passed since the last save.
    QString resultsPath;
    double autosaveSeconds = 10;
    // Watching a training run: a checkpoint modified less than this long ago may still be being
    // written, so it is left for a later pass, neither analysed nor cached (0: take everything).
    double settleSeconds = 0;
    // WeightWatcher's rand_distance: a second decomposition of every matrix, its entries shuffled.
    bool randDistance = false;
    // The change from a reference checkpoint, D = W − W_ref (delta_* metrics and D's spectrum): a
    // second decomposition of every matrix. The reference is the checkpoint at referenceStep, or
    // the run's first.
    bool delta = false;
    std::optional<qint64> referenceStep;
    // Subspace agreement with the previous checkpoint (subspace_overlap, top_vector_cosine) from
    // each matrix's top subspaceK right singular vectors. Those of the newest checkpoint are kept
    // in the results file, so that a checkpoint added later costs only itself.
    bool subspace = false;
    int subspaceK = kDefaultSubspaceK;
    // alpha's bootstrap interval (alpha_ci_low, alpha_ci_high; spectral/AlphaInterval): from the
    // spectrum alone, so results stored without it gain it without a checkpoint being read.
    bool alphaCi = false;
    // --base: the model folder a LoRA run adapts. Set, the run's matrices are its merged weights
    // W₀ + ΔW (MergeBase), rows marked "merged", instead of its updates; kept in a cache of their own.
    QString mergeBase;
    // Set: these matrices alone are analysed, and nothing else of a checkpoint is named (--base:
    // the base model's W₀ of the matrices an adapter changes). Empty: every matrix.
    QSet<MatrixIdentity> onlyMatrices;
    // Per-head spectra (--heads): every head of Q, K, V and O, and each query head's QK and OV
    // circuits (HeadPlan, HeadSpectra), kept in RunAnalysis::headResults.
    bool heads = false;
    // Processes sharing this analysis (MPI ranks; null: this process alone). Each computes the
    // matrices AnalysisTeam::assignByCost hands it; only the leader's RunAnalysis is whole, and only
    // the leader saves the results file.
    AnalysisTeam *team = nullptr;
    // The GPU the spectra are computed on (GramDeviceChoice; null: the CPU), and why there is none
    // when null (for the timing line). Never part of the settings key: both meet the contract.
    std::shared_ptr<DeviceGramSolver> device;
    QString deviceNote;
};

// The opt-in metrics, each asked for or not (or, compared with stored results: missing there or not).
struct AnalysisOptIns {
    bool randDistance = false, delta = false, subspace = false, alphaCi = false, heads = false;
    bool any() const { return randDistance || delta || subspace || alphaCi || heads; }
    // Every one of these is among `asked` too.
    bool within(const AnalysisOptIns &asked) const
    {
        return (!randDistance || asked.randDistance) && (!delta || asked.delta) && (!subspace || asked.subspace) &&
               (!alphaCi || asked.alphaCi) && (!heads || asked.heads);
    }
    // Those the settings ask for.
    static AnalysisOptIns of(const AnalysisSettings &settings)
    {
        return {settings.randDistance, settings.delta, settings.subspace, settings.alphaCi, settings.heads};
    }
};

// Asks for what a metric needs computed (a view or an export that shows it).
inline void askForMetric(AnalysisSettings &settings, Metric metric)
{
    switch (metric.info().optIn) {
    case MetricOptIn::None:
        break;
    case MetricOptIn::RandDistance:
        settings.randDistance = true;
        break;
    case MetricOptIn::Delta:
        settings.delta = true;
        break;
    case MetricOptIn::Subspace:
        settings.subspace = true;
        break;
    case MetricOptIn::AlphaInterval:
        settings.alphaCi = true;
        break;
    }
}

} // namespace rankscope
