// Every file RankScope writes for the user (CSV, JSON, figures, rules drafts, results files) is whole
// or absent: it is written to a temporary file beside it, flushed and synced, and renamed over the
// old one only when all of it got there. A failed write leaves the earlier file as it was and says
// why in the system's words: "No space left on device", "File too large", "Input/output error".
#pragma once

#include <QByteArray>
#include <QString>

namespace rankscope {

// "-" writes to standard output, and an existing device or FIFO (/dev/stdout, a pipe, /dev/full)
// is written directly: neither can be replaced. False, with "path: what went wrong", on any
// failure, a full disk included.
bool writeOutputFile(const QString &path, const QByteArray &bytes, QString *error);

// Replaces the regular file at path (behind a link: the file the link leads to) with bytes, or
// creates it. The temporary is <name>.tmp-<pid>-XXXXXX beside it, created exclusively under a random
// name; where the name is long it is cut so that the temporary's name fits the folder's limit too
// (255 bytes), so every legal name can be replaced. The temporaries of processes that died while
// writing are removed first. False, with "path: what failed: the system's reason".
bool replaceFile(const QString &path, const QByteArray &bytes, QString *error);

// Why path could not be written (its folder is missing or read-only, it is a folder, its name is
// longer than its folder allows, …), or empty. Asked before the work whose result goes there, so a
// mistyped path costs no analysis.
QString outputFileProblem(const QString &path);

} // namespace rankscope
