// Under the metric-vs-step lines: a scalar training logged (loss, learning rate), chosen by tag,
// as logged (faint) and smoothed as TensorBoard smooths it, with the checkpoints marked on it. It
// shares the lines' step axis (FigureView keeps the two ranges together). Drawn from CurveFigure.
#pragma once

#include "ChartView.h"
#include "figures/CurveFigure.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QDoubleSpinBox;

namespace rankscope {

class TrainingCurveChart : public ChartView {
    Q_OBJECT
public:
    explicit TrainingCurveChart(ViewState *state, QWidget *parent = nullptr);

    QString tag() const { return m_tag; }
    void setTag(const QString &tag);
    void setSmoothing(double weight);
    // The lines' window of steps (export --steps), so the two share one range.
    void setStepWindow(std::optional<StepWindow> steps);
    const CurveFigure &figure() const { return m_figure; }
    // Each run's smoothed curve, in the figure's order.
    const QList<QCPGraph *> &smoothedGraphs() const { return m_smoothed; }
    // Where the window's step is marked (NaN when it is not: on paper, one step, nothing drawn).
    double stepMarkerX() const;
    // What could not be read in the logs, as the header's warning says it ("" when all was read);
    // its tooltip names each file and what is wrong.
    QString problemsText() const;

    QString tooltipAt(const QPoint &pixel) const override;
    std::optional<MatrixKey> matrixAt(const QPoint &) const override { return std::nullopt; }
    // step,tag,value,smoothed (and run when compared): the points as drawn (CurveFigure::csv).
    QString dataCsv() const override;

public slots:
    void rebuild() override;

protected:
    std::unique_ptr<ChartView> createSibling() const override;
    QString crosshairReadout(double x, double y, double *snappedX) const override;
    void showEvent(QShowEvent *event) override;

private:
    // The tags of the run's logs in the box; the chosen one kept, else the loss, else the first.
    void listTags();

    QComboBox *m_tagBox;
    QDoubleSpinBox *m_smoothingBox;
    QCheckBox *m_logBox;
    QLabel *m_problems;
    QString m_tag;
    std::optional<StepWindow> m_steps;
    CurveFigure m_figure;
    QList<QCPGraph *> m_smoothed;
    QCPItemStraightLine *m_stepMarker;
};

} // namespace rankscope
