#include "io/MemoryBudget.h"

#include <QByteArray>
#include <QFile>
#include <QLocale>
#include <limits>
#include <unistd.h>

namespace rankscope {

namespace {

constexpr const char *kOverride = "RANKSCOPE_MAX_MATRIX_BYTES";

// "1234", "512M", "2G": bytes, or -1 when it is not such a number.
qint64 parseBytes(QByteArray text)
{
    text = text.trimmed().toUpper();
    qint64 unit = 1;
    if (text.endsWith('K') || text.endsWith('M') || text.endsWith('G')) {
        unit = text.endsWith('K') ? qint64(1) << 10 : text.endsWith('M') ? qint64(1) << 20 : qint64(1) << 30;
        text.chop(1);
    }
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value <= 0 || value > std::numeric_limits<qint64>::max() / unit)
        return -1;
    return value * unit;
}

// A number from a one-line file in /proc or /sys, or -1.
qint64 readNumber(const char *path)
{
    QFile file(QString::fromLatin1(path));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    bool ok = false;
    const qint64 value = file.readLine(64).trimmed().toLongLong(&ok);
    return ok ? value : -1;
}

} // namespace

qint64 MemoryBudget::availableBytes()
{
    qint64 available = -1;
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (meminfo.open(QIODevice::ReadOnly)) {
        // Read line by line: /proc files report no size.
        while (!meminfo.atEnd()) {
            const QByteArray line = meminfo.readLine(256);
            if (line.startsWith("MemAvailable:")) {
                available = line.mid(13).trimmed().split(' ').value(0).toLongLong() * 1024;
                break;
            }
        }
    }
    if (available <= 0)
        available = qint64(sysconf(_SC_AVPHYS_PAGES)) * qint64(sysconf(_SC_PAGESIZE));
    // A container's limit (cgroup v2) can be far below what the machine has free.
    const qint64 limit = readNumber("/sys/fs/cgroup/memory.max"), used = readNumber("/sys/fs/cgroup/memory.current");
    if (limit > 0 && used >= 0)
        available = std::min(available, std::max<qint64>(0, limit - used));
    return std::max<qint64>(available, 0);
}

qint64 MemoryBudget::maxMatrixBytes()
{
    if (qEnvironmentVariableIsSet(kOverride)) {
        const qint64 bytes = parseBytes(qgetenv(kOverride));
        if (bytes > 0)
            return bytes;
    }
    return availableBytes() / 4;
}

QString MemoryBudget::matrixProblem(qint64 rows, qint64 cols)
{
    const qint64 limit = maxMatrixBytes();
    if (rows <= 0 || cols <= 0 || rows <= limit / 8 / cols)
        return {};
    return QStringLiteral("a %1×%2 matrix takes %3 as float64, more than the %4 one matrix may use "
                          "(a quarter of the memory available; %5 sets another limit)")
        .arg(rows).arg(cols).arg(bytesText(qint64(std::min<double>(double(rows) * double(cols) * 8, 9e18))), bytesText(limit),
             QLatin1String(kOverride));
}

QString MemoryBudget::bytesText(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat);
}

} // namespace rankscope
