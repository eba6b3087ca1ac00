// An axis's range as the figure models compute it, and a value as an axis can show it.
#pragma once

#include <QString>

#include <algorithm>
#include <cmath>

namespace rankscope {

struct AxisRange {
    double lower = 0;
    double upper = 0;
    bool operator==(const AxisRange &other) const = default;
};

// A logarithmic axis cannot show zero or below: those values become gaps (NaN).
inline double plottedValue(double v, bool logY) { return logY && !(v > 0) ? std::nan("") : v; }

// A value as a reader of the axis spanning `range` wants it: one digit finer than its ticks (which
// step by about a fifth of the span), three significant digits on a logarithmic axis: what the
// crosshair readout, which reads a position, shows.
inline QString axisNumber(double v, AxisRange range, bool log)
{
    if (!std::isfinite(v))
        return QStringLiteral("NaN");
    if (log)
        return QString::number(v, 'g', 3);
    const double span = range.upper > range.lower ? range.upper - range.lower : std::max(1.0, std::abs(v));
    const int decimals = std::clamp(int(std::ceil(-std::log10(span / 5))) + 1, 0, 6);
    const QString text = QString::number(v, 'f', decimals);
    return text.toDouble() == 0 ? QStringLiteral("0") : text; // never "-0.00"
}

// A value in a tooltip, whatever the view: four significant digits, enough to tell neighbouring
// bars, cells and points apart (85.94 and 85.90, not 86 and 86), written out for 0.001 ≤ |v| < 10⁶.
inline QString valueNumber(double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("NaN");
    const double size = std::abs(v);
    if (size == 0)
        return QStringLiteral("0");
    if (size < 1e-3 || size >= 1e6)
        return QString::number(v, 'g', 4);
    const int decimals = std::max(0, 3 - int(std::floor(std::log10(size))));
    return QString::number(v, 'f', decimals);
}

} // namespace rankscope
