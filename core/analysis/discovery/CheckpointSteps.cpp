#include "analysis/discovery/CheckpointSteps.h"

#include "io/CheckpointReader.h"
#include "analysis/results/RunAnalysis.h"

#include <QCollator>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <algorithm>
#include <limits>

namespace rankscope {

namespace {

struct Candidate {
    const CheckpointFile *file = nullptr;
    std::optional<qint64> step;
    QString source;
    qint64 mtimeMs = 0;
    qint64 size = 0;
};

QString nameOf(const CheckpointFile &file) { return QFileInfo(file.path).fileName(); }

bool sameBytes(const QString &a, const QString &b)
{
    QFile first(a), second(b);
    if (!first.open(QIODevice::ReadOnly) || !second.open(QIODevice::ReadOnly) || first.size() != second.size())
        return false;
    constexpr qint64 kChunk = qint64(1) << 20;
    for (;;) {
        const QByteArray x = first.read(kChunk), y = second.read(kChunk);
        if (x != y)
            return false;
        if (x.isEmpty())
            return true;
    }
}

// The same weights byte for byte: as many files, pairwise identical in name order. Sizes are
// compared for every pair before any byte is read.
bool sameContent(const Candidate &a, const Candidate &b)
{
    if (a.size != b.size || a.file->files.size() != b.file->files.size())
        return false;
    auto byName = [](QStringList files) {
        std::sort(files.begin(), files.end(), [](const QString &x, const QString &y) { return QFileInfo(x).fileName() < QFileInfo(y).fileName(); });
        return files;
    };
    const QStringList x = byName(a.file->files), y = byName(b.file->files);
    for (qsizetype i = 0; i < x.size(); ++i)
        if (QFileInfo(x[i]).size() != QFileInfo(y[i]).size())
            return false;
    for (qsizetype i = 0; i < x.size(); ++i)
        if (!sameBytes(x[i], y[i]))
            return false;
    return true;
}

// Each file as a candidate for its step: the step it records (its problems noted) and what tells
// the newest apart.
Candidate candidateOf(const CheckpointFile *file, StepPlan &plan)
{
    Candidate c;
    c.file = file;
    std::tie(c.step, c.source) = CheckpointSteps::stepOf(*file, nullptr);
    CheckpointRecord identity;
    identity.path = file->path;
    RunAnalysis::identify(identity, file->files);
    c.mtimeMs = identity.mtimeMs;
    c.size = identity.size;
    for (const QString &problem : file->stepProblems)
        plan.notes << QStringLiteral("%1: %2; that step is not used").arg(nameOf(*file), problem);
    return c;
}

// One checkpoint per step: the newest (ties: the first by path). A checkpoint that cannot be
// read keeps its step but claims nothing: it is reported, and a readable one is analysed.
// Returns the checkpoints kept.
QList<Candidate> keepOnePerStep(const QList<Candidate> &numbered, StepPlan &plan)
{
    QMap<qint64, QList<Candidate>> byStep;
    for (const Candidate &c : numbered) {
        if (!c.file->error.isEmpty())
            plan.checkpoints.append({c.file, *c.step, false, c.source});
        else
            byStep[*c.step].append(c);
    }
    QList<Candidate> kept;
    for (auto it = byStep.begin(); it != byStep.end(); ++it) {
        QList<Candidate> &claims = it.value();
        std::stable_sort(claims.begin(), claims.end(), [](const Candidate &a, const Candidate &b) {
            return a.mtimeMs != b.mtimeMs ? a.mtimeMs > b.mtimeMs : a.file->path < b.file->path;
        });
        const Candidate &keeper = claims.first();
        kept.append(keeper);
        plan.checkpoints.append({keeper.file, it.key(), false, keeper.source});
        for (const Candidate &other : claims.mid(1)) {
            const QString reason = sameContent(keeper, other)
                                       ? QStringLiteral("identical to %1, which claims the same step %2: analysed once").arg(nameOf(*keeper.file)).arg(it.key())
                                       : QStringLiteral("claims step %2 like %1, which is newer: not analysed (two models at one step are never averaged)")
                                             .arg(nameOf(*keeper.file)).arg(it.key());
            plan.duplicates.append({other.file->path, reason, true});
        }
    }
    return kept;
}

// No step: the same bytes as a numbered checkpoint (a final model saved beside its last
// checkpoint) are that checkpoint; anything else comes after every numbered step, oldest first.
void placeUnnumbered(const QList<Candidate> &unnumbered, const QList<Candidate> &kept, StepPlan &plan)
{
    QList<Candidate> placed;
    for (const Candidate &c : unnumbered) {
        const auto twin = c.file->error.isEmpty()
                              ? std::find_if(kept.begin(), kept.end(), [&](const Candidate &k) { return sameContent(k, c); })
                              : kept.end();
        if (twin != kept.end())
            plan.duplicates.append({c.file->path, QStringLiteral("records no step and is identical to %1 (step %2): analysed once, as step %2")
                                                      .arg(nameOf(*twin->file)).arg(*twin->step), true});
        else
            placed.append(c);
    }
    std::stable_sort(placed.begin(), placed.end(), [](const Candidate &a, const Candidate &b) {
        return a.mtimeMs != b.mtimeMs ? a.mtimeMs < b.mtimeMs : a.file->path < b.file->path;
    });
    std::optional<qint64> lastStep;
    for (const PlacedCheckpoint &p : plan.checkpoints)
        lastStep = std::max(lastStep.value_or(p.step), p.step);
    qint64 next = !lastStep ? 0 : *lastStep == std::numeric_limits<qint64>::max() ? *lastStep : *lastStep + 1;
    for (const Candidate &c : placed) {
        plan.checkpoints.append({c.file, next, true, QStringLiteral("none recorded: placed after the numbered steps by modification time")});
        if (c.file->error.isEmpty())
            plan.notes << QStringLiteral("%1 records no step (no trainer_state.json, meta file, iter_num or global_step, or step in its name): "
                                         "placed %2 by modification time, as step %3, and labelled final")
                              .arg(nameOf(*c.file), lastStep ? QStringLiteral("after step %1").arg(*lastStep) : QStringLiteral("in order"))
                              .arg(next);
        if (next < std::numeric_limits<qint64>::max())
            ++next;
    }
}

} // namespace

std::pair<std::optional<qint64>, QString> CheckpointSteps::stepOf(const CheckpointFile &file, const CheckpointReader *reader)
{
    if (file.stepFromSidecar)
        return {file.stepFromSidecar, !file.stepSourceText.isEmpty() ? file.stepSourceText
                                      : file.stepSidecar.isEmpty()   ? QStringLiteral("a sidecar file")
                                                                     : QFileInfo(file.stepSidecar).fileName()};
    // What the weights record (iter_num, global_step, an HDF5 attribute); a negative step is none.
    if (const std::optional<qint64> inFile = reader ? reader->step() : file.stepInFile; inFile && *inFile >= 0)
        return {inFile, QStringLiteral("recorded in the checkpoint")};
    if (file.stepFromName)
        return {file.stepFromName, QStringLiteral("the name")};
    return {};
}

StepPlan CheckpointSteps::decide(const QList<const CheckpointFile *> &files)
{
    StepPlan plan;
    QList<Candidate> numbered, unnumbered;
    for (const CheckpointFile *file : files) {
        const Candidate c = candidateOf(file, plan);
        (c.step ? numbered : unnumbered).append(c);
    }
    placeUnnumbered(unnumbered, keepOnePerStep(numbered, plan), plan);
    // What the steps count, when a layout says they are not training steps: said once.
    for (const PlacedCheckpoint &placed : plan.checkpoints)
        if (!placed.file->stepNote.isEmpty() && !plan.notes.contains(placed.file->stepNote))
            plan.notes << placed.file->stepNote;

    QCollator collator;
    collator.setNumericMode(true);
    std::stable_sort(plan.checkpoints.begin(), plan.checkpoints.end(), [&](const PlacedCheckpoint &a, const PlacedCheckpoint &b) {
        return a.step != b.step ? a.step < b.step : collator.compare(a.file->path, b.file->path) < 0;
    });
    return plan;
}

} // namespace rankscope
