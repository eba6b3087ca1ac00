// Text from files (file and tensor names, pickle strings, messages quoting them) made safe to show:
// every control or invisible formatting character is written as an escape, so a name cannot move
// the cursor, erase its own warning, set the terminal's title, break a CSV row or reorder what is
// shown (bidirectional overrides). Used for every such text the command line and exports write.
#pragma once

#include <QString>

namespace rankscope {

// "\n", "\r", "\t", "\x1b", "\u{202e}" for the characters they name; everything else as it is.
QString printableText(const QString &text);

} // namespace rankscope
