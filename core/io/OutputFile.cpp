#include "io/OutputFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rankscope {

namespace {

// Between a file's name and the writing process's id in its temporary's name.
constexpr char kTemporaryInfix[] = ".tmp-";
// What a temporary's name adds to the (possibly cut) name: the infix, a process id of at most 10
// digits and "-XXXXXX".
constexpr qsizetype kTemporaryTailBytes = sizeof(kTemporaryInfix) - 1 + 10 + 7;

// The system's words for an errno value. Every failure below keeps errno from the call that
// failed: Qt's file classes report a write that stopped part-way (a disk that filled up) with no
// reason at all ("Unknown error").
QString systemReason(int error) { return QString::fromLocal8Bit(std::strerror(error)); }

bool writable(const QString &path)
{
    return ::access(QFile::encodeName(path).constData(), W_OK) == 0;
}

// The longest file name the folder allows, in bytes: 255 on Linux's file systems.
qsizetype nameLimit(const QByteArray &folder)
{
    const long limit = ::pathconf(folder.constData(), _PC_NAME_MAX);
    return limit > 0 ? qsizetype(limit) : 255;
}

QString nameTooLong(const QString &path, qsizetype bytes, qsizetype limit)
{
    return QStringLiteral("%1: the file name is too long (%2 bytes; its folder allows at most %3)").arg(path).arg(bytes).arg(limit);
}

// All of bytes to fd, however many calls it takes; false with errno from the call that failed.
bool writeAll(int fd, const QByteArray &bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + done, size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO; // no progress and no reason: never loop on it
            return false;
        }
        done += n;
    }
    return true;
}

// The start of every temporary's name for a file called `name`: name.tmp-. A name too long to take
// the rest within the folder's limit is cut first, at the start of a UTF-8 character.
QByteArray temporaryPrefix(const QByteArray &name, qsizetype limit)
{
    QByteArray kept = name;
    const qsizetype room = std::max<qsizetype>(1, limit - kTemporaryTailBytes);
    if (kept.size() > room) {
        qsizetype cut = room;
        while (cut > 1 && (uchar(kept[cut]) & 0xC0) == 0x80)
            --cut;
        kept.truncate(cut);
    }
    return kept + kTemporaryInfix;
}

// Removes the temporaries of writes whose process is gone (killed while writing):
// <prefix><pid>-XXXXXX, or <prefix><pid> as earlier versions named them.
void removeStaleTemporaries(const QByteArray &folder, const QByteArray &prefix)
{
    static const QRegularExpression owner(QStringLiteral(R"(^(\d+)(?:-[A-Za-z0-9]{6})?$)"));
    DIR *dir = ::opendir(folder.constData());
    if (!dir)
        return;
    while (const dirent *entry = ::readdir(dir)) {
        const QByteArray name(entry->d_name);
        if (!name.startsWith(prefix))
            continue;
        const QRegularExpressionMatch m = owner.match(QString::fromLatin1(name.mid(prefix.size())));
        const pid_t pid = m.hasMatch() ? pid_t(m.captured(1).toLongLong()) : 0;
        if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH)
            ::unlinkat(::dirfd(dir), name.constData(), 0); // a folder so named is left alone (EISDIR)
    }
    ::closedir(dir);
}

QByteArray randomLetters(int count)
{
    static constexpr char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    QByteArray letters(count, Qt::Uninitialized);
    for (char &c : letters)
        c = kLetters[QRandomGenerator::global()->bounded(int(sizeof(kLetters) - 1))];
    return letters;
}

} // namespace

bool writeOutputFile(const QString &path, const QByteArray &bytes, QString *error)
{
    if (path == QLatin1String("-")) {
        // Whatever the process printed through stdio goes first.
        std::fflush(stdout);
        if (!writeAll(STDOUT_FILENO, bytes)) {
            *error = QStringLiteral("standard output: %1").arg(systemReason(errno));
            return false;
        }
        return true;
    }
    const QFileInfo info(path);
    if (info.exists() && !info.isFile() && !info.isDir()) {
        const int fd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        bool ok = fd >= 0 && writeAll(fd, bytes);
        int reason = errno;
        if (fd >= 0 && ::close(fd) != 0 && ok) {
            ok = false;
            reason = errno;
        }
        if (!ok)
            *error = QStringLiteral("%1: cannot be written: %2").arg(path, systemReason(reason));
        return ok;
    }
    return replaceFile(path, bytes, error);
}

bool replaceFile(const QString &path, const QByteArray &bytes, QString *error)
{
    // A link is kept and the file it leads to replaced, as QSaveFile did for these outputs.
    QFileInfo target(QFileInfo(path).absoluteFilePath());
    for (int depth = 0; depth < 40 && target.isSymLink(); ++depth)
        target = QFileInfo(target.symLinkTarget());
    const QByteArray folder = QFile::encodeName(target.absolutePath());
    const QByteArray name = QFile::encodeName(target.fileName());
    const QByteArray targetPath = folder + '/' + name;
    const qsizetype limit = nameLimit(folder);
    if (name.size() > limit) {
        *error = nameTooLong(path, name.size(), limit);
        return false;
    }
    const QByteArray prefix = temporaryPrefix(name, limit);
    removeStaleTemporaries(folder, prefix);

    // O_EXCL under an unpredictable name beside the target, so nothing planted at a guessable name
    // is followed; the process id in the name lets a later write tell a dead process's leftover
    // from a write in progress. A new file gets what the umask leaves of 0666, as any the user
    // makes; a replaced one keeps its permissions.
    QByteArray temporary;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temporary = folder + '/' + prefix + QByteArray::number(qint64(::getpid())) + '-' + randomLetters(6);
        fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        *error = QStringLiteral("%1: cannot create a file in its folder: %2").arg(path, systemReason(errno));
        return false;
    }
    struct stat old {};
    const bool replacing = ::stat(targetPath.constData(), &old) == 0 && S_ISREG(old.st_mode);
    // The data must be on disk before the rename makes it the file: a full disk or a failing device
    // is said by write, fsync or close, whichever notices first.
    bool ok = (!replacing || ::fchmod(fd, old.st_mode & 07777) == 0) && writeAll(fd, bytes) && ::fsync(fd) == 0;
    int reason = errno;
    if (::close(fd) != 0 && ok) {
        ok = false;
        reason = errno;
    }
    if (!ok) {
        ::unlink(temporary.constData());
        *error = QStringLiteral("%1: cannot be written: %2").arg(path, systemReason(reason));
        return false;
    }
    if (::rename(temporary.constData(), targetPath.constData()) != 0) {
        reason = errno;
        ::unlink(temporary.constData());
        *error = QStringLiteral("%1: cannot be replaced: %2").arg(path, systemReason(reason));
        return false;
    }
    return true;
}

QString outputFileProblem(const QString &path)
{
    if (path == QLatin1String("-"))
        return {};
    if (path.isEmpty())
        return QStringLiteral("no file name given");
    const QFileInfo info(path);
    if (info.isDir())
        return QStringLiteral("%1: is a folder").arg(path);
    if (info.exists() && !writable(path))
        return QStringLiteral("%1: is not writable").arg(path);
    if (info.exists() && !info.isFile())
        return {}; // a device or FIFO, written directly
    const QString folder = info.absolutePath();
    if (!QFileInfo(folder).isDir())
        return QStringLiteral("%1: its folder %2 does not exist").arg(path, QDir::toNativeSeparators(folder));
    if (!writable(folder))
        return QStringLiteral("%1: its folder %2 is not writable").arg(path, QDir::toNativeSeparators(folder));
    const qsizetype nameBytes = QFile::encodeName(info.fileName()).size(), limit = nameLimit(QFile::encodeName(folder));
    if (nameBytes > limit)
        return nameTooLong(path, nameBytes, limit);
    return {};
}

} // namespace rankscope
