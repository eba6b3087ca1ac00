#include "LayerBarChart.h"

#include "PlotStyle.h"
#include "TypeStyle.h"

#include <QComboBox>
#include <QLabel>
#include <cmath>
#include <limits>

namespace rankscope {

LayerBarChart::LayerBarChart(ViewState *state, QWidget *parent)
    : RunStepView(state, Metric::CompressionPct, parent), m_group(new QCPBarsGroup(plot()))
{
    headerLayout()->addStretch(1);

    m_group->setSpacingType(QCPBarsGroup::stAbsolute);
    m_group->setSpacing(1);
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
    const QString block = s->block();
    const QList<int> layers = s->visibleLayersAt(m_run);
    const qint64 step = s->stepAt(m_run);
    const bool logY = s->logY();
    const QList<MatrixType> types = s->typesIn(block);
    QList<MatrixType> visible;
    for (MatrixType type : types)
        if (s->isTypeVisible(type))
            visible << type;
    bool anyExperts = false;
    double whiskerLow = std::numeric_limits<double>::infinity(), whiskerHigh = -whiskerLow;
    // Each layer's group spans 80 % of the unit between layers, split among the visible types.
    const double width = visible.isEmpty() ? 0.8 : 0.8 / visible.size();
    for (MatrixType type : types) {
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
            item->setTextColor(isVisible ? theme().text : theme().muted);
        // A layer of several experts shows their mean, with a whisker from the smallest to the largest.
        QCPErrorBars *spread = nullptr;
        for (int layer : layers) {
            const MatrixCell cell = s->cell(m_run, step, block, layer, type);
            const AggregatePoint v = cell.isEmpty() ? AggregatePoint{0, std::nan(""), 0, 0, 0, 0} : aggregateValues(cell.matrices, m_metric);
            bars->addData(layer, logY && !(v.value > 0) ? std::nan("") : v.value);
            if (cell.matrices.size() > 1 && isVisible) {
                if (!spread) {
                    spread = new QCPErrorBars(p->xAxis, p->yAxis);
                    spread->setDataPlottable(bars);
                    spread->setPen(QPen(theme().ink, 1.0));
                    spread->setWhiskerWidth(4);
                    spread->removeFromLegend();
                    spread->setSelectable(QCP::stNone);
                    spread->setData(QVector<double>(bars->data()->size() - 1, std::nan("")), QVector<double>(bars->data()->size() - 1, std::nan("")));
                }
                spread->addData(std::isfinite(v.value) ? v.value - v.min : std::nan(""), std::isfinite(v.value) ? v.max - v.value : std::nan(""));
                if (std::isfinite(v.value) && (!logY || v.min > 0)) {
                    whiskerLow = std::min(whiskerLow, v.min);
                    whiskerHigh = std::max(whiskerHigh, v.max);
                }
                anyExperts = true;
            } else if (spread) {
                spread->addData(std::nan(""), std::nan(""));
            }
        }
        const auto h = s->highlighted();
        if (h && h->id.type == type && h->id.block == block && h->run == m_run && isVisible)
            bars->setPen(QPen(theme().emphasis, 2.0));
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
    if (const auto range = s->valueRangeAtSteps(m_metric, {block}, visible, logY)) {
        auto [lowest, highest] = *range;
        // The whiskers must fit too.
        lowest = std::min(lowest, whiskerLow);
        highest = std::max(highest, whiskerHigh);
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
    QString scope = s->runNameAt(m_run);
    if (const QString range = s->layerRangeText(); !range.isEmpty())
        scope = range + QStringLiteral(", ") + scope;
    if (!block.isEmpty())
        scope = block + QStringLiteral(", ") + scope;
    if (anyExperts)
        scope = tr("mean of experts (whiskers: min–max), %1").arg(scope);
    else if (!s->expert().isEmpty())
        scope = (s->expert() == QLatin1String(kSharedExpert) ? tr("shared expert") : tr("expert %1").arg(s->expert())) + QStringLiteral(", ") + scope;
    setTitle(tr("%1 by layer at step %2 — %3").arg(QString::fromUtf8(metricInfo(m_metric).label)).arg(step).arg(scope));
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
