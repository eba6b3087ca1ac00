// The look every RankScope figure shares: fonts, axes, grid, titles and colour scales, chosen to
// read well at 100 % on screen and in a paper.
#pragma once

#include "model/MatrixType.h"

#include <qcustomplot.h>

namespace rankscope::PlotStyle {

// The colours of a figure's frame and text. Paper is what exports use unless asked otherwise;
// dark is for the window under a dark desktop theme. Data colours (the types' Okabe–Ito colours,
// the colour maps) are the same in both.
struct Theme {
    bool dark = false;
    QColor background; // the figure
    QColor ink;        // axes, tick and axis labels
    QColor title;
    QColor grid;
    QColor text;       // legend entries
    QColor muted;      // legend entries of hidden types
    QColor overlay;    // translucent boxes over data: inside legends, the crosshair readout
    QColor emphasis;   // outlines that mark the highlighted matrix, whiskers
    QColor fit;        // the power-law fit and x_min in the spectrum view
    QColor bulk;       // the Marchenko–Pastur bulk and its edge in the spectrum view
    QColor guide;      // WeightWatcher's 2 ≤ α ≤ 6 band in the line chart
    static const Theme &paper();
    static const Theme &darkTheme();
    static const Theme &of(bool dark) { return dark ? darkTheme() : paper(); }
};

void applyPaperStyle(QCustomPlot *plot);
// The frame's colours (background, axes of every axis rect and colour scale, grid, titles, legend
// background and the colour of entries added after) in a theme; views colour what they draw,
// legend entries included, from the same theme.
void applyTheme(QCustomPlot *plot, const Theme &theme);
// A legend entry of a hidden type: grey, and kept grey by applyTheme (which recolours the others).
void setLegendEntryMuted(QCPAbstractLegendItem *item, const Theme &theme, bool muted);
// Every text of the plot (axes of every axis rect and colour scale, legends, titles) at a base
// size: tick labels at basePt, axis labels one point larger, titles two.
void applyFonts(QCustomPlot *plot, double basePt);
// A title row above the axis rect; returns the element so its text can change. Empty, it takes no room.
QCPTextElement *addTitle(QCustomPlot *plot);

// Where a legend sits in a view's body grid (the axis rect at 0, 0): in its own column right of the
// axis rect (so it never covers data), in a row below it, wrapped into as many columns as fit,
// inside the axis rect at a corner (`corner`), on a translucent background, or centred in a row of
// the figure between the title and the body, `columns` entries to a row.
enum class LegendPlacement { Right, Below, Inside, Above };
void placeLegend(QCPLayoutGrid *body, QCPLegend *legend, LegendPlacement where, int columns = 1,
                 Qt::Alignment corner = Qt::AlignTop | Qt::AlignRight);

// The entries of a legend (a legend wrapped into columns has empty cells).
QList<QCPAbstractLegendItem *> legendItems(QCPLegend *legend);
// How many rows a legend's entries need in a row `width` pixels wide, each column as wide as its
// widest entry (0: they do not fit even one to a row).
int legendRowsAbove(QCPLegend *legend, int width);

// A legend entry is clipped to its own rectangle, which QCustomPlot makes no taller than the line
// of text: without a margin below, "gpt2-small" loses the tails of its g and p.
void makeRoomForDescenders(QCPLegend *legend);

void setLogScale(QCPAxis *axis, bool log);
// Types differ by colour and marker; the k-th visible run of a comparison by its line's dash
// pattern (the metric lines and the training curves under them alike).
Qt::PenStyle runLineStyle(int k);

QFont titleFont(double basePt = 9);
// A panel's title on paper: one point over the axis labels, as journals set figure text.
QFont paperTitleFont(double basePt);
QFont labelFont(double basePt = 9);
QFont tickFont(double basePt = 9);
// Words of `text` broken into lines no wider than `width` pixels in `font`; at most `maxLines`,
// the last one elided. What stands in parentheses ("(τ = 0.90)") stays on one line.
QString wrapText(const QString &text, const QFont &font, int width, int maxLines = 2);
// Whether `text` so broken fits `maxLines` lines of `width` whole, nothing elided.
bool wrapsWithin(const QString &text, const QFont &font, int width, int maxLines);

// Sequential colour scales (light → dark) for heatmaps.
QCPColorGradient yellowOrangeRed();
// stopsUsed < 10 ends before viridis' lightest yellows (for lines on white).
QCPColorGradient viridis(int stopsUsed = 10);
QColor nanColour();
// i-th of n colours on a light-to-dark ramp of a type's colour (per-layer lines).
QColor layerRamp(MatrixType type, int i, int n);

} // namespace rankscope::PlotStyle
