// Figure 1: a metric against the training step, one line per matrix type (mean or median over
// the selected layers, with a min–max band and a marker at every checkpoint), or one type's
// layers as separate lines on a light-to-dark ramp.
#pragma once

#include "ChartView.h"
#include "spectral/MetricCatalog.h"

class QCheckBox;
class QComboBox;

namespace rankscope {

class MetricLineChart : public ChartView {
    Q_OBJECT
public:
    explicit MetricLineChart(ViewState *state, QWidget *parent = nullptr);

    Metric metric() const { return m_metric; }
    void setMetric(Metric metric);
    // nullopt: one line per type; a type: that type's layers, one line each.
    std::optional<MatrixType> perLayerType() const { return m_perLayerType; }
    void setPerLayerType(std::optional<MatrixType> type);

    // WeightWatcher's guide band, 2 ≤ α ≤ 6 (its well-trained range), shaded behind α's lines
    // (on by default; it shows only when the metric is α).
    bool alphaGuide() const { return m_alphaGuide; }
    void setAlphaGuide(bool shown);
    bool alphaGuideDrawn() const;

    // The visible data lines (not bands), for tests and exports.
    QList<QCPGraph *> visibleLines() const;
    QString tooltipAt(const QPoint &pixel) const override;
    QString dataCsv() const override;
    std::optional<MatrixKey> matrixAt(const QPoint &pixel) const override;

public slots:
    void rebuild() override;

signals:
    void metricChanged(rankscope::Metric metric);

protected:
    void activate(const QPoint &pixel) override;

private:
    struct Line {
        QCPGraph *graph = nullptr;
        MatrixType type = MatrixType::Q;
        int layer = -1; // -1: the aggregate line of the type
        QList<AggregatePoint> points;
        int run = 0;
    };
    // Where a run's step sits on the x axis: the step, or its fraction of the run.
    double xOf(int run, qint64 step) const;
    struct Hit {
        const Line *line = nullptr;
        int index = -1;
    };
    Hit hitAt(const QPoint &pixel) const;
    void updateStepMarker();
    void fillModeBox();

    Metric m_metric = Metric::StableRank;
    std::optional<MatrixType> m_perLayerType;
    QList<Line> m_lines;
    QCPItemStraightLine *m_stepMarker = nullptr;
    bool m_alphaGuide = true;
    QCPItemRect *m_guideBand = nullptr;
    QCheckBox *m_guideBox = nullptr;
    QCPColorScale *m_layerScale = nullptr; // the layer colours of the per-layer lines
    MetricSelector *m_metricBox = nullptr;
    QComboBox *m_modeBox;
};

} // namespace rankscope
