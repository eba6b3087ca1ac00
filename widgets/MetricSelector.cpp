#include "MetricSelector.h"

#include <QAbstractItemView>

namespace rankscope {

MetricSelector::MetricSelector(Metric initial, QWidget *parent) : QComboBox(parent)
{
    for (const Metric metric : viewMetrics())
        addItem(QString::fromUtf8(metric.info().label), metric.row());
    setMetric(initial);
    // As wide as a usual label ("Compression %", "Weighted α"), not the longest one: panels side by
    // side (a comparison at 1024 pixels) keep their headers inside the window. The list shows
    // every label whole.
    setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    setMinimumContentsLength(16);
    view()->setMinimumWidth(view()->sizeHintForColumn(0) + 24);
    connect(this, &QComboBox::activated, this, [this] { emit metricChosen(metric()); });
}

} // namespace rankscope
