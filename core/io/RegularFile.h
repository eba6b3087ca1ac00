// Files that come with a checkpoint folder may be anything: a FIFO named config.json or
// model.safetensors, a link to /dev/zero or /dev/urandom, a socket. Only regular files are ever
// opened, sidecars are read only up to a byte limit, and nothing is opened in a way that could block
// (a FIFO would hang the open forever; /dev/zero would feed a reader endless bytes).
#pragma once

#include <QByteArray>
#include <QFile>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace rankscope {

// Small JSON sidecars (config.json, trainer_state.json, meta_N.json) are far below this.
constexpr qint64 kMaxSidecarBytes = qint64(16) << 20;
// A shard index lists every tensor of a model: larger, still small.
constexpr qint64 kMaxShardIndexBytes = qint64(64) << 20;

// The path made absolute and clean ("a/./b/../c" → "/cwd/a/c"), links left as they are: the one
// spelling two paths of one file are compared by, and a folder's results cache is keyed by.
QString cleanAbsolutePath(const QString &path);

// Empty for a regular file (or a link to one); otherwise what the path is instead: "a FIFO (named
// pipe)", "a link to /dev/zero, a character device", "a broken link", … Never opens the path.
QString notRegularFileReason(const QString &path);

// Empty when the folder's entries can be listed; otherwise why not ("cannot be read: Permission
// denied"), asked of the system as the listing itself would (QDir lists nothing and says nothing).
QString unlistableFolderReason(const QString &folder);

// The whole file when it is a regular file of at most maxBytes; otherwise nullopt and why.
std::optional<QByteArray> readSmallRegularFile(const QString &path, qint64 maxBytes, QString *error = nullptr);

// Up to `bytes` bytes from the start of a regular file (fewer when it is shorter).
std::optional<QByteArray> readRegularFileHead(const QString &path, qint64 bytes, QString *error = nullptr);

// A JSON object as Python's json module writes it; every JSON sidecar that training code writes is
// read through this. json.dump writes a float that is not finite as a bare NaN, Infinity or
// -Infinity (allow_nan=True, its default), which strict JSON has no token for: a diverged run's
// trainer_state.json ("loss": NaN) or a nanochat meta_N.json would lose its step and config.
// Outside strings each reads as null, no value: a step or config entry that is NaN is one not
// given, never a number. Inside a string the same letters stay as they are. Everything else must be
// strict JSON. nullopt (and why) for what is not a JSON object.
std::optional<QJsonObject> parsePythonJsonObject(const QByteArray &json, QString *error = nullptr);

// A small regular file holding a JSON object (parsePythonJsonObject); nullopt (and why) when it is
// missing, not a regular file, larger than maxBytes or not a JSON object.
std::optional<QJsonObject> readSmallJsonObject(const QString &path, qint64 maxBytes = kMaxSidecarBytes, QString *error = nullptr);

// A JSON number that is a step or a count: whole, not negative, below 10^15; nullopt otherwise
// (a NaN, read as null, included).
std::optional<qint64> jsonWholeNumber(const QJsonValue &value);

// Checkpoints, which are read in place rather than slurped.
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
