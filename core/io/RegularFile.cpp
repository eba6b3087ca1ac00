#include "io/RegularFile.h"

#include "io/MemoryBudget.h"

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rankscope {

namespace {

QString kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return QStringLiteral("a folder");
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO (named pipe)");
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return QStringLiteral("a device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a regular file");
}

} // namespace

bool RegularFile::open(QFile &file, const QString &path, QString *error)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It is dropped again
    // once the file is known to be regular, where it changes nothing anyway.
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    struct stat status {};
    if (::fstat(fd, &status) != 0 || !S_ISREG(status.st_mode)) {
        *error = QStringLiteral("%1, not a regular file: not read").arg(kindOf(status.st_mode));
        ::close(fd);
        return false;
    }
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
