#include "figures/CurveFigure.h"

#include "analysis/results/MetricsTable.h"
#include "io/logs/TrainingLogs.h"

#include <algorithm>
#include <cmath>

namespace rankscope {

QList<double> debiasedSmoothing(const QList<double> &values, double weight)
{
    const double w = std::clamp(weight, 0.0, 1.0);
    const bool constant = std::all_of(values.begin(), values.end(), [&](double v) { return v == values.first(); });
    if (constant || w == 0)
        return values;
    QList<double> out;
    out.reserve(values.size());
    double last = 0;
    int counted = 0;
    for (double y : values) {
        if (!std::isfinite(y)) {
            out << y;
            continue;
        }
        last = last * w + (1 - w) * y;
        ++counted;
        const double debias = w == 1 ? 1 : 1 - std::pow(w, counted);
        out << last / debias;
    }
    return out;
}

CurveFigure CurveFigureBuilder::build() const
{
    CurveFigure figure;
    figure.tag = m_tag;
    figure.logY = m_logY;
    figure.yLabel = m_tag;
    figure.xLabel = m_state.relativeStep() ? tr("Fraction of training (step / last step)") : tr("Training step");
    figure.xRange = LineFigureBuilder::stepRange(m_state, m_steps);
    const QList<int> runs = m_state.visibleRuns();
    figure.compared = runs.size() > 1;
    for (qsizetype k = 0; k < runs.size(); ++k) {
        const ScalarSeries *logged = m_state.scalarLogAt(runs[k]).find(m_tag);
        if (!logged || logged->points.isEmpty())
            continue;
        CurveSeries series;
        series.run = runs[k];
        series.runOrder = int(k);
        series.runName = m_state.runNameAt(runs[k]);
        for (const ScalarPoint &p : logged->points) {
            series.steps << p.step;
            series.x << LineFigureBuilder::xOf(m_state, runs[k], p.step);
            series.raw << plottedValue(p.value, m_logY);
        }
        series.smoothed = debiasedSmoothing(series.raw, m_smoothing);
        // The run's checkpoints on its curve: the smoothed value at the last point logged at or before each.
        for (qint64 step : m_state.stepsAt(runs[k])) {
            const auto after = std::upper_bound(series.steps.begin(), series.steps.end(), step);
            if (after == series.steps.begin())
                continue;
            const qsizetype i = (after - series.steps.begin()) - 1;
            series.markX << LineFigureBuilder::xOf(m_state, runs[k], step);
            series.markY << series.smoothed[i];
        }
        figure.series.append(std::move(series));
    }
    if (figure.series.isEmpty()) {
        figure.noData = !m_state.hasScalars() ? tr("No scalars logged beside the checkpoints (TensorBoard, trainer_state.json, Lightning's metrics.csv, nanochat)")
                                              : tr("No scalar %1 in the run's logs").arg(m_tag);
        return figure;
    }
    double low = INFINITY, high = -INFINITY;
    for (const CurveSeries &series : std::as_const(figure.series))
        for (double v : series.raw)
            if (std::isfinite(v)) {
                low = std::min(low, v);
                high = std::max(high, v);
            }
    if (low <= high) {
        const double pad = m_logY ? 0 : 0.05 * std::max(high - low, std::abs(high) * 1e-6);
        figure.yRange = m_logY ? AxisRange{low / 1.2, high * 1.2} : AxisRange{low - pad, high + pad};
    } else {
        figure.noData = tr("No finite value of %1%2").arg(m_tag, m_logY ? tr(" above zero for a log axis") : QString());
    }
    return figure;
}

namespace {
qsizetype nearestIndex(const QList<double> &x, double at)
{
    return std::min_element(x.begin(), x.end(), [at](double a, double b) { return std::abs(a - at) < std::abs(b - at); }) - x.begin();
}
} // namespace

std::optional<LineReadout> CurveFigure::readoutAt(double at) const
{
    // The nearest logged point of any run; then each run's own nearest point to it.
    const CurveSeries *closest = nullptr;
    qsizetype closestAt = 0;
    for (const CurveSeries &s : series) {
        if (s.x.isEmpty())
            continue;
        const qsizetype i = nearestIndex(s.x, at);
        if (!closest || std::abs(s.x[i] - at) < std::abs(closest->x[closestAt] - at))
            closest = &s, closestAt = i;
    }
    if (!closest)
        return std::nullopt;
    LineReadout readout;
    readout.x = closest->x[closestAt];
    readout.step = closest->steps[closestAt];
    for (const CurveSeries &s : series) {
        if (s.x.isEmpty())
            continue;
        const qsizetype i = nearestIndex(s.x, readout.x);
        const QString name = compared ? QStringLiteral("%1 \u00b7 %2").arg(tag, s.runName) : tag;
        QString value = QStringLiteral("%1 (smoothed %2)").arg(valueNumber(s.raw[i]), valueNumber(s.smoothed[i]));
        if (s.steps[i] != readout.step)
            value += QStringLiteral(" at step %1").arg(s.steps[i]);
        readout.entries.append({name, value});
    }
    return readout;
}

QString CurveFigure::csv() const
{
    QString csv = compared ? QStringLiteral("step,tag,value,smoothed,run\n") : QStringLiteral("step,tag,value,smoothed\n");
    for (const CurveSeries &s : series)
        for (qsizetype i = 0; i < s.steps.size(); ++i) {
            csv += QStringLiteral("%1,%2,%3,%4").arg(s.steps[i]).arg(MetricsTable::csvField(tag)).arg(s.raw[i], 0, 'g', 10).arg(s.smoothed[i], 0, 'g', 10);
            csv += compared ? QStringLiteral(",%1\n").arg(MetricsTable::csvField(s.runName)) : QStringLiteral("\n");
        }
    return csv;
}

} // namespace rankscope
