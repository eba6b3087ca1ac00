// fuzz_save_folders' input: a whole folder as one byte string, so that libFuzzer mutates names,
// nesting and contents together (rank folder names, tracker files, .nemo members, shard names).
// Entries are separated by 0x1E; each is a relative path, 0x1F, then the file's bytes (a path
// ending in '/' is an empty folder). Paths are kept inside the folder: empty, "." and ".."
// components and absolute paths are dropped, at most 4 levels and 48 entries of 64 KiB.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QStringList>

namespace rankscope::fuzz {

inline QByteArray folderEntry(const QByteArray &path, const QByteArray &bytes = {})
{
    return path + '\x1f' + bytes + '\x1e';
}

// Writes the folder the input describes into `folder` (emptied first).
inline void writeFolder(const QByteArray &input, const QString &folder)
{
    QDir(folder).removeRecursively();
    QDir().mkpath(folder);
    int entries = 0;
    for (const QByteArray &entry : input.split('\x1e')) {
        if (++entries > 48)
            break;
        const qsizetype separator = entry.indexOf('\x1f');
        const QByteArray path = separator < 0 ? entry : entry.left(separator);
        QStringList parts;
        for (const QString &part : QString::fromUtf8(path).split(QLatin1Char('/')))
            if (!part.isEmpty() && part != QLatin1String(".") && part != QLatin1String("..") && part.size() <= 100)
                parts << part;
        if (parts.isEmpty() || parts.size() > 4)
            continue;
        const QString target = QDir(folder).filePath(parts.join(QLatin1Char('/')));
        if (path.endsWith('/')) {
            QDir().mkpath(target);
            continue;
        }
        QDir().mkpath(QFileInfo(target).path());
        QFile file(target);
        if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            file.write(separator < 0 ? QByteArray() : entry.mid(separator + 1, 64 * 1024));
    }
}

// What reading the folder reports, as `rankscope analyze` meets it: the listing's skipped files,
// each checkpoint's open error and warnings, and each matrix's read error.
inline QStringList folderProblems(const QString &folder)
{
    const CheckpointListing listing = CheckpointDiscovery::scan(folder);
    QStringList problems = listing.takenFor;
    for (const SkippedFile &skipped : listing.skipped)
        problems << QFileInfo(skipped.path).fileName() + QStringLiteral(": ") + skipped.reason;
    for (const CheckpointFile &c : listing.checkpoints) {
        QString error;
        const auto reader = c.open(&error);
        if (!reader) {
            problems << QFileInfo(c.path).fileName() + QStringLiteral(": ") + error;
            continue;
        }
        problems << reader->warnings();
        int read = 0;
        for (const TensorInfo &t : reader->tensors()) {
            if (++read > 64)
                break;
            const MatrixRead matrix = reader->readMatrix(t.name, t.shape.size() == 3 ? 0 : -1);
            if (!matrix.ok())
                problems << t.name + QStringLiteral(": ") + matrix.error;
        }
    }
    return problems;
}

} // namespace rankscope::fuzz
