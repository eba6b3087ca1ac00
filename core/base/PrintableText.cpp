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

namespace {

// One item of a brief list: printable, at most `length` characters, "…" where cut. An escape can
// make a character longer, so the printed text is cut again; a surrogate pair is never split.
QString briefItem(const QString &item, qsizetype length)
{
    const auto cutAt = [](const QString &text, qsizetype at) {
        return at > 0 && at < text.size() && text.at(at - 1).isHighSurrogate() ? at - 1 : at;
    };
    const qsizetype kept = cutAt(item, std::min(item.size(), length));
    QString printed = printableText(item.left(kept));
    bool cut = kept < item.size();
    if (printed.size() > length) {
        printed.truncate(cutAt(printed, length));
        cut = true;
    }
    return cut ? printed + QStringLiteral("…") : printed;
}

} // namespace

QString briefList(const QStringList &items, qint64 total, const QString &separator, qsizetype itemLength)
{
    total = std::max<qint64>(total, items.size());
    itemLength = std::clamp<qsizetype>(itemLength, 1, kBriefListLength - 1);
    QStringList shown;
    qsizetype length = 0;
    for (qsizetype i = 0; i < items.size() && i < kBriefListItems; ++i) {
        const QString item = briefItem(items[i], itemLength);
        const qsizetype added = (shown.isEmpty() ? 0 : separator.size()) + item.size();
        if (!shown.isEmpty() && length + added > kBriefListLength)
            break;
        shown << item;
        length += added;
    }
    const qint64 more = total - shown.size();
    if (more <= 0)
        return shown.join(separator);
    if (shown.isEmpty())
        return QStringLiteral("%1 more").arg(more);
    return shown.join(separator) + QStringLiteral(" and %1 more").arg(more);
}

QString shapeText(const QList<qint64> &shape)
{
    QStringList dims;
    for (const qint64 d : shape)
        dims << QString::number(d);
    return QLatin1Char('[') + dims.join(QLatin1String(", ")) + QLatin1Char(']');
}

} // namespace rankscope
