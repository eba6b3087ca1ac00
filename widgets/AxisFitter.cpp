#include "AxisFitter.h"

#include "PlotStyle.h"
#include "AxisTickers.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <typeinfo>

namespace rankscope {

namespace {

// The first label and every k-th after it: thinned tick labels that keep their positions.
QMap<double, QString> everyKth(const QMap<double, QString> &labels, int every)
{
    QMap<double, QString> shown;
    qsizetype i = 0;
    for (auto it = labels.begin(); it != labels.end(); ++it, ++i)
        if (i % every == 0)
            shown.insert(it.key(), it.value());
    return shown;
}

} // namespace

QString AxisFitter::fullLabel(const QCPAxis *axis) const
{
    return axis->label() != m_wrappedLabels.value(axis) ? axis->label() : m_fullLabels.value(axis, axis->label());
}

void AxisFitter::fit(QSize size, double fontPt, bool stepAxisBelow)
{
    // The axis rects' lengths at `size`: what the last layout gave them, plus the change in size
    // (margins hold the tick labels, which do not grow with the figure).
    const QRect viewport = m_plot->viewport();
    QList<QPair<QCPAxis *, QRect>> axes;
    for (QCPAxisRect *rect : m_plot->axisRects())
        for (QCPAxis *axis : rect->axes())
            axes.append({axis, rect->rect()});
    for (QCPLayoutElement *element : m_plot->plotLayout()->elements(true))
        if (auto *scale = qobject_cast<QCPColorScale *>(element))
            axes.append({scale->axis(), scale->axis()->axisRect()->rect()});
    for (const auto &[axis, rect] : axes) {
        if (!axis->visible())
            continue;
        const bool horizontal = axis->orientation() == Qt::Horizontal;
        const int last = horizontal ? rect.width() : rect.height();
        const int length = std::max(40, last > 0 ? last + (horizontal ? size.width() - viewport.width() : size.height() - viewport.height())
                                                 : int((horizontal ? size.width() : size.height()) * 0.7));
        fitAxisLabel(axis, length, fontPt);
        if (auto text = axis->ticker().dynamicCast<QCPAxisTickerText>(); text && !horizontal)
            fitRowLabels(axis, text.data(), length, fontPt);
        else if (text)
            fitLayerLabels(axis, text.data(), length, fontPt);
        else
            fitNumbers(axis, length, stepAxisBelow && axis == m_plot->xAxis);
    }
}

void AxisFitter::fitAxisLabel(QCPAxis *axis, int length, double fontPt)
{
    // An axis label longer than its axis breaks onto a second line, in the size of every axis
    // label (a y label set smaller than the x label beside it reads as a mistake); the label is
    // kept whole until the view sets a new one.
    QString &fullLabel = m_fullLabels[axis];
    if (axis->label() != m_wrappedLabels.value(axis))
        fullLabel = axis->label();
    if (fullLabel.contains(QLatin1Char('\n')))
        return; // broken into lines by the view itself (a colour bar's label)
    const QFont font = PlotStyle::labelFont(fontPt);
    axis->setLabelFont(font);
    // Where even two lines cannot hold it, a label's qualifier in brackets goes before the quantity
    // is cut: "Stable rank (mean of layers 0–3)" reads "Stable rank" (a caption says the rest).
    QString shown = fullLabel;
    if (const qsizetype bracket = shown.indexOf(QLatin1String(" ("));
        bracket > 0 && shown.endsWith(QLatin1Char(')')) && !PlotStyle::wrapsWithin(shown, font, length, 2))
        shown.truncate(bracket);
    const QString wrapped = PlotStyle::wrapText(shown, font, length);
    axis->setLabel(wrapped);
    m_wrappedLabels[axis] = wrapped;
}

QMap<double, QString> AxisFitter::fullTickLabels(const QCPAxis *axis, QCPAxisTickerText *ticker)
{
    // The full set is kept per ticker: a view's new ticker brings new labels.
    Ticks &full = m_fullTicks[axis];
    if (full.ticker != ticker)
        full = {ticker, ticker->ticks()};
    return full.labels;
}

void AxisFitter::fitRowLabels(QCPAxis *axis, QCPAxisTickerText *ticker, int length, double fontPt)
{
    // Row labels (heatmap types) are all wanted: their font shrinks until they fit the rows,
    // down to 5 pt; rows thinner still are labelled every k-th, like layers.
    const QMap<double, QString> labels = fullTickLabels(axis, ticker);
    const qsizetype rows = std::max<qsizetype>(1, labels.size());
    QFont font = PlotStyle::tickFont(fontPt);
    while (font.pointSizeF() > 5 && QFontMetrics(font).height() > double(length) / rows)
        font.setPointSizeF(font.pointSizeF() - 0.5);
    axis->setTickLabelFont(font);
    const int every = std::max(1, int(std::ceil(QFontMetrics(font).height() * double(rows) / length)));
    ticker->setTicks(everyKth(labels, every));
}

void AxisFitter::fitLayerLabels(QCPAxis *axis, QCPAxisTickerText *ticker, int length, double fontPt)
{
    // Layer labels: every one, as an author labels a categorical axis: upright when they fit with
    // a little room between them; else turned to run up the axis, where a label needs only its
    // digits' height, a point or two smaller if need be (down to 5 pt). Only an axis too crowded
    // even for that is labelled at a regular step that keeps the first and the last
    // (categoryTickIndices), so neighbours never touch.
    const QMap<double, QString> labels = fullTickLabels(axis, ticker);
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    QFont font = PlotStyle::tickFont(fontPt);
    axis->setTickLabelFont(font);
    axis->setTickLabelRotation(0);
    if (labels.size() < 2) {
        ticker->setTicks(labels);
        return;
    }
    auto widestIn = [&](const QFont &f) {
        const QFontMetricsF metrics(f);
        double widest = 0;
        for (const QString &label : labels)
            widest = std::max(widest, horizontal ? metrics.horizontalAdvance(label) : metrics.height());
        return widest;
    };
    const QFontMetricsF metrics(font);
    const double widest = widestIn(font);
    // The pixels between neighbouring labels: the keys' span over the axis' range, shared by the gaps between them.
    const double keys = labels.lastKey() - labels.firstKey();
    const double spacing = axis->range().size() > 0 ? length * keys / axis->range().size() / double(labels.size() - 1) : length;
    if (horizontal) {
        if (widest + 0.35 * metrics.horizontalAdvance(QLatin1Char('M')) <= spacing) {
            ticker->setTicks(labels);
            return;
        }
        for (double pt = fontPt; pt >= 5; pt -= 0.5) {
            QFont turned = font;
            turned.setPointSizeF(pt);
            const double height = QFontMetricsF(turned).capHeight();
            if (height + std::max(1.5, 0.3 * height) <= spacing) {
                axis->setTickLabelFont(turned);
                axis->setTickLabelRotation(-90);
                ticker->setTicks(labels);
                return;
            }
        }
    }
    const double gap = horizontal ? 0.8 * metrics.horizontalAdvance(QLatin1Char('M')) : 0.2 * metrics.height();
    QMap<double, QString> shown;
    const QList<double> positions = labels.keys();
    for (int i : categoryTickIndices(int(labels.size()), spacing, widest + gap))
        shown.insert(positions[i], labels.value(positions[i]));
    ticker->setTicks(shown);
}

void AxisFitter::fitNumbers(QCPAxis *axis, int length, bool numberedBelow)
{
    const bool horizontal = axis->orientation() == Qt::Horizontal;
    const QFontMetrics metrics(axis->tickLabelFont());
    const QCPRange range = axis->range();
    if (axis->scaleType() == QCPAxis::stLinear) {
        // A linear axis with QCustomPlot's own ticker gets one that fits its labels at every
        // layout and zoom (ReadableTicker); other tickers (a view's fixed steps) are kept.
        if (const QSharedPointer<QCPAxisTicker> ticker = axis->ticker(); typeid(*ticker) == typeid(QCPAxisTicker))
            axis->setTicker(QSharedPointer<ReadableTicker>::create(axis));
        // Enough significant digits that neighbouring ticks differ: values that vary in their 7th digit
        // (a stable rank of 1.0000002 … 1.0000012) are labelled 1.0000004, 1.0000006, never "1" eight times.
        if (range.size() > 0) {
            const double step = range.size() / 16.0, largest = std::max(std::abs(range.lower), std::abs(range.upper));
            const int digits = largest > 0 ? int(std::ceil(std::log10(largest / step))) + 1 : 6;
            axis->setNumberPrecision(std::clamp(digits, 6, 15));
        }
    } else {
        // Decades: as many as leave a line and a quarter between labels, three at least.
        const int label = horizontal ? metrics.horizontalAdvance(QStringLiteral("0.001")) + 10 : int(1.25 * metrics.height());
        axis->ticker()->setTickCount(std::clamp(int(length / std::max(1, label)), 3, 8));
    }
    // An axis too short for two labels (a colour bar in a tiny panel) shows none. A logarithmic
    // axis is labelled at its decades ("0.01", "1", "100"), not at its ends' many digits.
    int widest = std::max(metrics.horizontalAdvance(QString::number(range.lower, 'g', 5)),
                          metrics.horizontalAdvance(QString::number(range.upper, 'g', 5)));
    // A readable ticker's labels are its round steps ("0", "0.5", "1"), not the range's ends
    // ("-0.0123"): those decide (a plan's budget axis in a column had no labels).
    if (const auto readable = axis->ticker().dynamicCast<ReadableTicker>(); readable && range.size() > 0) {
        const double step = readable->stepFor(range);
        widest = 0;
        for (double v = std::ceil(range.lower / step) * step; v <= range.upper + 1e-9 * step; v += step)
            widest = std::max(widest, metrics.horizontalAdvance(QString::number(std::abs(v) < 1e-12 * step ? 0.0 : v, 'g', 6)));
    }
    if (axis->scaleType() == QCPAxis::stLogarithmic && range.lower > 0 && range.upper > range.lower) {
        widest = 0;
        const int first = int(std::floor(std::log10(range.lower))), last = int(std::ceil(std::log10(range.upper)));
        for (int decade = first; decade <= last && decade <= first + 40; ++decade)
            widest = std::max(widest, metrics.horizontalAdvance(QString::number(std::pow(10.0, decade), 'g', 3)));
    }
    const int label = horizontal ? widest + 8 : 2 * metrics.height();
    // A logarithmic axis is labelled at decades its ticker spaces apart (every other one, or
    // further, on a short axis): room for its widest decade label is enough.
    axis->setTickLabels(!numberedBelow && length >= (axis->scaleType() == QCPAxis::stLogarithmic ? label : 2 * label));
}

} // namespace rankscope
