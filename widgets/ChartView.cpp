#include "ChartView.h"

#include "MetricSelector.h"
#include "AxisTickers.h"
#include "PlotStyle.h"
#include "analysis/results/MetricsTable.h"
#include "figures/AlphaIntervals.h"
#include "figures/LineFigure.h"

#include <QActionGroup>
#include <QClipboard>
#include <QCoreApplication>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QShortcut>
#include <QTimer>
#include <cmath>
#include <typeinfo>
#include <QMap>

#include <QToolTip>
#include <QVBoxLayout>

namespace rankscope {


void addLegendMenu(QMenu *menu, ViewState *state)
{
    QMenu *legend = menu->addMenu(QCoreApplication::translate("ChartView", "Legend"));
    auto *group = new QActionGroup(legend);
    for (LegendPosition position : allLegendPositions()) {
        QAction *action = legend->addAction(legendPositionLabel(position), state, [state, position] { state->setLegendPosition(position); });
        action->setCheckable(true);
        action->setData(int(position));
        group->addAction(action);
    }
    // Checked as the menu opens: the window's menu lives on while the position changes elsewhere.
    QObject::connect(legend, &QMenu::aboutToShow, legend, [legend, state] {
        for (QAction *action : legend->actions())
            action->setChecked(action->data().toInt() == int(state->legendPosition()));
    });
}

QString describeMatrix(const MatrixResult &r)
{
    QStringList where;
    if (!r.block.isEmpty())
        where << r.block.toHtmlEscaped();
    where << displayLabel(r.type).toHtmlEscaped() << QStringLiteral("layer %1").arg(r.layer);
    if (!r.expert.isEmpty())
        where << (r.expert == QLatin1String(kSharedExpert) ? QStringLiteral("shared expert") : QStringLiteral("expert %1").arg(r.expert.toHtmlEscaped()));
    where << QStringLiteral("step %1").arg(r.step);
    // The tensor's line never breaks (a name is one word, whatever its dots and slashes); the line
    // above wraps between words.
    return QStringLiteral("%1<p style='color:#555; white-space:pre; margin:0'>%2 [%3×%4] %5</p>")
        .arg(where.join(QStringLiteral(" · ")), r.tensor.toHtmlEscaped())
        .arg(r.rows)
        .arg(r.cols)
        .arg(r.dtype);
}

QString describeCell(const MatrixCell &cell, Metric metric)
{
    const QString name = QString::fromUtf8(metric.info().label);
    auto number = [](double v) { return valueNumber(v); };
    // α with --alpha-ci: "α = 3.12 [2.95, 3.30]", the interval of the matrix (or of its experts' mean).
    const std::optional<AxisRange> interval = metric == Metric::Alpha ? meanAlphaInterval(cell.matrices) : std::nullopt;
    const QString intervalText = interval ? QStringLiteral(" ") + alphaIntervalText(*interval, 2) : QString();
    if (const MatrixResult *r = cell.single())
        return QStringLiteral("<b>%1 = %2%3</b><br>%4").arg(name, number(metricValue(r->metrics, metric)), intervalText, describeMatrix(*r));
    const AggregatePoint p = aggregateValues(cell.matrices, metric);
    const MatrixResult &first = *cell.matrices.first();
    QString where = first.block.isEmpty() ? QString() : first.block.toHtmlEscaped() + QStringLiteral(" · ");
    where += QStringLiteral("%1 · layer %2 · step %3").arg(displayLabel(first.type).toHtmlEscaped()).arg(first.layer).arg(first.step);
    return QStringLiteral("<b>%1 = %2</b>%8 (mean of %3 experts)<br>min %4 · max %5%6<br>%7")
        .arg(name, number(p.value)).arg(cell.matrices.size()).arg(number(p.min), number(p.max))
        .arg(p.missing ? QStringLiteral(" · %1 NaN left out").arg(p.missing) : QString(), where, intervalText);
}

QString stepTableCsvHeader() { return QStringLiteral("step,block,layer,type,expert,tensor,rows,cols,value,run,metric"); }

QString stepTableCsv(const ViewState &state, Metric metric, int run, const QStringList &blocks, LayerView view)
{
    // One long table whatever the panels: a heatmap pair's two metrics and a comparison's runs are
    // rows of the same columns (FigureView writes the header once), ready for a groupby.
    QString csv = stepTableCsvHeader() + QLatin1Char('\n');
    const QString tail = QStringLiteral(",%1,%2\n").arg(MetricsTable::csvField(state.runNameAt(run)), QLatin1String(metric.info().column));
    for (const QString &block : blocks)
        for (int layer : state.visibleLayersAt(run, block, view))
            for (MatrixType type : state.visibleTypes())
                for (const MatrixResult *r : state.cell(run, block, layer, type).matrices)
                    csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9").arg(r->step).arg(MetricsTable::csvField(block)).arg(layer)
                               .arg(csvName(type), MetricsTable::csvField(r->expert), MetricsTable::csvField(r->tensor))
                               .arg(r->rows).arg(r->cols).arg(MetricsTable::formatNumber(metricValue(r->metrics, metric))) + tail;
    return csv;
}

ChartView::ChartView(ViewState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_plot(new QCustomPlot(this)), m_header(new QHBoxLayout), m_axes(m_plot)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_header->setContentsMargins(6, 4, 6, 0);
    layout->addLayout(m_header);
    layout->addWidget(m_plot, 1);
    PlotStyle::applyPaperStyle(m_plot);
    m_title = PlotStyle::addTitle(m_plot);
    // Everything but the title sits in one row of its own, so the title spans the whole figure
    // however many columns (legend, colour scale, second panel) the views add.
    QCPAxisRect *rect = m_plot->axisRect();
    m_plot->plotLayout()->take(rect);
    m_plot->plotLayout()->simplify();
    m_body = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, m_body);
    m_body->addElement(0, 0, rect);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this); // the mouse leaving the plot takes the crosshair away
    connect(m_plot, &QCustomPlot::mouseMove, this, &ChartView::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *e) {
        m_pressPos = e->pos();
        m_userInteracting = true;
        // Shift+drag draws a rectangle to zoom into; a plain drag pans.
        m_plot->setSelectionRectMode(e->modifiers() & Qt::ShiftModifier && !m_zoomRects.isEmpty() ? QCP::srmZoom : QCP::srmNone);
    });
    connect(m_plot, &QCustomPlot::mouseRelease, this, &ChartView::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseWheel, this, [this] {
        m_userInteracting = true; // the wheel zooms right after this signal
        QTimer::singleShot(0, this, [this] { m_userInteracting = false; });
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent *e) {
        if (e->button() == Qt::LeftButton && isZoomed())
            resetZoom();
    });
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, &ChartView::showContextMenu);
    auto *home = new QShortcut(QKeySequence(Qt::Key_Home), this, this, &ChartView::resetZoom);
    home->setContext(Qt::WidgetWithChildrenShortcut);
    // Another run: the zoom and readout of the last one mean nothing for it.
    connect(state, &ViewState::runReplaced, this, [this] {
        m_zoom.clear();
        hideCrosshair();
    });
    connect(state, &ViewState::themeChanged, this, [this] {
        if (!isPaper())
            rebuild(); // its refresh() recolours the frame
    });
    PlotStyle::applyTheme(m_plot, theme());
}

const PlotStyle::Theme &ChartView::theme() const
{
    return PlotStyle::Theme::of(m_paper ? m_paper->dark : m_state->darkTheme());
}

void ChartView::enableZoom(const QList<QCPAxisRect *> &rects)
{
    m_zoomRects = rects;
    m_plot->setInteractions(m_plot->interactions() | QCP::iRangeDrag | QCP::iRangeZoom);
    for (QCPAxisRect *rect : rects) {
        rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
        rect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
        rect->setRangeZoomFactor(0.85);
        for (QCPAxis *axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)})
            connect(axis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this, rect] {
                hideCrosshair(); // its readout was for the cursor over the old ranges
                rememberZoom(rect);
            });
    }
}

void ChartView::rememberZoom(QCPAxisRect *rect)
{
    if (!m_userInteracting || isPaper())
        return;
    QCPAxis *x = rect->axis(QCPAxis::atBottom), *y = rect->axis(QCPAxis::atLeft);
    m_zoom.insert(rect, {x->range(), y->range(), fullLabel(x), fullLabel(y)});
}

void ChartView::applyZoom()
{
    for (auto it = m_zoom.begin(); it != m_zoom.end();) {
        QCPAxis *x = it.key()->axis(QCPAxis::atBottom), *y = it.key()->axis(QCPAxis::atLeft);
        if (fullLabel(x) != it->xLabel || fullLabel(y) != it->yLabel) {
            it = m_zoom.erase(it); // the axes show something else now: fit it
            continue;
        }
        x->setRange(it->x);
        y->setRange(y->scaleType() == QCPAxis::stLogarithmic && it->y.lower <= 0 ? y->range() : it->y);
        ++it;
    }
}

void ChartView::resetZoom()
{
    if (m_zoom.isEmpty())
        return;
    m_zoom.clear();
    rebuild();
}

void ChartView::showContextMenu(const QPoint &pixel)
{
    QMenu menu(this);
    QAction *reset = menu.addAction(tr("Reset zoom"), this, &ChartView::resetZoom);
    reset->setShortcut(QKeySequence(Qt::Key_Home));
    reset->setEnabled(isZoomed());
    menu.addSeparator();
    menu.addAction(tr("Copy figure"), this, [this] { QGuiApplication::clipboard()->setPixmap(m_plot->toPixmap()); });
    menu.addAction(tr("Copy data as CSV"), this, [this] { QGuiApplication::clipboard()->setText(dataCsv()); });
    menu.addAction(tr("Export this view…"), this, &ChartView::exportRequested);
    if (m_sideLegend) {
        menu.addSeparator();
        addLegendMenu(&menu, m_state);
    }
    menu.exec(m_plot->mapToGlobal(pixel));
}

void ChartView::updateCrosshair(const QPoint &pixel)
{
    QCPAxisRect *rect = m_plot->axisRect();
    if (!m_crosshairEnabled || isPaper() || !rect->rect().contains(pixel)) {
        hideCrosshair();
        return;
    }
    m_followingCrosshair = false;
    const double x = rect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x());
    // The step read out here (a checkpoint's, a logged one's) is the one the other view reads.
    if (const std::optional<double> snapped = drawCrosshair(x, rect->axis(QCPAxis::atLeft)->pixelToCoord(pixel.y()), pixel.y()))
        emit crosshairMoved(*snapped);
}

void ChartView::followCrosshair(double x)
{
    if (!m_crosshairEnabled || isPaper() || !std::isfinite(x)) {
        m_followingCrosshair = true; // taken away for the other view: not sent back to it
        hideCrosshair();
        m_followingCrosshair = false;
        return;
    }
    m_followingCrosshair = true;
    const QCPRange y = m_plot->axisRect()->axis(QCPAxis::atLeft)->range();
    if (!drawCrosshair(x, y.center(), std::nullopt))
        m_followingCrosshair = false;
}

std::optional<double> ChartView::drawCrosshair(double x, double y, std::optional<int> yPixel)
{
    QCPAxisRect *rect = m_plot->axisRect();
    if (!m_crossX) {
        // Items of their own on the overlay layer: a replot of the crosshair redraws nothing else.
        const QString layer = m_plot->layer(QStringLiteral("overlay")) ? QStringLiteral("overlay") : QString();
        m_crossX = new QCPItemStraightLine(m_plot);
        m_crossY = new QCPItemStraightLine(m_plot);
        m_readout = new QCPItemText(m_plot);
        for (QCPAbstractItem *item : std::initializer_list<QCPAbstractItem *>{m_crossX, m_crossY, m_readout}) {
            if (!layer.isEmpty())
                item->setLayer(layer);
            item->setSelectable(false);
            item->setClipToAxisRect(true);
        }
        for (QCPItemStraightLine *line : {m_crossX.data(), m_crossY.data()})
            for (QCPItemPosition *position : {line->point1, line->point2})
                position->setType(QCPItemPosition::ptAbsolute);
        m_readout->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_readout->setPadding(QMargins(4, 2, 4, 2));
    }
    double snapped = x;
    const QString text = crosshairReadout(x, y, &snapped);
    if (text.isEmpty()) {
        hideCrosshair();
        return std::nullopt;
    }
    QColor hair = theme().ink;
    hair.setAlpha(110);
    for (QCPItemStraightLine *line : {m_crossX.data(), m_crossY.data()})
        line->setPen(QPen(hair, 1, Qt::DotLine));
    m_readout->setBrush(theme().overlay);
    m_readout->setColor(theme().text);
    const double snappedPixel = rect->axis(QCPAxis::atBottom)->coordToPixel(snapped);
    m_crossX->point1->setCoords(snappedPixel, rect->top());
    m_crossX->point2->setCoords(snappedPixel, rect->bottom());
    if (yPixel) {
        m_crossY->point1->setCoords(rect->left(), *yPixel);
        m_crossY->point2->setCoords(rect->right(), *yPixel);
    }
    m_readout->setText(text);
    // The readout sits in the top corner away from the cursor, so it never covers what is pointed at.
    const bool right = snappedPixel < rect->center().x();
    m_readout->setPositionAlignment(Qt::AlignTop | (right ? Qt::AlignRight : Qt::AlignLeft));
    m_readout->position->setCoords(right ? 0.99 : 0.01, 0.01);
    m_readout->setTextAlignment(Qt::AlignLeft);
    m_crossX->setVisible(true);
    m_crossY->setVisible(bool(yPixel)); // following another view: only the step is shared
    m_readout->setVisible(true);
    m_plot->layer(m_crossX->layer()->name())->replot();
    return snapped;
}

QString ChartView::crosshairReadout(double x, double y, double *snappedX) const
{
    *snappedX = x;
    const QCPAxisRect *rect = m_plot->axisRect();
    auto named = [this](const QCPAxis *axis) { return fullLabel(axis).isEmpty() ? QStringLiteral("value") : fullLabel(axis).toLower(); };
    return QStringLiteral("%1 %2 · %3 %4").arg(named(rect->axis(QCPAxis::atBottom))).arg(x, 0, 'g', 5)
        .arg(named(rect->axis(QCPAxis::atLeft))).arg(y, 0, 'g', 4);
}

bool ChartView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::Leave) {
        hideCrosshair();
        QToolTip::hideText();
    }
    return QWidget::eventFilter(watched, event);
}

void ChartView::applyNoData()
{
    const bool empty = !m_noDataText.isEmpty();
    if (!empty && !m_noData)
        return;
    if (!m_noData) {
        m_noData = new QCPItemText(m_plot);
        m_noData->setSelectable(false);
        m_noData->setClipToAxisRect(false);
        m_noData->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_noData->position->setCoords(0.5, 0.45);
        m_noData->setPositionAlignment(Qt::AlignCenter);
        m_noData->setTextAlignment(Qt::AlignCenter);
    }
    for (const QPointer<QCPLayerable> &hidden : std::as_const(m_hiddenForNoData))
        if (hidden)
            hidden->setVisible(true);
    m_hiddenForNoData.clear();
    m_noData->setVisible(empty);
    if (!empty)
        return;
    // The axes, colour bars and legend of a figure without data would only show stale or empty scales.
    QList<QCPLayerable *> parts;
    for (QCPAxisRect *rect : m_plot->axisRects())
        for (QCPAxis *axis : rect->axes())
            parts << axis;
    for (QCPLayoutElement *element : m_plot->plotLayout()->elements(true))
        if (auto *scale = qobject_cast<QCPColorScale *>(element))
            parts << scale;
    for (int i = 0; i < m_plot->plottableCount(); ++i) // a colour map without data draws its NaN colour over the message
        parts << m_plot->plottable(i);
    for (QCPLayerable *part : parts)
        if (part->visible()) {
            m_hiddenForNoData << part;
            part->setVisible(false);
        }
    m_plot->legend->setVisible(false);
    m_noData->setFont(PlotStyle::labelFont(m_fontPt));
    m_noData->setColor(theme().text);
    m_noData->setText(PlotStyle::wrapText(m_noDataText, m_noData->font(), std::max(120, layoutSize().width() - 32), 6));
}

void ChartView::hideCrosshair()
{
    if (!m_crossX || !m_crossX->visible())
        return;
    for (QCPAbstractItem *item : std::initializer_list<QCPAbstractItem *>{m_crossX, m_crossY, m_readout})
        item->setVisible(false);
    m_plot->layer(m_crossX->layer()->name())->replot();
    if (!m_followingCrosshair)
        emit crosshairMoved(std::nan(""));
}

QString ChartView::crosshairText() const
{
    return m_readout && m_readout->visible() ? m_readout->text() : QString();
}

QString ChartView::title() const { return m_titleText; }

MetricSelector *ChartView::addMetricSelector(Metric initial)
{
    auto *selector = new MetricSelector(initial, this);
    m_header->addWidget(new QLabel(tr("Metric"), this));
    m_header->addWidget(selector);
    return selector;
}

void ChartView::setTitle(const QString &text, const QString &shortText)
{
    m_titleText = m_titleOverride.isEmpty() ? text : m_titleOverride;
    m_shortTitle = m_titleOverride.isEmpty() ? shortText : QString();
    applyTitle();
}

bool ChartView::titleLeftOut() const
{
    return m_paper && m_titleOverride.isEmpty() && (m_noTitleAsked || (m_paper->captioned && labelsCanReplaceTitle()));
}

QString ChartView::shownTitle() const { return m_title->text(); }

void ChartView::applyTitle()
{
    // A title on one line if it fits, else without the run's name (generated titles end with
    // " — run"; a figure of one run names it in its caption) unless the panel must keep it (beside
    // other runs' panels), else on two lines; elided only when nothing fits, rather than run off
    // both edges or be cut mid-word ("… nan…").
    const int width = std::max(60, layoutSize().width() - 16);
    if (isPaper())
        m_title->setFont(PlotStyle::paperTitleFont(m_fontPt));
    const QFont font = m_title->font();
    if (titleLeftOut()) {
        // No title (asked for none, or under a caption, the axis labels saying what it said);
        // beside other runs' panels under a caption, the run's name alone says which is which.
        const QString run = m_titleKeepsRun && !m_noTitleAsked ? titleRun() : QString();
        m_title->setText(run.isEmpty() ? QString() : PlotStyle::wrapText(run, font, width));
        return;
    }
    const qsizetype dash = m_titleText.lastIndexOf(QStringLiteral(" \u2014 "));
    const QString withoutRun = dash > 0 && m_titleOverride.isEmpty() ? m_titleText.left(dash) : QString();
    const QString full = m_titleDropsRun && !withoutRun.isEmpty() ? QString() : m_titleText;
    for (int lines = 1; lines <= 2; ++lines)
        for (const QString &candidate : {full, withoutRun})
            if (!candidate.isEmpty() && PlotStyle::wrapsWithin(candidate, font, width, lines) && !(m_titleKeepsRun && lines == 1 && candidate == withoutRun)) {
                m_title->setText(PlotStyle::wrapText(candidate, font, width, lines));
                return;
            }
    // Too narrow for either: the view's short title, naming the run only where it must.
    const QString run = titleRun();
    const QString shortTitle = m_titleKeepsRun && !run.isEmpty() && !m_shortTitle.isEmpty() ? m_shortTitle + QStringLiteral(" \u2014 ") + run : m_shortTitle;
    const QString fallback = !shortTitle.isEmpty() ? shortTitle : withoutRun.isEmpty() ? m_titleText : withoutRun;
    m_title->setText(PlotStyle::wrapText(fallback, font, width));
}

QString ChartView::titleRun() const
{
    const qsizetype dash = m_titleText.lastIndexOf(QStringLiteral(" \u2014 "));
    return dash > 0 && m_titleOverride.isEmpty() ? m_titleText.mid(dash + 3) : QString();
}

bool ChartView::titleNamesRun() const
{
    const QString run = titleRun();
    return !run.isEmpty() && QString(m_title->text()).replace(QLatin1Char('\n'), QLatin1Char(' ')).endsWith(run);
}

void ChartView::keepRunInTitle()
{
    m_titleKeepsRun = true;
    if (m_paper)
        layOutOnPaper(*m_paper);
    else
        applyTitle();
}

void ChartView::dropRunFromTitle()
{
    m_titleDropsRun = true;
    if (m_paper)
        layOutOnPaper(*m_paper);
}

bool ChartView::legendGoesAbove() const
{
    const LegendPosition position = m_state->legendPosition();
    return m_sideLegend && !m_legendInFigure && m_plot->legend->visible() && m_plot->legend->itemCount() > 0 &&
           (position == LegendPosition::Auto || position == LegendPosition::Above);
}

void ChartView::leaveLegendToFigure(QSize size)
{
    m_legendInFigure = true;
    if (m_paper)
        layOutOnPaper({size, m_paper->fontPt, m_paper->dark, m_paper->captioned});
}

void ChartView::alignPlot(int top, int bottom)
{
    if (top == m_plotTop && bottom == m_plotBottom)
        return;
    m_plotTop = top;
    m_plotBottom = bottom;
    if (m_paper) {
        layOutOnPaper(*m_paper);
    } else {
        fitPlotMargins();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void ChartView::alignPlotLeft(int left)
{
    if (left == m_plotLeft)
        return;
    m_plotLeft = left;
    if (m_paper)
        layOutOnPaper(*m_paper);
    else
        fitPlotMargins();
}

int ChartView::plotLeft() const { return m_plot->axisRect()->left(); }

QCPItemStraightLine *ChartView::addStepMarker()
{
    auto *marker = new QCPItemStraightLine(m_plot);
    marker->setPen(QPen(QColor(0x88, 0x88, 0x88), 1, Qt::DashLine));
    marker->setSelectable(false);
    return marker;
}

void ChartView::placeStepMarker(QCPItemStraightLine *marker, bool drawn) const
{
    const double x = LineFigureBuilder::xOf(*m_state, 0, m_state->currentStep());
    marker->point1->setCoords(x, 0);
    marker->point2->setCoords(x, 1);
    marker->setVisible(drawn && m_state->steps().size() > 1 && !isPaper());
}

void ChartView::leaveStepAxisToBelow()
{
    m_stepAxisBelow = true;
    if (m_paper)
        layOutOnPaper(*m_paper);
}

void ChartView::useSideLegend()
{
    m_sideLegend = true;
    placeSideLegend(layoutSize());
}

void ChartView::adaptLayout(QSize size)
{
    applyTitle();
    m_axes.fit(size, m_fontPt, m_stepAxisBelow);
    placeSideLegend(size);
    fitPlotMargins();
}

void ChartView::fitPlotMargins()
{
    // QCustomPlot keeps 15 pixels round every plot whatever its axes need: a gap under the title
    // or the legend row that a careful matplotlib figure does not have. Above and right of a
    // plot, room only for the half of the end tick labels that stands out.
    for (QCPAxisRect *rect : m_plot->axisRects()) {
        const QCPAxis *x = rect->axis(QCPAxis::atBottom);
        const QFontMetricsF xMetrics(x->tickLabelFont());
        const QString widest = QString::number(x->range().upper, 'g', 4);
        int top = topTickRoom(rect);
        const int right = int(std::ceil(0.5 * xMetrics.horizontalAdvance(widest))) + 4;
        int bottom = 15;
        // Level with the plots beside it (alignPlot): the margins that put its edges there, the
        // rows above and below it (title, legend) staying as they are.
        if (rect == m_plot->axisRect() && (m_plotTop > 0 || m_plotBottom > 0)) {
            const QRect outer = rect->outerRect();
            top = std::max(top, m_plotTop - outer.top());
            bottom = std::max(bottom, m_plotBottom - (layoutSize().height() - 1 - outer.bottom()));
        }
        const int left = rect == m_plot->axisRect() ? std::max(15, m_plotLeft - rect->outerRect().left()) : 15;
        rect->setMinimumMargins(QMargins(left, top, std::max(6, right), bottom));
    }
}

int ChartView::topTickRoom(const QCPAxisRect *rect)
{
    return int(std::ceil(0.6 * QFontMetricsF(rect->axis(QCPAxis::atLeft)->tickLabelFont()).height())) + 2;
}

int ChartView::naturalPlotTop() const
{
    const QCPAxisRect *rect = m_plot->axisRect();
    return rect->outerRect().top() + std::max(topTickRoom(rect), rect->axis(QCPAxis::atTop)->visible() ? rect->margins().top() : 0);
}

void ChartView::placeSideLegend(QSize size)
{
    QCPLegend *legend = m_plot->legend;
    using PlotStyle::LegendPlacement;
    if (!m_sideLegend)
        return;
    PlotStyle::makeRoomForDescenders(legend);
    // Out of the layout, as when the legend is hidden: the legend of a figure without data, one
    // the figure draws in its own row, and an empty one (per-layer lines; left below the plot, it
    // capped the plot's column and the figure took two thirds of its width).
    const bool shown = m_noDataText.isEmpty() && !m_legendInFigure && legend->itemCount() > 0;
    const LegendPosition position = shown ? m_state->legendPosition() : LegendPosition::Hidden;
    int itemWidth = 0;
    for (QCPAbstractLegendItem *item : PlotStyle::legendItems(legend))
        itemWidth = std::max(itemWidth, item->minimumOuterSizeHint().width());
    const int belowColumns = std::max(1, (size.width() - 16) / std::max(1, itemWidth + legend->columnSpacing()));
    auto inside = [&](Qt::Alignment corner) {
        PlotStyle::placeLegend(m_body, legend, LegendPlacement::Inside, 1, corner);
        legend->setBrush(theme().overlay); // over the data: readable on a background of its own
    };
    auto outside = [&](LegendPlacement where) {
        PlotStyle::placeLegend(m_body, legend, where, belowColumns);
        legend->setBrush(Qt::NoBrush);
    };
    auto rowsAbove = [legend](int width) { return PlotStyle::legendRowsAbove(legend, width); };
    auto above = [&](int rows) {
        PlotStyle::placeLegend(m_body, legend, LegendPlacement::Above, (int(PlotStyle::legendItems(legend).size()) + rows - 1) / rows);
        legend->setBrush(Qt::NoBrush);
    };
    switch (position) {
    case LegendPosition::Auto: {
        // In a row above the plot when one row (or two) holds it, as a careful matplotlib user
        // puts it; beside the plot while the plot keeps three quarters of the width; below it, in
        // as many columns as fit, otherwise.
        const int available = size.width() - 16;
        const int legendWidth = itemWidth + legend->margins().left() + legend->margins().right() + 12;
        const int plotMinimum = m_plot->axisRect()->minimumOuterSizeHint().width();
        if (const int rows = rowsAbove(available); rows > 0 && rows <= 2)
            above(rows);
        else if (plotMinimum + legendWidth <= size.width() && size.width() - legendWidth >= 0.75 * size.width())
            outside(LegendPlacement::Right);
        else
            outside(LegendPlacement::Below);
        break;
    }
    case LegendPosition::Above: above(std::max(1, rowsAbove(size.width() - 16))); break;
    case LegendPosition::Right: outside(LegendPlacement::Right); break;
    case LegendPosition::Below: outside(LegendPlacement::Below); break;
    case LegendPosition::TopLeft: inside(Qt::AlignTop | Qt::AlignLeft); break;
    case LegendPosition::TopRight: inside(Qt::AlignTop | Qt::AlignRight); break;
    case LegendPosition::BottomLeft: inside(Qt::AlignBottom | Qt::AlignLeft); break;
    case LegendPosition::BottomRight: inside(Qt::AlignBottom | Qt::AlignRight); break;
    case LegendPosition::Hidden:
        inside(Qt::AlignTop | Qt::AlignRight); // out of the layout, so it takes no room
        legend->setVisible(false);
        break;
    }
}

void ChartView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (!isPaper()) {
        adaptLayout(m_plot->size());
        refresh();
    }
}

std::unique_ptr<ChartView> ChartView::paperCopy(const PaperLayout &layout, const std::optional<QString> &title) const
{
    std::unique_ptr<ChartView> copy = createSibling();
    copy->m_titleOverride = title && !title->isEmpty() ? *title : m_titleOverride;
    copy->m_noTitleAsked = title && title->isEmpty();
    for (auto it = m_zoom.begin(); it != m_zoom.end(); ++it)
        if (const qsizetype i = m_zoomRects.indexOf(it.key()); i >= 0 && i < copy->m_zoomRects.size())
            copy->m_zoom.insert(copy->m_zoomRects[i], it.value());
    copy->layOutOnPaper(layout);
    return copy;
}

void ChartView::layOutOnPaper(const PaperLayout &layout)
{
    m_paper = layout;
    m_fontPt = layout.fontPt;
    PlotStyle::applyFonts(m_plot, layout.fontPt);
    rebuild();
    if (m_stepAxisBelow)
        m_plot->xAxis->setLabel(QString());
    adaptLayout(layout.size);
    // Lay the plot out at the paper's size, so what depends on it (cell labels, ticks) matches what is drawn.
    m_plot->setViewport(QRect(QPoint(0, 0), layout.size));
    m_plot->replot(QCustomPlot::rpImmediateRefresh);
    // Again, until the plots keep their size: each layout tells the views their cell and tick sizes,
    // and what they choose from them (a colour bar's label on two lines) can move the plot again.
    for (int pass = 0; pass < 4; ++pass) {
        QList<QRect> before;
        for (const QCPAxisRect *rect : m_plot->axisRects())
            before << rect->rect();
        adaptLayout(layout.size);
        m_plot->replot(QCustomPlot::rpImmediateRefresh);
        QList<QRect> after;
        for (const QCPAxisRect *rect : m_plot->axisRects())
            after << rect->rect();
        if (after == before)
            break;
    }
}

void ChartView::setTitleOverride(const QString &title)
{
    m_titleOverride = title;
    rebuild();
}

void ChartView::refresh()
{
    // Every rebuild ends here: elements a view made since (a colour scale, a second panel) get the
    // theme's frame colours too.
    PlotStyle::applyTheme(m_plot, theme());
    placeSideLegend(layoutSize());
    applyZoom();
    applyNoData();
    hideCrosshair(); // a readout of what was drawn before
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
    updateCrosshair(event->pos());
    const QString text = tooltipAt(event->pos());
    m_lastTooltip = text;
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(m_plot->mapToGlobal(event->pos()), text, m_plot);
}

void ChartView::onMouseRelease(QMouseEvent *event)
{
    // The release ends the interaction only after QCustomPlot has applied a rectangle zoom.
    QTimer::singleShot(0, this, [this] { m_userInteracting = false; });
    if ((event->pos() - m_pressPos).manhattanLength() > 4 || event->button() != Qt::LeftButton)
        return;
    m_userInteracting = false; // a click: what it changes is not a zoom
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
