// One heatmap of figure 3: matrix type (rows, Q at the top) × layer (columns) at one step, for
// one metric, with its own colour scale. A model of several stacks gets a group of rows per block
// (encoder, decoder, decoder-cross, …). Cells are crisp, NaN cells grey, a cell of several experts
// shows their mean, and each cell shows its value when it is large enough to hold it.
#pragma once

#include "HeatmapCells.h"
#include "RunStepView.h"
#include "figures/HeatmapFigure.h"

class QComboBox;
class QDoubleSpinBox;

namespace rankscope {

class TypeLayerHeatmap : public RunStepView {
    Q_OBJECT
public:
    TypeLayerHeatmap(ViewState *state, Metric metric, QWidget *parent = nullptr);

    QCPColorMap *colorMap() const { return m_map; }
    QCPColorScale *colorScale() const { return m_scale; }
    // The rows (block and type) and columns (layers) shown, in order.
    QList<HeatmapRow> rows() const { return m_figure.rows; }
    QList<MatrixType> rowTypes() const;
    QList<int> columnLayers() const { return m_figure.columns; }
    // What the heatmap draws now.
    const HeatmapFigure &figure() const { return m_figure; }
    int layerColumns() const override { return state()->relativeDepth() ? 0 : int(m_figure.columns.size()); }
    // The pixel at the centre of a cell, for tests.
    QPoint cellCentre(MatrixType type, int layer, const QString &block = {}) const;
    int cellTextCount() const { return m_cellTexts.count(); }
    // The value labels as drawn, for tests.
    QList<QCPItemText *> cellTexts() const { return m_cellTexts.texts(); }
    // The note under the plot when the cells are too small for their values (empty: none).
    QString valuesNote() const { return m_valuesNote ? m_valuesNote->text() : QString(); }
    QRect valuesNoteRect() const { return m_valuesNote ? m_valuesNote->outerRect() : QRect(); }
    bool isHighlightShown() const { return m_highlight->visible(); }

    std::optional<MatrixKey> matrixAt(const QPoint &pixel) const override;

    // What the colours span (the step shown by default, all steps, ends set by hand); the header's
    // "Colours" choice and its min and max boxes set it.
    HeatmapColourRange colourRange() const { return m_colourRange; }
    void setColourRange(const HeatmapColourRange &range);

public slots:
    void rebuild() override;

protected:
    void adaptLayout(QSize size) override;
    std::unique_ptr<ChartView> createSibling() const override;
    bool labelsCanReplaceTitle() const override { return true; }

private:
    // Called after every layout: (re)writes the cell labels when the data or the cell size changed.
    void placeCellTexts();
    // What a cell prints: its value, rounded as HeatmapCellTexts::fit() asks.
    HeatmapCellTexts::CellText cellText() const;
    // The colour bar's label at a bar `length` pixels tall.
    void labelColourScale(int length);
    bool rowAxisLabelShown(bool narrow) const;
    // The note under the plot that the cells are too small for their values.
    void showValuesNote(bool shown);
    QCPTextElement *m_valuesNote = nullptr;

    // The header's colour range controls, showing m_colourRange.
    void addColourControls();
    void syncColourControls();

    QCPColorMap *m_map;
    QCPColorScale *m_scale;
    HeatmapColourRange m_colourRange;
    QComboBox *m_colourFit = nullptr;
    QDoubleSpinBox *m_colourMin = nullptr;
    QDoubleSpinBox *m_colourMax = nullptr;
    QStringList shownBlocks() const override { return state()->blocks(); }

    HeatmapFigure m_figure;
    QList<QCPItemStraightLine *> m_separators; // between the blocks' row groups
    HeatmapCellTexts m_cellTexts;
    QCPItemRect *m_highlight = nullptr; // the matrix selected in any view
};

} // namespace rankscope
