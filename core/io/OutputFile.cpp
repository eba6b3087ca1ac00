#include "io/OutputFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <unistd.h>

namespace rankscope {

namespace {

bool writable(const QString &path)
{
    return ::access(QFile::encodeName(path).constData(), W_OK) == 0;
}

} // namespace

bool writeOutputFile(const QString &path, const QByteArray &bytes, QString *error)
{
    if (path == QLatin1String("-")) {
        QFile out;
        if (!out.open(stdout, QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.flush()) {
            *error = QStringLiteral("standard output: %1").arg(out.errorString());
            return false;
        }
        return true;
    }
    const QFileInfo info(path);
    if (info.exists() && !info.isFile() && !info.isDir()) {
        QFile device(path);
        const bool ok = device.open(QIODevice::WriteOnly) && device.write(bytes) == bytes.size() && device.flush();
        const QString reason = device.errorString();
        device.close();
        if (!ok || device.error() != QFileDevice::NoError) {
            *error = QStringLiteral("%1: cannot be written: %2").arg(path, ok ? device.errorString() : reason);
            return false;
        }
        return true;
    }
    // QSaveFile creates its temporary exclusively, under an unpredictable name, in the target's
    // folder, and commit() renames it into place only after flushing and syncing all of it.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("%1: cannot be written: %2").arg(path, file.errorString());
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
    return {};
}

} // namespace rankscope
