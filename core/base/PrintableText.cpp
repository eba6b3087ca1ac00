#include "base/PrintableText.h"

#include <QList>
#include <algorithm>

namespace rankscope {

namespace {

bool needsEscape(char32_t c)
{
    if (c < 0x20 || (c >= 0x7F && c <= 0x9F))
        return true; // C0, DEL and C1 controls (0x9B is a terminal's CSI, like ESC [)
    switch (QChar::category(c)) {
    case QChar::Other_Format:        // bidirectional overrides, zero-width characters
    case QChar::Separator_Line:      // U+2028
    case QChar::Separator_Paragraph: // U+2029
        return true;
    default:
        return false;
    }
}

} // namespace

QString printableText(const QString &text)
{
    // Unpaired surrogates, which are no characters, become U+FFFD here.
    const QList<uint> characters = text.toUcs4();
    if (std::none_of(characters.begin(), characters.end(), [](uint c) { return needsEscape(c); }))
        return text;
    QString out;
    out.reserve(text.size() + 16);
    for (const uint c : characters) {
        if (!needsEscape(c)) {
            const char32_t one = c;
            out.append(QString::fromUcs4(&one, 1));
        } else if (c == '\n') {
            out.append(QLatin1String("\\n"));
        } else if (c == '\r') {
            out.append(QLatin1String("\\r"));
        } else if (c == '\t') {
            out.append(QLatin1String("\\t"));
        } else if (c <= 0xFF) {
            out.append(QStringLiteral("\\x%1").arg(c, 2, 16, QLatin1Char('0')));
        } else {
            out.append(QStringLiteral("\\u{%1}").arg(c, 4, 16, QLatin1Char('0')));
        }
    }
    return out;
}

} // namespace rankscope
