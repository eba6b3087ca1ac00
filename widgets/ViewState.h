// What every view shows and how: the run's results, τ, the type and layer filters, the current
// step and the highlighted matrix. Views read it and react to its signals; controls change it.
// It holds results, it never computes a metric beyond recomputing them at a new τ.
#pragma once

#include "analysis/MetricAggregation.h"
#include "analysis/RunAnalysis.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <optional>

namespace rankscope {

struct MatrixKey {
    qint64 step = 0;
    int layer = 0;
    MatrixType type = MatrixType::Q;
    int run = 0; // which of the compared runs
    bool operator==(const MatrixKey &o) const { return step == o.step && layer == o.layer && type == o.type && run == o.run; }
};

class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject *parent = nullptr);

    // The run (the primary one, index 0): replaced whole, or extended as checkpoints arrive.
    void setRun(const RunAnalysis &run, const QString &name);
    void addResults(const QList<MatrixResult> &results);
    const RunAnalysis &run() const { return m_run; }
    const QList<MatrixResult> &results() const { return m_run.results; }
    QString runName() const { return m_name; }

    QList<qint64> steps() const { return m_steps; }
    QList<int> layers() const { return m_layers; }
    // Types present in the run, in the contract's order.
    QList<MatrixType> presentTypes() const { return m_types; }
    const MatrixResult *find(const MatrixKey &key) const;

    // Runs compared with the primary one (indices 1…): each with its own name, shown or hidden.
    int runCount() const { return 1 + int(m_compared.size()); }
    void addComparedRun(const RunAnalysis &run, const QString &name);
    void removeComparedRun(int index);
    void clearComparedRuns();
    QString runNameAt(int index) const;
    void renameRun(int index, const QString &name);
    bool isRunVisible(int index) const;
    void setRunVisible(int index, bool visible);
    QList<int> visibleRuns() const;
    const QList<MatrixResult> &resultsAt(int index) const;
    QList<qint64> stepsAt(int index) const;
    QList<int> layersAt(int index) const;
    const MatrixResult *findIn(int index, const MatrixKey &key) const;
    // The step a run shows for the current step: the same step, or the nearest one (by fraction
    // of the run when steps are relative).
    qint64 stepAt(int index) const;
    QList<int> visibleLayersAt(int index) const;

    // Axes for comparing models of different depth and length.
    bool relativeDepth() const { return m_relativeDepth; }
    void setRelativeDepth(bool relative);
    bool relativeStep() const { return m_relativeStep; }
    void setRelativeStep(bool relative);
    // The smallest and largest finite value of a metric over every shown run at its step, its
    // shown layers and the given types (positive values only for a log axis): one scale for all panels.
    std::optional<std::pair<double, double>> valueRangeAtSteps(Metric metric, const QList<MatrixType> &types, bool positiveOnly) const;

    // layer / (depth − 1) for a run (0 for a single layer).
    double depthFraction(int index, int layer) const;
    // step / last step for a run.
    double stepFraction(int index, qint64 step) const;

    double energy() const { return m_energy; }
    void setEnergy(double energy);

    Aggregate aggregate() const { return m_aggregate; }
    void setAggregate(Aggregate aggregate);
    bool showBand() const { return m_showBand; }
    void setShowBand(bool show);
    bool logY() const { return m_logY; }
    void setLogY(bool log);

    bool isTypeVisible(MatrixType type) const { return !m_hiddenTypes.contains(type); }
    void setTypeVisible(MatrixType type, bool visible);
    QList<MatrixType> visibleTypes() const;
    LayerRange layerRange() const { return m_layerRange; }
    void setLayerRange(LayerRange range);
    QList<int> visibleLayers() const;

    // The step the per-layer views show; defaults to the last one.
    qint64 currentStep() const { return m_currentStep; }
    void setCurrentStep(qint64 step);
    void stepBy(int delta);

    std::optional<MatrixKey> highlighted() const { return m_highlighted; }
    void setHighlighted(std::optional<MatrixKey> key);

signals:
    void resultsChanged();   // new or replaced results, or metrics recomputed at a new τ
    void displayChanged();   // aggregate, band, log-y, filters
    void currentStepChanged(qint64 step);
    void highlightChanged();
    // A view asks for one matrix's spectrum (a click on a bar, cell or point).
    void spectrumRequested(const rankscope::MatrixKey &key);

public:
    void requestSpectrum(const MatrixKey &key) { emit spectrumRequested(key); }

private:
    struct ComparedRun {
        QString name;
        RunAnalysis run;
        QHash<QString, qsizetype> index;
        QList<qint64> steps;
        QList<int> layers;
        bool visible = true;
    };
    void reindex();
    static void indexRun(const QList<MatrixResult> &results, QHash<QString, qsizetype> &index, QList<qint64> &steps,
                         QList<int> &layers, QSet<MatrixType> *types);

    QList<ComparedRun> m_compared;
    bool m_primaryVisible = true;
    bool m_relativeDepth = false;
    bool m_relativeStep = false;
    RunAnalysis m_run;
    QString m_name;
    QList<qint64> m_steps;
    QList<int> m_layers;
    QList<MatrixType> m_types;
    QHash<QString, qsizetype> m_index;
    double m_energy = kDefaultEnergy;
    Aggregate m_aggregate = Aggregate::Mean;
    bool m_showBand = true;
    bool m_logY = false;
    QSet<MatrixType> m_hiddenTypes;
    LayerRange m_layerRange;
    qint64 m_currentStep = 0;
    bool m_followLastStep = true;
    std::optional<MatrixKey> m_highlighted;
};

} // namespace rankscope

Q_DECLARE_METATYPE(rankscope::MatrixKey)
