#include "PlotStyle.h"

#include "TypeStyle.h"

#include <algorithm>
#include <cmath>

namespace rankscope::PlotStyle {

QFont titleFont(double basePt)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(basePt + 2);
    f.setWeight(QFont::DemiBold);
    return f;
}
QFont paperTitleFont(double basePt)
{
    QFont f = titleFont(basePt);
    f.setPointSizeF(basePt + 1.5);
    return f;
}
QFont labelFont(double basePt)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(basePt + 1);
    return f;
}
QFont tickFont(double basePt)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(basePt);
    return f;
}

namespace {
// The words of a text, what stands in short parentheses ("(τ = 0.90)") kept as one word; a long
// parenthesis breaks as any text does.
QStringList wrapWords(const QString &text)
{
    QStringList words;
    int depth = 0;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (depth > 0 && !words.isEmpty() && words.last().size() + word.size() < 24)
            words.last() += QLatin1Char(' ') + word;
        else
            words << word;
        depth = std::max(0, depth + int(word.count(QLatin1Char('('))) - int(word.count(QLatin1Char(')'))));
    }
    return words;
}

QStringList wrappedLines(const QString &text, const QFontMetricsF &metrics, int width)
{
    QStringList lines;
    QString line;
    for (const QString &word : wrapWords(text)) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (line.isEmpty() || metrics.horizontalAdvance(candidate) <= width) {
            line = candidate;
            continue;
        }
        lines << line;
        line = word;
    }
    if (!line.isEmpty())
        lines << line;
    return lines;
}
} // namespace

bool wrapsWithin(const QString &text, const QFont &font, int width, int maxLines)
{
    const QFontMetricsF metrics(font);
    const QStringList lines = wrappedLines(text, metrics, width);
    return lines.size() <= maxLines &&
           std::all_of(lines.begin(), lines.end(), [&](const QString &line) { return metrics.horizontalAdvance(line) <= width; });
}

Qt::PenStyle runLineStyle(int k)
{
    static const Qt::PenStyle styles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    return styles[k % 5];
}

QString wrapText(const QString &text, const QFont &font, int width, int maxLines)
{
    const QFontMetricsF metrics(font);
    QStringList lines = wrappedLines(text, metrics, width);
    if (lines.size() > maxLines)
        lines = lines.mid(0, maxLines - 1) + QStringList{lines.mid(maxLines - 1).join(QLatin1Char(' '))};
    if (!lines.isEmpty())
        lines.last() = metrics.elidedText(lines.last(), Qt::ElideRight, width);
    return lines.join(QLatin1Char('\n'));
}

const Theme &Theme::paper()
{
    static const Theme theme{false, Qt::white, QColor(0x33, 0x33, 0x33), QColor(0x22, 0x22, 0x22), QColor(0xE3, 0xE3, 0xE3),
                             QColor(0x22, 0x22, 0x22), QColor(0xAA, 0xAA, 0xAA), QColor(255, 255, 255, 220),
                             QColor(0x11, 0x11, 0x11), QColor(0xC0, 0x1B, 0x1B), QColor(0x4A, 0x5A, 0x70),
                             QColor(0x3C, 0x9A, 0x5A)};
    return theme;
}

const Theme &Theme::darkTheme()
{
    static const Theme theme{true, QColor(0x1E, 0x1F, 0x22), QColor(0xC8, 0xC8, 0xC8), QColor(0xE6, 0xE6, 0xE6), QColor(0x3A, 0x3C, 0x40),
                             QColor(0xE0, 0xE0, 0xE0), QColor(0x70, 0x70, 0x70), QColor(0x1E, 0x1F, 0x22, 220),
                             QColor(0xF2, 0xF2, 0xF2), QColor(0xFF, 0x7A, 0x6E), QColor(0xA8, 0xB8, 0xD0),
                             QColor(0x6C, 0xC8, 0x8A)};
    return theme;
}

namespace {
void styleAxis(QCPAxis *axis, const Theme &theme)
{
    axis->setLabelColor(theme.ink);
    axis->setTickLabelColor(theme.ink);
    axis->setBasePen(QPen(theme.ink, 1));
    axis->setTickPen(QPen(theme.ink, 1));
    axis->setSubTickPen(QPen(theme.ink, 1));
    axis->setTickLengthIn(0);
    axis->setTickLengthOut(4);
    axis->setSubTickLengthIn(0);
    axis->setSubTickLengthOut(2);
    axis->grid()->setPen(QPen(theme.grid, 1));
    axis->grid()->setSubGridPen(QPen(theme.grid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
}
} // namespace

void applyTheme(QCustomPlot *plot, const Theme &theme)
{
    plot->setBackground(theme.background);
    for (QCPAxisRect *rect : plot->axisRects())
        for (QCPAxis *axis : rect->axes())
            styleAxis(axis, theme);
    for (QCPLayoutElement *element : plot->plotLayout()->elements(true)) {
        if (auto *scale = qobject_cast<QCPColorScale *>(element))
            styleAxis(scale->axis(), theme);
        else if (auto *text = qobject_cast<QCPTextElement *>(element))
            text->setTextColor(theme.title);
    }
    QList<QCPLegend *> legends{plot->legend};
    for (QCPAxisRect *rect : plot->axisRects())
        for (QCPLayoutElement *element : rect->insetLayout()->elements(false))
            if (auto *legend = qobject_cast<QCPLegend *>(element))
                legends.append(legend);
    for (QCPLegend *legend : legends) {
        legend->setTextColor(theme.text); // every entry, and those made from now on
        for (int i = 0; i < legend->itemCount(); ++i)
            if (QCPAbstractLegendItem *item = legend->item(i); item && item->property("mutedEntry").toBool())
                item->setTextColor(theme.muted);
        if (legend->brush() != Qt::NoBrush) // only legends over data have a background
            legend->setBrush(theme.overlay);
    }
}

void setLegendEntryMuted(QCPAbstractLegendItem *item, const Theme &theme, bool muted)
{
    item->setProperty("mutedEntry", muted);
    item->setTextColor(muted ? theme.muted : theme.text);
}

void applyPaperStyle(QCustomPlot *plot)
{
    for (QCPAxisRect *rect : plot->axisRects())
        for (QCPAxis *axis : rect->axes()) {
            axis->setLabelFont(labelFont());
            axis->setTickLabelFont(tickFont());
        }
    applyTheme(plot, Theme::paper());
    plot->setAntialiasedElements(QCP::aePlottables | QCP::aeItems | QCP::aeLegendItems);
    plot->setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid);
    plot->legend->setFont(tickFont());
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setBrush(Qt::NoBrush);
    plot->legend->setIconSize(22, 12);
    plot->legend->setMargins(QMargins(6, 4, 6, 8)); // room below the last entry's descenders
    plot->legend->setRowSpacing(1);
    plot->legend->setColumnSpacing(10); // entries in a row, as a legend above the plot has them
}

void makeRoomForDescenders(QCPLegend *legend)
{
    for (int i = 0; i < legend->itemCount(); ++i) // a legend wrapped into columns has empty cells
        if (QCPAbstractLegendItem *item = legend->item(i))
            item->setMargins(QMargins(0, 0, 0, int(std::ceil(QFontMetricsF(item->font()).descent()))));
}

void applyFonts(QCustomPlot *plot, double basePt)
{
    auto styleAxes = [&](QCPAxis *axis) {
        axis->setLabelFont(labelFont(basePt));
        axis->setTickLabelFont(tickFont(basePt));
    };
    for (QCPAxisRect *rect : plot->axisRects())
        for (QCPAxis *axis : rect->axes())
            styleAxes(axis);
    for (QCPLayoutElement *element : plot->plotLayout()->elements(true)) {
        if (auto *scale = qobject_cast<QCPColorScale *>(element))
            styleAxes(scale->axis());
        else if (auto *legend = qobject_cast<QCPLegend *>(element))
            legend->setFont(tickFont(basePt));
        else if (auto *text = qobject_cast<QCPTextElement *>(element))
            text->setFont(titleFont(basePt));
    }
    plot->legend->setFont(tickFont(basePt));
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (QCPAbstractLegendItem *item = plot->legend->item(i))
            item->setFont(tickFont(basePt));
    // The legend's icons and spacing grow with its text.
    const double k = basePt / 9.0;
    plot->legend->setIconSize(int(std::lround(22 * k)), int(std::lround(12 * k)));
    plot->legend->setColumnSpacing(int(std::lround(10 * k)));
}

namespace {
// A title that takes no room when it says nothing: QCustomPlot keeps a line for an empty text
// element (a figure without a title had a blank strip above its legend).
class TitleElement : public QCPTextElement {
public:
    using QCPTextElement::QCPTextElement;

protected:
    QSize minimumOuterSizeHint() const override { return text().isEmpty() ? QSize(0, 0) : QCPTextElement::minimumOuterSizeHint(); }
    QSize maximumOuterSizeHint() const override
    {
        return text().isEmpty() ? QSize(QWIDGETSIZE_MAX, 0) : QCPTextElement::maximumOuterSizeHint();
    }
};
} // namespace

QCPTextElement *addTitle(QCustomPlot *plot)
{
    plot->plotLayout()->insertRow(0);
    auto *title = new TitleElement(plot, QString(), titleFont());
    title->setTextColor(QColor(0x22, 0x22, 0x22));
    title->setMargins(QMargins(0, 6, 0, 4));
    // The rows (title, a legend above, the plot) meet with no gap of QCustomPlot's: each keeps the
    // room its own text needs, and a legend above sits as close to the plot as matplotlib's.
    plot->plotLayout()->setRowSpacing(0);
    plot->plotLayout()->addElement(0, 0, title);
    return title;
}

namespace {
// The column right of the axis rect that holds a side legend between two spacers.
QCPLayoutGrid *sideHolder(QCPLayoutGrid *body)
{
    if (body->columnCount() < 2)
        return nullptr;
    for (int row = 0; row < body->rowCount(); ++row)
        if (body->hasElement(row, body->columnCount() - 1))
            if (auto *holder = qobject_cast<QCPLayoutGrid *>(body->element(row, body->columnCount() - 1)))
                return holder;
    return nullptr;
}
constexpr const char *kAboveHolder = "legend-above";
// A legend above the plot keeps only its entries' descenders below it (makeRoomForDescenders):
// the plot's own top margin holds its top tick label.
const QMargins kAboveMargins(6, 3, 6, 1);
const QMargins kLegendMargins(6, 4, 6, 8); // room below the last entry's descenders

// The row between the title and the body that holds a legend above the plot.
QCPLayoutGrid *aboveHolder(QCPLayoutGrid *figure)
{
    for (QCPLayoutElement *element : figure->elements(false))
        if (auto *grid = qobject_cast<QCPLayoutGrid *>(element); grid && grid->objectName() == QLatin1String(kAboveHolder))
            return grid;
    return nullptr;
}

// The legend centred in a row of its own under the title (row 0 of the figure), between two
// stretching spacers, `columns` entries to a row.
void placeLegendAbove(QCPLayoutGrid *figure, QCPLegend *legend, int columns)
{
    QCustomPlot *plot = figure->parentPlot();
    auto *holder = new QCPLayoutGrid;
    holder->setObjectName(QLatin1String(kAboveHolder));
    figure->insertRow(1);
    figure->addElement(1, 0, holder);
    figure->setRowStretchFactor(1, 0.001);
    holder->addElement(0, 0, new QCPLayoutElement(plot));
    holder->addElement(0, 1, legend);
    holder->addElement(0, 2, new QCPLayoutElement(plot));
    holder->setColumnStretchFactors({1, 0.001, 1});
    legend->setWrap(std::max(1, columns));
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    legend->setMargins(kAboveMargins);
    legend->setVisible(true);
}

} // namespace

QList<QCPAbstractLegendItem *> legendItems(QCPLegend *legend)
{
    QList<QCPAbstractLegendItem *> items;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem *item = legend->item(i))
            items << item;
    return items;
}

int legendRowsAbove(QCPLegend *legend, int width)
{
    QList<int> widths;
    for (QCPAbstractLegendItem *item : legendItems(legend))
        widths << item->minimumOuterSizeHint().width();
    const int padding = legend->margins().left() + legend->margins().right();
    for (int rows = 1; rows <= int(widths.size()); ++rows) {
        const int columns = int((widths.size() + rows - 1) / rows);
        int total = padding;
        for (int c = 0; c < columns; ++c) {
            int column = 0;
            for (int r = 0; r < rows; ++r)
                if (const int i = r * columns + c; i < widths.size())
                    column = std::max(column, widths[i]);
            total += column + (c > 0 ? legend->columnSpacing() : 0);
        }
        if (total <= width)
            return rows;
    }
    return 0;
}

void placeLegend(QCPLayoutGrid *body, QCPLegend *legend, LegendPlacement where, int columns, Qt::Alignment corner)
{
    if (QCPLayout *parent = legend->layout())
        parent->take(legend);
    body->simplify(); // drops the row a legend below left empty
    QCPLayoutGrid *figure = body->parentPlot()->plotLayout();
    if (QCPLayoutGrid *holder = aboveHolder(figure)) { // the row above, now empty
        figure->remove(holder);
        figure->simplify();
    }
    legend->setMargins(kLegendMargins);
    if (where == LegendPlacement::Above) {
        placeLegendAbove(figure, legend, columns);
        if (QCPLayoutGrid *holder = sideHolder(body)) {
            body->remove(holder);
            body->simplify();
        }
        return;
    }
    if (where == LegendPlacement::Inside) {
        if (QCPLayoutGrid *holder = sideHolder(body)) { // the empty side column would keep its width
            body->remove(holder);
            body->simplify();
        }
        legend->setWrap(0);
        legend->setFillOrder(QCPLayoutGrid::foRowsFirst, true);
        if (auto *rect = qobject_cast<QCPAxisRect *>(body->element(0, 0)))
            rect->insetLayout()->addElement(legend, corner);
        legend->setVisible(true);
        return;
    }
    const bool right = where == LegendPlacement::Right;
    legend->setWrap(right ? 0 : std::max(1, columns));
    legend->setFillOrder(right ? QCPLayoutGrid::foRowsFirst : QCPLayoutGrid::foColumnsFirst, true); // re-flows the items
    if (right) {
        QCPLayoutGrid *holder = sideHolder(body);
        if (!holder) {
            holder = new QCPLayoutGrid;
            body->addElement(0, body->columnCount(), holder);
            holder->setMargins(QMargins(0, 0, 10, 0)); // room for the last letter of the widest entry
            holder->addElement(0, 0, new QCPLayoutElement(body->parentPlot()));
            holder->addElement(2, 0, new QCPLayoutElement(body->parentPlot()));
            holder->setRowStretchFactor(0, 1);
            holder->setRowStretchFactor(2, 2);
        }
        holder->addElement(1, 0, legend);
        holder->setRowStretchFactor(1, 0.5);
        body->setColumnStretchFactor(body->columnCount() - 1, 0.01);
    } else {
        body->addElement(body->rowCount(), 0, legend);
        body->setRowStretchFactor(body->rowCount() - 1, 0.01);
    }
    legend->setVisible(true);
}

namespace {

// Decades alone leave a short log axis unreadable: 2–55 showed only 10. Under two decades the
// labelled ticks are 1, 2 and 5 of each decade (every integer multiple under one decade), with
// the other multiples as minor ticks; longer ranges get decades as usual. Computed per range, so
// zooming in gains labels.
class ShortSpanLogTicker : public QCPAxisTickerLog {
public:
    explicit ShortSpanLogTicker(QCPAxis *axis) : m_axis(axis) {}

protected:
    QVector<double> createTickVector(double tickStep, const QCPRange &range) override
    {
        m_shortSpan = range.lower > 0 && range.upper / range.lower < 100;
        m_decadeStep = 0;
        if (!m_shortSpan) {
            const QVector<double> decades = decadesApart(range);
            return decades.isEmpty() ? QCPAxisTickerLog::createTickVector(tickStep, range) : decades;
        }
        const QVector<int> mantissas = range.upper / range.lower < 10 ? QVector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9} : QVector<int>{1, 2, 5};
        QVector<double> ticks;
        // One tick beyond each end, as QCustomPlot's tickers give, for the minor ticks there.
        double below = 0, above = 0;
        for (int exponent = int(std::floor(std::log10(range.lower))) - 1; exponent <= int(std::ceil(std::log10(range.upper))); ++exponent)
            for (int m : mantissas) {
                const double v = m * std::pow(10.0, exponent);
                if (v < range.lower)
                    below = v;
                else if (v <= range.upper)
                    ticks << v;
                else if (above == 0)
                    above = v;
            }
        if (below > 0)
            ticks.prepend(below);
        if (above > 0)
            ticks.append(above);
        return ticks;
    }
    QVector<double> createSubTickVector(int subTickCount, const QVector<double> &ticks) override
    {
        if (m_decadeStep > 1) { // labels every k-th decade: the decades between are the minor ticks
            QVector<double> subTicks;
            for (qsizetype i = 0; i + 1 < ticks.size(); ++i)
                for (int d = 1; d < m_decadeStep; ++d)
                    subTicks << ticks[i] * std::pow(10.0, d);
            return subTicks;
        }
        if (!m_shortSpan)
            return QCPAxisTickerLog::createSubTickVector(subTickCount, ticks);
        QVector<double> subTicks;
        for (qsizetype i = 0; i + 1 < ticks.size(); ++i) {
            const double step = std::pow(10.0, std::floor(std::log10(ticks[i]) + 1e-9));
            for (double v = ticks[i] + step; v < ticks[i + 1] * (1 - 1e-9); v += step)
                subTicks << v;
        }
        return subTicks;
    }

private:
    // Two decades or more: a label every k-th decade from the first in range, for the smallest k
    // whose labels keep apart along the axis as laid out (a column's λ axis over five decades reads
    // "0.0001" and "10" rather than nothing, a long one every decade); one beyond each end too.
    // Empty when the axis has not been laid out yet.
    QVector<double> decadesApart(const QCPRange &range)
    {
        const bool horizontal = m_axis->orientation() == Qt::Horizontal;
        const QRect rect = m_axis->axisRect()->rect();
        const double length = horizontal ? rect.width() : rect.height();
        if (!(range.lower > 0) || !(range.upper > range.lower) || length < 8)
            return {};
        const QFontMetricsF metrics(m_axis->tickLabelFont());
        const double lowLog = std::log10(range.lower), span = std::log10(range.upper) - lowLog;
        const int first = int(std::ceil(lowLog - 1e-9)), last = int(std::floor(lowLog + span + 1e-9));
        if (last - first > 400)
            return {};
        auto extent = [&](int e) { return horizontal ? metrics.horizontalAdvance(QString::number(std::pow(10.0, e), 'g', 6)) : metrics.height(); };
        auto pixel = [&](int e) { return length * (e - lowLog) / span; };
        const double gap = horizontal ? 0.8 * metrics.height() : 0.25 * metrics.height();
        for (int k = 1; k <= std::max(1, last - first); ++k) {
            bool apart = true;
            for (int e = first + k; e <= last && apart; e += k)
                apart = pixel(e) - pixel(e - k) >= (extent(e) + extent(e - k)) / 2 + gap;
            if (!apart)
                continue;
            m_decadeStep = k;
            QVector<double> ticks;
            for (int e = first - k; e <= last + k; e += k)
                ticks << std::pow(10.0, e);
            return ticks;
        }
        return {};
    }

    QCPAxis *m_axis;
    bool m_shortSpan = false;
    int m_decadeStep = 0; // the decades between labels, when decadesApart chose them
};

} // namespace

void setLogScale(QCPAxis *axis, bool log)
{
    if (log) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new ShortSpanLogTicker(axis));
        ticker->setSubTickCount(8);
        axis->setTicker(ticker);
        axis->setNumberFormat(QStringLiteral("g")); // 0.01, 0.1, 1, 10: plain decades read best
        axis->setNumberPrecision(6);
    } else {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setNumberFormat(QStringLiteral("g"));
        axis->setNumberPrecision(6);
    }
}

QCPColorGradient yellowOrangeRed()
{
    QCPColorGradient g;
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setColorStopAt(0.0, QColor(0xFF, 0xFF, 0xCC));
    g.setColorStopAt(0.25, QColor(0xFE, 0xD9, 0x76));
    g.setColorStopAt(0.5, QColor(0xFD, 0x8D, 0x3C));
    g.setColorStopAt(0.75, QColor(0xE3, 0x1A, 0x1C));
    g.setColorStopAt(1.0, QColor(0x80, 0x00, 0x26));
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(nanColour());
    return g;
}

QCPColorGradient viridis(int stopsUsed)
{
    QCPColorGradient g;
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x48, 0x28, 0x78), QColor(0x3E, 0x4A, 0x89),
                            QColor(0x31, 0x68, 0x8E), QColor(0x26, 0x82, 0x8E), QColor(0x1F, 0x9E, 0x89),
                            QColor(0x35, 0xB7, 0x79), QColor(0x6E, 0xCE, 0x58), QColor(0xB5, 0xDE, 0x2B),
                            QColor(0xFD, 0xE7, 0x25)};
    const int n = std::clamp(stopsUsed, 2, 10);
    for (int i = 0; i < n; ++i)
        g.setColorStopAt(i / double(n - 1), stops[i]);
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(nanColour());
    return g;
}

QColor nanColour() { return QColor(0xD9, 0xD9, 0xD9); }

QColor layerRamp(MatrixType type, int i, int n)
{
    const QColor base = typeColour(type);
    // From a light tint of the type's colour (first layer) to a dark shade (last layer).
    const double t = n > 1 ? double(i) / (n - 1) : 1.0;
    const double lightness = 0.78 - 0.55 * t;
    QColor c = QColor::fromHslF(base.hslHueF(), std::max(0.45f, base.hslSaturationF()), float(lightness));
    return c;
}

} // namespace rankscope::PlotStyle
