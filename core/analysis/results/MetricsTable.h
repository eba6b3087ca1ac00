// The metrics table every export writes, as CSV or JSON records: the contract's columns
// (step,layer,type,tensor,rows,cols and the seven metrics), then block and expert, then the extras,
// then head and kv_head (--heads: empty for a whole matrix); one row per typed matrix in the
// contract's order, and after them (given) one per head and circuit. Scalars training logged
// (analyze --scalar) come last, a column each named by its tag: the value at the row's step, or the
// last one logged before it (TrainingLogs::valueAt); empty (null) before the first.
#pragma once

#include "analysis/results/MatrixResult.h"
#include "io/logs/ScalarLog.h"

#include <QIODevice>
#include <QJsonDocument>
#include <QStringList>

namespace rankscope {

class MetricsTable {
public:
    static QStringList columns();
    // False when the device reports a write error.
    static bool writeCsv(const QList<MatrixResult> &results, QIODevice &out, const QList<ScalarSeries> &scalars = {});
    // NaN and infinity become null.
    static QJsonDocument toJson(const QList<MatrixResult> &results, const QList<ScalarSeries> &scalars = {});
    static QString formatNumber(double value);
    // A CSV field: control characters escaped (printableText), quoted when it holds a comma or quote.
    static QString csvField(const QString &text);
};

} // namespace rankscope
