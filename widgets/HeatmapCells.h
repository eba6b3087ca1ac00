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
    // A cell's text, rounded to `fewerDecimals` fewer decimals when asked (texts without decimals ignore it).
    using CellText = std::function<QString(int y, int x, int fewerDecimals)>;
    // The font the texts are printed in and how many decimals they lost to fit.
    struct Fit {
        QFont font;
        int fewerDecimals = 0;
    };

    HeatmapCellTexts(QCustomPlot *plot, QCPColorMap *map) : m_plot(plot), m_map(map) {}

    // The cells changed: the next place() writes them again.
    void invalidate() { m_stale = true; }
    // Takes the texts off the plot (before its colour map goes).
    void clear();
    // Writes text(y, x) in each of the nx × ny cells as fit() chooses; none when nothing fits.
    // Whether texts are shown.
    bool place(int nx, int ny, double fontPt, const CellText &text);
    int count() const { return int(m_texts.size()); }
    QList<QCPItemText *> texts() const { return m_texts; }

    // A value as a cell prints it: three significant digits (two decimals under 10, one under
    // 100), or `fewerDecimals` fewer (down to one under 10, none above); "–" for none; a value
    // that rounds to zero has no sign (never "-0.00").
    static QString valueText(double v, int fewerDecimals = 0);
    // The size of one cell on the plot now, in pixels.
    static QSizeF cellSize(const QCustomPlot *plot);
    // The texts as they are, in a font a little under fontPt (down to three quarters of it); else
    // rounded to fewer decimals, down to 5 pt; else none. Every text must fit its cell with a
    // margin, so that neighbours never touch ("0.19-0.00-0.02").
    static std::optional<Fit> fit(double fontPt, QSizeF cell, int nx, int ny, const CellText &text);

private:
    QCustomPlot *m_plot;
    QCPColorMap *m_map;
    QList<QCPItemText *> m_texts;
    QSizeF m_cell;
    bool m_stale = true;
};

} // namespace rankscope
