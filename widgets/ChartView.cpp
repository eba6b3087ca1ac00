#include "ChartView.h"

#include "MetricSelector.h"
#include "PlotStyle.h"

#include <QLabel>

#include <QToolTip>
#include <QVBoxLayout>

namespace rankscope {

QString describeMatrix(const MatrixResult &r)
{
    return QStringLiteral("%1 · layer %2 · step %3<br><span style='color:#555; white-space:pre'>%4 [%5×%6] %7</span>")
        .arg(displayLabel(r.type).toHtmlEscaped())
        .arg(r.layer)
        .arg(r.step)
        .arg(r.tensor.toHtmlEscaped())
        .arg(r.rows)
        .arg(r.cols)
        .arg(r.dtype);
}

QString stepTableCsv(const ViewState &state, Metric metric, int run)
{
    QString csv = QStringLiteral("step,layer,type,tensor,rows,cols,%1\n").arg(QLatin1String(metricInfo(metric).column));
    for (int layer : state.visibleLayersAt(run))
        for (MatrixType type : state.visibleTypes())
            if (const MatrixResult *r = state.findIn(run, {state.stepAt(run), layer, type}))
                csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7\n").arg(r->step).arg(layer).arg(csvName(type), r->tensor)
                           .arg(r->rows).arg(r->cols).arg(metricValue(r->metrics, metric), 0, 'g', 10);
    return csv;
}

ChartView::ChartView(ViewState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_plot(new QCustomPlot(this)), m_header(new QHBoxLayout)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_header->setContentsMargins(6, 4, 6, 0);
    layout->addLayout(m_header);
    layout->addWidget(m_plot, 1);
    PlotStyle::applyPaperStyle(m_plot);
    m_title = PlotStyle::addTitle(m_plot);
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &ChartView::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) { m_pressPos = e->pos(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, &ChartView::onMouseRelease);
}

QString ChartView::title() const { return m_title->text(); }

MetricSelector *ChartView::addMetricSelector(Metric initial)
{
    auto *selector = new MetricSelector(initial, this);
    m_header->addWidget(new QLabel(tr("Metric"), this));
    m_header->addWidget(selector);
    return selector;
}

void ChartView::setTitle(const QString &text) { m_title->setText(m_titleOverride.isEmpty() ? text : m_titleOverride); }

void ChartView::setTitleOverride(const QString &title)
{
    m_titleOverride = title;
    rebuild();
}

void ChartView::refresh()
{
    if (isVisible()) {
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        m_stale = false;
    } else {
        m_stale = true;
    }
}

void ChartView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale) {
        m_plot->replot();
        m_stale = false;
    }
}

void ChartView::onMouseMove(QMouseEvent *event)
{
    const QString text = tooltipAt(event->pos());
    m_lastTooltip = text;
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(m_plot->mapToGlobal(event->pos()), text, m_plot);
}

void ChartView::onMouseRelease(QMouseEvent *event)
{
    if ((event->pos() - m_pressPos).manhattanLength() > 4 || event->button() != Qt::LeftButton)
        return;
    activate(event->pos());
}

void ChartView::activate(const QPoint &pixel)
{
    if (const auto key = matrixAt(pixel)) {
        m_state->setHighlighted(*key);
        m_state->requestSpectrum(*key);
    }
}

} // namespace rankscope
