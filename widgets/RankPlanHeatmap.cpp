#include "RankPlanHeatmap.h"

#include "analysis/results/RankPlanTable.h"

#include <cmath>

namespace rankscope {

RankPlanHeatmap::RankPlanHeatmap(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_map(new QCPColorMap(plot()->xAxis, plot()->yAxis)), m_scale(new QCPColorScale(plot())),
      m_cellTexts(plot(), m_map)
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
    setHeatmapGrid(plot(), m_map, f.columnLabels, f.rowLabels, [&f](int y, int x) { return f.value(y, x); });
    if (f.colours.range)
        m_map->setDataRange(QCPRange(f.colours.range->lower, f.colours.range->upper));
    m_scale->axis()->setLabel(f.colours.label);
    plot()->xAxis->setLabel(f.xLabel);
    plot()->yAxis->setLabel(f.yLabel);
    setRowSeparators(plot(), m_separators, f.blockStarts, theme().background); // a gap between blocks
    setTitle(f.title);
    m_cellTexts.invalidate();
    setNoDataMessage(m_figure.noData);
    refresh();
}

void RankPlanHeatmap::adaptLayout(QSize size)
{
    const bool narrow = size.width() < 420;
    m_scale->setBarWidth(narrow ? 8 : 12);
    m_scale->axis()->setLabel(narrow ? QString() : m_figure.ranks.colours.label);
    // Under a caption (no title) the layer axis says which step was planned.
    plot()->xAxis->setLabel(titleLeftOut() && m_figure.noData.isEmpty()
                                ? QStringLiteral("%1 (%2)").arg(m_figure.ranks.xLabel, state()->stepWords(0, m_figure.plan.step, true))
                                : m_figure.ranks.xLabel);
    ChartView::adaptLayout(size);
}

void RankPlanHeatmap::placeCellTexts()
{
    const HeatmapFigure &f = m_figure.ranks;
    m_cellTexts.place(int(f.columns.size()), int(f.rows.size()), fontSize(), [this, &f](int y, int x, int) {
        // A matrix kept dense says so: its full rank alone reads like a factorisation.
        const double v = f.value(y, x);
        const PlannedRank *r = m_figure.matrixAt(y, x);
        if (r && r->dense && v == double(r->rank))
            return tr("dense");
        return std::isfinite(v) ? QString::number(v, 'f', v == std::floor(v) ? 0 : 1) : QStringLiteral("–");
    });
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
