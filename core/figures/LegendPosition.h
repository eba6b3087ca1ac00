// Where a figure's legend goes: above, beside or below the plot as the size allows (auto), always
// in a row above, beside or below it, inside the plot at a corner, or nowhere. The views with a
// legend of types and runs (lines and bars) follow it; the window's context menu, the export
// dialog and `rankscope export --legend` set it by these names.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

enum class LegendPosition { Auto, Right, Below, TopLeft, TopRight, BottomLeft, BottomRight, Hidden, Above };

// "auto", "above", "right", "below", "top-left", "top-right", "bottom-left", "bottom-right", "none".
QString legendPositionName(LegendPosition position);
std::optional<LegendPosition> parseLegendPosition(const QString &name);
QStringList legendPositionNames();
// For menus: "Beside or below, as fits", "Inside, top left", …
QString legendPositionLabel(LegendPosition position);
QList<LegendPosition> allLegendPositions();

} // namespace rankscope
