// Every file RankScope writes for the user (CSV, JSON, figures, rules drafts) is whole or absent:
// it is written to a temporary file beside it, flushed and synced, and renamed over the old one
// only when all of it got there. A failed write leaves the earlier file as it was.
#pragma once

#include <QByteArray>
#include <QString>

namespace rankscope {

// "-" writes to standard output. False, with "path: what went wrong", on any failure.
bool writeOutputFile(const QString &path, const QByteArray &bytes, QString *error);

} // namespace rankscope
