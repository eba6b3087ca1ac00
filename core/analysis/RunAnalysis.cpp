#include "analysis/RunAnalysis.h"

#include <QDir>
#include <QFileInfo>

namespace rankscope {

QString AnalysisIssue::text() const
{
    const QString file = QFileInfo(path).fileName();
    return tensor.isEmpty() ? QStringLiteral("%1: %2").arg(file, message)
                            : QStringLiteral("%1: %2: %3").arg(file, tensor, message);
}

void RunAnalysis::identify(CheckpointRecord &record, const QStringList &files)
{
    record.size = 0;
    record.mtimeMs = 0;
    QFileInfoList infos;
    if (!files.isEmpty()) {
        for (const QString &file : files)
            infos << QFileInfo(file);
    } else if (QFileInfo(record.path).isDir()) {
        infos = QDir(record.path).entryInfoList(QDir::Files);
    } else {
        infos << QFileInfo(record.path);
    }
    for (const QFileInfo &file : infos) {
        record.size += file.size();
        record.mtimeMs = std::max(record.mtimeMs, file.lastModified().toMSecsSinceEpoch());
    }
}

} // namespace rankscope
