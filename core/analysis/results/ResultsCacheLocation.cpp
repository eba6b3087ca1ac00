#include "analysis/results/ResultsCacheLocation.h"

#include "io/RegularFile.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace rankscope {

namespace {
QString cacheFile(const QByteArray &key)
{
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha1).toHex().left(20));
    QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    // The XDG spec makes a relative XDG_CACHE_HOME invalid, to be ignored; Qt 6.4 would use it,
    // relative to whatever the working folder is.
    const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
    if (!xdg.isEmpty() && QDir::isRelativePath(xdg) && cache.startsWith(xdg))
        cache = QDir::homePath() + QStringLiteral("/.cache") + cache.mid(xdg.size());
    return cache + QStringLiteral("/runs/") + hash + QStringLiteral(".h5");
}
} // namespace

QString ResultsCacheLocation::forFolder(const QString &folder) { return cacheFile(cleanAbsolutePath(folder).toUtf8()); }

QString ResultsCacheLocation::forMergedFolder(const QString &folder, const QString &base)
{
    return cacheFile((cleanAbsolutePath(folder) + QStringLiteral("\nmerged with ") + cleanAbsolutePath(base)).toUtf8());
}

QString ResultsCacheLocation::forBaseOfFolder(const QString &folder, const QString &base)
{
    return cacheFile((cleanAbsolutePath(folder) + QStringLiteral("\nbase ") + cleanAbsolutePath(base)).toUtf8());
}

} // namespace rankscope
