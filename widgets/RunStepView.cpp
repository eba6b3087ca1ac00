#include "RunStepView.h"

#include "MetricSelector.h"

#include <cmath>

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
    const MatrixResult *r = state()->findIn(key->run, *key);
    if (!r)
        return tr("%1 · layer %2 · step %3: no matrix").arg(displayLabel(key->type)).arg(key->layer).arg(key->step);
    const double v = metricValue(r->metrics, m_metric);
    return QStringLiteral("<b>%1 = %2</b><br>%3")
        .arg(QString::fromUtf8(metricInfo(m_metric).label), std::isfinite(v) ? QString::number(v, 'g', 5) : QStringLiteral("NaN"),
             describeMatrix(*r));
}

} // namespace rankscope
