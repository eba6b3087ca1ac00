#include "PlotStyle.h"

#include "TypeStyle.h"

#include <cmath>

namespace rankscope::PlotStyle {

QFont titleFont(double basePt)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(basePt + 2);
    f.setWeight(QFont::DemiBold);
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

QString wrapText(const QString &text, const QFont &font, int width, int maxLines)
{
    const QFontMetricsF metrics(font);
    QStringList lines;
    QString line;
    for (const QString &word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
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
    if (lines.size() > maxLines) {
        lines = lines.mid(0, maxLines - 1) + QStringList{lines.mid(maxLines - 1).join(QLatin1Char(' '))};
    }
    if (!lines.isEmpty())
        lines.last() = metrics.elidedText(lines.last(), Qt::ElideRight, width);
    return lines.join(QLatin1Char('\n'));
}

namespace {
void styleAxis(QCPAxis *axis)
{
    const QColor ink(0x33, 0x33, 0x33);
    axis->setLabelFont(labelFont());
    axis->setTickLabelFont(tickFont());
    axis->setLabelColor(ink);
    axis->setTickLabelColor(ink);
    axis->setBasePen(QPen(ink, 1));
    axis->setTickPen(QPen(ink, 1));
    axis->setSubTickPen(QPen(ink, 1));
    axis->setTickLengthIn(0);
    axis->setTickLengthOut(4);
    axis->setSubTickLengthIn(0);
    axis->setSubTickLengthOut(2);
    axis->grid()->setPen(QPen(QColor(0xE3, 0xE3, 0xE3), 1));
    axis->grid()->setZeroLinePen(Qt::NoPen);
}
} // namespace

void applyPaperStyle(QCustomPlot *plot)
{
    plot->setBackground(Qt::white);
    plot->setAntialiasedElements(QCP::aePlottables | QCP::aeItems | QCP::aeLegendItems);
    plot->setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid);
    for (QCPAxisRect *rect : plot->axisRects())
        for (QCPAxis *axis : rect->axes())
            styleAxis(axis);
    plot->legend->setFont(tickFont());
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setBrush(Qt::NoBrush);
    plot->legend->setIconSize(22, 12);
    plot->legend->setMargins(QMargins(6, 4, 6, 8)); // room below the last entry's descenders
    plot->legend->setRowSpacing(1);
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
        plot->legend->item(i)->setFont(tickFont(basePt));
    // The legend's icons and spacing grow with its text.
    const double k = basePt / 9.0;
    plot->legend->setIconSize(int(std::lround(22 * k)), int(std::lround(12 * k)));
}

QCPTextElement *addTitle(QCustomPlot *plot)
{
    plot->plotLayout()->insertRow(0);
    auto *title = new QCPTextElement(plot, QString(), titleFont());
    title->setTextColor(QColor(0x22, 0x22, 0x22));
    title->setMargins(QMargins(0, 6, 0, 0));
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
} // namespace

void placeLegend(QCPLayoutGrid *body, QCPLegend *legend, LegendPlacement where, int columns)
{
    if (QCPLayout *parent = legend->layout())
        parent->take(legend);
    body->simplify(); // drops the row a legend below left empty
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

void setLogScale(QCPAxis *axis, bool log)
{
    if (log) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
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
