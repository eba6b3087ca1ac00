// Figure 4: one matrix's spectrum. Left, its singular values against rank on log–log axes;
// right, its eigenvalues λ = σ² on log–log axes: their empirical CCDF (the default, where the
// fitted power law from x_min is a straight line to judge) or their density with the
// Marchenko–Pastur bulk; alpha, D, the tail's size, x_min and λ₊ in the legend. The same matrix
// at the first step can be overlaid.
#pragma once

#include "ChartView.h"
#include "figures/FigureOptions.h"
#include "figures/SpectrumFigure.h"

class QCheckBox;
class QComboBox;

namespace rankscope {

class MatrixPicker;

class SpectrumView : public ChartView {
    Q_OBJECT
public:
    explicit SpectrumView(ViewState *state, QWidget *parent = nullptr);
    // export: the matrix of --layer and --type at the step shown, its tail as --eigenvalues says.
    // Empty, or why the run has no such matrix (FigurePanels::configure).
    QString configure(const ViewState &state, const FigureOptions &options);
    // Why the spectrum cannot be exported: no matrix is chosen.
    QString exportProblem() const;

    std::optional<MatrixKey> matrix() const { return m_key; }
    void showMatrix(const MatrixKey &key);
    void setOverlayFirstStep(bool overlay);
    SpectrumTail tail() const { return m_tail; }
    void setTail(SpectrumTail tail);
    MatrixPicker *picker() const { return m_picker; }

    QCPAxisRect *rankRect() const { return m_rankRect; }
    QCPAxisRect *densityRect() const { return m_densityRect; }
    QString fitLegendText() const { return m_figure.fitText; }
    // The Marchenko–Pastur bulk drawn under the ESD (null when the fit failed) and its edge λ₊.
    QCPGraph *bulkGraph() const { return m_bulkGraph; }
    double bulkEdge() const { return m_figure.bulkEdge; }
    // What the view draws now.
    const SpectrumFigure &figure() const { return m_figure; }
    // D = W − W_ref's singular values by rank (--delta), null when the matrix has none.
    QCPGraph *deltaGraph() const { return m_deltaGraph; }
    QString tooltipAt(const QPoint &pixel) const override;
    QString dataCsv() const override;
    bool labelsCanReplaceTitle() const override { return true; } // the matrix goes on the σ axis
    QString rankAxisLabel() const;
    std::optional<MatrixKey> matrixAt(const QPoint &) const override { return std::nullopt; }

public slots:
    void rebuild() override;

protected:
    void adaptLayout(QSize size) override;
    std::unique_ptr<ChartView> createSibling() const override;

private:
    // The Step box follows the window's step slider (each run at the step it shows there).
    void followCurrentStep();
    void labelRankAxis();
    QColor colourOf(const SpectrumCurve &curve) const;
    void drawCurve(const SpectrumCurve &curve);
    void drawMarker(const SpectrumMarker &marker);
    QPen markerPen(SpectrumMarker::Kind kind) const;

    std::optional<MatrixKey> m_key;
    bool m_showingDefault = true; // no matrix asked for yet: the picker's default is shown
    bool m_overlay = false;
    SpectrumTail m_tail = SpectrumTail::Ccdf;
    QCPAxisRect *m_rankRect;
    QCPAxisRect *m_densityRect;
    QCPLegend *m_densityLegend;
    QCheckBox *m_overlayBox;
    QComboBox *m_tailBox;
    MatrixPicker *m_picker = nullptr;
    QString fitTextFor(QSize size) const;
    // Whether the legends fit inside the panels at this size (else they go in a row below).
    static bool legendsInside(QSize size);

    SpectrumFigure m_figure;
    QCPGraph *m_bulkGraph = nullptr;
    QCPGraph *m_deltaGraph = nullptr;
    QCPGraph *m_lawGraph = nullptr; // the fitted power law, whose legend entry wraps to the panel
};

} // namespace rankscope
