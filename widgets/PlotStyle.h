// The look every RankScope figure shares: fonts, axes, grid, titles and colour scales, chosen to
// read well at 100 % on screen and in a paper.
#pragma once

#include "model/MatrixType.h"

#include <qcustomplot.h>

namespace rankscope::PlotStyle {

void applyPaperStyle(QCustomPlot *plot);
// Every text of the plot (axes of every axis rect and colour scale, legends, titles) at a base
// size: tick labels at basePt, axis labels one point larger, titles two.
void applyFonts(QCustomPlot *plot, double basePt);
// A title row above the axis rect; returns the element so its text can change.
QCPTextElement *addTitle(QCustomPlot *plot);

// Where a legend sits in a view's body grid (the axis rect at 0, 0): in its own column right of the
// axis rect (so it never covers data), or in a row below it, wrapped into as many columns as fit.
enum class LegendPlacement { Right, Below };
void placeLegend(QCPLayoutGrid *body, QCPLegend *legend, LegendPlacement where, int columns = 1);

void setLogScale(QCPAxis *axis, bool log);

QFont titleFont(double basePt = 9);
QFont labelFont(double basePt = 9);
QFont tickFont(double basePt = 9);
// Words of `text` broken into lines no wider than `width` pixels in `font`; at most `maxLines`,
// the last one elided.
QString wrapText(const QString &text, const QFont &font, int width, int maxLines = 2);

// Sequential colour scales (light → dark) for heatmaps.
QCPColorGradient yellowOrangeRed();
// stopsUsed < 10 ends before viridis' lightest yellows (for lines on white).
QCPColorGradient viridis(int stopsUsed = 10);
QColor nanColour();
// i-th of n colours on a light-to-dark ramp of a type's colour (per-layer lines).
QColor layerRamp(MatrixType type, int i, int n);

} // namespace rankscope::PlotStyle
