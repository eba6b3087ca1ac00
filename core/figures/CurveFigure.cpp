#include "figures/CurveFigure.h"

#include "io/TrainingLogs.h"

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
    const ScalarSeries *series = m_state.scalarLog().find(m_tag);
    if (!series || series->points.isEmpty()) {
        figure.noData = m_state.scalarLog().isEmpty() ? tr("No scalars logged beside the checkpoints (TensorBoard, trainer_state.json, Lightning's metrics.csv, nanochat)")
                                                      : tr("No scalar %1 in the run's logs").arg(m_tag);
        return figure;
    }
    for (const ScalarPoint &p : series->points) {
        figure.steps << p.step;
        figure.x << LineFigureBuilder::xOf(m_state, 0, p.step);
        figure.raw << plottedValue(p.value, m_logY);
    }
    figure.smoothed = debiasedSmoothing(figure.raw, m_smoothing);
    // The checkpoints on the curve: the smoothed value at the last point logged at or before each.
    for (qint64 step : m_state.stepsAt(0)) {
        const auto after = std::upper_bound(figure.steps.begin(), figure.steps.end(), step);
        if (after == figure.steps.begin())
            continue;
        const qsizetype i = (after - figure.steps.begin()) - 1;
        figure.markX << LineFigureBuilder::xOf(m_state, 0, step);
        figure.markY << figure.smoothed[i];
    }
    double low = INFINITY, high = -INFINITY;
    for (double v : figure.raw)
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

std::optional<LineReadout> CurveFigure::readoutAt(double at) const
{
    if (x.isEmpty())
        return std::nullopt;
    const auto nearest = std::min_element(x.begin(), x.end(), [at](double a, double b) { return std::abs(a - at) < std::abs(b - at); });
    const qsizetype i = nearest - x.begin();
    LineReadout readout;
    readout.x = x[i];
    readout.step = steps[i];
    readout.entries.append({tag, QStringLiteral("%1 (smoothed %2)").arg(valueNumber(raw[i]), valueNumber(smoothed[i]))});
    return readout;
}

} // namespace rankscope
