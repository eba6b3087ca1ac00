#include "SpectrumView.h"

#include "FigurePanels.h"
#include "MatrixPicker.h"
#include "analysis/results/MetricsTable.h"

#include "PlotStyle.h"
#include "TypeStyle.h"
#include "spectral/SpectralMetrics.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <algorithm>
#include <cmath>

namespace rankscope {

namespace {

QCPGraph *addGraphTo(QCPAxisRect *rect)
{
    return rect->parentPlot()->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
}

} // namespace

SpectrumView::SpectrumView(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_rankRect(plot()->axisRect()), m_densityRect(new QCPAxisRect(plot())),
      m_densityLegend(new QCPLegend), m_overlayBox(new QCheckBox(tr("Overlay first step"), this)), m_tailBox(new QComboBox(this))
{
    m_picker = new MatrixPicker(state, this);
    headerLayout()->addWidget(m_picker);
    headerLayout()->addSpacing(6);
    headerLayout()->addWidget(m_overlayBox);
    headerLayout()->addSpacing(6);
    // Short choices: a comparison's Run box and the Runs dock must leave the header 1024 pixels wide.
    headerLayout()->addWidget(new QLabel(tr("Eigenvalues"), this));
    m_tailBox->addItem(tr("CCDF, power-law fit"), int(SpectrumTail::Ccdf));
    m_tailBox->addItem(tr("Density, MP bulk"), int(SpectrumTail::Density));
    m_tailBox->setToolTip(tr("The CCDF P(Λ ≥ λ) shows a power law as a straight line, where its fit from xₘᵢₙ is judged"));
    headerLayout()->addWidget(m_tailBox);
    connect(m_tailBox, &QComboBox::activated, this, [this] { setTail(SpectrumTail(m_tailBox->currentData().toInt())); });
    connect(m_picker, &MatrixPicker::picked, this, &SpectrumView::showMatrix);
    headerLayout()->addStretch(1);
    connect(m_overlayBox, &QCheckBox::toggled, this, &SpectrumView::setOverlayFirstStep);

    body()->addElement(0, 1, m_densityRect);
    enableZoom({m_rankRect, m_densityRect});
    body()->setColumnSpacing(24);
    PlotStyle::applyPaperStyle(plot());
    m_rankRect->axis(QCPAxis::atBottom)->setLabel(tr("Rank i"));
    m_rankRect->axis(QCPAxis::atLeft)->setLabel(tr("Singular value \u03c3\u1d62"));
    m_densityRect->axis(QCPAxis::atBottom)->setLabel(tr("Eigenvalue \u03bb = \u03c3\u00b2"));
    for (QCPAxisRect *rect : {m_rankRect, m_densityRect})
        for (QCPAxis *axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)})
            PlotStyle::setLogScale(axis, true);
    // Legends inside each panel's upper right, where log–log spectra leave room.
    m_rankRect->insetLayout()->addElement(plot()->legend, Qt::AlignTop | Qt::AlignRight);
    plot()->legend->setVisible(true);
    m_densityRect->insetLayout()->addElement(m_densityLegend, Qt::AlignTop | Qt::AlignRight);
    m_densityLegend->setLayer(QStringLiteral("legend"));
    m_densityLegend->setFont(PlotStyle::tickFont());
    m_densityLegend->setBorderPen(Qt::NoPen);
    m_densityLegend->setBrush(theme().overlay);
    m_densityLegend->setVisible(true);
    plot()->legend->setBrush(theme().overlay);
    // Until a matrix is chosen, the picker's first one (Q of the first layer at the last step) is shown.
    connect(state, &ViewState::resultsChanged, this, [this] {
        if (m_showingDefault) // the picker's default moves to the newest step as checkpoints arrive
            m_key = m_picker->key();
        rebuild();
    });
    connect(state, &ViewState::spectrumRequested, this, &SpectrumView::showMatrix);
    connect(state, &ViewState::currentStepChanged, this, &SpectrumView::followCurrentStep);
    rebuild();
}

QString SpectrumView::rankAxisLabel() const { return m_rankRect->axis(QCPAxis::atLeft)->label(); }

void SpectrumView::followCurrentStep()
{
    if (!m_key || state()->stepsAt(m_key->run).isEmpty())
        return;
    MatrixKey key = *m_key;
    key.step = state()->stepAt(key.run);
    if (key.step == m_key->step)
        return;
    m_key = key;
    m_picker->setKey(key);
    rebuild();
}

std::unique_ptr<ChartView> SpectrumView::createSibling() const
{
    auto sibling = std::make_unique<SpectrumView>(state());
    sibling->m_key = m_key;
    sibling->m_showingDefault = m_showingDefault;
    sibling->m_overlay = m_overlay;
    sibling->m_tail = m_tail;
    return sibling;
}

void SpectrumView::showMatrix(const MatrixKey &key)
{
    m_key = key;
    m_showingDefault = false;
    m_picker->setKey(key);
    rebuild();
    // A step of the first run chosen here is the window's step too: one step everywhere.
    if (key.run == 0)
        state()->setCurrentStep(key.step);
}

void SpectrumView::setOverlayFirstStep(bool overlay)
{
    m_overlay = overlay;
    m_overlayBox->setChecked(overlay);
    rebuild();
}

void SpectrumView::setTail(SpectrumTail tail)
{
    m_tail = tail;
    m_tailBox->setCurrentIndex(std::max(0, m_tailBox->findData(int(tail))));
    rebuild();
}

QColor SpectrumView::colourOf(const SpectrumCurve &curve) const
{
    using Kind = SpectrumCurve::Kind;
    switch (curve.kind) {
    case Kind::SingularValues:
    case Kind::Ccdf:
    case Kind::Density: {
        if (!curve.main)
            return QColor(0x99, 0x99, 0x99); // the first step, overlaid
        const MatrixType type = *m_figure.type;
        return typeColour(type).value() > 200 && type == MatrixType::MlpDown ? typeColour(type).darker(130) : typeColour(type);
    }
    case Kind::Change:
    case Kind::Bulk: return theme().bulk;
    case Kind::PowerLaw: return theme().fit;
    }
    return theme().ink;
}

void SpectrumView::drawCurve(const SpectrumCurve &curve)
{
    using Kind = SpectrumCurve::Kind;
    QCPGraph *graph = addGraphTo(curve.leftPanel() ? m_rankRect : m_densityRect);
    const QColor colour = colourOf(curve);
    const Qt::PenStyle dash = curve.main ? Qt::SolidLine : Qt::DashLine;
    switch (curve.kind) {
    case Kind::SingularValues:
        graph->setPen(QPen(colour, curve.main ? 1.8 : 1.4, dash));
        if (curve.main)
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, m_figure.spectrumSize > 200 ? 2 : 4));
        break;
    case Kind::Density:
        graph->setPen(QPen(colour, curve.main ? 1.6 : 1.2, dash));
        graph->setLineStyle(QCPGraph::lsStepCenter);
        break;
    case Kind::Change:
        graph->setPen(QPen(colour, 1.6, Qt::DashLine));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, m_figure.changeSize > 200 ? 2 : 4));
        m_deltaGraph = graph;
        break;
    case Kind::Bulk: {
        QColor fill = colour;
        fill.setAlpha(theme().dark ? 60 : 45);
        graph->setPen(QPen(colour, 1.4));
        graph->setBrush(fill);
        m_bulkGraph = graph;
        break;
    }
    case Kind::PowerLaw:
        graph->setPen(QPen(colour, 2.0, Qt::DashLine));
        m_lawGraph = graph;
        break;
    case Kind::Ccdf: // every eigenvalue a point, joined as the steps of P(Λ ≥ λ)
        graph->setPen(QPen(colour, curve.main ? 1.0 : 0.8, dash));
        graph->setLineStyle(QCPGraph::lsStepRight);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, m_figure.spectrumSize > 200 ? 2.5 : 4));
        break;
    }
    for (const QPointF &point : curve.points)
        graph->addData(point.x(), point.y());
    graph->setName(curve.kind == Kind::PowerLaw ? fitTextFor(layoutSize()) : curve.name);
    if (curve.legend != SpectrumCurve::Legend::Rank)
        graph->removeFromLegend(plot()->legend);
    if (curve.legend == SpectrumCurve::Legend::Density)
        m_densityLegend->addItem(new QCPPlottableLegendItem(m_densityLegend, graph));
}

void SpectrumView::drawMarker(const SpectrumMarker &marker)
{
    auto *line = new QCPItemStraightLine(plot());
    line->setClipAxisRect(m_densityRect);
    for (QCPItemPosition *point : {line->point1, line->point2})
        point->setAxes(m_densityRect->axis(QCPAxis::atBottom), m_densityRect->axis(QCPAxis::atLeft));
    const QCPRange y = m_densityRect->axis(QCPAxis::atLeft)->range();
    line->point1->setCoords(marker.x, y.lower);
    line->point2->setCoords(marker.x, y.upper);
    line->setPen(markerPen(marker.kind));
    // Named in the panel's legend by an entry drawn as the line is (a graph without data).
    if (!marker.name.isEmpty()) {
        QCPGraph *entry = addGraphTo(m_densityRect);
        entry->setPen(markerPen(marker.kind));
        entry->setName(marker.name);
        entry->setSelectable(QCP::stNone);
        entry->removeFromLegend(plot()->legend);
        m_densityLegend->addItem(new QCPPlottableLegendItem(m_densityLegend, entry));
    }
}

QPen SpectrumView::markerPen(SpectrumMarker::Kind kind) const
{
    if (kind == SpectrumMarker::Kind::BulkEdge)
        return QPen(theme().bulk, 1.2, Qt::DashLine);
    QColor xminColour = theme().fit;
    xminColour.setAlpha(140);
    return QPen(xminColour, 1.2, Qt::DotLine);
}

void SpectrumView::rebuild()
{
    plot()->clearGraphs();
    plot()->clearItems();
    m_densityLegend->clearItems();
    m_lawGraph = nullptr;
    m_bulkGraph = nullptr;
    m_deltaGraph = nullptr;
    m_figure = SpectrumFigureBuilder(*state(), m_key, m_overlay, m_tail).build();
    const SpectrumFigure &f = m_figure;
    setTitle(f.title);
    if (!f.type) {
        refresh();
        return;
    }
    // The ranges first, so the markers span the density panel's height as they are drawn.
    auto setRanges = [](QCPAxisRect *rect, const std::optional<AxisRange> &x, const std::optional<AxisRange> &y) {
        if (x && y) {
            rect->axis(QCPAxis::atBottom)->setRange(x->lower, x->upper);
            rect->axis(QCPAxis::atLeft)->setRange(y->lower, y->upper);
        }
    };
    setRanges(m_rankRect, f.rankX, f.rankY);
    setRanges(m_densityRect, f.densityX, f.densityY);
    m_densityRect->axis(QCPAxis::atLeft)->setLabel(f.tailYLabel);
    labelRankAxis();
    // Each marker right after its curve: it is drawn over that curve and under the next. The
    // bulk's edge on the CCDF, which draws no bulk, comes last (in the legend too).
    const bool bulkDrawn = f.curve(SpectrumCurve::Kind::Bulk) != nullptr;
    for (const SpectrumCurve &curve : f.curves) {
        drawCurve(curve);
        for (const SpectrumMarker &marker : f.markers)
            if ((curve.kind == SpectrumCurve::Kind::Bulk && marker.kind == SpectrumMarker::Kind::BulkEdge) ||
                (curve.kind == SpectrumCurve::Kind::PowerLaw && marker.kind == SpectrumMarker::Kind::PowerLawXmin))
                drawMarker(marker);
    }
    for (const SpectrumMarker &marker : f.markers)
        if (!bulkDrawn && marker.kind == SpectrumMarker::Kind::BulkEdge)
            drawMarker(marker);
    for (QCPLegend *legend : {plot()->legend, m_densityLegend})
        PlotStyle::makeRoomForDescenders(legend);
    refresh();
}

// Inside, a legend of the ESD's fits (the MP bulk, the power law) would cover the density it
// describes in a low or narrow panel: there it goes under the panels.
bool SpectrumView::legendsInside(QSize size) { return size.width() >= 560 && size.height() >= 480; }

QString SpectrumView::fitTextFor(QSize size) const
{
    // The fit's legend entry breaks into lines no wider than its panel (as laid out last, plus half
    // the change in the figure's width).
    const int panel = !legendsInside(size)        ? size.width() - 40
                      : m_densityRect->width() > 0 ? m_densityRect->width() + (size.width() - plot()->viewport().width()) / 2
                                                   : size.width() / 2 - 60;
    const int width = std::max(80, panel - 24 - m_densityLegend->iconSize().width());
    return PlotStyle::wrapText(m_figure.fitText, m_densityLegend->font(), width, 4);
}

void SpectrumView::labelRankAxis()
{
    // Under a caption (no title) the σ axis says whose spectrum it is.
    const bool leftOut = titleLeftOut() && !m_figure.subjectText.isEmpty();
    m_rankRect->axis(QCPAxis::atLeft)->setLabel(leftOut ? tr("\u03c3\u1d62 (%1)").arg(m_figure.subjectText) : tr("Singular value \u03c3\u1d62"));
}

void SpectrumView::adaptLayout(QSize size)
{
    labelRankAxis();
    if (m_lawGraph)
        m_lawGraph->setName(fitTextFor(size));
    ChartView::adaptLayout(size);
    // Each panel's legend sits in its upper right where log–log spectra leave room, or in a row of
    // its own under both panels when they are too narrow to hold it.
    const bool inside = legendsInside(size);
    const QList<std::pair<QCPAxisRect *, QCPLegend *>> legends = {{m_rankRect, plot()->legend}, {m_densityRect, m_densityLegend}};
    plot()->legend->setVisible(plot()->legend->itemCount() > 0);
    for (int column = 0; column < 2; ++column) {
        auto [rect, legend] = legends[column];
        if (QCPLayout *parent = legend->layout()) {
            parent->take(legend);
            // The row an earlier layout made under the panels goes when it holds no legend.
            if (auto *row = qobject_cast<QCPLayoutGrid *>(parent); row && row != body() && row->elementCount() > 0 &&
                                                                    row->elements(false).count(nullptr) == row->elementCount())
                plot()->plotLayout()->remove(row);
        }
        if (inside)
            rect->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    }
    plot()->plotLayout()->simplify();
    if (!inside) {
        auto *row = new QCPLayoutGrid;
        plot()->plotLayout()->addElement(plot()->plotLayout()->rowCount(), 0, row);
        plot()->plotLayout()->setRowStretchFactor(plot()->plotLayout()->rowCount() - 1, 0.01);
        row->addElement(0, 0, plot()->legend);
        row->addElement(0, 1, m_densityLegend);
    }
}

QString SpectrumView::tooltipAt(const QPoint &pixel) const
{
    if (!m_key || !m_rankRect->rect().contains(pixel))
        return {};
    const MatrixResult *r = state()->find(*m_key);
    if (!r)
        return {};
    const long i = std::lround(m_rankRect->axis(QCPAxis::atBottom)->pixelToCoord(pixel.x())) - 1;
    if (i < 0 || i >= r->singularValues.size())
        return {};
    return tr("\u03c3<sub>%1</sub> = %2 (\u03bb = %3)").arg(i + 1).arg(r->singularValues[i], 0, 'g', 5).arg(r->singularValues[i] * r->singularValues[i], 0, 'g', 5);
}

QString SpectrumView::dataCsv() const
{
    // Every row names its matrix, so files from several spectra can be concatenated and still read.
    QString csv = QStringLiteral("step,block,layer,type,expert,tensor,rank,singular_value,eigenvalue\n");
    if (const MatrixResult *r = m_key ? state()->find(*m_key) : nullptr) {
        const QString matrix = QStringLiteral("%1,%2,%3,%4,%5,%6").arg(r->step).arg(MetricsTable::csvField(r->block)).arg(r->layer)
                                   .arg(csvName(r->type), MetricsTable::csvField(r->expert), MetricsTable::csvField(r->tensor));
        for (Eigen::Index i = 0; i < r->singularValues.size(); ++i)
            csv += QStringLiteral("%1,%2,%3,%4\n").arg(matrix).arg(i + 1).arg(r->singularValues[i], 0, 'g', 17).arg(r->singularValues[i] * r->singularValues[i], 0, 'g', 17);
    }
    return csv;
}

FigurePanels *buildSpectrumPanels(ViewState *state, QWidget *figure) { return new SingleViewPanels<SpectrumView>(state, figure); }

QString SpectrumView::configure(const ViewState &state, const FigureOptions &options)
{
    if (options.type.isEmpty() || !options.layer)
        return QStringLiteral("spectrum needs --layer L and --type T");
    QString error;
    const auto type = matrixTypeOption(QStringLiteral("type"), options.type, &error);
    if (!type)
        return error;
    const MatrixKey key{0, state.currentStep(), {state.block(), int(*options.layer), *type, state.expert()}};
    if (!state.find(key))
        return QStringLiteral("no %1 matrix at step %2").arg(key.id.text()).arg(key.step);
    setTail(options.spectrumTail);
    showMatrix(key);
    return {};
}

QString SpectrumView::exportProblem() const { return matrix() ? QString() : QStringLiteral("no matrix is chosen for the spectrum"); }

} // namespace rankscope
