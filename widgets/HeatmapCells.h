// What every heatmap of crisp cells draws alike — the type × layer heatmaps, the rank plan's and the
// head × layer heatmap: the cells at integer positions with their axes' tick labels, the rules
// between groups of rows, and each cell's value printed in it where a readable font fits, the
// same text in every heatmap.
#pragma once

#include <qcustomplot.h>

#include <functional>
#include <optional>

namespace rankscope {

// Fills `map` with value(y, x) for an nx × ny grid of cells at integer positions (a single row or
// column spans ±0.5 around it), names the columns and rows on the axes' ticks and fits the axes to
// the cells.
void setHeatmapGrid(QCustomPlot *plot, QCPColorMap *map, const QStringList &columnLabels, const QStringList &rowLabels,
                    const std::function<double(int y, int x)> &value);

// Rules in the background's colour above each row in `starts` (a gap between groups of rows),
// replacing the `lines` drawn before.
void setRowSeparators(QCustomPlot *plot, QList<QCPItemStraightLine *> &lines, const QList<int> &starts, const QColor &background);

// The values printed in a heatmap's cells, rewritten after a layout when the cells or their size
// changed; dark text on light cells, light on dark ones.
class HeatmapCellTexts {
public:
    using CellText = std::function<QString(int y, int x)>;

    HeatmapCellTexts(QCustomPlot *plot, QCPColorMap *map) : m_plot(plot), m_map(map) {}

    // The cells changed: the next place() writes them again.
    void invalidate() { m_stale = true; }
    // Takes the texts off the plot (before its colour map goes).
    void clear();
    // Writes text(y, x) in each of the nx × ny cells, in the largest font up to fontPt in which
    // every text fits its cell; none when no such font of 5 pt or more exists.
    void place(int nx, int ny, double fontPt, const CellText &text);
    int count() const { return int(m_texts.size()); }

    // A value as a cell prints it: 0, 1 or 2 decimals by its size, "–" for none, never "-0.00".
    static QString valueText(double v);
    // The size of one cell on the plot now, in pixels.
    static QSizeF cellSize(const QCustomPlot *plot);
    // The largest font up to fontPt in which every text (and "88.8") fits a cell of this size,
    // or none below 5 pt.
    static std::optional<QFont> fittingFont(double fontPt, QSizeF cell, int nx, int ny, const CellText &text);

private:
    QCustomPlot *m_plot;
    QCPColorMap *m_map;
    QList<QCPItemText *> m_texts;
    QSizeF m_cell;
    bool m_stale = true;
};

} // namespace rankscope
