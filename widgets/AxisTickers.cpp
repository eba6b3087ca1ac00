#include "AxisTickers.h"

#include <cmath>

namespace rankscope {

namespace {

// 1, 2, 4, 5, 10, 20, 25, 50, 100, …: the steps a reader counts layers by.
QList<int> layerSteps(int upTo)
{
    QList<int> steps{1, 2, 4, 5};
    for (int decade = 10; decade <= upTo; decade *= 10)
        steps << decade << 2 * decade << 5 * decade / 2 << 5 * decade;
    return steps;
}

// How many multiples of `step` lie in the range.
int ticksIn(const QCPRange &range, double step)
{
    return int(std::floor(range.upper / step + 1e-9) - std::ceil(range.lower / step - 1e-9)) + 1;
}

} // namespace

QList<int> categoryTickIndices(int count, double spacing, double labelSpan)
{
    QList<int> indices;
    if (count <= 0)
        return indices;
    const int span = count - 1;
    const QList<int> steps = layerSteps(std::max(10, span));
    int step = steps.last();
    for (int s : steps)
        if (s * spacing >= labelSpan) {
            step = s;
            break;
        }
    if (span % step != 0) // a step a little larger that ends on the last label reads better
        for (int s : steps)
            if (s > step && s <= 2.5 * step && span % s == 0) {
                step = s;
                break;
            }
    for (int i = 0; i <= span; i += step)
        if (i == 0 || i == span || (span - i) * spacing >= labelSpan)
            indices << i;
    if (indices.last() != span && span * spacing >= labelSpan)
        indices << span;
    return indices;
}

double ReadableTicker::labelExtent(const QCPRange &range, double step, bool tight) const
{
    const QFontMetricsF metrics(m_axis->tickLabelFont());
    if (m_axis->orientation() == Qt::Vertical)
        return metrics.height() * (tight ? 1.25 : 2.0);
    double widest = 0;
    const double first = std::ceil(range.lower / step - 1e-9) * step;
    for (int i = 0; i < std::min(ticksIn(range, step), 200); ++i) {
        const double v = std::abs(first + i * step) < step * 1e-9 ? 0 : first + i * step;
        widest = std::max(widest, metrics.horizontalAdvance(QString::number(v, 'g', m_axis->numberPrecision())));
    }
    const double em = metrics.horizontalAdvance(QLatin1Char('M'));
    return widest + em * (tight ? 0.6 : 1.5);
}

double ReadableTicker::stepFor(const QCPRange &range) const
{
    const QRect rect = m_axis->axisRect()->rect();
    const double length = m_axis->orientation() == Qt::Horizontal ? rect.width() : rect.height();
    if (!(range.size() > 0) || length < 8)
        return range.size() > 0 ? range.size() : 1;
    // Candidates from a thousandth of the range up, in increasing order.
    QList<double> candidates;
    const int top = int(std::floor(std::log10(range.size())));
    for (int exponent = top - 3; exponent <= top + 1; ++exponent)
        for (double mantissa : {1.0, 2.0, 2.5, 5.0})
            candidates << mantissa * std::pow(10.0, exponent);
    if (m_axis->property("wholeNumbers").toBool()) {
        candidates.removeIf([](double step) { return step < 1 || step != std::floor(step); });
        if (candidates.isEmpty())
            candidates << 1.0;
    }
    const double pixelsPerUnit = length / range.size();
    qsizetype chosen = candidates.size() - 1;
    for (qsizetype i = 0; i < candidates.size(); ++i)
        if (candidates[i] * pixelsPerUnit >= labelExtent(range, candidates[i], false)) {
            chosen = i;
            break;
        }
    // Fewer than three labels: a finer step, as long as its labels do not touch.
    for (qsizetype i = chosen - 1; i >= 0 && ticksIn(range, candidates[chosen]) < 3; --i) {
        if (candidates[i] * pixelsPerUnit < labelExtent(range, candidates[i], true))
            break;
        chosen = i;
    }
    return candidates[chosen];
}

double ReadableTicker::getTickStep(const QCPRange &range) { return stepFor(range); }

} // namespace rankscope
