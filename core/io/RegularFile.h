// Opening a file that is to be read as data: only a regular file (a symlink to one is fine) is
// opened, and without ever blocking. A FIFO named model.safetensors would otherwise hang the
// open forever, and /dev/zero or /dev/urandom would feed a reader endless bytes.
#pragma once

#include <QFile>
#include <QString>

namespace rankscope {

class RegularFile {
public:
    // Opens path read-only into file. False, with what is wrong (without the path), for anything
    // but a regular file.
    static bool open(QFile &file, const QString &path, QString *error);
    // Whether path names a regular file, asked without opening it.
    static bool isRegular(const QString &path);
    // Said when [offset, offset + length) of an open file, at least kMinHoleBytes long, is mostly
    // holes of a sparse file: it reads as zeros, but its bytes are not stored (an 8.5 GB "tensor"
    // in a file that takes 4 KB of disk); empty otherwise. Smaller ranges are never called holes: a
    // filesystem may store an all-zero block as one, and reading a few zeros costs nothing.
    static QString holeProblem(const QFile &file, qint64 offset, qint64 length);
    static constexpr qint64 kMinHoleBytes = qint64(1) << 20;
};

} // namespace rankscope
