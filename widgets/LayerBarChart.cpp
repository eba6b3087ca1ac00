#include "LayerBarChart.h"

#include "PlotStyle.h"
#include "TypeStyle.h"

#include <QComboBox>
#include <QLabel>
#include <cmath>

namespace rankscope {

LayerBarChart::LayerBarChart(ViewState *state, QWidget *parent)
    : RunStepView(state, Metric::CompressionPct, parent), m_group(new QCPBarsGroup(plot()))
{
    headerLayout()->addStretch(1);

    m_group->setSpacingType(QCPBarsGroup::stAbsolute);
    m_group->setSpacing(1);
    plot()->xAxis->setLabel(tr("Layer"));
    plot()->xAxis->grid()->setVisible(false);
    PlotStyle::placeLegendRight(plot(), plot()->axisRect());
    plot()->setInteractions(QCP::iSelectLegend);
    plot()->legend->setSelectableParts(QCPLegend::spItems);
    connect(plot(), &QCustomPlot::legendClick, this, [this](QCPLegend *, QCPAbstractLegendItem *item, QMouseEvent *) {
        if (auto *plottableItem = qobject_cast<QCPPlottableLegendItem *>(item))
            if (auto *bars = qobject_cast<QCPBars *>(plottableItem->plottable()))
                this->state()->setTypeVisible(m_typeOf.value(bars), !this->state()->isTypeVisible(m_typeOf.value(bars)));
        plot()->legend->setSelectedParts(QCPLegend::spNone);
    });

    connect(state, &ViewState::resultsChanged, this, &LayerBarChart::rebuild);
    connect(state, &ViewState::displayChanged, this, &LayerBarChart::rebuild);
    connect(state, &ViewState::currentStepChanged, this, &LayerBarChart::rebuild);
    connect(state, &ViewState::highlightChanged, this, &LayerBarChart::rebuild);
    rebuild();
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
    const ViewState *s = state();
    const QList<int> layers = s->visibleLayersAt(m_run);
    const qint64 step = s->stepAt(m_run);
    const bool logY = s->logY();
    const QList<MatrixType> visible = s->visibleTypes();
    // Each layer's group spans 80 % of the unit between layers, split among the visible types.
    const double width = visible.isEmpty() ? 0.8 : 0.8 / visible.size();
    for (MatrixType type : s->presentTypes()) {
        auto *bars = new QCPBars(p->xAxis, p->yAxis);
        bars->setName(displayLabel(type));
        const QColor colour = typeColour(type);
        bars->setPen(QPen(colour.darker(150), 0.8));
        bars->setBrush(colour);
        bars->setWidth(width);
        m_typeOf.insert(bars, type);
        const bool isVisible = s->isTypeVisible(type);
        if (isVisible)
            m_group->append(bars); // hidden types leave the group so the others re-pack
        bars->setVisible(isVisible);
        if (auto *item = p->legend->itemWithPlottable(bars))
            item->setTextColor(isVisible ? QColor(0x22, 0x22, 0x22) : QColor(0xAA, 0xAA, 0xAA));
        for (int layer : layers) {
            const MatrixResult *r = s->findIn(m_run, {step, layer, type});
            const double v = r ? metricValue(r->metrics, m_metric) : std::nan("");
            bars->addData(layer, logY && !(v > 0) ? std::nan("") : v);
        }
        if (const auto h = s->highlighted(); h && h->type == type && h->run == m_run && isVisible)
            bars->setPen(QPen(QColor(0x11, 0x11, 0x11), 2.0));
    }
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int layer : layers)
        ticker->addTick(layer, s->relativeDepth() ? QString::number(s->depthFraction(m_run, layer), 'f', 2) : QString::number(layer));
    p->xAxis->setTicker(ticker);
    p->xAxis->setLabel(s->relativeDepth() ? tr("Relative depth (layer / (depth − 1))") : tr("Layer"));
    if (!layers.isEmpty())
        p->xAxis->setRange(layers.first() - 0.6, layers.last() + 0.6);
    PlotStyle::setLogScale(p->yAxis, logY);
    // The value axis spans every shown run, so side-by-side panels share one scale.
    const auto range = s->valueRangeAtSteps(m_metric, visible, logY);
    if (range) {
        const auto [lowest, highest] = *range;
        if (logY)
            p->yAxis->setRange(lowest / 1.5, highest * 1.5);
        else
            p->yAxis->setRange(std::min(0.0, lowest * 1.08), std::max(0.0, highest * 1.08));
        if (!logY && (m_metric == Metric::CompressionPct) && lowest >= 0)
            p->yAxis->setRange(0, 100);
    }
    // Bars start at zero on a linear axis, at the bottom of a logarithmic one.
    for (QCPBars *b : m_typeOf.keys())
        b->setBaseValue(logY ? p->yAxis->range().lower : 0);
    p->yAxis->setLabel(metricAxisLabel(m_metric, s->energy()));
    setTitle(tr("%1 by layer at step %2 — %3").arg(QString::fromUtf8(metricInfo(m_metric).label)).arg(step).arg(s->runNameAt(m_run)));
    refresh();
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
        return MatrixKey{state()->stepAt(m_run), int(std::lround(it->key)), m_typeOf.value(bars), m_run};
    }
    return std::nullopt;
}

} // namespace rankscope
