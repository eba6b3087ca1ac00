#include "SpectrumOverStepsView.h"

#include "FigurePanels.h"
#include "MatrixPicker.h"
#include "PlotStyle.h"
#include "figures/LineFigure.h"

#include <QCheckBox>
#include <cmath>

namespace rankscope {

// Narrower figures (a paper column) are titled without the tensor's name and shape.
constexpr int kFullTitleWidth = 640;

// The figure's cells as filled rectangles between their step and σ edges: a colour map needs an
// even grid, and uneven steps keep their true positions only as rectangles. Vector exports get
// rectangles too, not a bitmap per column. Bins holding no σ are not drawn.
class SpectrumCells : public QCPAbstractPlottable {
public:
    SpectrumCells(QCPAxis *keyAxis, QCPAxis *valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis)
    {
        setSelectable(QCP::stNone);
        removeFromLegend();
    }

    void setFigure(const SpectrumOverStepsFigure &figure, const QCPColorGradient &gradient)
    {
        m_figure = figure;
        m_gradient = gradient;
    }
    QColor colourOf(int column, int bin) const
    {
        if (column < 0 || column >= m_figure.columns.size() || bin < 0 || bin >= m_figure.bins())
            return {};
        const double d = m_figure.columns[column].density[bin];
        if (!(d > 0))
            return {};
        return QColor::fromRgb(m_gradient.color(d, QCPRange(m_figure.densityRange.lower, m_figure.densityRange.upper)));
    }

    double selectTest(const QPointF &, bool, QVariant *) const override { return -1; }
    QCPRange getKeyRange(bool &found, QCP::SignDomain) const override
    {
        found = m_figure.xRange.has_value();
        return found ? QCPRange(m_figure.xRange->lower, m_figure.xRange->upper) : QCPRange();
    }
    QCPRange getValueRange(bool &found, QCP::SignDomain, const QCPRange &) const override
    {
        found = m_figure.sigmaRange.has_value();
        return found ? QCPRange(m_figure.sigmaRange->lower, m_figure.sigmaRange->upper) : QCPRange();
    }

protected:
    void draw(QCPPainter *painter) override
    {
        // Unsmoothed, each outlined in its own colour: neighbouring cells meet without a seam.
        painter->setAntialiasing(false);
        for (int c = 0; c < int(m_figure.columns.size()); ++c)
            for (int k = 0; k < m_figure.bins(); ++k) {
                const QColor colour = colourOf(c, k);
                if (!colour.isValid())
                    continue;
                const SpectrumOverStepsColumn &column = m_figure.columns[c];
                const QRectF cell = QRectF(coordsToPixels(column.left, m_figure.binEdges[k]), coordsToPixels(column.right, m_figure.binEdges[k + 1])).normalized();
                painter->setPen(QPen(colour, 0));
                painter->setBrush(colour);
                painter->drawRect(cell);
            }
    }
    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override { painter->fillRect(rect, QColor::fromRgb(m_gradient.color(0.5, QCPRange(0, 1)))); }

private:
    SpectrumOverStepsFigure m_figure;
    mutable QCPColorGradient m_gradient; // color() is not const
};

SpectrumOverStepsView::SpectrumOverStepsView(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_picker(new MatrixPicker(state, this)), m_meanBox(new QCheckBox(tr("Mean over layers"), this)),
      m_cells(new SpectrumCells(plot()->xAxis, plot()->yAxis)), m_scale(new QCPColorScale(plot())), m_stepMarker(new QCPItemStraightLine(plot()))
{
    m_picker->setStepShown(false); // the window's step slider marks the step
    headerLayout()->addWidget(m_picker);
    headerLayout()->addSpacing(12);
    headerLayout()->addWidget(m_meanBox);
    headerLayout()->addStretch(1);
    m_meanBox->setToolTip(tr("The type's mean over the layers shown (Layers in the tool bar): the average of their densities and of their stable ranks"));
    connect(m_picker, &MatrixPicker::picked, this, [this] {
        m_showingDefault = false;
        takePickerChoice();
    });
    connect(m_meanBox, &QCheckBox::toggled, this, [this] {
        m_showingDefault = false;
        takePickerChoice();
    });

    QCustomPlot *p = plot();
    body()->addElement(0, 1, m_scale);
    body()->setColumnStretchFactor(1, 0.01); // the bar's column as narrow as its ticks and label
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(12);
    m_scale->setGradient(PlotStyle::viridis());
    auto *margins = new QCPMarginGroup(p); // the colour bar as tall as the plot
    p->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    PlotStyle::setLogScale(p->yAxis, true);
    p->yAxis2->setVisible(true);
    for (QCPAxis *axis : {p->xAxis, p->yAxis, p->yAxis2})
        axis->grid()->setVisible(false); // the cells fill the plot; a grid would only cut them
    p->legend->setVisible(false);
    m_stepMarker->setSelectable(false);
    enableZoom({p->axisRect()});
    enableCrosshair();

    connect(state, &ViewState::resultsChanged, this, [this] {
        if (m_showingDefault) // the picker's default moves to the newest checkpoint
            takePickerChoice();
        else
            rebuild();
    });
    connect(state, &ViewState::displayChanged, this, &SpectrumOverStepsView::rebuild);
    connect(state, &ViewState::currentStepChanged, this, [this] {
        updateStepMarker();
        refresh();
    });
    connect(state, &ViewState::spectrumRequested, this, &SpectrumOverStepsView::showMatrix);
    takePickerChoice();
}

std::unique_ptr<ChartView> SpectrumOverStepsView::createSibling() const
{
    auto sibling = std::make_unique<SpectrumOverStepsView>(state());
    sibling->m_showingDefault = m_showingDefault;
    sibling->setSubject(m_subject);
    return sibling;
}

void SpectrumOverStepsView::takePickerChoice()
{
    if (const std::optional<MatrixKey> key = m_picker->key())
        m_subject = {key->run, key->id, m_meanBox->isChecked()};
    rebuild();
}

void SpectrumOverStepsView::setSubject(const SpectrumOverStepsSubject &subject)
{
    m_subject = subject;
    m_showingDefault = false;
    m_picker->setKey(MatrixKey{subject.run, state()->stepAt(subject.run), subject.id});
    const QSignalBlocker quiet(m_meanBox);
    m_meanBox->setChecked(subject.meanOverLayers);
    rebuild();
}

void SpectrumOverStepsView::showMatrix(const MatrixKey &key) { setSubject({key.run, key.id, false}); }

void SpectrumOverStepsView::rebuild()
{
    m_figure = SpectrumOverStepsFigureBuilder(*state(), m_subject).build();
    const SpectrumOverStepsFigure &f = m_figure;
    m_picker->boxes()[3]->setEnabled(!m_subject.meanOverLayers && m_picker->boxes()[3]->count() > 1); // a mean takes every shown layer
    m_cells->setFigure(f, PlotStyle::viridis());
    m_scale->setDataRange(QCPRange(f.densityRange.lower, f.densityRange.upper));
    QCustomPlot *p = plot();
    labelAxes(layoutSize());
    if (f.xRange)
        p->xAxis->setRange(f.xRange->lower, f.xRange->upper);
    if (f.sigmaRange)
        p->yAxis->setRange(f.sigmaRange->lower, f.sigmaRange->upper);
    if (f.stableRankRange)
        p->yAxis2->setRange(f.stableRankRange->lower, f.stableRankRange->upper);
    drawStableRank();
    updateStepMarker();
    setTitle(layoutSize().width() < kFullTitleWidth ? f.shortTitle : f.title);
    setNoDataMessage(f.noData);
    refresh();
}

void SpectrumOverStepsView::drawStableRank()
{
    // A line in the theme's strongest ink on a casing of the background: it reads over every colour of the map.
    plot()->clearGraphs();
    m_rankCasing = m_rankGraph = nullptr;
    if (!m_figure.type)
        return;
    m_rankCasing = plot()->addGraph(plot()->xAxis, plot()->yAxis2);
    m_rankGraph = plot()->addGraph(plot()->xAxis, plot()->yAxis2);
    m_rankCasing->setPen(QPen(theme().background, 3.4));
    m_rankGraph->setPen(QPen(theme().emphasis, 1.6));
    m_rankCasing->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, theme().background, 6.5));
    m_rankGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, theme().emphasis, 4));
    m_rankGraph->setName(m_figure.rankLabel);
    for (QCPGraph *graph : {m_rankCasing, m_rankGraph}) {
        graph->setSelectable(QCP::stNone);
        graph->removeFromLegend();
        for (const SpectrumOverStepsColumn &c : m_figure.columns)
            graph->addData(c.x, c.stableRank);
    }
}

void SpectrumOverStepsView::updateStepMarker()
{
    // The current step of the shown run (its nearest for a compared one), on screen only.
    const double x = LineFigureBuilder::xOf(*state(), m_subject.run, state()->stepAt(m_subject.run));
    m_stepMarker->point1->setCoords(x, 1);
    m_stepMarker->point2->setCoords(x, 10);
    m_stepMarker->setPen(QPen(theme().fit, 1.4, Qt::DashLine));
    m_stepMarker->setVisible(!isPaper() && m_figure.type && m_figure.columns.size() > 1);
}

bool SpectrumOverStepsView::isStepMarkerShown() const { return m_stepMarker->visible(); }

double SpectrumOverStepsView::stepMarkerX() const { return m_stepMarker->point1->coords().x(); }

QColor SpectrumOverStepsView::cellColour(int column, int bin) const { return m_cells->colourOf(column, bin); }

QPoint SpectrumOverStepsView::cellCentre(int column, int bin) const
{
    const SpectrumOverStepsColumn &c = m_figure.columns[column];
    const double sigma = std::sqrt(m_figure.binEdges[bin] * m_figure.binEdges[bin + 1]);
    return QPointF(plot()->xAxis->coordToPixel((c.left + c.right) / 2), plot()->yAxis->coordToPixel(sigma)).toPoint();
}

void SpectrumOverStepsView::labelAxes(QSize size)
{
    // A narrow figure (a paper column) keeps its three vertical axes readable with shorter words.
    const bool narrow = size.width() < 420;
    m_scale->setBarWidth(narrow ? 8 : 12);
    plot()->xAxis->setLabel(m_figure.xLabel);
    // Under a caption (no title) the σ axis says whose spectrum it is.
    const QString sigma = narrow ? QStringLiteral("\u03c3") : m_figure.yLabel;
    plot()->yAxis->setLabel(titleLeftOut() && !m_figure.subjectText.isEmpty() ? QStringLiteral("%1 (%2)").arg(sigma, m_figure.subjectText) : sigma);
    plot()->yAxis2->setLabel(m_figure.rankLabel);
    m_scale->axis()->setLabel(narrow ? tr("share of \u03c3") : m_figure.colourLabel);
}

void SpectrumOverStepsView::adaptLayout(QSize size)
{
    labelAxes(size);
    setTitle(size.width() < kFullTitleWidth ? m_figure.shortTitle : m_figure.title);
    ChartView::adaptLayout(size);
}

QString SpectrumOverStepsView::tooltipAt(const QPoint &pixel) const
{
    if (!m_figure.type || !plot()->axisRect()->rect().contains(pixel))
        return {};
    const int column = m_figure.columnAt(plot()->xAxis->pixelToCoord(pixel.x()));
    if (column < 0)
        return {};
    const SpectrumOverStepsColumn &c = m_figure.columns[column];
    QString text = tr("<b>step %1</b>").arg(c.step);
    if (const int k = m_figure.binAt(plot()->yAxis->pixelToCoord(pixel.y())); k >= 0) {
        const double d = c.density[k];
        text += tr("<br>\u03c3 %1 – %2<br>density %3").arg(m_figure.binEdges[k], 0, 'g', 3).arg(m_figure.binEdges[k + 1], 0, 'g', 3).arg(d, 0, 'g', 3);
        text += c.matrices == 1 ? tr(": %1 of %2 \u03c3").arg(std::lround(d * double(c.sigmaCount))).arg(c.sigmaCount)
                                : tr(" (mean of %1 matrices)").arg(c.matrices);
    }
    text += tr("<br>stable rank %1").arg(c.stableRank, 0, 'g', 4);
    if (c.leftOut > 0)
        text += tr("<br>%1 \u03c3 zero or not finite left out").arg(c.leftOut);
    return text;
}

QString SpectrumOverStepsView::crosshairReadout(double x, double, double *snappedX) const
{
    // Snapped to the step under the cursor: the stable rank there.
    const int column = m_figure.columnAt(x);
    if (!m_figure.type || column < 0)
        return {};
    const SpectrumOverStepsColumn &c = m_figure.columns[column];
    *snappedX = c.x;
    return tr("step %1 · stable rank %2").arg(c.step).arg(c.stableRank, 0, 'g', 4);
}

std::optional<MatrixKey> SpectrumOverStepsView::matrixAt(const QPoint &pixel) const
{
    if (!m_figure.type || m_subject.meanOverLayers || !plot()->axisRect()->rect().contains(pixel))
        return std::nullopt;
    const int column = m_figure.columnAt(plot()->xAxis->pixelToCoord(pixel.x()));
    if (column < 0)
        return std::nullopt;
    return MatrixKey{m_subject.run, m_figure.columns[column].step, m_subject.id};
}

void SpectrumOverStepsView::activate(const QPoint &pixel)
{
    // A click on a column makes its step the current one: every view follows.
    const int column = m_figure.type && plot()->axisRect()->rect().contains(pixel) ? m_figure.columnAt(plot()->xAxis->pixelToCoord(pixel.x())) : -1;
    if (column >= 0 && m_subject.run == 0)
        state()->setCurrentStep(m_figure.columns[column].step);
}

FigurePanels *buildSpectrogramPanels(ViewState *state, QWidget *figure) { return new SingleViewPanels<SpectrumOverStepsView>(state, figure); }

QString SpectrumOverStepsView::configure(const ViewState &state, const FigureOptions &options)
{
    if (options.type.isEmpty())
        return QStringLiteral("spectrogram needs --type T (with --layer L for one matrix; without it, the type's mean over --layers)");
    QString error;
    const auto type = matrixTypeOption(QStringLiteral("type"), options.type, &error);
    if (!type)
        return error;
    setSubject({0, {state.block(), options.layer ? int(*options.layer) : 0, *type, state.expert()}, !options.layer});
    // A figure of no step at all is refused; one whose σ are all zero is drawn, saying so.
    if (figure().columns.isEmpty())
        return figure().noData;
    return {};
}

} // namespace rankscope
