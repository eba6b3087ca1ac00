#include "analysis/planning/CacheReusePlan.h"

#include "analysis/discovery/ContentFingerprint.h"

#include <QFileInfo>
#include <algorithm>

namespace rankscope {

CacheReusePlan::CacheReusePlan(const RunAnalysis *previous, const QString &wantedKey, const QList<PlacedCheckpoint> &checkpoints)
    : m_previous(previous)
{
    if (previous)
        m_missing = AnalysisSettingsKey::parse(wantedKey).missingFrom(AnalysisSettingsKey::parse(previous->settingsKey));
    if (m_missing) {
        for (const CheckpointRecord &record : previous->checkpoints)
            m_known.insert(QFileInfo(record.path).absoluteFilePath(), &record);
        for (const MatrixResult &r : previous->results)
            m_knownResults[QFileInfo(r.checkpointPath).absoluteFilePath()].append(r);
        for (const MatrixResult &r : previous->headResults)
            m_knownHeadResults[QFileInfo(r.checkpointPath).absoluteFilePath()].append(r);
        for (const AnalysisIssue &issue : previous->issues)
            m_knownIssues[QFileInfo(issue.path).absoluteFilePath()].append(issue);
    }
    for (const PlacedCheckpoint &placed : checkpoints)
        m_placement.insert(QFileInfo(placed.file->path).absoluteFilePath(), &placed);
    for (const PlacedCheckpoint &placed : checkpoints) {
        const CheckpointFile &file = *placed.file;
        CheckpointRecord identity;
        identity.path = QFileInfo(file.path).absoluteFilePath();
        RunAnalysis::identify(identity, file.files);
        identity.fingerprint = ContentFingerprint::of(file);
        const CheckpointRecord *cached = m_known.value(identity.path);
        const bool unchanged = cached && cached->size == identity.size && cached->mtimeMs == identity.mtimeMs &&
                               cached->fingerprint == identity.fingerprint;
        m_identities << identity;
        m_reusable << (unchanged ? cached : nullptr);
    }
}

CheckpointReuse CacheReusePlan::reuseOf(qsizetype i, bool staleDelta, bool recomputeVectors) const
{
    CheckpointReuse reuse;
    reuse.cached = m_reusable.value(i);
    // alpha's interval needs only the stored spectrum: lacking it alone, a checkpoint is still
    // taken whole, nothing read, and the interval added.
    AnalysisOptIns lacking = m_missing.value_or(AnalysisOptIns{});
    lacking.alphaCi = false;
    const bool servesWhole = m_missing && !lacking.any();
    reuse.whole = reuse.cached && servesWhole && !recomputeVectors && !staleDelta;
    if (reuse.whole)
        reuse.missing.alphaCi = m_missing->alphaCi;
    if (!reuse.whole) {
        // Deltas against another reference are missing too, for this checkpoint.
        reuse.missing = m_missing.value_or(AnalysisOptIns{});
        reuse.missing.delta |= staleDelta;
    }
    return reuse;
}

void CacheReusePlan::place(CheckpointRecord &record, QList<MatrixResult> &results, const PlacedCheckpoint &placed)
{
    record.step = placed.step;
    record.unnumbered = placed.unnumbered;
    for (MatrixResult &r : results) {
        r.step = placed.step;
        r.unnumbered = placed.unnumbered;
    }
}

RunAnalysis CacheReusePlan::withUnvisited(const RunAnalysis &soFar) const
{
    RunAnalysis snapshot = soFar;
    if (!m_previous || !RunAnalysis::settingsCover(m_previous->settingsKey, soFar.settingsKey))
        return snapshot;
    for (const CheckpointRecord &record : m_previous->checkpoints) {
        const QString path = QFileInfo(record.path).absoluteFilePath();
        const PlacedCheckpoint *placed = m_placement.value(path);
        if (placed && std::none_of(soFar.checkpoints.begin(), soFar.checkpoints.end(), [&](const CheckpointRecord &r) { return r.path == path; })) {
            CheckpointRecord unvisited = record;
            QList<MatrixResult> results = m_knownResults.value(path);
            QList<MatrixResult> heads = m_knownHeadResults.value(path);
            place(unvisited, results, *placed);
            place(unvisited, heads, *placed);
            snapshot.checkpoints.append(unvisited);
            snapshot.results.append(results);
            snapshot.headResults.append(heads);
            snapshot.issues.append(m_knownIssues.value(path));
        }
    }
    sortResults(snapshot.results);
    sortResults(snapshot.headResults);
    return snapshot;
}

} // namespace rankscope
