// The visual identity of a matrix type in every view: its contract colour as a QColor and a pen.
#pragma once

#include "model/MatrixType.h"

#include <QColor>
#include <QPen>

namespace rankscope {

QColor typeColour(MatrixType type);
QPen typePen(MatrixType type, qreal width = 2.0);
// A second cue besides colour, so types read apart in grey print and for colour-blind readers, and
// light colours (MLP↓'s yellow, MLP↑'s sky blue) keep their contrast on white.
enum class TypeMarker { Circle, Square, Triangle, Diamond, TriangleInverted, Star, Cross };
TypeMarker typeMarker(MatrixType type);
// The colour for outlines of a type's marks: its own colour, darkened where it is light.
QColor typeOutline(MatrixType type);
bool isLightColour(const QColor &colour);
// WCAG's contrast ratio of two colours, from 1 (the same luminance) to 21 (black on white).
double contrastRatio(const QColor &a, const QColor &b);
// The edge of a type's marks (bar outlines, markers, line casings) on a background: on paper its
// outline; on a dark background a lighter tint where the colour itself is dim there (Q's blue is
// 3.2:1 on the dark theme), so the mark stands out without changing the type's hue.
QColor typeEdgeOn(MatrixType type, const QColor &background);
// Whether a type's colour needs that lighter edge on the background (under 4.5:1).
bool isDimOn(MatrixType type, const QColor &background);

} // namespace rankscope
