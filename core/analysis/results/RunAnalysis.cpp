#include "analysis/results/RunAnalysis.h"

#include "analysis/results/AnalysisSettingsKey.h"
#include "base/PrintableText.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <algorithm>
#include <cmath>
#include <limits>

namespace rankscope {

namespace {

bool anyValue(std::initializer_list<double> values)
{
    return std::any_of(values.begin(), values.end(), [](double v) { return !std::isnan(v); });
}

// A row's values of the opt-in metrics (and D's spectrum) that were not asked for; a per-head row
// is all --heads, and is asked for or not as a whole.
bool rowHoldsUnasked(const MatrixResult &r, const AnalysisOptIns &asked)
{
    const SpectralMetrics &m = r.metrics;
    return (r.isHead() && !asked.heads) || (!asked.randDistance && anyValue({m.randDistance})) ||
           (!asked.delta && (r.deltaSingularValues.size() > 0 ||
                             anyValue({m.deltaRelFrobenius, m.deltaSpectralNorm, m.deltaStableRank, m.deltaEffectiveRank}))) ||
           (!asked.subspace && anyValue({m.subspaceOverlap, m.topVectorCosine})) || (!asked.alphaCi && anyValue({m.alphaCiLow, m.alphaCiHigh}));
}

void clearUnasked(MatrixResult &r, const AnalysisOptIns &asked)
{
    SpectralMetrics &m = r.metrics;
    if (!asked.randDistance)
        m.randDistance = std::numeric_limits<double>::quiet_NaN();
    if (!asked.delta) {
        clearDeltaMetrics(m);
        r.deltaSingularValues = {};
    }
    if (!asked.subspace)
        clearSubspaceMetrics(m);
    if (!asked.alphaCi)
        m.alphaCiLow = m.alphaCiHigh = std::numeric_limits<double>::quiet_NaN();
}

} // namespace

QString AnalysisIssue::text() const
{
    const QString file = printableText(QFileInfo(path).fileName());
    return tensor.isEmpty() ? QStringLiteral("%1: %2").arg(file, printableText(message))
                            : QStringLiteral("%1: %2: %3").arg(file, printableText(tensor), printableText(message));
}

AnalysisOptIns AnalysisIssue::raisedBy() const
{
    AnalysisOptIns by;
    by.heads = message.startsWith(QLatin1String(kHeadsIssuePrefix));
    by.delta = message.startsWith(QLatin1String(kDeltaIssuePrefix));
    return by;
}

bool holdsUnasked(const QList<MatrixResult> &rows, const AnalysisOptIns &asked)
{
    return std::any_of(rows.begin(), rows.end(), [&](const MatrixResult &r) { return rowHoldsUnasked(r, asked); });
}

void dropUnasked(QList<MatrixResult> &rows, const AnalysisOptIns &asked)
{
    if (!holdsUnasked(rows, asked))
        return; // nothing to leave out: the list is not copied
    if (!asked.heads)
        rows.removeIf([](const MatrixResult &r) { return r.isHead(); });
    for (MatrixResult &r : rows)
        clearUnasked(r, asked);
}

bool RunAnalysis::holdsUnasked(const AnalysisOptIns &asked) const
{
    return rankscope::holdsUnasked(results, asked) || rankscope::holdsUnasked(headResults, asked) ||
           std::any_of(issues.begin(), issues.end(), [&](const AnalysisIssue &issue) { return !issue.raisedBy().within(asked); });
}

void RunAnalysis::dropUnasked(const AnalysisOptIns &asked)
{
    rankscope::dropUnasked(results, asked);
    rankscope::dropUnasked(headResults, asked);
    issues.removeIf([&](const AnalysisIssue &issue) { return !issue.raisedBy().within(asked); });
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
