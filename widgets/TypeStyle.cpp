#include "TypeStyle.h"

#include <cmath>

namespace rankscope {

QColor typeColour(MatrixType type) { return QColor(colourHex(type)); }

QPen typePen(MatrixType type, qreal width)
{
    QPen pen(typeColour(type), width);
    pen.setCapStyle(Qt::RoundCap);
    pen.setJoinStyle(Qt::RoundJoin);
    return pen;
}

TypeMarker typeMarker(MatrixType type)
{
    switch (type) {
    case MatrixType::Q: return TypeMarker::Circle;
    case MatrixType::K: return TypeMarker::Square;
    case MatrixType::V: return TypeMarker::Triangle;
    case MatrixType::O: return TypeMarker::Diamond;
    case MatrixType::MlpUp: return TypeMarker::TriangleInverted;
    case MatrixType::MlpDown: return TypeMarker::Star;
    case MatrixType::MlpGate: return TypeMarker::Cross;
    case MatrixType::QK: return TypeMarker::Circle;
    case MatrixType::OV: return TypeMarker::Diamond;
    }
    return TypeMarker::Circle;
}

bool isLightColour(const QColor &colour)
{
    // Relative luminance above 0.45: under 3:1 contrast against white.
    auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double l = 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF());
    return l > 0.3;
}

QColor typeOutline(MatrixType type)
{
    const QColor c = typeColour(type);
    return isLightColour(c) ? c.darker(175) : c.darker(125);
}

} // namespace rankscope
