#include "analysis/ResultsCacheLocation.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace rankscope {

QString ResultsCacheLocation::forFolder(const QString &folder)
{
    const QByteArray key = QDir::cleanPath(QFileInfo(folder).absoluteFilePath()).toUtf8();
    const QString hash = QString::fromLatin1(QCryptographicHash::hash(key, QCryptographicHash::Sha1).toHex().left(20));
    QString cache = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    // The XDG spec makes a relative XDG_CACHE_HOME invalid, to be ignored; Qt 6.4 would use it,
    // relative to whatever the working folder is.
    const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
    if (!xdg.isEmpty() && QDir::isRelativePath(xdg) && cache.startsWith(xdg))
        cache = QDir::homePath() + QStringLiteral("/.cache") + cache.mid(xdg.size());
    return cache + QStringLiteral("/runs/") + hash + QStringLiteral(".h5");
}

} // namespace rankscope
