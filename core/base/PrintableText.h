// Text from files (file and tensor names, pickle strings, messages quoting them) made safe to show:
// every control or invisible formatting character is written as an escape, so a name cannot move
// the cursor, erase its own warning, set the terminal's title, break a CSV row or reorder what is
// shown (bidirectional overrides). Used for every such text the command line and exports write.
#pragma once

#include <QString>
#include <QStringList>

namespace rankscope {

// "\n", "\r", "\t", "\x1b", "\u{202e}" for the characters they name; everything else as it is.
QString printableText(const QString &text);

// How many items a message lists before "and N more", how many characters of each it shows by
// default, and how many the items shown may take together.
inline constexpr qsizetype kBriefListItems = 5;
inline constexpr qsizetype kBriefListItemLength = 80;
inline constexpr qsizetype kBriefListLength = 600;

// A list of names for a message, short however many there are: the first kBriefListItems, each
// printable and cut to `itemLength` characters ("…" where cut), joined by `separator`, fewer where
// they would pass kBriefListLength together (the first is always shown), then "and N more".
// "mp_rank_00_001, mp_rank_00_002, …, mp_rank_00_005 and 99999994 more" stays one short line
// (at most kBriefListLength + 30 characters) where a count read from a name or a config would
// otherwise make it megabytes. `total` is how many there are in all when `items` holds only the
// first of them (a count too large to list: build only the first kBriefListItems); a `total`
// below items.size() is ignored.
QString briefList(const QStringList &items, qint64 total = -1, const QString &separator = QStringLiteral(", "),
                  qsizetype itemLength = kBriefListItemLength);

// A tensor's shape as messages and `info` write it: "[4096, 11008]".
QString shapeText(const QList<qint64> &shape);

} // namespace rankscope
