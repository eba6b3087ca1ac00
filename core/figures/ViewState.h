// What every view shows and how: the runs (the first one opened, then any compared with it), τ,
// the block and experts shown, the type and layer filters, the current step and the highlighted
// matrix. Views read it and react to its signals; controls change it. It holds results, it never
// computes a metric beyond recomputing them at a new τ.
#pragma once

#include "analysis/results/MetricAggregation.h"
#include "analysis/results/RunAnalysis.h"
#include "figures/LegendPosition.h"
#include "io/logs/ScalarLog.h"

#include <QHash>
#include <QMap>
#include <QObject>
#include <QSet>
#include <optional>

namespace rankscope {

// Which view a layer range is for. The line chart and the per-layer bars may keep a range of their
// own (figure (1) shows layer 0's lines beside every layer's bars, and moving between the tabs
// does not change one for the other); the other views, and those two until they have their own,
// follow the shared range.
enum class LayerView { Shared, Lines, Bars };

// One matrix of one shown run.
struct MatrixKey {
    int run = 0;
    qint64 step = 0;
    MatrixIdentity id;
    bool operator==(const MatrixKey &other) const = default;
};

// One cell of the per-layer views: a (run, step, block, layer, type), over the chosen experts.
struct MatrixCell {
    QList<const MatrixResult *> matrices; // what the expert choice takes, in expert order
    // The one matrix when there is exactly one (no experts, or one expert chosen).
    const MatrixResult *single() const { return matrices.size() == 1 ? matrices.first() : nullptr; }
    bool isEmpty() const { return matrices.isEmpty(); }
};

class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject *parent = nullptr);

    // The first run (index 0): replaced whole, or extended as checkpoints arrive. Runs compared
    // with it follow at indices 1…; every run has a name and is shown or hidden.
    void setRun(const RunAnalysis &run, const QString &name);
    void addResults(const QList<MatrixResult> &results);
    void addComparedRun(const RunAnalysis &run, const QString &name);
    void removeComparedRun(int index);
    void clearComparedRuns();
    int runCount() const { return int(m_runs.size()); }
    const RunAnalysis &run() const { return m_runs.first().run; }
    const QList<MatrixResult> &results() const { return m_runs.first().run.results; }
    // --heads: the shown run's per-head rows and circuits (only the per-head views take them).
    const QList<MatrixResult> &headResults() const { return m_runs.first().run.headResults; }
    QString runName() const { return m_runs.first().name; }
    const QList<MatrixResult> &resultsAt(int index) const { return shown(index).run.results; }
    const RunAnalysis &runAt(int index) const { return shown(index).run; }
    QString runNameAt(int index) const { return shown(index).name; }
    void renameRun(int index, const QString &name);
    bool isRunVisible(int index) const { return shown(index).visible; }
    void setRunVisible(int index, bool visible);
    QList<int> visibleRuns() const;

    // The stacks of the shown runs (encoder, decoder-cross, …; one empty block for a single-stack
    // model) and the one the lines and bars show. The heatmaps show every block.
    QStringList blocks() const { return m_blocks; }
    QString block() const { return m_block; }
    void setBlock(const QString &block);
    // MoE experts present ("0", "1", …, "shared"), and which are shown: empty for every routed
    // expert (aggregated: mean with min–max), or one of them.
    QStringList experts() const { return m_experts; }
    QString expert() const { return m_expert.expert; }
    void setExpert(const QString &expert);
    MatrixFilter filterAt(int run, LayerView view = LayerView::Shared) const;

    QList<qint64> steps() const { return stepsAt(0); }
    QList<qint64> stepsAt(int index) const { return shown(index).steps; }
    // The layers the layer range is chosen from: those of any shown run in the current block (a
    // compared run may be deeper than the first).
    QList<int> layers() const;
    QList<int> layersAt(int index, const QString &block) const { return shown(index).layers.value(block); }
    QList<int> layersAt(int index) const { return layersAt(index, m_block); }
    // Types present in any run (for the type filters), and in one block, in the contract's order.
    QList<MatrixType> presentTypes() const { return m_types; }
    QList<MatrixType> typesIn(const QString &block) const;

    const MatrixResult *find(const MatrixKey &key) const;
    MatrixCell cell(int run, qint64 step, const QString &block, int layer, MatrixType type) const;
    MatrixCell cell(int run, const QString &block, int layer, MatrixType type) const { return cell(run, stepAt(run), block, layer, type); }
    // The step a run shows for the current step: at the first run's last step, each run's own last
    // step ("final" means each run's end, whichever run is first); else the run's checkpoint at the
    // step, or its nearest earlier one; with relative steps, the nearest by fraction of the run.
    qint64 stepAt(int index) const;
    // How a figure names the step a run shows: "final step 3000" ("final step" on an axis, where
    // the title or caption gives the number), "step 1000, none at 1200" for a compared run without a
    // checkpoint at the current step, else "step 1200".
    QString stepWords(int index, qint64 step, bool onAxis = false) const;
    // A run's layers within the layer range. The range means the same for every run: layer numbers,
    // or with relative depth the same share of depth, measured on the deepest shown run.
    QList<int> visibleLayersAt(int index, LayerView view = LayerView::Shared) const { return visibleLayersAt(index, m_block, view); }
    QList<int> visibleLayersAt(int index, const QString &block, LayerView view = LayerView::Shared) const;
    // The layer range in words for titles: empty when every layer is shown, else e.g.
    // "layers 2–5", "layer 3", "relative depth 0.25–0.75".
    QString layerRangeText(LayerView view = LayerView::Shared) const;

    // Axes for comparing models of different depth and length.
    bool relativeDepth() const { return m_relativeDepth; }
    void setRelativeDepth(bool relative);
    bool relativeStep() const { return m_relativeStep; }
    void setRelativeStep(bool relative);
    // The smallest and largest finite cell value of a metric over every shown run at its step, its
    // shown layers and the given blocks and types (positive values only for a log axis): one scale
    // for all panels.
    std::optional<std::pair<double, double>> valueRangeAtSteps(Metric metric, const QStringList &blocks,
                                                               const QList<MatrixType> &types, bool positiveOnly,
                                                               LayerView view = LayerView::Shared) const;

    // layer / (depth − 1) for a run (0 for a single layer).
    double depthFraction(int index, int layer) const { return depthFraction(index, layer, m_block); }
    double depthFraction(int index, int layer, const QString &block) const;
    // step / last step for a run.
    double stepFraction(int index, qint64 step) const;

    double energy() const { return m_energy; }
    void setEnergy(double energy);

    Aggregate aggregate() const { return m_aggregate; }
    void setAggregate(Aggregate aggregate);
    bool showBand() const { return m_showBand; }
    void setShowBand(bool show);
    // A logarithmic value axis, chosen per view: the lines' (logY) and the per-layer bars' (logYBars),
    // so that turning it on for one does not change the other.
    bool logY() const { return m_logY; }
    void setLogY(bool log);
    bool logYBars() const { return m_logYBars; }
    void setLogYBars(bool log);

    bool isTypeVisible(MatrixType type) const { return !m_hiddenTypes.contains(type); }
    void setTypeVisible(MatrixType type, bool visible);
    QList<MatrixType> visibleTypes() const;
    // The shared range (what every view follows that has none of its own).
    LayerRange layerRange() const { return m_layerRange; }
    void setLayerRange(LayerRange range);
    // A view's range: its own, or the shared one. Setting nullopt makes it follow the shared one.
    LayerRange layerRange(LayerView view) const;
    void setLayerRange(LayerView view, std::optional<LayerRange> range);
    bool hasOwnLayerRange(LayerView view) const { return m_ownLayerRanges.contains(view); }
    // Every layer in every view (a new run).
    void resetLayerRanges();
    QList<int> visibleLayers(LayerView view = LayerView::Shared) const { return visibleLayersAt(0, view); }

    // The step the per-layer views show; defaults to the last one.
    qint64 currentStep() const { return m_currentStep; }
    void setCurrentStep(qint64 step);
    void stepBy(int delta);

    std::optional<MatrixKey> highlighted() const { return m_highlighted; }
    void setHighlighted(std::optional<MatrixKey> key);

    // The scalars a run's training logged (loss, learning rate), for the curves under the lines:
    // the first run's, and each compared run's (kept with the run, gone when it goes).
    const ScalarLog &scalarLog() const { return m_runs.first().scalars; }
    const ScalarLog &scalarLogAt(int index) const { return shown(index).scalars; }
    void setScalarLog(const ScalarLog &log) { setScalarLogAt(0, log); }
    void setScalarLogAt(int index, const ScalarLog &log);
    // Whether any run's logs hold a scalar.
    bool hasScalars() const;

    // Where the lines' and bars' legend goes.
    LegendPosition legendPosition() const { return m_legendPosition; }
    void setLegendPosition(LegendPosition position);
    // Figures on a dark background in the window (exports are light unless they ask).
    bool darkTheme() const { return m_darkTheme; }
    void setDarkTheme(bool dark);

signals:
    void resultsChanged();   // new or replaced results, or metrics recomputed at a new τ
    void runReplaced();      // another first run (not the same one grown): views drop its zoom and readout
    void displayChanged();   // aggregate, band, log-y, filters, block, experts
    void currentStepChanged(qint64 step);
    void highlightChanged();
    void themeChanged();
    void scalarsChanged();
    // A view asks for one matrix's spectrum (a click on a bar, cell or point).
    void spectrumRequested(const rankscope::MatrixKey &key);

public:
    void requestSpectrum(const MatrixKey &key) { emit spectrumRequested(key); }

private:
    // Where a run's matrices are: by step, block, layer and type (the experts of a cell together).
    struct CellKey {
        qint64 step;
        QString block;
        int layer;
        MatrixType type;
        bool operator==(const CellKey &other) const = default;
    };
    friend size_t qHash(const CellKey &key, size_t seed) { return qHashMulti(seed, key.step, key.block, key.layer, int(key.type)); }
    struct ShownRun {
        QString name;
        RunAnalysis run;
        bool visible = true;
        QHash<CellKey, QList<qsizetype>> cells;
        QList<qint64> steps;
        QHash<QString, QList<int>> layers; // by block
        QHash<QString, QSet<MatrixType>> types;
        ScalarLog scalars;
    };
    const ShownRun &shown(int index) const { return m_runs[std::clamp(index, 0, int(m_runs.size()) - 1)]; }
    // The shown run with the most layers in the block (the first of equals): relative depth is measured on it.
    int deepestRun(const QString &block) const;
    bool rangeIsEverything(const QString &block, LayerRange range) const;
    static void index(ShownRun &run);
    void reindex();

    QList<ShownRun> m_runs{ShownRun{}};
    QStringList m_blocks;
    QString m_block;
    QStringList m_experts;
    ExpertChoice m_expert;
    QList<MatrixType> m_types;
    bool m_relativeDepth = false;
    bool m_relativeStep = false;
    double m_energy = kDefaultEnergy;
    Aggregate m_aggregate = Aggregate::Mean;
    bool m_showBand = true;
    bool m_logY = false;
    bool m_logYBars = false;
    QSet<MatrixType> m_hiddenTypes;
    LayerRange m_layerRange;
    QMap<LayerView, LayerRange> m_ownLayerRanges; // the lines' and bars' own ranges, when set
    qint64 m_currentStep = 0;
    bool m_followLastStep = true;
    bool m_holdStep = false; // the run is being read again: the current step waits for its results
    std::optional<MatrixKey> m_highlighted;
    LegendPosition m_legendPosition = LegendPosition::Auto;
    bool m_darkTheme = false;
};

} // namespace rankscope

Q_DECLARE_METATYPE(rankscope::MatrixKey)
