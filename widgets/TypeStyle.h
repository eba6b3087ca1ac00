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

} // namespace rankscope
