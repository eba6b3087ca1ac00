#include "TextTable.h"

#include "base/PrintableText.h"

#include <algorithm>

namespace rankscope {

void printTable(QTextStream &out, QList<QStringList> rows)
{
    for (QStringList &row : rows)
        for (QString &cell : row)
            cell = printableText(cell);
    QList<qsizetype> widths;
    for (const QStringList &row : rows)
        for (qsizetype c = 0; c + 1 < row.size(); ++c) {
            if (widths.size() <= c)
                widths.append(0);
            widths[c] = std::max(widths[c], row[c].size());
        }
    for (const QStringList &row : rows) {
        out << "  ";
        for (qsizetype c = 0; c + 1 < row.size(); ++c)
            out << row[c].leftJustified(widths[c] + 2);
        out << row.value(row.size() - 1) << '\n';
    }
}

} // namespace rankscope
