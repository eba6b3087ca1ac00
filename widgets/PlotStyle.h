// The look every RankScope figure shares: fonts, axes, grid, titles and colour scales, chosen to
// read well at 100 % on screen and in a paper.
#pragma once

#include "model/MatrixType.h"

#include <qcustomplot.h>

namespace rankscope::PlotStyle {

void applyPaperStyle(QCustomPlot *plot);
// A title row above the axis rect; returns the element so its text can change.
QCPTextElement *addTitle(QCustomPlot *plot);
// A legend in its own column right of the axis rect, so it never covers data.
void placeLegendRight(QCustomPlot *plot, QCPAxisRect *rect);
void setLogScale(QCPAxis *axis, bool log);

QFont titleFont();
QFont labelFont();
QFont tickFont();

// Sequential colour scales (light → dark) for heatmaps.
QCPColorGradient yellowOrangeRed();
QCPColorGradient viridis();
QColor nanColour();
// i-th of n colours on a light-to-dark ramp of a type's colour (per-layer lines).
QColor layerRamp(MatrixType type, int i, int n);

} // namespace rankscope::PlotStyle
