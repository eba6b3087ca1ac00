#include "MetricSelector.h"

namespace rankscope {

MetricSelector::MetricSelector(Metric initial, QWidget *parent) : QComboBox(parent)
{
    for (const MetricInfo &info : allMetrics())
        addItem(QString::fromUtf8(info.label), int(info.metric));
    setMetric(initial);
    connect(this, &QComboBox::activated, this, [this] { emit metricChosen(metric()); });
}

} // namespace rankscope
