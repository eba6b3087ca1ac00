// The "Metric" choice in a view's header: every metric of the catalogue, by its label.
#pragma once

#include "spectral/MetricCatalog.h"

#include <QComboBox>

namespace rankscope {

class MetricSelector : public QComboBox {
    Q_OBJECT
public:
    MetricSelector(Metric initial, QWidget *parent = nullptr);
    Metric metric() const { return Metric::atRow(currentData().toInt()); }
    void setMetric(Metric metric) { setCurrentIndex(findData(metric.row())); }

signals:
    void metricChosen(rankscope::Metric metric); // by the user, not by setMetric
};

} // namespace rankscope
