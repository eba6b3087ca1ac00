// The whole spectrum over training: one matrix (or a type's mean over the shown layers) with the
// step on x, σ on a log axis, and the fraction of its singular values in each bin as colour, each
// step's cells spanning halfway to its neighbours; the stable rank over it on an axis of its own,
// and the current step marked. Hovering names the step, the bin's σ range and its density; a click
// on a column makes that step the current one.
#pragma once

#include "ChartView.h"
#include "figures/FigureOptions.h"
#include "figures/SpectrumOverStepsFigure.h"

class QCheckBox;

namespace rankscope {

class MatrixPicker;
class SpectrumCells;

class SpectrumOverStepsView : public ChartView {
    Q_OBJECT
public:
    explicit SpectrumOverStepsView(ViewState *state, QWidget *parent = nullptr);
    // export: the matrix of --layer and --type, or the type's mean over the layers shown (--type
    // alone). Empty, or why the run has no such matrix (FigurePanels::configure).
    QString configure(const ViewState &state, const FigureOptions &options);

    SpectrumOverStepsSubject subject() const { return m_subject; }
    void setSubject(const SpectrumOverStepsSubject &subject);
    // A matrix asked for elsewhere (a click on a bar, cell or point): that matrix, not a mean.
    void showMatrix(const MatrixKey &key);
    MatrixPicker *picker() const { return m_picker; }
    QCheckBox *meanBox() const { return m_meanBox; }

    // What the view draws now.
    const SpectrumOverStepsFigure &figure() const { return m_figure; }
    QCPColorScale *colorScale() const { return m_scale; }
    QCPGraph *stableRankGraph() const { return m_rankGraph; }
    bool isStepMarkerShown() const;
    double stepMarkerX() const;
    // The colour a cell is drawn in (invalid: not drawn, no σ there).
    QColor cellColour(int column, int bin) const;
    // The pixel at the centre of a cell, for tests.
    QPoint cellCentre(int column, int bin) const;

    QString tooltipAt(const QPoint &pixel) const override;
    QString dataCsv() const override { return m_figure.csv(); }
    bool labelsCanReplaceTitle() const override { return true; } // the matrix goes on the σ axis
    std::optional<MatrixKey> matrixAt(const QPoint &pixel) const override;

public slots:
    void rebuild() override;

protected:
    void activate(const QPoint &pixel) override;
    void adaptLayout(QSize size) override;
    QString crosshairReadout(double x, double y, double *snappedX) const override;
    std::unique_ptr<ChartView> createSibling() const override;

private:
    void updateStepMarker();
    // The axes' and colour bar's labels for a figure of this size.
    void labelAxes(QSize size);
    void drawStableRank();
    // The subject the picker and the mean box show.
    void takePickerChoice();

    SpectrumOverStepsSubject m_subject;
    bool m_showingDefault = true; // nothing asked for yet: the picker's default matrix
    SpectrumOverStepsFigure m_figure;
    MatrixPicker *m_picker;
    QCheckBox *m_meanBox;
    SpectrumCells *m_cells;
    QCPColorScale *m_scale;
    QCPGraph *m_rankCasing = nullptr;
    QCPGraph *m_rankGraph = nullptr;
    QCPItemStraightLine *m_stepMarker;
};

} // namespace rankscope
