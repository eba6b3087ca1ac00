#include "io/torch/ZipDirectory.h"

#include "io/MemoryBudget.h"
#include "base/PrintableText.h"

#include <QtEndian>
#include <zlib.h>
#include <algorithm>
#include <limits>

namespace rankscope {

namespace {

constexpr quint32 kEndOfDirectory = 0x06054b50;
constexpr quint32 kZip64Locator = 0x07064b50;
constexpr quint32 kZip64EndOfDirectory = 0x06064b50;
constexpr quint32 kDirectoryEntry = 0x02014b50;
constexpr quint32 kLocalHeader = 0x04034b50;
constexpr qsizetype kMaxEntries = 10'000'000;

template <typename T>
T le(const char *p) { return qFromLittleEndian<T>(p); }

QByteArray readAt(QFile &file, quint64 offset, qint64 length)
{
    if (!file.seek(static_cast<qint64>(offset)))
        return {};
    return file.read(length);
}

} // namespace

namespace {

// The archive's bytes inside the file, at offsets read from its own bytes: one past its end reads nothing.
struct ArchiveBytes {
    QFile &file;
    quint64 start, size;
    QByteArray at(quint64 offset, qint64 length) const
    {
        if (offset > size)
            return QByteArray();
        return readAt(file, start + offset, static_cast<qint64>(std::min<quint64>(quint64(length), size - offset)));
    }
};

// Where the central directory is and how many entries it claims, from the end record (and its
// ZIP64 form).
struct DirectoryPlace {
    quint64 entryCount = 0, size = 0, offset = 0;
};

std::optional<DirectoryPlace> findDirectory(const ArchiveBytes &archive, QString *error)
{
    // The end record sits in the last 22 + 65535 bytes (its comment is at most 64 KiB).
    const quint64 tailLength = std::min<quint64>(archive.size, 22 + 65535);
    const QByteArray tail = archive.at(archive.size - tailLength, static_cast<qint64>(tailLength));
    qsizetype eocd = -1;
    for (qsizetype i = tail.size() - 22; i >= 0; --i) {
        if (le<quint32>(tail.constData() + i) == kEndOfDirectory) {
            eocd = i;
            break;
        }
    }
    if (eocd < 0) {
        *error = QStringLiteral("no zip end-of-directory record (truncated or not a zip archive)");
        return std::nullopt;
    }
    const char *end = tail.constData() + eocd;
    DirectoryPlace place{le<quint16>(end + 10), le<quint32>(end + 12), le<quint32>(end + 16)};
    const quint64 eocdPosition = archive.size - tailLength + static_cast<quint64>(eocd);
    if (eocdPosition >= 20) {
        const QByteArray locator = archive.at(eocdPosition - 20, 20);
        if (locator.size() == 20 && le<quint32>(locator.constData()) == kZip64Locator) {
            const QByteArray zip64End = archive.at(le<quint64>(locator.constData() + 8), 56);
            if (zip64End.size() != 56 || le<quint32>(zip64End.constData()) != kZip64EndOfDirectory) {
                *error = QStringLiteral("ZIP64 end-of-directory record is missing or damaged");
                return std::nullopt;
            }
            place = {le<quint64>(zip64End.constData() + 32), le<quint64>(zip64End.constData() + 40), le<quint64>(zip64End.constData() + 48)};
        }
    }
    if (place.offset > archive.size || place.size > archive.size - place.offset) {
        *error = QStringLiteral("zip directory lies outside the file (truncated?)");
        return std::nullopt;
    }
    // Each directory entry takes at least 46 bytes: a count that cannot fit is a lie.
    if (place.entryCount > place.size / 46 || place.entryCount > static_cast<quint64>(kMaxEntries)) {
        *error = QStringLiteral("zip directory claims %1 entries in %2 bytes").arg(place.entryCount).arg(place.size);
        return std::nullopt;
    }
    return place;
}

// The ZIP64 extra field: its 64-bit values replace, in order, those stored as 0xFFFFFFFF.
void applyZip64Extra(ZipEntry &entry, const char *extra, qsizetype extraLength)
{
    for (qsizetype e = 0; e + 4 <= extraLength;) {
        const quint16 id = le<quint16>(extra + e);
        const quint16 length = le<quint16>(extra + e + 2);
        if (e + 4 + length > extraLength)
            break;
        if (id == 0x0001) {
            const char *field = extra + e + 4;
            qsizetype used = 0;
            auto take = [&](quint64 &value) {
                if (value == 0xFFFFFFFFu && used + 8 <= length) {
                    value = le<quint64>(field + used);
                    used += 8;
                }
            };
            take(entry.size);
            take(entry.compressedSize);
            take(entry.localHeaderOffset);
        }
        e += 4 + length;
    }
}

} // namespace

std::optional<ZipDirectory> ZipDirectory::read(QFile &file, QString *error, qint64 base, qint64 size)
{
    const qint64 wholeFile = file.size();
    if (base < 0 || base > wholeFile || (size >= 0 && size > wholeFile - base)) {
        *error = QStringLiteral("the archive's bytes [%1, +%2) lie outside the file of %3 bytes").arg(base).arg(size).arg(wholeFile);
        return std::nullopt;
    }
    const ArchiveBytes archive{file, static_cast<quint64>(base), size < 0 ? static_cast<quint64>(wholeFile - base) : static_cast<quint64>(size)};
    if (archive.size < 22) {
        *error = QStringLiteral("too short to be a zip archive (%1 bytes)").arg(archive.size);
        return std::nullopt;
    }
    const std::optional<DirectoryPlace> place = findDirectory(archive, error);
    if (!place)
        return std::nullopt;
    const QByteArray directory = archive.at(place->offset, static_cast<qint64>(place->size));
    if (static_cast<quint64>(directory.size()) != place->size) {
        *error = QStringLiteral("cannot read the zip directory");
        return std::nullopt;
    }

    ZipDirectory result;
    result.m_base = archive.start;
    result.m_size = archive.size;
    qsizetype pos = 0;
    for (quint64 n = 0; n < place->entryCount; ++n) {
        if (pos + 46 > directory.size() || le<quint32>(directory.constData() + pos) != kDirectoryEntry) {
            *error = QStringLiteral("zip directory entry %1 is damaged").arg(n);
            return std::nullopt;
        }
        const char *p = directory.constData() + pos;
        ZipEntry entry;
        entry.method = le<quint16>(p + 10);
        entry.compressedSize = le<quint32>(p + 20);
        entry.size = le<quint32>(p + 24);
        const quint16 nameLength = le<quint16>(p + 28);
        const quint16 extraLength = le<quint16>(p + 30);
        const quint16 commentLength = le<quint16>(p + 32);
        entry.localHeaderOffset = le<quint32>(p + 42);
        if (pos + 46 + nameLength + extraLength + commentLength > directory.size()) {
            *error = QStringLiteral("zip directory entry %1 runs past the directory").arg(n);
            return std::nullopt;
        }
        entry.name = QString::fromUtf8(p + 46, nameLength);
        applyZip64Extra(entry, p + 46 + nameLength, extraLength);
        // Readers disagree on which of two same-named entries counts (this index kept the last,
        // the pickle lookup the first; torch.load and numpy's zipfile have their own rules), so
        // an archive naming one twice is refused rather than read as something else than it is.
        if (result.m_index.contains(entry.name)) {
            *error = QStringLiteral("zip archive holds two entries named %1: which one is meant is ambiguous").arg(printableText(entry.name.left(200)));
            return std::nullopt;
        }
        result.m_index.insert(entry.name, result.m_entries.size());
        result.m_entries.append(entry);
        pos += 46 + nameLength + extraLength + commentLength;
    }
    return result;
}

const ZipEntry *ZipDirectory::find(const QString &name) const
{
    const auto it = m_index.constFind(name);
    return it == m_index.constEnd() ? nullptr : &m_entries[*it];
}

namespace {

// `length` bytes from `offset` of a stored (method 0) entry whose data begins at `start`.
std::optional<QByteArray> readStored(QFile &file, const ZipEntry &entry, quint64 start, quint64 offset, quint64 length, QString *error)
{
    if (!file.seek(qint64(start + offset))) {
        *error = QStringLiteral("zip entry %1 cannot be read").arg(entry.name);
        return std::nullopt;
    }
    QByteArray data = file.read(qint64(length));
    if (quint64(data.size()) != length) {
        *error = QStringLiteral("zip entry %1 is truncated").arg(entry.name);
        return std::nullopt;
    }
    return data;
}

// `length` bytes from `offset` of a deflated (method 8) entry whose data begins at `start`, inflated
// a block at a time; a stream that inflates past or short of its declared size is refused.
std::optional<QByteArray> inflateRange(QFile &file, const ZipEntry &entry, quint64 start, quint64 offset, quint64 length, QString *error)
{
    QByteArray out(qsizetype(length), Qt::Uninitialized);
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) {
        *error = QStringLiteral("cannot start inflating %1").arg(entry.name);
        return std::nullopt;
    }
    // Compressed bytes go in, and what precedes offset comes out, a block at a time.
    constexpr qint64 kBlock = 64 * 1024;
    QByteArray input, skipped(kBlock, Qt::Uninitialized);
    quint64 compressedLeft = entry.compressedSize;
    const quint64 end = offset + length;
    // One byte past the end is asked for when the entry is read to its end, to catch a stream that
    // inflates past its declared size.
    const quint64 wanted = end == entry.size ? end + 1 : end;
    file.seek(qint64(start));
    int status = Z_OK;
    while (stream.total_out < wanted && status == Z_OK) {
        if (stream.avail_in == 0 && compressedLeft > 0) {
            input = file.read(std::min<qint64>(kBlock, qint64(compressedLeft)));
            if (input.isEmpty())
                break;
            compressedLeft -= quint64(input.size());
            stream.next_in = reinterpret_cast<Bytef *>(input.data());
            stream.avail_in = uInt(input.size());
        }
        const quint64 produced = stream.total_out;
        if (produced < offset) {
            stream.next_out = reinterpret_cast<Bytef *>(skipped.data());
            stream.avail_out = uInt(std::min<quint64>(kBlock, offset - produced));
        } else if (produced < end) {
            stream.next_out = reinterpret_cast<Bytef *>(out.data() + (produced - offset));
            stream.avail_out = uInt(std::min<quint64>(std::numeric_limits<uInt>::max(), end - produced));
        } else {
            stream.next_out = reinterpret_cast<Bytef *>(skipped.data());
            stream.avail_out = 1;
        }
        status = inflate(&stream, Z_NO_FLUSH);
        if (status == Z_BUF_ERROR && stream.avail_in == 0 && compressedLeft > 0)
            status = Z_OK; // more input is on its way
    }
    const quint64 produced = stream.total_out;
    inflateEnd(&stream);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
        *error = QStringLiteral("zip entry %1 is not valid deflate data").arg(entry.name);
        return std::nullopt;
    }
    if (produced > entry.size) {
        *error = QStringLiteral("zip entry %1 inflates past its declared %2 bytes").arg(entry.name).arg(entry.size);
        return std::nullopt;
    }
    if (produced < end) {
        *error = QStringLiteral("zip entry %1 inflates to fewer bytes than it declares (truncated?)").arg(entry.name);
        return std::nullopt;
    }
    return out;
}

} // namespace

std::optional<QByteArray> ZipDirectory::readEntry(QFile &file, const ZipEntry &entry, quint64 offset, quint64 length, QString *error) const
{
    if (entry.method != 0 && entry.method != 8) {
        *error = QStringLiteral("zip entry %1 uses compression method %2 (only stored and deflate are read)").arg(entry.name).arg(entry.method);
        return std::nullopt;
    }
    if (offset > entry.size || length > entry.size - offset) {
        *error = QStringLiteral("zip entry %1 holds %2 bytes, not the %3 needed").arg(entry.name).arg(entry.size).arg(offset + length);
        return std::nullopt;
    }
    if (entry.method == 8 && entry.size > entry.compressedSize * MemoryBudget::kMaxInflationRatio + 1024) {
        *error = QStringLiteral("zip entry %1 claims %2 bytes from %3 compressed (a decompression bomb?)")
                     .arg(entry.name).arg(entry.size).arg(entry.compressedSize);
        return std::nullopt;
    }
    const auto start = localDataStart(file, entry, entry.method == 0 ? entry.size : entry.compressedSize, error);
    if (!start)
        return std::nullopt;
    return entry.method == 0 ? readStored(file, entry, *start, offset, length, error) : inflateRange(file, entry, *start, offset, length, error);
}

std::optional<quint64> ZipDirectory::dataOffset(QFile &file, const ZipEntry &entry, QString *error) const
{
    if (entry.method != 0) {
        *error = QStringLiteral("zip entry %1 is compressed (method %2); torch.save stores entries uncompressed")
                     .arg(entry.name)
                     .arg(entry.method);
        return std::nullopt;
    }
    return localDataStart(file, entry, entry.size, error);
}

std::optional<quint64> ZipDirectory::localDataStart(QFile &file, const ZipEntry &entry, quint64 storedBytes, QString *error) const
{
    if (entry.localHeaderOffset > m_size) {
        *error = QStringLiteral("zip entry %1 points outside the file or at a damaged header").arg(entry.name);
        return std::nullopt;
    }
    const QByteArray local = readAt(file, m_base + entry.localHeaderOffset, 30);
    if (local.size() != 30 || le<quint32>(local.constData()) != kLocalHeader) {
        *error = QStringLiteral("zip entry %1 points outside the file or at a damaged header").arg(entry.name);
        return std::nullopt;
    }
    const quint64 start = entry.localHeaderOffset + 30 + le<quint16>(local.constData() + 26) +
                          le<quint16>(local.constData() + 28);
    const quint64 fileSize = m_size;
    if (start > fileSize || storedBytes > fileSize - start) {
        *error = QStringLiteral("zip entry %1 (%2 bytes) runs past the end of the file (truncated?)")
                     .arg(entry.name)
                     .arg(storedBytes);
        return std::nullopt;
    }
    return m_base + start;
}

} // namespace rankscope
