// Figure 2: a metric per layer at one step, grouped bars with one bar per matrix type in each
// layer. Hidden types leave the group, so the remaining bars close up.
#pragma once

#include "ChartView.h"
#include "spectral/MetricCatalog.h"

class QComboBox;

namespace rankscope {

class LayerBarChart : public ChartView {
    Q_OBJECT
public:
    explicit LayerBarChart(ViewState *state, QWidget *parent = nullptr);

    Metric metric() const { return m_metric; }
    void setMetric(Metric metric);
    // Which run this panel shows (0: the primary one); compared runs get a panel each.
    int runIndex() const { return m_run; }
    void setRunIndex(int run);

    QCPBarsGroup *group() const { return m_group; }
    QList<QCPBars *> bars() const;
    QCPBars *barsOf(MatrixType type) const;
    QString tooltipAt(const QPoint &pixel) const override;
    QString dataCsv() const override { return stepTableCsv(*state(), m_metric, m_run); }
    std::optional<MatrixKey> matrixAt(const QPoint &pixel) const override;

signals:
    void metricChanged(rankscope::Metric metric);

public slots:
    void rebuild() override;

private:
    Metric m_metric = Metric::CompressionPct;
    int m_run = 0;
    QCPBarsGroup *m_group;
    QHash<QCPBars *, MatrixType> m_typeOf;
    MetricSelector *m_metricBox = nullptr;
};

} // namespace rankscope
