// Where a run's own logs are and how each writer lays its scalars out, read into one ScalarLog:
// - TensorBoard event files (events.out.tfevents.*) in the run folder and its usual log folders
//   (runs/, logs/, lightning_logs/, tb/, tensorboard/, to depth 3), all merged by step in the order
//   they were written (a restart's file after the first);
// - the Hugging Face Trainer's log_history from the latest trainer_state.json (the run folder's or
//   its newest checkpoint-N/'s: each holds the history up to its step); Trainer.log appends
//   {**logs, "step": global_step}, so every other number of an entry is a scalar at that step;
// - Lightning's CSVLogger metrics.csv (a "step" column, one row per log call, empty cells where a
//   metric was not logged);
// - nanochat's meta_N.json beside model_N.pt: its top-level numbers at its "step" (a number the same
//   in every meta file is configuration, not a curve).
// These files are never taken for runs or checkpoints; a file that cannot be read is said with
// its reason, and the rest are read.
#pragma once

#include "io/logs/ScalarLog.h"

#include <QString>
#include <optional>

namespace rankscope {

class TrainingLogs {
public:
    static ScalarLog read(const QString &runFolder);
    // The names, sizes and modification times of the files read() would read: a log that grew,
    // a new event file or checkpoint's trainer_state.json changes it (the window follows the logs
    // of the run it watches by it). Cheap: the files are listed, not read.
    static QString stamp(const QString &runFolder);

    static void readTrainerState(const QString &path, ScalarLog &log);
    static void readLightningCsv(const QString &path, ScalarLog &log);
    // Every meta_N.json of one folder together (constants are told apart from curves across them).
    static void readNanochatMeta(const QStringList &paths, ScalarLog &log);

    // The value of a series at a checkpoint's step: the one logged at it, else the last one logged
    // before it (what training stood at when the checkpoint was taken); nullopt before the first.
    static std::optional<double> valueAt(const ScalarSeries &series, qint64 step);
};

} // namespace rankscope
