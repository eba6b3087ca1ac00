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

namespace {
double relativeLuminance(const QColor &colour)
{
    auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF());
}
} // namespace

bool isLightColour(const QColor &colour)
{
    // Relative luminance above 0.45: under 3:1 contrast against white.
    return relativeLuminance(colour) > 0.3;
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

bool isDimOn(MatrixType type, const QColor &background)
{
    return relativeLuminance(background) < 0.2 && contrastRatio(typeColour(type), background) < 4.5;
}

QColor typeEdgeOn(MatrixType type, const QColor &background)
{
    if (relativeLuminance(background) >= 0.2)
        return typeOutline(type);
    if (!isDimOn(type, background))
        return typeColour(type).darker(125);
    // Lighter in steps, its hue kept, until the edge reads at 4.5:1.
    QColor edge = typeColour(type);
    for (int i = 0; i < 8 && contrastRatio(edge, background) < 4.5; ++i)
        edge = edge.lighter(125);
    return edge;
}

QColor typeOutline(MatrixType type)
{
    const QColor c = typeColour(type);
    return isLightColour(c) ? c.darker(175) : c.darker(125);
}

} // namespace rankscope
