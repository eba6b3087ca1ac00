// The Rank plan tab's heatmap: the rank chosen for every matrix at the shown step, matrix type
// (rows, Q at the top) × layer (columns), each cell printing its rank where it fits, and a tooltip
// with what the truncation keeps and saves. Drawn from RankPlanFigure; a click opens the spectrum.
#pragma once

#include "ChartView.h"
#include "HeatmapCells.h"
#include "figures/RankPlanFigure.h"

namespace rankscope {

class RankPlanHeatmap : public ChartView {
    Q_OBJECT
public:
    explicit RankPlanHeatmap(ViewState *state, QWidget *parent = nullptr);

    RankTarget target() const { return m_target; }
    void setTarget(const RankTarget &target);
    const RankPlanFigure &figure() const { return m_figure; }
    QCPColorMap *colorMap() const { return m_map; }
    int cellTextCount() const { return m_cellTexts.count(); }
    // The pixel at the centre of a cell, for tests.
    QPoint cellCentre(MatrixType type, int layer, const QString &block = {}) const;

    QString tooltipAt(const QPoint &pixel) const override;
    std::optional<MatrixKey> matrixAt(const QPoint &pixel) const override;
    // The plan as `rankscope plan --out FILE.csv` writes it.
    QString dataCsv() const override;
    bool labelsCanReplaceTitle() const override { return true; } // the planned step goes on the layer axis

    QCPColorScale *colorScale() const { return m_scale; }

public slots:
    void rebuild() override;

protected:
    // A narrow panel (a column) gives the colour bar room: a thinner bar without a label (the
    // title says "Ranks for …"). With its label the bar had no width left in a column.
    void adaptLayout(QSize size) override;
    std::unique_ptr<ChartView> createSibling() const override;

private:
    // The (row, column) of the cell under the pixel, or (-1, -1).
    std::pair<int, int> cellAt(const QPoint &pixel) const;
    void placeCellTexts();

    RankTarget m_target;
    RankPlanFigure m_figure;
    QCPColorMap *m_map;
    QCPColorScale *m_scale;
    HeatmapCellTexts m_cellTexts;
    QList<QCPItemStraightLine *> m_separators;
};

} // namespace rankscope
