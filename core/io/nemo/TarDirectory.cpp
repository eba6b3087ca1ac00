#include "io/nemo/TarDirectory.h"

#include "base/PrintableText.h"

#include <QByteArray>
#include <QSet>
#include <limits>
#include <optional>

namespace rankscope {

namespace {

constexpr qint64 kBlock = 512;
// A .nemo holds a config, weights and a few tokenizer files; a million headers is no .nemo.
constexpr int kMaxMembers = 1 << 20;
constexpr qint64 kMaxNameBytes = 4096;     // PATH_MAX: a GNU long name or a pax path
constexpr qint64 kMaxPaxBytes = 1 << 16;   // an extended header of a few records

// A numeric field: octal digits (space or NUL padded), or GNU's base-256 (high bit set) for sizes
// past 8 GiB. Nullopt for anything else, or a value past 2⁶³.
std::optional<qint64> numberField(const char *field, int length)
{
    const auto *bytes = reinterpret_cast<const unsigned char *>(field);
    constexpr qint64 kMax = std::numeric_limits<qint64>::max();
    qint64 value = 0;
    if (bytes[0] & 0x80) {
        if (bytes[0] != 0x80) // a negative number, or one past 2⁶³
            return std::nullopt;
        for (int i = 1; i < length; ++i) {
            if (value > (kMax >> 8))
                return std::nullopt;
            value = (value << 8) | bytes[i];
        }
        return value;
    }
    int i = 0;
    while (i < length && field[i] == ' ')
        ++i;
    for (; i < length && field[i] >= '0' && field[i] <= '7'; ++i) {
        if (value > (kMax >> 3))
            return std::nullopt;
        value = value * 8 + (field[i] - '0');
    }
    for (; i < length; ++i)
        if (field[i] != ' ' && field[i] != '\0')
            return std::nullopt;
    return value;
}

QString textField(const char *field, int length)
{
    return QString::fromUtf8(field, qstrnlen(field, uint(length)));
}

// The checksum is the sum of the header's bytes with its own field taken as spaces, unsigned (POSIX)
// or signed (old Unix tars); Python's tarfile accepts either.
bool checksumMatches(const QByteArray &header)
{
    const std::optional<qint64> stored = numberField(header.constData() + 148, 8);
    qint64 unsignedSum = 0, signedSum = 0;
    for (int i = 0; i < kBlock; ++i) {
        const char c = (i >= 148 && i < 156) ? ' ' : header[i];
        unsignedSum += static_cast<unsigned char>(c);
        signedSum += static_cast<signed char>(c);
    }
    return stored && (*stored == unsignedSum || *stored == signedSum);
}

// The name without its leading "./", or empty when it leads outside the archive.
QString safeName(QString name, bool *outside)
{
    while (name.startsWith(QLatin1String("./")))
        name.remove(0, 2);
    if (name.endsWith(QLatin1Char('/')))
        name.chop(1);
    *outside = name.startsWith(QLatin1Char('/')) || name.split(QLatin1Char('/')).contains(QLatin1String(".."));
    return name;
}

// The records of a pax extended header ("%d path=…\n"): the path and size it gives.
bool readPax(const QByteArray &data, QString *path, qint64 *size)
{
    qsizetype at = 0;
    while (at < data.size()) {
        const qsizetype space = data.indexOf(' ', at);
        bool ok = false;
        const qint64 length = space > at ? data.mid(at, space - at).toLongLong(&ok) : 0;
        if (!ok || length <= space - at || at + length > data.size() || data[at + length - 1] != '\n')
            return false;
        const QByteArray record = data.mid(space + 1, length - (space - at) - 2);
        if (record.startsWith("path="))
            *path = QString::fromUtf8(record.mid(5));
        else if (record.startsWith("size="))
            *size = record.mid(5).toLongLong(&ok);
        if (record.startsWith("size=") && (!ok || *size < 0))
            return false;
        at += length;
    }
    return true;
}

// A GNU long name ('L') or a pax header ('x') at `at` of `size` bytes: the name (and size) it gives
// the member after it.
bool readNameHeader(QFile &file, char type, qint64 at, qint64 size, QString *longName, qint64 *paxSize, QString *error)
{
    if (size > (type == 'L' ? kMaxNameBytes : kMaxPaxBytes)) {
        *error = QStringLiteral("the tar header at byte %1 declares a %2-byte name, more than any path").arg(at).arg(size);
        return false;
    }
    file.seek(at + kBlock);
    const QByteArray bytes = file.read(size);
    if (type == 'L')
        *longName = QString::fromUtf8(bytes.left(qstrnlen(bytes.constData(), uint(bytes.size()))));
    else if (!readPax(bytes, longName, paxSize)) {
        *error = QStringLiteral("the pax header at byte %1 is malformed").arg(at);
        return false;
    }
    return true;
}

// A member's name: the long name a header before it gave, else its own (with ustar's prefix).
QString memberName(const QByteArray &header, const QString &longName)
{
    if (!longName.isEmpty())
        return longName;
    const QString name = textField(header.constData(), 100);
    if (header.mid(257, 5) == "ustar" && header[345] != '\0')
        return textField(header.constData() + 345, 155) + QLatin1Char('/') + name;
    return name;
}

} // namespace

bool TarDirectory::addMember(QString name, char type, qint64 data, qint64 size, QSet<QString> &files, QString *error)
{
    bool outside = false;
    name = safeName(name, &outside);
    if (outside) {
        *error = QStringLiteral("the tar member '%1' leads outside the archive").arg(printableText(name.left(200)));
        return false;
    }
    if (m_members.size() >= kMaxMembers) {
        *error = QStringLiteral("more than %1 tar members").arg(kMaxMembers);
        return false;
    }
    // tar extracts the last copy of a member and find() would give the first: a file named twice
    // (a model_config.yaml appended with tar -r) is ambiguous, and refused by name.
    if (type != '5' && !name.isEmpty() && (type == '0' || type == '\0' || type == '7') && files.contains(name)) {
        *error = QStringLiteral("the member '%1' is in the archive twice (tar reads the last copy): which one is meant is "
                                "not clear, not read").arg(printableText(name.left(200)));
        return false;
    }
    if (!name.isEmpty() && (type == '0' || type == '\0' || type == '7' || type == '5')) {
        m_members.append({name, data, size, type == '5'});
        if (type != '5')
            files.insert(name);
    }
    return true;
}

bool TarDirectory::read(QFile &file, QString *error)
{
    m_members.clear();
    QSet<QString> files;
    const qint64 fileSize = file.size();
    QString longName;
    qint64 paxSize = -1; // a pax header's size record, for the member after it
    for (qint64 at = 0; at + kBlock <= fileSize;) {
        if (!file.seek(at)) {
            *error = QStringLiteral("cannot seek to byte %1").arg(at);
            return false;
        }
        const QByteArray header = file.read(kBlock);
        if (header.size() != kBlock) {
            *error = QStringLiteral("cannot read the tar header at byte %1").arg(at);
            return false;
        }
        if (header.count('\0') == kBlock)
            return true; // the end-of-archive blocks
        if (!checksumMatches(header)) {
            *error = at == 0 ? QStringLiteral("not a tar archive (its first header's checksum does not match)")
                             : QStringLiteral("the tar header at byte %1 is damaged (its checksum does not match)").arg(at);
            return false;
        }
        const char type = header[156];
        std::optional<qint64> size = numberField(header.constData() + 124, 12);
        if (paxSize >= 0 && type != 'x' && type != 'L')
            size = paxSize;
        const qint64 data = at + kBlock;
        if (!size || *size > fileSize - data) {
            *error = QStringLiteral("the tar member at byte %1 declares %2 bytes, past the end of the file (%3 bytes left)")
                         .arg(at).arg(size ? QString::number(*size) : QStringLiteral("an unreadable number of")).arg(fileSize - data);
            return false;
        }
        const qint64 next = data + (*size + kBlock - 1) / kBlock * kBlock;
        if (type == 'L' || type == 'x') {
            if (!readNameHeader(file, type, at, *size, &longName, &paxSize, error))
                return false;
            at = next;
            continue;
        }
        const QString name = memberName(header, longName);
        longName.clear();
        paxSize = -1;
        if (!addMember(name, type, data, *size, files, error))
            return false;
        at = next;
    }
    if (m_members.isEmpty()) {
        *error = QStringLiteral("not a tar archive (no members)");
        return false;
    }
    return true; // a tar whose end-of-archive blocks are missing is read as far as it goes
}

const TarMember *TarDirectory::find(const QString &name) const
{
    for (const TarMember &member : m_members)
        if (member.name == name)
            return &member;
    return nullptr;
}

} // namespace rankscope
