#include "LayerBarChart.h"

#include "PlotStyle.h"
#include "TypeStyle.h"

#include <QComboBox>
#include <QLabel>
#include <algorithm>
#include <cmath>

namespace rankscope {

LayerBarChart::LayerBarChart(ViewState *state, QWidget *parent)
    : RunStepView(state, Metric::CompressionPct, parent), m_group(new QCPBarsGroup(plot()))
{
    headerLayout()->addStretch(1);

    m_group->setSpacingType(QCPBarsGroup::stPlotCoords); // BarGeometry: the group fits its slot at any width
    plot()->xAxis->setLabel(tr("Layer"));
    plot()->xAxis->grid()->setVisible(false);
    useSideLegend();
    plot()->setInteractions(QCP::iSelectLegend);
    enableZoom({plot()->axisRect()});
    plot()->legend->setSelectableParts(QCPLegend::spItems);
    connect(plot(), &QCustomPlot::legendClick, this, [this](QCPLegend *, QCPAbstractLegendItem *item, QMouseEvent *) {
        if (auto *plottableItem = qobject_cast<QCPPlottableLegendItem *>(item))
            if (auto *bars = qobject_cast<QCPBars *>(plottableItem->plottable()))
                this->state()->setTypeVisible(m_typeOf.value(bars), !this->state()->isTypeVisible(m_typeOf.value(bars)));
        plot()->legend->setSelectedParts(QCPLegend::spNone);
    });

    // A zoom or pan moves a logarithmic axis' lower bound, where the bars stand.
    connect(plot()->yAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this] {
        if (m_figure.logY)
            standBarsOnAxis();
    });
    connect(state, &ViewState::resultsChanged, this, &LayerBarChart::rebuild);
    connect(state, &ViewState::displayChanged, this, &LayerBarChart::rebuild);
    connect(state, &ViewState::currentStepChanged, this, &LayerBarChart::rebuild);
    connect(state, &ViewState::highlightChanged, this, &LayerBarChart::rebuild);
    rebuild();
}

std::unique_ptr<ChartView> LayerBarChart::createSibling() const
{
    auto sibling = std::make_unique<LayerBarChart>(state());
    sibling->m_metric = m_metric;
    sibling->m_run = m_run;
    return sibling;
}

QList<QCPBars *> LayerBarChart::bars() const { return m_group->bars(); }

QCPBars *LayerBarChart::barsOf(MatrixType type) const
{
    for (auto it = m_typeOf.begin(); it != m_typeOf.end(); ++it)
        if (it.value() == type)
            return it.key();
    return nullptr;
}

void LayerBarChart::rebuild()
{
    QCustomPlot *p = plot();
    m_group->clear();
    p->clearPlottables();
    m_typeOf.clear();
    m_figure = BarFigureBuilder(*state(), m_metric, m_run, figureMode()).build();
    const BarFigure &f = m_figure;
    for (const BarSeries &series : f.series)
        drawSeries(series);
    p->legend->setVisible(f.legendShown);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->setTicks(f.layerTicks);
    p->xAxis->setTicker(ticker);
    p->xAxis->setLabel(f.xLabel);
    if (f.xRange)
        p->xAxis->setRange(f.xRange->lower, f.xRange->upper);
    PlotStyle::setLogScale(p->yAxis, f.logY);
    if (f.yRange)
        p->yAxis->setRange(f.yRange->lower, f.yRange->upper);
    standBarsOnAxis();
    fitBars();
    p->yAxis->setLabel(f.yLabel);
    setTitle(f.title);
    setNoDataMessage(f.noData);
    refresh();
}

QPen LayerBarChart::barPen(const BarSeries &series) const
{
    // On the dark theme a dim fill (Q's blue) gets a light edge; a hidden type's legend entry is grey.
    const QColor edge = theme().dark ? typeEdgeOn(series.type, theme().background) : typeColour(series.type).darker(150);
    return series.highlighted ? QPen(theme().emphasis, 2.0) : series.visible ? QPen(edge, theme().dark ? 1.0 : 0.8) : QPen(theme().muted, 0.8);
}

void LayerBarChart::drawSeries(const BarSeries &series)
{
    QCustomPlot *p = plot();
    auto *bars = new QCPBars(p->xAxis, p->yAxis);
    bars->setName(displayLabel(series.type));
    const QColor colour = typeColour(series.type);
    bars->setPen(barPen(series));
    bars->setBrush(series.visible ? colour : theme().muted);
    bars->setWidth(m_figure.barWidth);
    m_typeOf.insert(bars, series.type);
    if (series.visible)
        m_group->append(bars); // hidden types leave the group so the others re-pack
    bars->setVisible(series.visible);
    if (!m_figure.legendShown)
        bars->removeFromLegend();
    if (auto *item = p->legend->itemWithPlottable(bars))
        PlotStyle::setLegendEntryMuted(item, theme(), !series.visible);
    if (!series.hasSpread())
        return;
    // A layer of several experts shows their mean, with a whisker from the smallest to the largest.
    auto *spread = new QCPErrorBars(p->xAxis, p->yAxis);
    spread->setDataPlottable(bars);
    spread->setPen(QPen(theme().ink, 1.0));
    spread->setWhiskerWidth(4);
    spread->removeFromLegend();
    spread->setSelectable(QCP::stNone);
    spread->setData(QVector<double>(series.spreadBelow.begin(), series.spreadBelow.end()),
                    QVector<double>(series.spreadAbove.begin(), series.spreadAbove.end()));
}

void LayerBarChart::adaptLayout(QSize size)
{
    RunStepView::adaptLayout(size);
    // The plot's width at `size`: what the last layout gave it, plus the change in size.
    const QRect rect = plot()->axisRect()->rect();
    const double width = rect.width() > 0 ? rect.width() + size.width() - plot()->viewport().width() : 0.7 * size.width();
    const double units = plot()->xAxis->range().size();
    fitBars(units > 0 ? width / units : 0);
}

void LayerBarChart::fitBars(double slotPixels)
{
    if (slotPixels <= 0) {
        const double units = plot()->xAxis->range().size();
        slotPixels = units > 0 ? plot()->axisRect()->rect().width() / units : 0;
    }
    // 16 layers in a paper's column ran each layer's bars into the next layer's.
    const BarGeometry geometry = BarGeometry::of(int(m_group->bars().size()), slotPixels);
    m_group->setSpacing(geometry.spacing);
    for (QCPBars *bars : m_group->bars()) {
        bars->setWidth(geometry.barWidth);
        const auto series = std::find_if(m_figure.series.begin(), m_figure.series.end(),
                                         [&](const BarSeries &s) { return s.type == m_typeOf.value(bars); });
        if (series == m_figure.series.end())
            continue;
        // Thin bars lose their outline, which would cover them; the highlighted one keeps its own.
        bars->setPen(geometry.outlined || series->highlighted ? barPen(*series) : QPen(Qt::NoPen));
    }
}

void LayerBarChart::standBarsOnAxis()
{
    // QCustomPlot draws a bar from its base to base + value: a bar standing on a logarithmic axis'
    // lower bound is given its value less that bound, so that its top is at its value (a 76 % bar
    // once rose past 100 when the bound was added to it).
    const double base = m_figure.logY ? plot()->yAxis->range().lower : 0;
    for (auto it = m_typeOf.begin(); it != m_typeOf.end(); ++it) {
        const auto series = std::find_if(m_figure.series.begin(), m_figure.series.end(), [&it](const BarSeries &s) { return s.type == it.value(); });
        if (series == m_figure.series.end())
            continue;
        QVector<double> keys, values;
        for (qsizetype i = 0; i < series->layers.size(); ++i) {
            keys << series->layers[i];
            values << plottedValue(series->values[i].value, m_figure.logY) - base;
        }
        it.key()->setBaseValue(base);
        it.key()->setData(keys, values, true);
    }
}

std::optional<MatrixKey> LayerBarChart::matrixAt(const QPoint &pixel) const
{
    for (QCPBars *bars : m_group->bars()) {
        QVariant details;
        const double distance = bars->selectTest(pixel, false, &details);
        if (distance < 0) // inside a bar: QCustomPlot answers just under the selection tolerance
            continue;
        const QCPDataSelection selection = details.value<QCPDataSelection>();
        if (selection.isEmpty())
            continue;
        const auto it = bars->data()->at(selection.dataRange().begin());
        // A bar of several experts opens the first of them.
        const qint64 step = state()->stepAt(m_run);
        const MatrixCell cell = state()->cell(m_run, step, state()->block(), int(std::lround(it->key)), m_typeOf.value(bars));
        if (cell.isEmpty())
            return std::nullopt;
        return MatrixKey{m_run, step, cell.matrices.first()->identity()};
    }
    return std::nullopt;
}

} // namespace rankscope
