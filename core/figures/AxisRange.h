// An axis's range as the figure models compute it, and a value as an axis can show it.
#pragma once

#include <cmath>

namespace rankscope {

struct AxisRange {
    double lower = 0;
    double upper = 0;
    bool operator==(const AxisRange &other) const = default;
};

// A logarithmic axis cannot show zero or below: those values become gaps (NaN).
inline double plottedValue(double v, bool logY) { return logY && !(v > 0) ? std::nan("") : v; }

} // namespace rankscope
