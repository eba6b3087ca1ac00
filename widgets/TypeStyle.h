// The visual identity of a matrix type in every view: its contract colour as a QColor and a pen.
#pragma once

#include "model/MatrixType.h"

#include <QColor>
#include <QPen>

namespace rankscope {

QColor typeColour(MatrixType type);
QPen typePen(MatrixType type, qreal width = 2.0);

} // namespace rankscope
