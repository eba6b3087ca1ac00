// The demo run analysed once per test process, and its expected metrics, for the view tests.
#pragma once

#include "analysis/execution/RunAnalyzer.h"

#include <QFile>
#include <QHash>

namespace rankscope::test {

inline const RunAnalysis &demoRun()
{
    static const RunAnalysis run = RunAnalyzer().analyzeFolder(QStringLiteral(RANKSCOPE_DEMO_RUN));
    return run;
}

// expected["1500/0/Q"]["compression_pct"], from the independently computed CSV.
inline QHash<QString, QHash<QString, double>> expectedMetrics()
{
    QHash<QString, QHash<QString, double>> rows;
    QFile file(QStringLiteral(RANKSCOPE_TEST_DATA "/nanogpt-d4.metrics.csv"));
    if (!file.open(QIODevice::ReadOnly))
        return rows;
    const QStringList header = QString::fromUtf8(file.readLine()).trimmed().split(',');
    while (!file.atEnd()) {
        const QStringList cells = QString::fromUtf8(file.readLine()).trimmed().split(',');
        if (cells.size() != header.size())
            continue;
        QHash<QString, double> values;
        for (qsizetype i = 3; i < header.size(); ++i)
            values.insert(header[i], cells[i].toDouble());
        rows.insert(cells[0] + '/' + cells[1] + '/' + cells[2], values);
    }
    return rows;
}

} // namespace rankscope::test
