// Shared by the fuzz targets: the input written to a file with a given name, since readers open
// paths (as they do for real checkpoints).
#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <unistd.h>

namespace rankscope::fuzz {

inline QString writeInput(const uint8_t *data, size_t size, const QString &name)
{
    static const QString folder = QDir::tempPath() + QStringLiteral("/rankscope-fuzz-%1").arg(getpid());
    QDir().mkpath(folder);
    const QString path = folder + QLatin1Char('/') + name;
    QFile file(path);
    file.open(QIODevice::WriteOnly | QIODevice::Truncate);
    file.write(reinterpret_cast<const char *>(data), qint64(size));
    return path;
}

} // namespace rankscope::fuzz
