// The figures drawn as a panel per shown run: the per-layer bars, the type × layer heatmaps (a row
// of panels per metric) and lines+bars (the line chart, then a bar panel per run). Compared runs'
// panels are as wide as their layers need, side by side panels start their plots level, and a
// metric chosen in one panel is its row's.
#pragma once

#include "FigurePanels.h"
#include "figures/HeatmapFigure.h"

namespace rankscope {

class LayerBarChart;
class MetricLineChart;
class RunStepView;
class TypeLayerHeatmap;

class RunPanels : public FigurePanels {
public:
    enum class Kind { Bars, Heatmaps, LinesAndBars };
    RunPanels(ViewState *state, QWidget *figure, Kind kind);

    QList<QList<ChartView *>> panels(QSize size) const override;
    void place(QGridLayout *grid, QSize size) override;
    QList<Metric> metrics() const override { return m_metrics; }
    void setMetrics(const QList<Metric> &metrics) override;
    QString configure(const ViewState &state, const FigureOptions &options) override;

private:
    // Makes the per-run panels again when the shown runs change.
    void syncPanels();
    RunStepView *makePanel(int row, int run);
    // Panels side by side start their plots level (after any of them is laid out again).
    void levelPanels();
    void applyColourRanges();

    ViewState *m_state;
    Kind m_kind;
    QList<Metric> m_metrics;
    QList<HeatmapColourRange> m_colourRanges;
    QList<int> m_panelRuns;
    bool m_levelQueued = false;
    MetricLineChart *m_lines = nullptr; // lines+bars: the lines beside the bars
    QList<QList<RunStepView *>> m_byMetric; // the panels of each metric, a panel per run
};

} // namespace rankscope
