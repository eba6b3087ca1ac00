// The outcome of analysing a run: every typed matrix's spectrum and metrics, what happened to
// each checkpoint, and everything that could not be read, with the reason.
#pragma once

#include "analysis/CheckpointDiscovery.h"
#include "analysis/MatrixResult.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace rankscope {

// "file: what is wrong", for a whole checkpoint (tensor empty) or one tensor in it.
struct AnalysisIssue {
    QString path;
    QString tensor;
    QString message;
    bool wholeFile = true;
    QString text() const;
};

// What was read from one checkpoint, and the identity (size, mtime, content fingerprint) that
// decides whether it must be read again.
struct CheckpointRecord {
    QString path;
    qint64 step = 0;
    bool stepFromOrder = false; // no step recorded anywhere: numbered by position
    qint64 size = 0;            // bytes (a folder: the sum of its files)
    qint64 mtimeMs = 0;         // last modification (a folder: its newest file)
    QString fingerprint;        // ContentFingerprint: what it holds, whatever its size and mtime say
    QString format;
    QString error;              // why the checkpoint could not be read at all; empty when it was
    int matrices = 0;
    bool fromCache = false;
};

struct RunAnalysis {
    QString folder;
    QString settingsKey;              // what besides the files decides the spectra (solver, rules)
    QList<MatrixResult> results;      // sorted by step, layer, type
    QList<AnalysisIssue> issues;      // unreadable checkpoints and tensors
    QList<CheckpointRecord> checkpoints;
    QList<SkippedFile> sidecars;
    QStringList notes;                // how the run was read (e.g. steps by order, cache rebuilt)
    QStringList pending;              // checkpoints still being written, left for a later pass
    QString resultsError;             // why the results file could not be saved; empty when it was (or none was asked for)
    int checkpointsFound = 0;
    int checkpointsAnalysed = 0;      // checkpoints with at least one analysed matrix
    bool cancelled = false;
    // Where the time went, for the checkpoints read in this run: reading and widening tensors
    // (wall, on the reading thread), and spectra and metrics (CPU seconds summed over workers).
    struct Timings {
        double readSeconds = 0;
        double spectraSeconds = 0;
        double metricsSeconds = 0;
    } timings;

    // The checkpoint's identity on disk now: size and modification time.
    static void identify(CheckpointRecord &record);
};

} // namespace rankscope
