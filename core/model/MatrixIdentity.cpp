#include "model/MatrixIdentity.h"

namespace rankscope {

namespace {
std::strong_ordering compareText(const QString &a, const QString &b)
{
    const int c = a.compare(b);
    return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}
} // namespace

std::strong_ordering compareExperts(const QString &a, const QString &b)
{
    if (a == b)
        return std::strong_ordering::equal;
    if (a.isEmpty() || b.isEmpty())
        return a.isEmpty() ? std::strong_ordering::less : std::strong_ordering::greater;
    bool aNumber = false, bNumber = false;
    const qlonglong an = a.toLongLong(&aNumber), bn = b.toLongLong(&bNumber);
    if (aNumber && bNumber)
        return an <=> bn;
    if (aNumber != bNumber)
        return aNumber ? std::strong_ordering::less : std::strong_ordering::greater;
    return compareText(a, b);
}

std::strong_ordering MatrixIdentity::operator<=>(const MatrixIdentity &other) const
{
    if (const auto c = compareText(block, other.block); c != 0)
        return c;
    if (const auto c = layer <=> other.layer; c != 0)
        return c;
    if (const auto c = int(type) <=> int(other.type); c != 0)
        return c;
    return compareExperts(expert, other.expert);
}

QString MatrixIdentity::text() const
{
    QString out = block.isEmpty() ? QString() : block + QLatin1Char(' ');
    out += QStringLiteral("layer %1 %2").arg(layer).arg(displayLabel(type));
    if (!expert.isEmpty())
        out += expert == QLatin1String(kSharedExpert) ? QStringLiteral(" shared expert") : QStringLiteral(" expert ") + expert;
    return out;
}

} // namespace rankscope
