#include "TrainingCurveChart.h"

#include "PlotStyle.h"
#include "analysis/results/MetricsTable.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QTimer>
#include <algorithm>
#include <cmath>

namespace rankscope {

namespace {
// TensorBoard's default (METRICS_SETTINGS_DEFAULT scalarSmoothing).
constexpr double kDefaultSmoothing = 0.6;
} // namespace

TrainingCurveChart::TrainingCurveChart(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_tagBox(new QComboBox(this)), m_smoothingBox(new QDoubleSpinBox(this)), m_logBox(new QCheckBox(tr("Log y"), this)), m_problems(new QLabel(this)),
      m_stepMarker(addStepMarker())
{
    // The window's step, as the lines above mark it: the slider moves both.
    connect(state, &ViewState::currentStepChanged, this, [this] {
        placeStepMarker(m_stepMarker, m_figure.noData.isEmpty());
        plot()->replot(QCustomPlot::rpQueuedReplot);
    });
    headerLayout()->addWidget(new QLabel(tr("Training scalar"), this));
    headerLayout()->addWidget(m_tagBox);
    headerLayout()->addWidget(new QLabel(tr("Smoothing"), this));
    m_smoothingBox->setRange(0, 0.99);
    m_smoothingBox->setSingleStep(0.05);
    m_smoothingBox->setValue(kDefaultSmoothing);
    m_smoothingBox->setToolTip(tr("TensorBoard's smoothing: an exponential moving average, debiased at the start; 0 draws the points as logged"));
    headerLayout()->addWidget(m_smoothingBox);
    headerLayout()->addWidget(m_logBox);
    headerLayout()->addWidget(m_problems);
    headerLayout()->addStretch(1);
    connect(m_tagBox, &QComboBox::activated, this, [this] { setTag(m_tagBox->currentText()); });
    connect(m_smoothingBox, &QDoubleSpinBox::valueChanged, this, &TrainingCurveChart::rebuild);
    connect(m_logBox, &QCheckBox::toggled, this, &TrainingCurveChart::rebuild);

    enableZoom({plot()->axisRect()});
    enableCrosshair();
    connect(state, &ViewState::scalarsChanged, this, &TrainingCurveChart::rebuild);
    connect(state, &ViewState::resultsChanged, this, &TrainingCurveChart::rebuild); // the checkpoints marked
    connect(state, &ViewState::displayChanged, this, &TrainingCurveChart::rebuild); // steps as fractions
    rebuild();
}

void TrainingCurveChart::showEvent(QShowEvent *event)
{
    ChartView::showEvent(event);
    // Shown when a run's logs arrive, after the layout was fitted to the hidden size: fitted again
    // once the layout has given it its size (its axes' labels, for one).
    QTimer::singleShot(0, this, [this] {
        adaptLayout(plot()->size());
        refresh();
    });
}

std::unique_ptr<ChartView> TrainingCurveChart::createSibling() const
{
    auto sibling = std::make_unique<TrainingCurveChart>(state());
    sibling->m_smoothingBox->setValue(m_smoothingBox->value());
    sibling->m_logBox->setChecked(m_logBox->isChecked());
    sibling->m_steps = m_steps;
    sibling->setTag(m_tag);
    return sibling;
}

void TrainingCurveChart::setTag(const QString &tag)
{
    m_tag = tag;
    rebuild();
}

void TrainingCurveChart::setSmoothing(double weight) { m_smoothingBox->setValue(weight); }

void TrainingCurveChart::setStepWindow(std::optional<StepWindow> steps)
{
    m_steps = steps;
    rebuild();
}

void TrainingCurveChart::listTags()
{
    // The tags of every shown run's logs, the first run's first.
    QStringList tags;
    for (int run : state()->visibleRuns())
        for (const ScalarSeries &s : state()->scalarLogAt(run).series())
            if (!tags.contains(s.tag))
                tags << s.tag;
    if (!tags.contains(m_tag)) {
        // The loss, as the Trainer, Lightning or TensorBoard spell it, before anything else.
        const QStringList preferred = {QStringLiteral("loss"), QStringLiteral("train/loss"), QStringLiteral("train_loss"), QStringLiteral("val_bpb")};
        const auto it = std::find_if(preferred.begin(), preferred.end(), [&](const QString &t) { return tags.contains(t); });
        m_tag = it != preferred.end() ? *it : tags.value(0);
    }
    const QSignalBlocker quiet(m_tagBox);
    m_tagBox->clear();
    m_tagBox->addItems(tags);
    m_tagBox->setCurrentIndex(int(tags.indexOf(m_tag)));
    m_tagBox->setEnabled(tags.size() > 1);
}

void TrainingCurveChart::rebuild()
{
    listTags();
    m_figure = CurveFigureBuilder(*state(), m_tag, m_smoothingBox->value(), m_logBox->isChecked()).setStepWindow(m_steps).build();
    const CurveFigure &f = m_figure;
    QCustomPlot *p = plot();
    p->clearGraphs();
    m_smoothed.clear();
    const QColor ink = theme().ink;
    QColor faint = ink;
    faint.setAlphaF(0.25);
    // On paper at the font's scale, as the lines are; each run in its lines' dash pattern.
    const double k = penScale();
    for (const CurveSeries &series : f.series) {
        const Qt::PenStyle dash = PlotStyle::runLineStyle(series.runOrder);
        const QVector<double> x(series.x.begin(), series.x.end());
        QCPGraph *raw = p->addGraph();
        raw->setPen(QPen(faint, 1.2 * k, dash));
        raw->setData(x, QVector<double>(series.raw.begin(), series.raw.end()), true);
        raw->setVisible(m_smoothingBox->value() > 0); // unsmoothed, the smoothed line is the points themselves
        raw->removeFromLegend();
        QCPGraph *smoothed = p->addGraph();
        smoothed->setPen(QPen(ink, 1.8 * k, dash));
        smoothed->setData(x, QVector<double>(series.smoothed.begin(), series.smoothed.end()), true);
        QCPGraph *marks = p->addGraph();
        marks->setLineStyle(QCPGraph::lsNone);
        marks->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme().fit, theme().fit, 5 * k));
        marks->setData(QVector<double>(series.markX.begin(), series.markX.end()), QVector<double>(series.markY.begin(), series.markY.end()), true);
        marks->removeFromLegend();
        for (QCPGraph *graph : {raw, smoothed, marks})
            graph->setSelectable(QCP::stNone);
        m_smoothed << smoothed;
    }
    // Compared runs are told apart by dash pattern, keyed once in the legend of the lines above.
    p->legend->setVisible(false);
    PlotStyle::setLogScale(p->yAxis, f.logY);
    if (f.yRange)
        p->yAxis->setRange(f.yRange->lower, f.yRange->upper);
    if (f.xRange && !isZoomed())
        p->xAxis->setRange(f.xRange->lower, f.xRange->upper);
    p->xAxis->setLabel(f.xLabel);
    p->yAxis->setLabel(f.yLabel);
    placeStepMarker(m_stepMarker, f.noData.isEmpty());
    // Never silent: a damaged record or an unreadable log is said here, the points before it drawn.
    QList<ScalarLogProblem> problems;
    for (int run = 0; run < state()->runCount(); ++run)
        problems += state()->scalarLogAt(run).problems();
    m_problems->setVisible(!problems.isEmpty());
    m_problems->setText(problems.size() == 1 ? tr("\u26a0 a problem reading the logs") : tr("\u26a0 %1 problems reading the logs").arg(problems.size()));
    QStringList said;
    for (const ScalarLogProblem &problem : problems)
        said << QStringLiteral("%1: %2").arg(problem.path, problem.text).toHtmlEscaped();
    m_problems->setToolTip(said.join(QLatin1String("<br>")));
    setTitle(QString());
    setNoDataMessage(f.noData);
    refresh();
}

double TrainingCurveChart::stepMarkerX() const { return m_stepMarker->visible() ? m_stepMarker->point1->coords().x() : std::nan(""); }

QString TrainingCurveChart::tooltipAt(const QPoint &pixel) const
{
    if (!plot()->axisRect()->rect().contains(pixel))
        return {};
    const auto readout = m_figure.readoutAt(plot()->xAxis->pixelToCoord(pixel.x()));
    if (!readout)
        return {};
    QString text = tr("<b>step %1</b>").arg(readout->step);
    for (const LineReadout::Entry &entry : readout->entries)
        text += QStringLiteral("<br>%1 = %2").arg(entry.name.toHtmlEscaped(), entry.value.toHtmlEscaped());
    return text;
}

QString TrainingCurveChart::crosshairReadout(double x, double, double *snappedX) const
{
    // Snapped to the nearest logged step, as the lines above snap to their nearest checkpoint.
    const auto readout = m_figure.readoutAt(x);
    if (!readout)
        return {};
    *snappedX = readout->x;
    return readout->text();
}

QString TrainingCurveChart::dataCsv() const { return m_figure.csv(); }

QString TrainingCurveChart::problemsText() const { return m_problems->isVisibleTo(this) ? m_problems->text() + QLatin1Char('\n') + m_problems->toolTip() : QString(); }

} // namespace rankscope
