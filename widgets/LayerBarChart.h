// Figure 2: a metric per layer at one step, grouped bars with one bar per matrix type in each
// layer. Hidden types leave the group, so the remaining bars close up.
#pragma once

#include "RunStepView.h"
#include "figures/BarFigure.h"

namespace rankscope {

class LayerBarChart : public RunStepView {
    Q_OBJECT
public:
    explicit LayerBarChart(ViewState *state, QWidget *parent = nullptr);

    QCPBarsGroup *group() const { return m_group; }
    QList<QCPBars *> bars() const;
    QCPBars *barsOf(MatrixType type) const;
    std::optional<MatrixKey> matrixAt(const QPoint &pixel) const override;
    // What the chart draws now.
    const BarFigure &figure() const { return m_figure; }
    int layerColumns() const override { return state()->relativeDepth() ? 0 : int(m_figure.layerTicks.size()); }

public slots:
    void rebuild() override;

protected:
    std::unique_ptr<ChartView> createSibling() const override;
    bool labelsCanReplaceTitle() const override { return true; }
    LayerView layerView() const override { return LayerView::Bars; }
    void adaptLayout(QSize size) override;

private:
    // The bars' widths and spacing for a layer's slot `slotPixels` wide (BarGeometry); 0: the
    // slot as the plot was last laid out.
    void fitBars(double slotPixels = 0);
    void drawSeries(const BarSeries &series);
    QPen barPen(const BarSeries &series) const;
    // Each bar from the value axis' base (zero, or a logarithmic axis' lower bound) up to its value.
    void standBarsOnAxis();

    BarFigure m_figure;
    QCPBarsGroup *m_group;
    QHash<QCPBars *, MatrixType> m_typeOf;
};

} // namespace rankscope
