#include "io/OutputFile.h"

#include <QFile>
#include <QSaveFile>

namespace rankscope {

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
    // QSaveFile creates its temporary exclusively, under an unpredictable name, in the target's folder.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("%1: cannot be written: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace rankscope
