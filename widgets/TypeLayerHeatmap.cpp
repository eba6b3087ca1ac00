#include "TypeLayerHeatmap.h"

#include "PlotStyle.h"

#include <QComboBox>
#include <QLabel>
#include <cmath>

namespace rankscope {

namespace {
QString cellText(double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("–");
    const double a = std::abs(v);
    return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : 2);
}
} // namespace

TypeLayerHeatmap::TypeLayerHeatmap(ViewState *state, Metric metric, QWidget *parent)
    : RunStepView(state, metric, parent), m_map(new QCPColorMap(plot()->xAxis, plot()->yAxis)),
      m_scale(new QCPColorScale(plot()))
{
    headerLayout()->addStretch(1);

    m_map->setInterpolate(false); // crisp cells
    m_map->setTightBoundary(false);
    plot()->plotLayout()->addElement(1, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(12);
    m_scale->axis()->setLabelFont(PlotStyle::labelFont());
    m_scale->axis()->setTickLabelFont(PlotStyle::tickFont());
    m_map->setColorScale(m_scale);
    auto *margins = new QCPMarginGroup(plot());
    plot()->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    plot()->xAxis->setLabel(tr("Layer"));
    plot()->yAxis->setLabel(tr("Matrix type"));
    plot()->yAxis->setRangeReversed(true); // Q at the top, as in a table
    for (QCPAxis *axis : {plot()->xAxis, plot()->yAxis}) {
        axis->grid()->setVisible(false);
        axis->setTickLength(0, 3);
        axis->setSubTicks(false);
    }

    m_highlight = new QCPItemRect(plot());
    m_highlight->setPen(QPen(QColor(0x11, 0x11, 0x11), 2.5));
    m_highlight->setBrush(Qt::NoBrush);
    m_highlight->setSelectable(false);
    m_highlight->setVisible(false);
    connect(plot(), &QCustomPlot::afterLayout, this, &TypeLayerHeatmap::placeCellTexts);
    connect(state, &ViewState::highlightChanged, this, &TypeLayerHeatmap::rebuild);
    connect(state, &ViewState::resultsChanged, this, &TypeLayerHeatmap::rebuild);
    connect(state, &ViewState::displayChanged, this, &TypeLayerHeatmap::rebuild);
    connect(state, &ViewState::currentStepChanged, this, &TypeLayerHeatmap::rebuild);
    rebuild();
}

void TypeLayerHeatmap::rebuild()
{
    const ViewState *s = state();
    m_rows = s->visibleTypes();
    m_columns = s->visibleLayersAt(m_run);
    const qint64 step = s->stepAt(m_run);
    const int nx = int(m_columns.size()), ny = int(m_rows.size());
    QCPColorMapData *data = m_map->data();
    data->setSize(std::max(1, nx), std::max(1, ny));
    // Cells sit at integer positions; a single row or column spans ±0.5 around it.
    data->setRange(nx > 1 ? QCPRange(0, nx - 1) : QCPRange(-0.5, 0.5), ny > 1 ? QCPRange(0, ny - 1) : QCPRange(-0.5, 0.5));
    for (int x = 0; x < std::max(1, nx); ++x)
        for (int y = 0; y < std::max(1, ny); ++y) {
            const MatrixResult *r = x < nx && y < ny ? s->findIn(m_run, {step, m_columns[x], m_rows[y]}) : nullptr;
            data->setCell(x, y, r ? metricValue(r->metrics, m_metric) : std::nan(""));
        }
    const bool percent = m_metric == Metric::CompressionPct;
    m_map->setGradient(percent ? PlotStyle::yellowOrangeRed() : PlotStyle::viridis());
    // One colour scale for every shown run: equal colours mean equal values across panels.
    if (const auto range = s->valueRangeAtSteps(m_metric, m_rows, false)) {
        const auto [lowest, highest] = *range;
        m_map->setDataRange(highest > lowest ? QCPRange(lowest, highest) : QCPRange(lowest - 0.5, highest + 0.5));
    }
    m_scale->axis()->setLabel(metricAxisLabel(m_metric, s->energy()));

    QSharedPointer<QCPAxisTickerText> xTicks(new QCPAxisTickerText), yTicks(new QCPAxisTickerText);
    for (int x = 0; x < nx; ++x)
        xTicks->addTick(x, s->relativeDepth() ? QString::number(s->depthFraction(m_run, m_columns[x]), 'f', 2) : QString::number(m_columns[x]));
    plot()->xAxis->setLabel(s->relativeDepth() ? tr("Relative depth") : tr("Layer"));
    for (int y = 0; y < ny; ++y)
        yTicks->addTick(y, displayLabel(m_rows[y]));
    plot()->xAxis->setTicker(xTicks);
    plot()->yAxis->setTicker(yTicks);
    plot()->xAxis->setRange(-0.5, std::max(0, nx - 1) + 0.5);
    plot()->yAxis->setRange(-0.5, std::max(0, ny - 1) + 0.5);
    setTitle(tr("%1 at step %2 — %3").arg(QString::fromUtf8(metricInfo(m_metric).label)).arg(step).arg(s->runNameAt(m_run)));
    const auto h = s->highlighted();
    const qsizetype hx = h && h->run == m_run ? m_columns.indexOf(h->layer) : -1, hy = h ? m_rows.indexOf(h->type) : -1;
    m_highlight->setVisible(hx >= 0 && hy >= 0);
    m_highlight->topLeft->setCoords(hx - 0.5, hy - 0.5);
    m_highlight->bottomRight->setCoords(hx + 0.5, hy + 0.5);
    m_textsStale = true;
    refresh();
}

void TypeLayerHeatmap::placeCellTexts()
{
    const double cellWidth = std::abs(plot()->xAxis->coordToPixel(1) - plot()->xAxis->coordToPixel(0));
    const double cellHeight = std::abs(plot()->yAxis->coordToPixel(1) - plot()->yAxis->coordToPixel(0));
    if (!m_textsStale && QSizeF(cellWidth, cellHeight) == m_textCellSize)
        return;
    m_textsStale = false;
    m_textCellSize = QSizeF(cellWidth, cellHeight);
    for (QCPItemText *t : m_cellTexts)
        plot()->removeItem(t);
    m_cellTexts.clear();
    const int nx = int(m_columns.size()), ny = int(m_rows.size());
    if (nx == 0 || ny == 0)
        return;
    if (cellWidth < 34 || cellHeight < 15)
        return; // too small to read: the tooltip has the value
    QFont font = PlotStyle::tickFont();
    font.setPointSizeF(cellHeight < 20 ? 7.5 : 8.5);
    QCPColorGradient gradient = m_map->gradient(); // colorize() is not const
    const QCPRange range = m_map->dataRange();
    for (int x = 0; x < nx; ++x)
        for (int y = 0; y < ny; ++y) {
            const double v = m_map->data()->cell(x, y);
            auto *text = new QCPItemText(plot());
            text->position->setCoords(x, y);
            text->setText(cellText(v));
            text->setFont(font);
            text->setSelectable(false);
            text->setClipToAxisRect(true);
            // Dark text on light cells, light text on dark ones.
            QRgb colour = qRgb(217, 217, 217);
            if (std::isfinite(v))
                gradient.colorize(&v, range, &colour, 1);
            text->setColor(qGray(colour) > 140 ? QColor(0x22, 0x22, 0x22) : Qt::white);
            m_cellTexts.append(text);
        }
}

QPoint TypeLayerHeatmap::cellCentre(MatrixType type, int layer) const
{
    const qsizetype x = m_columns.indexOf(layer), y = m_rows.indexOf(type);
    if (x < 0 || y < 0)
        return {-1, -1};
    return QPointF(plot()->xAxis->coordToPixel(double(x)), plot()->yAxis->coordToPixel(double(y))).toPoint();
}

std::optional<MatrixKey> TypeLayerHeatmap::matrixAt(const QPoint &pixel) const
{
    if (!plot()->axisRect()->rect().contains(pixel) || m_columns.isEmpty() || m_rows.isEmpty())
        return std::nullopt;
    const long x = std::lround(plot()->xAxis->pixelToCoord(pixel.x()));
    const long y = std::lround(plot()->yAxis->pixelToCoord(pixel.y()));
    if (x < 0 || y < 0 || x >= m_columns.size() || y >= m_rows.size())
        return std::nullopt;
    return MatrixKey{state()->stepAt(m_run), m_columns[x], m_rows[y], m_run};
}

} // namespace rankscope
