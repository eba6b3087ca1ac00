// The lines figure ("lines", "lines+curves"): the metric against the step, and under it, on the
// same step axis, what training logged (shown when the run has logs; --scalar TAG on export).

#include "FigurePanels.h"
#include "MetricLineChart.h"
#include "TrainingCurveChart.h"

#include <QGridLayout>
#include <QTimer>

namespace rankscope {

namespace {

class LinePanels : public FigurePanels {
public:
    LinePanels(ViewState *state, QWidget *figure)
        : FigurePanels(figure), m_state(state), m_lines(new MetricLineChart(state, figure)), m_curves(new TrainingCurveChart(state, figure))
    {
        adopt(m_lines);
        adopt(m_curves);
        followSteps();
        connect(m_state, &ViewState::scalarsChanged, this, &LinePanels::showWhenLogged);
        showWhenLogged();
        // The plots' left edges level, so a step of the curves stands under the same step of the lines.
        m_alignTimer.setSingleShot(true);
        connect(&m_alignTimer, &QTimer::timeout, this, &LinePanels::alignStepAxes);
        connect(m_state, &ViewState::scalarsChanged, &m_alignTimer, qOverload<>(&QTimer::start));
        connect(m_state, &ViewState::resultsChanged, &m_alignTimer, qOverload<>(&QTimer::start));
        connect(m_state, &ViewState::displayChanged, &m_alignTimer, qOverload<>(&QTimer::start));
        connect(m_lines, &MetricLineChart::metricChanged, &m_alignTimer, qOverload<>(&QTimer::start));
    }

    QList<QList<ChartView *>> panels(QSize) const override
    {
        return m_state->hasScalars() ? QList<QList<ChartView *>>{{m_lines}, {m_curves}} : QList<QList<ChartView *>>{{m_lines}};
    }
    void place(QGridLayout *grid, QSize size) override
    {
        placeRows(grid, panels(size));
        // The training curves take two fifths under the lines.
        if (m_state->hasScalars())
            grid->setRowStretch(1, 2);
        m_alignTimer.start();
    }
    QList<Metric> metrics() const override { return {m_lines->metric()}; }
    void setMetrics(const QList<Metric> &metrics) override { m_lines->setMetric(metrics.first()); }
    QString configure(const ViewState &, const FigureOptions &options) override
    {
        if (options.scalar) {
            m_curves->setStepWindow(options.steps);
            m_curves->setTag(*options.scalar);
        }
        return m_lines->configure(options);
    }

private:
    // One step axis: zooming or panning either moves both; one crosshair: the step under the
    // cursor in either plot is read out in both.
    void followSteps()
    {
        auto follow = [](QCPAxis *from, QCPAxis *to) {
            connect(from, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), to, [to](const QCPRange &range) {
                if (to->range() != range) {
                    to->setRange(range);
                    to->parentPlot()->replot(QCustomPlot::rpQueuedReplot);
                }
            });
        };
        follow(m_lines->plot()->xAxis, m_curves->plot()->xAxis);
        follow(m_curves->plot()->xAxis, m_lines->plot()->xAxis);
        connect(m_lines, &ChartView::crosshairMoved, m_curves, &ChartView::followCrosshair);
        connect(m_curves, &ChartView::crosshairMoved, m_lines, &ChartView::followCrosshair);
    }

    void showWhenLogged()
    {
        m_curves->setVisible(m_state->hasScalars());
        emit layoutChanged();
        if (m_state->hasScalars())
            m_curves->plot()->xAxis->setRange(m_lines->plot()->xAxis->range());
        m_alignTimer.start();
    }

    void alignStepAxes()
    {
        if (!m_curves->isVisible())
            return;
        // Each plot where its own labels put it, then both where the wider needs.
        for (ChartView *view : {static_cast<ChartView *>(m_lines), static_cast<ChartView *>(m_curves)}) {
            view->alignPlotLeft(0);
            view->plot()->replot(QCustomPlot::rpImmediateRefresh);
        }
        const int left = std::max(m_lines->plotLeft(), m_curves->plotLeft());
        for (ChartView *view : {static_cast<ChartView *>(m_lines), static_cast<ChartView *>(m_curves)}) {
            view->alignPlotLeft(left);
            view->plot()->replot(QCustomPlot::rpQueuedReplot);
        }
    }

    ViewState *m_state;
    MetricLineChart *m_lines;
    TrainingCurveChart *m_curves;
    QTimer m_alignTimer; // levels the lines' and the curves' plots once the layout settles
};

} // namespace

FigurePanels *buildLinePanels(ViewState *state, QWidget *figure) { return new LinePanels(state, figure); }

} // namespace rankscope
