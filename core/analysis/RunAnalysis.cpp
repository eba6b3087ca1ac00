#include "analysis/RunAnalysis.h"

#include "io/PrintableText.h"

#include <QDir>
#include <QFileInfo>

namespace rankscope {

QString AnalysisIssue::text() const
{
    const QString file = printableText(QFileInfo(path).fileName());
    return tensor.isEmpty() ? QStringLiteral("%1: %2").arg(file, printableText(message))
                            : QStringLiteral("%1: %2: %3").arg(file, printableText(tensor), printableText(message));
}

void RunAnalysis::identify(CheckpointRecord &record)
{
    const QFileInfo info(record.path);
    if (!info.isDir()) {
        record.size = info.size();
        record.mtimeMs = info.lastModified().toMSecsSinceEpoch();
        return;
    }
    record.size = 0;
    record.mtimeMs = 0;
    for (const QFileInfo &file : QDir(record.path).entryInfoList(QDir::Files)) {
        record.size += file.size();
        record.mtimeMs = std::max(record.mtimeMs, file.lastModified().toMSecsSinceEpoch());
    }
}

} // namespace rankscope
