// Every file RankScope writes for the user (CSV, JSON, figures, rules drafts) is whole or absent:
// it is written to a temporary file beside it, flushed and synced, and renamed over the old one
// only when all of it got there. A failed write leaves the earlier file as it was.
#pragma once

#include <QByteArray>
#include <QString>

namespace rankscope {

// "-" writes to standard output, and an existing device or FIFO (/dev/stdout, a pipe, /dev/full)
// is written directly: neither can be replaced. False, with "path: what went wrong", on any
// failure, a full disk included.
bool writeOutputFile(const QString &path, const QByteArray &bytes, QString *error);

// Why path could not be written (its folder is missing or read-only, it is a folder, …), or empty.
// Asked before the work whose result goes there, so a mistyped path costs no analysis.
QString outputFileProblem(const QString &path);

} // namespace rankscope
