// The steps of a run's checkpoints, decided together, for the analysis and `rankscope info` alike.
// Each checkpoint's own step comes from stepOf. Where several claim one step, one is
// kept — the newest by modification time, or one of several with identical content — and the
// others are named, never averaged with it. A checkpoint that records no step is placed after the
// numbered ones by modification time and marked unnumbered, so the views label it "final"; one
// whose content is identical to a numbered checkpoint is that checkpoint.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

#include <QList>
#include <QStringList>

namespace rankscope {

struct PlacedCheckpoint {
    const CheckpointFile *file = nullptr;
    qint64 step = 0;
    bool unnumbered = false; // records no step: `step` only places it after the numbered ones
    QString stepSource;      // where the step came from ("trainer_state.json", "the name", …)
};

struct StepPlan {
    QList<PlacedCheckpoint> checkpoints; // by step, then path
    QList<SkippedFile> duplicates;       // checkpoints left out because another keeps their step
    QStringList notes;                   // checkpoints placed without a step, steps that could not be used
};

class CheckpointReader;

class CheckpointSteps {
public:
    static StepPlan decide(const QList<const CheckpointFile *> &files);
    // One checkpoint's step: from a sidecar, what the file records, or its name, in that order, and
    // where it came from. Without a reader, what the file records is what discovery found in it.
    static std::pair<std::optional<qint64>, QString> stepOf(const CheckpointFile &file, const CheckpointReader *reader);
};

} // namespace rankscope
