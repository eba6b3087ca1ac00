// The scalars training logged beside its checkpoints (loss, learning rate, gradient norm), as the
// run's own writers left them: TensorBoard event files, the Hugging Face Trainer's log_history,
// Lightning's CSVLogger, nanochat's meta files. Tags are kept as the writer spelled them.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace rankscope {

struct ScalarPoint {
    qint64 step = 0;
    double value = 0; // NaN and ±Inf as logged (a diverged run's loss)
};

struct ScalarSeries {
    QString tag;               // "loss", "train/loss", "learning_rate", "eval_loss"
    QStringList sources;       // the files it was read from, in the order they were merged
    QList<ScalarPoint> points; // ascending steps, one per step
};

// A file that could not be read, or the part of one that could not ("damaged record (CRC
// mismatch) at byte 4096"): said with the file, the points before it kept.
struct ScalarLogProblem {
    QString path;
    QString text;
};

class ScalarLog {
public:
    // Adds the points of one file's tag, in the order the file holds them. A step already there
    // is overwritten: the later write wins (a run restarted from a checkpoint logs its steps again).
    void add(const QString &tag, const QString &source, const QList<ScalarPoint> &points);
    void addProblem(const QString &path, const QString &text) { m_problems.append({path, text}); }

    const QList<ScalarSeries> &series() const { return m_series; }
    const ScalarSeries *find(const QString &tag) const;
    const QList<ScalarLogProblem> &problems() const { return m_problems; }
    bool isEmpty() const { return m_series.isEmpty(); }
    // The names, sizes and times of the files it was read from, as they were when reading began
    // (TrainingLogs::stamp): another stamp now means the logs have grown or changed.
    QString sourceStamp() const { return m_stamp; }
    void setSourceStamp(const QString &stamp) { m_stamp = stamp; }

private:
    QList<ScalarSeries> m_series; // by tag
    QList<ScalarLogProblem> m_problems;
    QString m_stamp;
};

} // namespace rankscope
