// The metrics table as CSV: step,layer,type,tensor,rows,cols, the seven contract metrics, then
// the extras, one row per typed matrix in the contract's order.
#pragma once

#include "analysis/MatrixResult.h"

#include <QIODevice>
#include <QStringList>

namespace rankscope {

class MetricsCsvWriter {
public:
    static QStringList header();
    static void write(const QList<MatrixResult> &results, QIODevice &out);
    static QString formatNumber(double value);
};

} // namespace rankscope
