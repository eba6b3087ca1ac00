#include "TypeStyle.h"

namespace rankscope {

QColor typeColour(MatrixType type) { return QColor(colourHex(type)); }

QPen typePen(MatrixType type, qreal width)
{
    QPen pen(typeColour(type), width);
    pen.setCapStyle(Qt::RoundCap);
    pen.setJoinStyle(Qt::RoundJoin);
    return pen;
}

} // namespace rankscope
