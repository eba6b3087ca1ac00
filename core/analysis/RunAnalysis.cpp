#include "analysis/RunAnalysis.h"

#include "analysis/AnalysisSettingsKey.h"
#include "base/PrintableText.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>

namespace rankscope {

QString AnalysisIssue::text() const
{
    const QString file = printableText(QFileInfo(path).fileName());
    return tensor.isEmpty() ? QStringLiteral("%1: %2").arg(file, printableText(message))
                            : QStringLiteral("%1: %2: %3").arg(file, printableText(tensor), printableText(message));
}

bool RunAnalysis::settingsCover(const QString &storedKey, const QString &wantedKey)
{
    return AnalysisSettingsKey::parse(wantedKey).coveredBy(AnalysisSettingsKey::parse(storedKey));
}

QStringList RunAnalysis::issueLines() const
{
    QStringList lines;
    QHash<QPair<QString, QString>, qsizetype> lineOf; // (tensor, message) → its line
    QHash<qsizetype, int> more;
    for (const AnalysisIssue &issue : issues) {
        if (issue.wholeFile) {
            lines << issue.text();
            continue;
        }
        const auto key = qMakePair(issue.tensor, issue.message);
        if (const auto it = lineOf.constFind(key); it != lineOf.constEnd()) {
            ++more[*it];
            continue;
        }
        lineOf.insert(key, lines.size());
        lines << issue.text();
    }
    for (auto it = more.begin(); it != more.end(); ++it)
        lines[it.key()] += QStringLiteral(" (and in %1 more checkpoint%2)").arg(it.value()).arg(it.value() == 1 ? "" : "s");
    return lines;
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
