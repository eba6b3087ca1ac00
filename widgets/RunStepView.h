// The shared part of the views that show one run at one step in one metric (the per-layer bars
// and each heatmap): the metric choice, which run the panel shows, its CSV and its tooltip.
#pragma once

#include "ChartView.h"

namespace rankscope {

class RunStepView : public ChartView {
    Q_OBJECT
public:
    RunStepView(ViewState *state, Metric initial, QWidget *parent = nullptr);

    Metric metric() const { return m_metric; }
    void setMetric(Metric metric);
    // Which run this panel shows (0: the primary one); compared runs get a panel each.
    int runIndex() const { return m_run; }
    void setRunIndex(int run);

    QString dataCsv() const override { return stepTableCsv(*state(), m_metric, m_run, shownBlocks(), layerView()); }
    // The value and the matrix under the pixel (matrixAt decides which).
    QString tooltipAt(const QPoint &pixel) const override;

signals:
    void metricChanged(rankscope::Metric metric);

protected:
    // The blocks the view shows: the chosen one (bars), or all of them (heatmaps).
    virtual QStringList shownBlocks() const { return {state()->block()}; }
    // Whose layer range the view follows: the shared one (heatmaps), or the bars' own.
    virtual LayerView layerView() const { return LayerView::Shared; }
    Metric m_metric;
    int m_run = 0;

private:
    MetricSelector *m_metricBox;
};

} // namespace rankscope
