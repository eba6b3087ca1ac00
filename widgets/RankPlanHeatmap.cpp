#include "RankPlanHeatmap.h"

#include "analysis/RankPlanTable.h"

#include <cmath>

namespace rankscope {

RankPlanHeatmap::RankPlanHeatmap(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_map(new QCPColorMap(plot()->xAxis, plot()->yAxis)), m_scale(new QCPColorScale(plot()))
{
    headerLayout()->addStretch(1);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    body()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(12);
    m_scale->axis()->setLabelFont(PlotStyle::labelFont());
    m_scale->axis()->setTickLabelFont(PlotStyle::tickFont());
    m_map->setColorScale(m_scale);
    m_map->setGradient(PlotStyle::viridis());
    auto *margins = new QCPMarginGroup(plot());
    plot()->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    plot()->yAxis->setRangeReversed(true); // Q at the top, as in a table
    for (QCPAxis *axis : {plot()->xAxis, plot()->yAxis}) {
        axis->grid()->setVisible(false);
        axis->setTickLength(0, 3);
        axis->setSubTicks(false);
    }
    connect(plot(), &QCustomPlot::afterLayout, this, &RankPlanHeatmap::placeCellTexts);
    connect(state, &ViewState::resultsChanged, this, &RankPlanHeatmap::rebuild);
    connect(state, &ViewState::currentStepChanged, this, &RankPlanHeatmap::rebuild);
    rebuild();
}

std::unique_ptr<ChartView> RankPlanHeatmap::createSibling() const
{
    auto sibling = std::make_unique<RankPlanHeatmap>(state());
    sibling->setTarget(m_target);
    return sibling;
}

void RankPlanHeatmap::setTarget(const RankTarget &target)
{
    m_target = target;
    rebuild();
}

void RankPlanHeatmap::rebuild()
{
    m_figure = RankPlanFigureBuilder(*state(), m_target).build();
    const HeatmapFigure &f = m_figure.ranks;
    const int nx = int(f.columns.size()), ny = int(f.rows.size());
    QCPColorMapData *data = m_map->data();
    data->setSize(std::max(1, nx), std::max(1, ny));
    data->setRange(nx > 1 ? QCPRange(0, nx - 1) : QCPRange(-0.5, 0.5), ny > 1 ? QCPRange(0, ny - 1) : QCPRange(-0.5, 0.5));
    for (int x = 0; x < std::max(1, nx); ++x)
        for (int y = 0; y < std::max(1, ny); ++y)
            data->setCell(x, y, x < nx && y < ny ? f.value(y, x) : std::nan(""));
    if (f.colours.range)
        m_map->setDataRange(QCPRange(f.colours.range->lower, f.colours.range->upper));
    m_scale->axis()->setLabel(f.colours.label);
    QSharedPointer<QCPAxisTickerText> xTicks(new QCPAxisTickerText), yTicks(new QCPAxisTickerText);
    for (int x = 0; x < nx; ++x)
        xTicks->addTick(x, f.columnLabels[x]);
    for (int y = 0; y < ny; ++y)
        yTicks->addTick(y, f.rowLabels[y]);
    plot()->xAxis->setTicker(xTicks);
    plot()->yAxis->setTicker(yTicks);
    plot()->xAxis->setLabel(f.xLabel);
    plot()->yAxis->setLabel(f.yLabel);
    plot()->xAxis->setRange(-0.5, std::max(0, nx - 1) + 0.5);
    plot()->yAxis->setRange(-0.5, std::max(0, ny - 1) + 0.5);
    for (QCPItemStraightLine *line : m_separators)
        plot()->removeItem(line);
    m_separators.clear();
    for (int y : f.blockStarts) {
        auto *line = new QCPItemStraightLine(plot());
        line->point1->setCoords(0, y - 0.5);
        line->point2->setCoords(1, y - 0.5);
        line->setPen(QPen(theme().background, 3)); // a gap between blocks
        line->setSelectable(false);
        m_separators << line;
    }
    setTitle(f.title);
    m_textsStale = true;
    setNoDataMessage(m_figure.noData);
    refresh();
}

void RankPlanHeatmap::placeCellTexts()
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
    QFont font = PlotStyle::tickFont(fontSize());
    const QFontMetricsF metrics(font);
    if (metrics.horizontalAdvance(tr("dense")) + 4 > cellWidth || metrics.height() + 1 > cellHeight)
        return; // too small to read: the tooltip has the rank
    const HeatmapFigure &f = m_figure.ranks;
    QCPColorGradient gradient = m_map->gradient(); // colorize() is not const
    const QCPRange range = m_map->dataRange();
    for (int x = 0; x < int(f.columns.size()); ++x)
        for (int y = 0; y < int(f.rows.size()); ++y) {
            const double v = f.value(y, x);
            auto *text = new QCPItemText(plot());
            text->position->setCoords(x, y);
            // A matrix kept dense says so: its full rank alone reads like a factorisation.
            const PlannedRank *r = m_figure.matrixAt(y, x);
            const bool dense = r && r->dense && v == double(r->rank);
            text->setText(dense ? tr("dense") : std::isfinite(v) ? QString::number(v, 'f', v == std::floor(v) ? 0 : 1) : QStringLiteral("–"));
            text->setFont(font);
            text->setSelectable(false);
            text->setClipToAxisRect(true);
            QRgb colour = qRgb(217, 217, 217);
            if (std::isfinite(v))
                gradient.colorize(&v, range, &colour, 1);
            text->setColor(qGray(colour) > 140 ? QColor(0x22, 0x22, 0x22) : Qt::white);
            m_cellTexts << text;
        }
}

std::pair<int, int> RankPlanHeatmap::cellAt(const QPoint &pixel) const
{
    const HeatmapFigure &f = m_figure.ranks;
    if (!plot()->axisRect()->rect().contains(pixel) || f.columns.isEmpty() || f.rows.isEmpty())
        return {-1, -1};
    const long x = std::lround(plot()->xAxis->pixelToCoord(pixel.x()));
    const long y = std::lround(plot()->yAxis->pixelToCoord(pixel.y()));
    if (x < 0 || y < 0 || x >= f.columns.size() || y >= f.rows.size())
        return {-1, -1};
    return {int(y), int(x)};
}

QPoint RankPlanHeatmap::cellCentre(MatrixType type, int layer, const QString &block) const
{
    const qsizetype x = m_figure.ranks.columns.indexOf(layer), y = m_figure.ranks.rows.indexOf(HeatmapRow{block, type});
    if (x < 0 || y < 0)
        return {-1, -1};
    return QPointF(plot()->xAxis->coordToPixel(double(x)), plot()->yAxis->coordToPixel(double(y))).toPoint();
}

QString RankPlanHeatmap::tooltipAt(const QPoint &pixel) const
{
    const auto [row, column] = cellAt(pixel);
    const PlannedRank *r = m_figure.matrixAt(row, column);
    if (!r)
        return {};
    return tr("%1\n%2 × %3 · rank %4 of %5%6\nenergy kept %7 · relative error %8\nparameters %9 → %10 (%11 saved)")
        .arg(r->tensor)
        .arg(r->rows)
        .arg(r->cols)
        .arg(r->rank)
        .arg(std::min(r->rows, r->cols))
        .arg(r->dense ? tr(" (kept dense)") : QString())
        .arg(r->energyKept, 0, 'f', 4)
        .arg(r->relativeError, 0, 'f', 4)
        .arg(r->paramsBefore)
        .arg(r->paramsAfter)
        .arg(r->paramsSaved());
}

std::optional<MatrixKey> RankPlanHeatmap::matrixAt(const QPoint &pixel) const
{
    const auto [row, column] = cellAt(pixel);
    const PlannedRank *r = m_figure.matrixAt(row, column);
    if (!r)
        return std::nullopt;
    return MatrixKey{0, m_figure.plan.step, r->id};
}

QString RankPlanHeatmap::dataCsv() const
{
    return QString::fromUtf8(RankPlanTable::toCsv(m_figure.plan));
}

} // namespace rankscope
