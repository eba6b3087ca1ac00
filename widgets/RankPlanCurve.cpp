#include "RankPlanCurve.h"

#include <QLineF>
#include <algorithm>
#include <cmath>

namespace rankscope {

RankPlanCurve::RankPlanCurve(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_curve(plot()->addGraph()), m_mark(plot()->addGraph())
{
    headerLayout()->addStretch(1);
    m_mark->setLineStyle(QCPGraph::lsNone);
    plot()->legend->setVisible(false);
    enableZoom({plot()->axisRect()});
    enableCrosshair();
    connect(state, &ViewState::resultsChanged, this, &RankPlanCurve::rebuild);
    connect(state, &ViewState::currentStepChanged, this, &RankPlanCurve::rebuild);
    rebuild();
}

std::unique_ptr<ChartView> RankPlanCurve::createSibling() const
{
    auto sibling = std::make_unique<RankPlanCurve>(state());
    sibling->setTarget(m_target);
    return sibling;
}

void RankPlanCurve::setTarget(const RankTarget &target)
{
    m_target = target;
    rebuild();
}

void RankPlanCurve::rebuild()
{
    m_figure = RankPlanFigureBuilder(*state(), m_target).build();
    QVector<double> x, y;
    for (const BudgetPoint &p : m_figure.curve) {
        x << p.keptFraction;
        y << p.relativeError;
    }
    m_curve->setData(x, y, true);
    m_curve->setPen(QPen(theme().ink, 1.6));
    m_mark->setData({m_figure.marked.keptFraction}, {m_figure.marked.relativeError});
    m_mark->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme().fit, theme().fit, 9));
    m_mark->setVisible(!m_figure.curve.isEmpty());
    labelAxes();
    const double left = m_figure.curve.isEmpty() ? 0 : m_figure.curve.first().keptFraction;
    const double top = m_figure.curve.isEmpty() ? 1 : std::max(m_figure.curve.first().relativeError, m_figure.marked.relativeError);
    plot()->xAxis->setRange(std::max(0.0, left - 0.02), 1.02);
    plot()->yAxis->setRange(0, top > 0 ? top * 1.05 : 1);
    setTitle(m_figure.curveTitle.isEmpty() ? tr("Error vs budget") : m_figure.curveTitle + QStringLiteral(" · ● ") + m_figure.plan.target.words());
    setNoDataMessage(m_figure.noData);
    refresh();
}

void RankPlanCurve::labelAxes()
{
    // Under a caption (no title) the x axis says what the marked point is.
    plot()->xAxis->setLabel(titleLeftOut() ? tr("%1 (\u25cf %2)").arg(m_figure.curveXLabel, m_figure.plan.target.words()) : m_figure.curveXLabel);
    plot()->yAxis->setLabel(m_figure.curveYLabel);
}

void RankPlanCurve::adaptLayout(QSize size)
{
    labelAxes();
    ChartView::adaptLayout(size);
}

QString RankPlanCurve::tooltipAt(const QPoint &pixel) const
{
    if (m_figure.curve.isEmpty() || !plot()->axisRect()->rect().contains(pixel))
        return {};
    // The marked plan when the pointer is on it, else the curve's point nearest in x.
    const QPointF mark(plot()->xAxis->coordToPixel(m_figure.marked.keptFraction), plot()->yAxis->coordToPixel(m_figure.marked.relativeError));
    if (QLineF(mark, QPointF(pixel)).length() <= 8)
        return tr("%1: %2 % of the parameters kept · total relative error %3")
            .arg(m_figure.plan.target.text())
            .arg(100 * m_figure.marked.keptFraction, 0, 'f', 1)
            .arg(m_figure.marked.relativeError, 0, 'f', 4);
    const double x = plot()->xAxis->pixelToCoord(pixel.x());
    const auto nearest = std::min_element(m_figure.curve.begin(), m_figure.curve.end(), [x](const BudgetPoint &a, const BudgetPoint &b) {
        return std::abs(a.keptFraction - x) < std::abs(b.keptFraction - x);
    });
    return tr("Budget plan: %1 % of the parameters kept · total relative error %2")
        .arg(100 * nearest->keptFraction, 0, 'f', 1)
        .arg(nearest->relativeError, 0, 'f', 4);
}

QString RankPlanCurve::dataCsv() const
{
    QString csv = QStringLiteral("kept_fraction,relative_error\n");
    for (const BudgetPoint &p : m_figure.curve)
        csv += QStringLiteral("%1,%2\n").arg(p.keptFraction, 0, 'g', 10).arg(p.relativeError, 0, 'g', 10);
    return csv;
}

} // namespace rankscope
