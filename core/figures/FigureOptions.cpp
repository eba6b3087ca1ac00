#include "FigureOptions.h"

#include "base/PrintableText.h"

#include <QStringList>

namespace rankscope {

std::optional<MatrixType> matrixTypeOption(const QString &name, const QString &text, QString *error)
{
    const QString wanted = text.trimmed();
    QStringList valid;
    for (MatrixType type : kAllMatrixTypes) {
        if (wanted.compare(csvName(type), Qt::CaseInsensitive) == 0 || wanted.compare(displayLabel(type), Qt::CaseInsensitive) == 0)
            return type;
        valid << (displayLabel(type) == csvName(type) ? csvName(type) : QStringLiteral("%1 (%2)").arg(csvName(type), displayLabel(type)));
    }
    if (error)
        *error = QStringLiteral("unknown --%1 '%2'; one of: %3").arg(name, printableText(text), valid.join(QLatin1String(", ")));
    return std::nullopt;
}

} // namespace rankscope
