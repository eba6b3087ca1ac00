// View ▸ Skipped files and tensors: everything of the run that was not analysed, and why, each
// file named by its path within the run (two shards called model.safetensors in different step
// folders are told apart), failures first and apart from the files left out as expected
// (sidecars, logs, configs), which are no cause for alarm.
#pragma once

#include "analysis/results/RunAnalysis.h"

#include <QList>
#include <QString>

class QWidget;

namespace rankscope {

struct SkippedRow {
    QString file;   // relative to the run's folder (absolute when outside it)
    QString tensor;
    QString what;
};

struct SkippedGroup {
    enum class Kind { Failures, Duplicates, LeftOut, Notes };
    Kind kind = Kind::Failures;
    QString title; // "Could not be read (2)"
    QList<SkippedRow> rows;
};

// The groups that have rows, in the order the dialog shows them: failures, duplicates, files left
// out as expected, notes.
QList<SkippedGroup> skippedGroups(const RunAnalysis &run);
// A path as the list names it: within the run's folder where it lies there.
QString pathWithinRun(const QString &path, const QString &runFolder);

void showSkippedFiles(QWidget *parent, const RunAnalysis &run, const QString &runName);

} // namespace rankscope
