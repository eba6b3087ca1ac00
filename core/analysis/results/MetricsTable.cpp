#include "analysis/results/MetricsTable.h"

#include "base/PrintableText.h"
#include "io/logs/TrainingLogs.h"
#include "spectral/MetricCatalog.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>
#include <cmath>

namespace rankscope {

namespace {

constexpr int kContractMetrics = 7; // stable_rank … frobenius_norm: the contract's own columns

// The columns of one matrix, in the order of columns(), as strings or numbers.
QList<QVariant> record(const MatrixResult &r)
{
    const QList<double> metrics = spectralMetricValues(r.metrics);
    QList<QVariant> row{r.step, r.layer, csvName(r.type), r.tensor, r.rows, r.cols};
    for (int i = 0; i < kContractMetrics; ++i)
        row << metrics[i];
    row << r.block << r.expert;
    for (qsizetype i = kContractMetrics; i < metrics.size(); ++i)
        row << metrics[i];
    // --heads: empty for a whole matrix (JSON: null).
    row << (r.isHead() ? QVariant(r.head) : QVariant()) << (r.isHead() ? QVariant(r.kvHead) : QVariant());
    // A LoRA update: its adapter's r, and how much of it the energy uses (100·k_τ / r); empty otherwise.
    const bool update = r.updateRank > 0;
    row << r.weights << (update ? QVariant(r.updateRank) : QVariant())
        << (update ? QVariant(100.0 * r.metrics.energyRank / double(r.updateRank)) : QVariant());
    return row;
}

} // namespace

QStringList MetricsTable::columns()
{
    const QStringList metrics = spectralMetricColumns();
    return QStringList{"step", "layer", "type", "tensor", "rows", "cols"} + metrics.mid(0, kContractMetrics) +
           QStringList{"block", "expert"} + metrics.mid(kContractMetrics) + QStringList{"head", "kv_head"} +
           QStringList{"weights", "update_rank", "update_rank_used_pct"};
}

QString MetricsTable::formatNumber(double value)
{
    if (std::isnan(value))
        return QStringLiteral("nan");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return QString::number(value, 'g', 10);
}

QString MetricsTable::csvField(const QString &text)
{
    // Control characters are escaped first: a line break in a name cannot split a row, and a CSV
    // written to a terminal cannot drive it.
    const QString printable = printableText(text);
    if (!printable.contains(QLatin1Char(',')) && !printable.contains(QLatin1Char('"')))
        return printable;
    return QLatin1Char('"') + QString(printable).replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
}

bool MetricsTable::writeCsv(const QList<MatrixResult> &results, QIODevice &out, const QList<ScalarSeries> &scalars)
{
    QTextStream stream(&out);
    QStringList header = columns();
    for (const ScalarSeries &s : scalars)
        header << csvField(s.tag);
    stream << header.join(QLatin1Char(',')) << '\n';
    for (const MatrixResult &r : results) {
        QStringList fields;
        for (const QVariant &v : record(r))
            fields << (v.typeId() == QMetaType::Double ? formatNumber(v.toDouble()) : csvField(v.toString()));
        for (const ScalarSeries &s : scalars) {
            const std::optional<double> logged = TrainingLogs::valueAt(s, r.step);
            fields << (logged ? formatNumber(*logged) : QString());
        }
        stream << fields.join(QLatin1Char(',')) << '\n';
    }
    stream.flush();
    return stream.status() == QTextStream::Ok;
}

QJsonDocument MetricsTable::toJson(const QList<MatrixResult> &results, const QList<ScalarSeries> &scalars)
{
    const QStringList names = columns();
    QJsonArray records;
    for (const MatrixResult &r : results) {
        const QList<QVariant> row = record(r);
        QJsonObject o;
        for (qsizetype i = 0; i < names.size(); ++i) {
            const QVariant &v = row[i];
            if (v.typeId() == QMetaType::Double)
                o.insert(names[i], std::isfinite(v.toDouble()) ? QJsonValue(v.toDouble()) : QJsonValue(QJsonValue::Null));
            else
                o.insert(names[i], QJsonValue::fromVariant(v));
        }
        for (const ScalarSeries &s : scalars) {
            const std::optional<double> logged = TrainingLogs::valueAt(s, r.step);
            o.insert(s.tag, logged && std::isfinite(*logged) ? QJsonValue(*logged) : QJsonValue(QJsonValue::Null));
        }
        records.append(o);
    }
    return QJsonDocument(records);
}

} // namespace rankscope
