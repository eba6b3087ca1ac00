#include "PlotStyle.h"

#include "TypeStyle.h"

namespace rankscope::PlotStyle {

QFont titleFont()
{
    QFont f(QStringLiteral("DejaVu Sans"), 11);
    f.setWeight(QFont::DemiBold);
    return f;
}
QFont labelFont() { return QFont(QStringLiteral("DejaVu Sans"), 10); }
QFont tickFont() { return QFont(QStringLiteral("DejaVu Sans"), 9); }

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

QCPTextElement *addTitle(QCustomPlot *plot)
{
    plot->plotLayout()->insertRow(0);
    auto *title = new QCPTextElement(plot, QString(), titleFont());
    title->setTextColor(QColor(0x22, 0x22, 0x22));
    title->setMargins(QMargins(0, 6, 0, 0));
    plot->plotLayout()->addElement(0, 0, title);
    return title;
}

void placeLegendRight(QCustomPlot *plot, QCPAxisRect *rect)
{
    auto *subLayout = new QCPLayoutGrid;
    const int row = plot->plotLayout()->rowCount() - 1;
    plot->plotLayout()->addElement(row, plot->plotLayout()->columnCount(), subLayout);
    subLayout->setMargins(QMargins(0, 0, 6, 0));
    subLayout->addElement(0, 0, new QCPLayoutElement(plot));
    subLayout->addElement(1, 0, plot->legend);
    subLayout->addElement(2, 0, new QCPLayoutElement(plot));
    subLayout->setRowStretchFactor(0, 1);
    subLayout->setRowStretchFactor(1, 0.5);
    subLayout->setRowStretchFactor(2, 2);
    plot->plotLayout()->setColumnStretchFactor(plot->plotLayout()->columnCount() - 1, 0.01);
    Q_UNUSED(rect);
    plot->legend->setVisible(true);
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

QCPColorGradient viridis()
{
    QCPColorGradient g;
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x48, 0x28, 0x78), QColor(0x3E, 0x4A, 0x89),
                            QColor(0x31, 0x68, 0x8E), QColor(0x26, 0x82, 0x8E), QColor(0x1F, 0x9E, 0x89),
                            QColor(0x35, 0xB7, 0x79), QColor(0x6E, 0xCE, 0x58), QColor(0xB5, 0xDE, 0x2B),
                            QColor(0xFD, 0xE7, 0x25)};
    for (int i = 0; i < 10; ++i)
        g.setColorStopAt(i / 9.0, stops[i]);
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
