#include "FigureCatalog.h"

#include <QStringList>
#include <array>

namespace rankscope {

namespace {

constexpr std::array<FigureKind, kFigureCount> kAllFigures = [] {
    std::array<FigureKind, kFigureCount> kinds{};
    for (int i = 0; i < kFigureCount; ++i)
        kinds[i] = FigureKind::atRow(i);
    return kinds;
}();

// Every row names itself once, says what it draws, and has both its titles when it has a tab. (Its
// builder is a function's name, never null; a sanitizer build cannot compare one at compile time.)
constexpr bool rowsAreWhole()
{
    for (int i = 0; i < kFigureCount; ++i) {
        if (!kFigureRows[i].help || (kFigureRows[i].tabTitle == nullptr) != (kFigureRows[i].menuTitle == nullptr))
            return false;
        for (int j = 0; j < i; ++j)
            if (std::string_view(kFigureRows[i].id) == kFigureRows[j].id)
                return false;
    }
    return true;
}
static_assert(rowsAreWhole(), "a figure row lacks its help or one of its titles, or repeats a name");

} // namespace

std::span<const FigureKind> allFigures() { return kAllFigures; }

std::optional<FigureKind> figureOfName(const QString &id)
{
    for (FigureKind kind : allFigures())
        if (id == QLatin1String(kind.info().id))
            return kind;
    return std::nullopt;
}

QString figureHelp()
{
    QString text;
    for (FigureKind kind : allFigures())
        text += QStringLiteral("  %1%2\n").arg(QString::fromLatin1(kind.info().id).leftJustified(14),
                                               QString::fromUtf8(kind.info().help).replace(QLatin1Char('\n'), QStringLiteral("\n") + QString(16, QLatin1Char(' '))));
    return text;
}

QString figureNames(const QString &separator)
{
    QStringList names;
    for (FigureKind kind : allFigures())
        names << QLatin1String(kind.info().id);
    return names.join(separator);
}

} // namespace rankscope
