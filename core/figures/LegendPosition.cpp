#include "figures/LegendPosition.h"

#include <QCoreApplication>

namespace rankscope {

namespace {
struct Entry {
    LegendPosition position;
    const char *name;
    const char *label;
};
constexpr Entry kEntries[] = {
    {LegendPosition::Auto, "auto", QT_TRANSLATE_NOOP("LegendPosition", "Above, beside or below the plot, as fits")},
    {LegendPosition::Above, "above", QT_TRANSLATE_NOOP("LegendPosition", "In a row above the plot")},
    {LegendPosition::Right, "right", QT_TRANSLATE_NOOP("LegendPosition", "Right of the plot")},
    {LegendPosition::Below, "below", QT_TRANSLATE_NOOP("LegendPosition", "Below the plot")},
    {LegendPosition::TopLeft, "top-left", QT_TRANSLATE_NOOP("LegendPosition", "Inside, top left")},
    {LegendPosition::TopRight, "top-right", QT_TRANSLATE_NOOP("LegendPosition", "Inside, top right")},
    {LegendPosition::BottomLeft, "bottom-left", QT_TRANSLATE_NOOP("LegendPosition", "Inside, bottom left")},
    {LegendPosition::BottomRight, "bottom-right", QT_TRANSLATE_NOOP("LegendPosition", "Inside, bottom right")},
    {LegendPosition::Hidden, "none", QT_TRANSLATE_NOOP("LegendPosition", "No legend")},
};
} // namespace

QString legendPositionName(LegendPosition position)
{
    for (const Entry &e : kEntries)
        if (e.position == position)
            return QLatin1String(e.name);
    return {};
}

std::optional<LegendPosition> parseLegendPosition(const QString &name)
{
    for (const Entry &e : kEntries)
        if (name.compare(QLatin1String(e.name), Qt::CaseInsensitive) == 0)
            return e.position;
    return std::nullopt;
}

QStringList legendPositionNames()
{
    QStringList names;
    for (const Entry &e : kEntries)
        names << QLatin1String(e.name);
    return names;
}

QString legendPositionLabel(LegendPosition position)
{
    for (const Entry &e : kEntries)
        if (e.position == position)
            return QCoreApplication::translate("LegendPosition", e.label);
    return {};
}

QList<LegendPosition> allLegendPositions()
{
    QList<LegendPosition> all;
    for (const Entry &e : kEntries)
        all << e.position;
    return all;
}

} // namespace rankscope
