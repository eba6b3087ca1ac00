#include "io/RegularFile.h"

#include "io/MemoryBudget.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rankscope {

QString cleanAbsolutePath(const QString &path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }

namespace {

QString describeFileType(mode_t mode)
{
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO (named pipe)");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    if (S_ISDIR(mode))
        return QStringLiteral("a folder");
    return QStringLiteral("not a regular file");
}

QString errnoText() { return QString::fromLocal8Bit(std::strerror(errno)); }

// Opens without blocking (a FIFO with no writer would block a plain open forever) and hands back
// the descriptor only for a regular file; fstat on the open descriptor leaves no window between
// the check and the read.
int openRegularFile(const QString &path, struct stat *status, QString *error)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (error)
            *error = errnoText();
        return -1;
    }
    if (::fstat(fd, status) != 0 || !S_ISREG(status->st_mode)) {
        if (error)
            *error = QStringLiteral("%1, not a regular file: not read").arg(describeFileType(status->st_mode));
        ::close(fd);
        return -1;
    }
    return fd;
}

// Reads up to `limit` bytes; the file may be shorter or longer than its size said.
QByteArray readUpTo(int fd, qint64 limit)
{
    QByteArray bytes;
    char buffer[65536];
    while (bytes.size() < limit) {
        const ssize_t n = ::read(fd, buffer, size_t(std::min<qint64>(sizeof buffer, limit - bytes.size())));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        bytes.append(buffer, qsizetype(n));
    }
    return bytes;
}

// The JSON with each of Python's NaN, Infinity and -Infinity outside a string rewritten to null.
// Strings are copied as they are, escapes included: an escaped quote (\") does not end one.
QByteArray withPythonNonFiniteAsNull(const QByteArray &json)
{
    static constexpr QByteArrayView kNonFinite[] = {"NaN", "Infinity", "-Infinity"};
    if (!json.contains("NaN") && !json.contains("Infinity"))
        return json;
    QByteArray out;
    out.reserve(json.size());
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            out.append(c);
            if (c == '\\' && i + 1 < json.size())
                out.append(json[++i]);
            else if (c == '"')
                inString = false;
            continue;
        }
        const QByteArrayView rest = QByteArrayView(json).sliced(i);
        const auto token = std::find_if(std::begin(kNonFinite), std::end(kNonFinite), [&](QByteArrayView t) { return rest.startsWith(t); });
        if (token != std::end(kNonFinite)) {
            out.append("null");
            i += token->size() - 1;
            continue;
        }
        out.append(c);
        inString = c == '"';
    }
    return out;
}

} // namespace

QString notRegularFileReason(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    struct stat link {};
    const bool isLink = ::lstat(native.constData(), &link) == 0 && S_ISLNK(link.st_mode);
    struct stat target {};
    if (::stat(native.constData(), &target) != 0)
        return isLink ? QStringLiteral("a broken link (to %1)").arg(QFileInfo(path).symLinkTarget()) : errnoText();
    if (S_ISREG(target.st_mode))
        return {};
    return isLink ? QStringLiteral("a link to %1, %2").arg(QFileInfo(path).symLinkTarget(), describeFileType(target.st_mode))
                  : describeFileType(target.st_mode);
}

QString unlistableFolderReason(const QString &folder)
{
    DIR *dir = ::opendir(QFile::encodeName(folder).constData());
    if (!dir)
        return QStringLiteral("a folder that cannot be read (%1): not searched").arg(errnoText());
    ::closedir(dir);
    return {};
}

std::optional<QByteArray> readSmallRegularFile(const QString &path, qint64 maxBytes, QString *error)
{
    struct stat status {};
    const int fd = openRegularFile(path, &status, error);
    if (fd < 0)
        return std::nullopt;
    if (status.st_size > maxBytes) {
        ::close(fd);
        if (error)
            *error = QStringLiteral("holds %1 bytes, more than the %2 read from such a file").arg(qint64(status.st_size)).arg(maxBytes);
        return std::nullopt;
    }
    // One byte past the limit tells a file that grew since fstat from one that fits.
    QByteArray bytes = readUpTo(fd, maxBytes + 1);
    ::close(fd);
    if (bytes.size() > maxBytes) {
        if (error)
            *error = QStringLiteral("holds more than the %1 bytes read from such a file").arg(maxBytes);
        return std::nullopt;
    }
    return bytes;
}

std::optional<QByteArray> readRegularFileHead(const QString &path, qint64 bytes, QString *error)
{
    struct stat status {};
    const int fd = openRegularFile(path, &status, error);
    if (fd < 0)
        return std::nullopt;
    QByteArray head = readUpTo(fd, bytes);
    ::close(fd);
    return head;
}

std::optional<QJsonObject> parsePythonJsonObject(const QByteArray &json, QString *error)
{
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(withPythonNonFiniteAsNull(json), &parseError);
    if (!document.isObject()) {
        if (error)
            *error = parseError.error != QJsonParseError::NoError ? parseError.errorString() : QStringLiteral("not a JSON object");
        return std::nullopt;
    }
    return document.object();
}

std::optional<qint64> jsonWholeNumber(const QJsonValue &value)
{
    if (!value.isDouble())
        return std::nullopt;
    const double d = value.toDouble();
    return std::isfinite(d) && d == std::floor(d) && d >= 0 && d < 1e15 ? std::optional<qint64>(qint64(d)) : std::nullopt;
}

std::optional<QJsonObject> readSmallJsonObject(const QString &path, qint64 maxBytes, QString *error)
{
    const std::optional<QByteArray> bytes = readSmallRegularFile(path, maxBytes, error);
    return bytes ? parsePythonJsonObject(*bytes, error) : std::nullopt;
}

bool RegularFile::open(QFile &file, const QString &path, QString *error)
{
    struct stat status {};
    const int fd = openRegularFile(path, &status, error);
    if (fd < 0)
        return false;
    // O_NONBLOCK only mattered for the open; a regular file's reads never block anyway.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    file.setFileName(path);
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        *error = file.errorString();
        ::close(fd);
        return false;
    }
    return true;
}

bool RegularFile::isRegular(const QString &path)
{
    struct stat status {};
    return ::stat(QFile::encodeName(path).constData(), &status) == 0 && S_ISREG(status.st_mode);
}

QString RegularFile::holeProblem(const QFile &file, qint64 offset, qint64 length)
{
    if (length < kMinHoleBytes || file.handle() < 0)
        return {};
    // Sum the stored extents inside the range: SEEK_DATA finds the next stored byte, SEEK_HOLE the
    // end of its extent. The descriptor's position is put back, so QFile's reads are not disturbed.
    // Past a few thousand extents the rest is taken as stored: each costs the writer a block.
    const int fd = file.handle();
    const off_t position = ::lseek(fd, 0, SEEK_CUR);
    const off_t end = off_t(offset + length);
    qint64 stored = 0;
    off_t at = off_t(offset);
    for (int extents = 0; at < end; ++extents) {
        const off_t data = ::lseek(fd, at, SEEK_DATA);
        if (data < 0) {
            if (errno != ENXIO) // no SEEK_DATA here: nothing can be said
                stored = length;
            break;
        }
        if (data >= end)
            break;
        const off_t hole = ::lseek(fd, data, SEEK_HOLE);
        if (hole < 0 || extents > 4096) {
            stored += end - data;
            break;
        }
        stored += std::min(hole, end) - data;
        at = hole;
    }
    ::lseek(fd, position, SEEK_SET);
    // A weights tensor stores every block; a tensor mostly made of holes is a file pretending.
    if (stored * 2 >= length)
        return {};
    return QStringLiteral("its %1 of data are a hole in a sparse file: only %2 of it is stored")
        .arg(MemoryBudget::bytesText(length), MemoryBudget::bytesText(stored));
}

} // namespace rankscope
