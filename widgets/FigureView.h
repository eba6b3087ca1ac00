// One of RankScope's figures (FigureCatalog), as the window shows it and as every export writes it:
// its views laid out in a grid and kept in step with the runs shown — the line chart; a bar panel
// per shown run; heatmaps, side by side for one run, or a row per metric and a column per run; a
// spectrum; the heads; the rank plan.
// The window's tabs, its exports and `rankscope export` all build figures here, so the same state
// gives the same figure.
#pragma once

#include "FigureCatalog.h"
#include "analysis/results/RankPlanner.h"
#include "figures/FigureSize.h"
#include "figures/HeatmapFigure.h"
#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QTimer>
#include <QWidget>
#include <optional>

class QGridLayout;

namespace rankscope {

class TrainingCurveChart;

class ChartView;
class HeadView;
class RunStepView;
class LayerBarChart;
class MetricLineChart;
class RankPlanCurve;
class RankPlanHeatmap;
class SpectrumView;
class SpectrumOverStepsView;
class TypeLayerHeatmap;

class FigureView : public QWidget {
    Q_OBJECT
public:
    FigureView(ViewState *state, FigureKind kind, QWidget *parent = nullptr);

    FigureKind kind() const { return m_kind; }
    // The name the command line and file names use ("spectrogram"), from FigureCatalog.
    static QString name(FigureKind kind) { return QLatin1String(figureRow(kind).id); }

    // The metric of each row of panels: one for lines and bars, one per row of heatmaps (by default
    // compression % and weighted α), the lines' then the bars' for lines+bars (by default stable
    // rank and compression %; one metric: both). Changing one panel's metric changes its row.
    QList<Metric> metrics() const { return m_metrics; }
    void setMetrics(const QList<Metric> &metrics);
    void setTitleOverride(const QString &title);
    // Each panel's own title, in the order panels() lists them (an empty one, or one past the
    // list: the generated title, which names the panel's metric and run).
    void setPanelTitles(const QStringList &titles);
    // Heatmaps: what the colours of each metric's row of panels span (one entry: every row).
    void setColourRanges(const QList<HeatmapColourRange> &ranges);

signals:
    // A panel's context menu asked to export the figure as it is seen.
    void exportRequested();

public:

    // The panels as drawn at a size (default: the widget's): rows of views.
    QList<QList<ChartView *>> panels(QSize size = {}) const;
    MetricLineChart *lineChart() const { return m_lines; }
    // Under the lines: what training logged, on their step axis (shown when the run has logs).
    TrainingCurveChart *curveChart() const { return m_curves; }
    SpectrumView *spectrumView() const { return m_spectrum; }
    SpectrumOverStepsView *spectrumOverStepsView() const { return m_spectrumOverSteps; }
    // --heads: the per-head heatmap, lines or one head's spectrum ("heads").
    HeadView *headView() const { return m_heads; }
    // "plan": the ranks a target chooses at the shown step, and the error-vs-budget curve.
    RankPlanHeatmap *rankPlanHeatmap() const { return m_planRanks; }
    RankPlanCurve *rankPlanCurve() const { return m_planCurve; }
    void setRankTarget(const RankTarget &target);
    QList<LayerBarChart *> barPanels() const { return m_bars; }
    QList<TypeLayerHeatmap *> heatmapPanels() const { return m_heatmaps; }

    // Writes the figure; a figure with nothing to draw (a spectrum no matrix was chosen for) is an
    // error. `title`: the whole figure's (FigureExporter::write): nullopt the generated ones, empty none.
    bool exportTo(const QString &path, const FigureSize &size, QString *error, const std::optional<QString> &title = std::nullopt);
    // The numbers behind every panel, as CSV (ChartView::dataCsv, panel after panel).
    QString dataCsv() const;

private:
    // Recreates the per-run panels when the shown runs change.
    void syncPanels();
    void addTrainingCurves();
    void alignStepAxes();
    void layoutPanels();
    void resizeEvent(QResizeEvent *event) override;

    ViewState *m_state;
    FigureKind m_kind;
    QList<Metric> m_metrics;
    QString m_titleOverride;
    QStringList m_panelTitles;
    QList<HeatmapColourRange> m_colourRanges;
    // The panel titles and colour ranges asked for, on the panels there are now.
    void applyPanelOptions();
    // Panels side by side start their plots level (after any of them is laid out again).
    void levelPanels();
    bool m_levelQueued = false;
    QGridLayout *m_grid;
    QList<int> m_panelRuns;
    MetricLineChart *m_lines = nullptr;
    TrainingCurveChart *m_curves = nullptr;
    QTimer m_alignTimer; // levels the lines' and the curves' plots once the layout settles
    SpectrumView *m_spectrum = nullptr;
    SpectrumOverStepsView *m_spectrumOverSteps = nullptr;
    HeadView *m_heads = nullptr;
    RankPlanHeatmap *m_planRanks = nullptr;
    RankPlanCurve *m_planCurve = nullptr;
    QList<LayerBarChart *> m_bars;
    QList<TypeLayerHeatmap *> m_heatmaps; // metric by metric, each a panel per run
    QList<QList<RunStepView *>> m_byMetric; // the panels of each metric, a panel per run
};

} // namespace rankscope
