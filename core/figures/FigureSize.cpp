#include "figures/FigureSize.h"

#include <QRegularExpression>
#include <cmath>

namespace rankscope {

QSize FigureSize::layoutSize() const
{
    return {int(std::lround(widthPt / 72.0 * kLayoutDpi)), int(std::lround(heightPt / 72.0 * kLayoutDpi))};
}

QSize FigureSize::pixelSize() const { return {int(std::lround(widthPt / 72.0 * dpi)), int(std::lround(heightPt / 72.0 * dpi))}; }

FigureSize FigureSize::fromPixels(int width, int height, double scale)
{
    FigureSize size;
    size.widthPt = width * 72.0 / kLayoutDpi;
    size.heightPt = height * 72.0 / kLayoutDpi;
    size.dpi = kLayoutDpi * scale;
    return size;
}

QStringList FigureSize::presetNames() { return {QStringLiteral("column"), QStringLiteral("two-column"), QStringLiteral("slide")}; }

std::optional<FigureSize> FigureSize::preset(const QString &name)
{
    // A paper column is about 3.3 in wide, a two-column figure about 7 in, a 16:9 slide 13.33 × 7.5 in.
    // Journals set figure text at 7 to 9 pt: a column's ticks at 7 pt and its axis labels at 8, as
    // a careful matplotlib user sets them; two columns a point larger.
    if (name == QLatin1String("column"))
        return FigureSize{3.3 * 72, 2.4 * 72, 300, 7, false, true};
    if (name == QLatin1String("two-column"))
        return FigureSize{7.0 * 72, 3.5 * 72, 300, 8, false, true};
    if (name == QLatin1String("slide"))
        return FigureSize{13.333 * 72, 7.5 * 72, 150, 16};
    return std::nullopt;
}

std::optional<std::pair<double, double>> FigureSize::parseSize(const QString &text, QString *error)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^\s*([0-9]*\.?[0-9]+)\s*[x×]\s*([0-9]*\.?[0-9]+)\s*(in|cm|mm|pt|px)\s*$)"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch()) {
        *error = QStringLiteral("a size is WIDTHxHEIGHT with a unit: 3.3x2.4in, 8.5x6cm, 90x60mm, 600x400pt or 1200x750px");
        return std::nullopt;
    }
    const QString unit = m.captured(3);
    const double pointsPer = unit == QLatin1String("in") ? 72.0 : unit == QLatin1String("cm") ? 72.0 / 2.54
                           : unit == QLatin1String("mm") ? 72.0 / 25.4 : unit == QLatin1String("px") ? 72.0 / kLayoutDpi : 1.0;
    return std::pair{m.captured(1).toDouble() * pointsPer, m.captured(2).toDouble() * pointsPer};
}

bool FigureSize::isValid(QString *error) const
{
    const QSize layout = layoutSize(), pixels = pixelSize();
    if (layout.width() < 120 || layout.height() < 90 || layout.width() > 20000 || layout.height() > 20000) {
        *error = QStringLiteral("a figure of %1 × %2 in is out of range (1.25 × 0.94 in to 208 in)")
                     .arg(widthPt / 72, 0, 'f', 2).arg(heightPt / 72, 0, 'f', 2);
        return false;
    }
    if (!(dpi >= 36 && dpi <= 2400) || qint64(pixels.width()) * pixels.height() > 400'000'000) {
        *error = QStringLiteral("%1 dpi is out of range (36 to 2400, at most 400 megapixels)").arg(dpi);
        return false;
    }
    if (!(fontPt >= 4 && fontPt <= 48)) {
        *error = QStringLiteral("a font of %1 pt is out of range (4 to 48)").arg(fontPt);
        return false;
    }
    return true;
}

} // namespace rankscope
