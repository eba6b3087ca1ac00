#include "HeatmapCells.h"

#include "PlotStyle.h"

#include <algorithm>
#include <cmath>

namespace rankscope {

void setHeatmapGrid(QCustomPlot *plot, QCPColorMap *map, const QStringList &columnLabels, const QStringList &rowLabels,
                    const std::function<double(int y, int x)> &value)
{
    const int nx = int(columnLabels.size()), ny = int(rowLabels.size());
    QCPColorMapData *data = map->data();
    data->setSize(std::max(1, nx), std::max(1, ny));
    data->setRange(nx > 1 ? QCPRange(0, nx - 1) : QCPRange(-0.5, 0.5), ny > 1 ? QCPRange(0, ny - 1) : QCPRange(-0.5, 0.5));
    for (int x = 0; x < std::max(1, nx); ++x)
        for (int y = 0; y < std::max(1, ny); ++y)
            data->setCell(x, y, x < nx && y < ny ? value(y, x) : std::nan(""));
    QSharedPointer<QCPAxisTickerText> xTicks(new QCPAxisTickerText), yTicks(new QCPAxisTickerText);
    for (int x = 0; x < nx; ++x)
        xTicks->addTick(x, columnLabels[x]);
    for (int y = 0; y < ny; ++y)
        yTicks->addTick(y, rowLabels[y]);
    plot->xAxis->setTicker(xTicks);
    plot->yAxis->setTicker(yTicks);
    plot->xAxis->setRange(-0.5, std::max(0, nx - 1) + 0.5);
    plot->yAxis->setRange(-0.5, std::max(0, ny - 1) + 0.5);
}

void setRowSeparators(QCustomPlot *plot, QList<QCPItemStraightLine *> &lines, const QList<int> &starts, const QColor &background)
{
    for (QCPItemStraightLine *line : lines)
        plot->removeItem(line);
    lines.clear();
    for (int y : starts) {
        auto *line = new QCPItemStraightLine(plot);
        line->point1->setCoords(0, y - 0.5);
        line->point2->setCoords(1, y - 0.5);
        line->setPen(QPen(background, 3));
        line->setSelectable(false);
        lines << line;
    }
}

QString HeatmapCellTexts::valueText(double v, int fewerDecimals)
{
    if (!std::isfinite(v))
        return QStringLiteral("–");
    const double a = std::abs(v);
    const int decimals = a >= 100 ? 0 : a >= 10 ? std::max(0, 1 - fewerDecimals) : std::max(1, 2 - fewerDecimals);
    QString text = QString::number(v, 'f', decimals);
    if (text.startsWith(QLatin1Char('-')) && text.toDouble() == 0)
        text.remove(0, 1);
    return text;
}

QSizeF HeatmapCellTexts::cellSize(const QCustomPlot *plot)
{
    return {std::abs(plot->xAxis->coordToPixel(1) - plot->xAxis->coordToPixel(0)),
            std::abs(plot->yAxis->coordToPixel(1) - plot->yAxis->coordToPixel(0))};
}

std::optional<HeatmapCellTexts::Fit> HeatmapCellTexts::fit(double fontPt, QSizeF cell, int nx, int ny, const CellText &text)
{
    const double largest = fontPt - 0.5;
    for (int fewer = 0; fewer <= 2; ++fewer) {
        QStringList texts;
        for (int x = 0; x < nx; ++x)
            for (int y = 0; y < ny; ++y)
                texts << text(y, x, fewer);
        QFont font = PlotStyle::tickFont(largest);
        const double smallest = fewer == 0 ? std::max(5.0, 0.75 * largest) : 5.0;
        for (double pt = largest; pt >= smallest; pt -= 0.5) {
            font.setPointSizeF(pt);
            const QFontMetricsF metrics(font);
            if (metrics.height() + 1 > cell.height())
                continue;
            const double margin = std::max(3.0, 0.3 * metrics.horizontalAdvance(QLatin1Char('0')));
            if (std::all_of(texts.begin(), texts.end(), [&](const QString &t) { return metrics.horizontalAdvance(t) + margin <= cell.width(); }))
                return Fit{font, fewer};
        }
    }
    return std::nullopt;
}

void HeatmapCellTexts::clear()
{
    for (QCPItemText *t : m_texts)
        m_plot->removeItem(t);
    m_texts.clear();
    m_stale = true;
}

bool HeatmapCellTexts::place(int nx, int ny, double fontPt, const CellText &text)
{
    const QSizeF cell = cellSize(m_plot);
    if (!m_stale && cell == m_cell)
        return !m_texts.isEmpty();
    clear();
    m_stale = false;
    m_cell = cell;
    if (nx == 0 || ny == 0)
        return false;
    const std::optional<Fit> fitted = fit(fontPt, cell, nx, ny, text);
    if (!fitted)
        return false; // too small to read: the tooltip has the value
    QCPColorGradient gradient = m_map->gradient(); // colorize() is not const
    const QCPRange range = m_map->dataRange();
    for (int x = 0; x < nx; ++x)
        for (int y = 0; y < ny; ++y) {
            const double v = m_map->data()->cell(x, y);
            auto *item = new QCPItemText(m_plot);
            item->position->setCoords(x, y);
            item->setText(text(y, x, fitted->fewerDecimals));
            item->setFont(fitted->font);
            item->setSelectable(false);
            item->setClipToAxisRect(true);
            QRgb colour = qRgb(217, 217, 217);
            if (std::isfinite(v))
                gradient.colorize(&v, range, &colour, 1);
            item->setColor(qGray(colour) > 140 ? QColor(0x22, 0x22, 0x22) : Qt::white);
            m_texts << item;
        }
    return true;
}

} // namespace rankscope
