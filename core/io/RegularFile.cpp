#include "io/RegularFile.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rankscope {

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

std::optional<QJsonObject> readSmallJsonObject(const QString &path, qint64 maxBytes, QString *error)
{
    const std::optional<QByteArray> bytes = readSmallRegularFile(path, maxBytes, error);
    if (!bytes)
        return std::nullopt;
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(*bytes, &parseError);
    if (!document.isObject()) {
        if (error)
            *error = parseError.error != QJsonParseError::NoError ? parseError.errorString() : QStringLiteral("not a JSON object");
        return std::nullopt;
    }
    return document.object();
}

} // namespace rankscope
