// Figure 1: a metric against the training step, one line per matrix type (mean or median over
// the selected layers, with a min–max band and a marker at every checkpoint), or one type's
// layers as separate lines on a light-to-dark ramp.
#pragma once

#include "ChartView.h"
#include "figures/FigureOptions.h"
#include "figures/LineFigure.h"
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
    // The training steps shown (nullopt: every step): the x range of figure (1) on paper.
    std::optional<StepWindow> stepWindow() const { return m_steps; }
    void setStepWindow(std::optional<StepWindow> steps);
    void setAlphaGuide(bool shown);
    bool alphaGuideDrawn() const;
    // What export's options set on the lines (their metric, steps, α's guide band, --by-layer):
    // empty, or why they cannot be drawn as asked.
    QString configure(const FigureOptions &options);

    // The visible data lines (not bands), for tests and exports.
    QList<QCPGraph *> visibleLines() const;
    // --alpha-ci: the error bars on α's lines, one per line with intervals (figure().series order).
    const QList<QCPErrorBars *> &errorBars() const { return m_errorBars; }
    QString tooltipAt(const QPoint &pixel) const override;
    QString dataCsv() const override;
    // What the chart draws now.
    const LineFigure &figure() const { return m_figure; }
    std::optional<MatrixKey> matrixAt(const QPoint &pixel) const override;

public slots:
    void rebuild() override;

signals:
    void metricChanged(rankscope::Metric metric);
    // One line per type or per layer of a type: the window's aggregate and band boxes act on the first only.
    void perLayerTypeChanged();

protected:
    void activate(const QPoint &pixel) override;
    QString crosshairReadout(double x, double y, double *snappedX) const override;
    std::unique_ptr<ChartView> createSibling() const override;
    bool labelsCanReplaceTitle() const override { return true; }
    void adaptLayout(QSize size) override;

private:
    struct Hit {
        const LineSeries *line = nullptr;
        int index = -1;
    };
    Hit hitAt(const QPoint &pixel) const;
    void fillModeBox();
    // Drawing the figure: the last one's graphs and colour bar go, the new one's parts are added.
    void clearFigure();
    void drawGuideBand(const LineFigure &figure);
    QCPGraph *drawTypeLine(const LineSeries &series, const LineFigure &figure);
    QCPGraph *drawLayerLine(const LineSeries &series);
    void drawIntervals(const LineSeries &series, QCPGraph *line, const QColor &colour);
    void addLayerScale(const LayerColourScale &scale);

    Metric m_metric = Metric::StableRank;
    std::optional<MatrixType> m_perLayerType;
    LineFigure m_figure;
    QList<QCPGraph *> m_graphs; // the graph of each of the figure's series
    QList<QCPErrorBars *> m_errorBars;
    QCPItemStraightLine *m_stepMarker = nullptr;
    bool m_alphaGuide = true;
    std::optional<StepWindow> m_steps;
    QCPItemRect *m_guideBand = nullptr;
    QCheckBox *m_guideBox = nullptr;
    QCPColorScale *m_layerScale = nullptr; // the layer colours of the per-layer lines
    MetricSelector *m_metricBox = nullptr;
    QComboBox *m_modeBox;
    bool m_shortValueLabel = false; // on paper: the figure's compactYLabel, the full one costing the steps their labels
};

} // namespace rankscope
