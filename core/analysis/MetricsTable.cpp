#include "analysis/MetricsCsvWriter.h"

#include <QTextStream>
#include <cmath>

namespace rankscope {

QStringList MetricsCsvWriter::header()
{
    return QStringList{"step", "layer", "type", "tensor", "rows", "cols"} + spectralMetricColumns();
}

QString MetricsCsvWriter::formatNumber(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(value, 'g', 10);
}

void MetricsCsvWriter::write(const QList<MatrixResult> &results, QIODevice &out)
{
    QTextStream stream(&out);
    stream << header().join(QLatin1Char(',')) << '\n';
    for (const MatrixResult &r : results) {
        QString tensor = r.tensor;
        if (tensor.contains(QLatin1Char(',')) || tensor.contains(QLatin1Char('"')))
            tensor = QLatin1Char('"') + tensor.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
        stream << r.step << ',' << r.layer << ',' << csvName(r.type) << ',' << tensor << ',' << r.rows << ',' << r.cols;
        for (double v : spectralMetricValues(r.metrics))
            stream << ',' << formatNumber(v);
        stream << '\n';
    }
}

} // namespace rankscope
