#include "RunStepView.h"

#include "MetricSelector.h"


namespace rankscope {

RunStepView::RunStepView(ViewState *state, Metric initial, QWidget *parent)
    : ChartView(state, parent), m_metric(initial), m_metricBox(addMetricSelector(initial))
{
    connect(m_metricBox, &MetricSelector::metricChosen, this, &RunStepView::setMetric);
}

void RunStepView::setMetric(Metric metric)
{
    m_metric = metric;
    m_metricBox->setMetric(metric);
    rebuild();
    emit metricChanged(metric);
}

void RunStepView::setRunIndex(int run)
{
    m_run = run;
    rebuild();
}

QString RunStepView::tooltipAt(const QPoint &pixel) const
{
    const auto key = matrixAt(pixel);
    if (!key)
        return {};
    const MatrixCell cell = state()->cell(key->run, key->step, key->id.block, key->id.layer, key->id.type);
    if (cell.isEmpty())
        return tr("%1 · layer %2 · step %3: no matrix").arg(displayLabel(key->id.type)).arg(key->id.layer).arg(key->step);
    return describeCell(cell, m_metric);
}

} // namespace rankscope
