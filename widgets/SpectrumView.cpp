#include "SpectrumView.h"

#include "MatrixPicker.h"
#include "analysis/MetricsTable.h"

#include "PlotStyle.h"
#include "TypeStyle.h"
#include "spectral/EigenvalueDensity.h"
#include "spectral/PowerLawFit.h"
#include "spectral/SpectralMetrics.h"
#include "spectral/WeightWatcherMetrics.h"

#include <QCheckBox>
#include <algorithm>
#include <cmath>
#include <numbers>

namespace rankscope {

namespace {

QCPGraph *addGraphTo(QCPAxisRect *rect)
{
    return rect->parentPlot()->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
}

} // namespace

SpectrumView::SpectrumView(ViewState *state, QWidget *parent)
    : ChartView(state, parent), m_rankRect(plot()->axisRect()), m_densityRect(new QCPAxisRect(plot())),
      m_densityLegend(new QCPLegend), m_overlayBox(new QCheckBox(tr("Overlay the first step"), this))
{
    m_picker = new MatrixPicker(state, this);
    headerLayout()->addWidget(m_picker);
    headerLayout()->addSpacing(12);
    headerLayout()->addWidget(m_overlayBox);
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
    m_densityRect->axis(QCPAxis::atLeft)->setLabel(tr("Density p(\u03bb)"));
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
    rebuild();
}

void SpectrumView::showMatrix(const MatrixKey &key)
{
    m_key = key;
    m_showingDefault = false;
    m_picker->setKey(key);
    rebuild();
}

void SpectrumView::setOverlayFirstStep(bool overlay)
{
    m_overlay = overlay;
    m_overlayBox->setChecked(overlay);
    rebuild();
}

void SpectrumView::addSpectrum(const MatrixResult &r, const QColor &colour, bool main)
{
    const QString name = tr("step %1").arg(r.step);
    QCPGraph *sigma = addGraphTo(m_rankRect);
    sigma->setName(name);
    sigma->setPen(QPen(colour, main ? 1.8 : 1.4, main ? Qt::SolidLine : Qt::DashLine));
    if (main)
        sigma->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, r.singularValues.size() > 200 ? 2 : 4));
    for (Eigen::Index i = 0; i < r.singularValues.size(); ++i)
        if (r.singularValues[i] > 0)
            sigma->addData(double(i + 1), r.singularValues[i]);

    const Eigen::VectorXd lambda = r.singularValues.array().square();
    QCPGraph *density = addGraphTo(m_densityRect);
    density->setPen(QPen(colour, main ? 1.6 : 1.2, main ? Qt::SolidLine : Qt::DashLine));
    density->setLineStyle(QCPGraph::lsStepCenter);
    for (const auto &[x, y] : logBinnedDensity(lambda, densityBinsFor(lambda.size())))
        density->addData(x, y);
    density->setName(tr("ESD, step %1").arg(r.step));
    density->removeFromLegend(plot()->legend);
    // With one spectrum the title names its step: the legends then carry only the fit.
    if (m_overlay)
        m_densityLegend->addItem(new QCPPlottableLegendItem(m_densityLegend, density));
    else
        sigma->removeFromLegend(plot()->legend);

    if (!main)
        return;
    // --delta: D = W − W_ref's singular values beside W's, on the same axes.
    if (r.deltaSingularValues.size() > 0 && spectrumProblem(r.deltaSingularValues).isEmpty()) {
        QCPGraph *change = addGraphTo(m_rankRect);
        change->setName(tr("W \u2212 W\u2080 (change from the reference)"));
        change->setPen(QPen(theme().bulk, 1.6, Qt::DashLine));
        change->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme().bulk, r.deltaSingularValues.size() > 200 ? 2 : 4));
        for (Eigen::Index i = 0; i < r.deltaSingularValues.size(); ++i)
            if (r.deltaSingularValues[i] > 0)
                change->addData(double(i + 1), r.deltaSingularValues[i]);
        m_deltaGraph = change;
        change->removeFromLegend(plot()->legend);
        if (!m_overlay) { // two lines in the panel: both named, W first
            sigma->setName(tr("W, step %1").arg(r.step));
            sigma->addToLegend(plot()->legend);
        }
        change->addToLegend(plot()->legend);
    }
    addMarchenkoPasturBulk(r, lambda);
    // The fit the analysis made (metric contract, "alpha"): drawn, not fitted again.
    const SpectralMetrics &fit = r.metrics;
    if (!std::isfinite(fit.alpha) || !(fit.alphaXmin > 0) || !std::isfinite(fit.alphaXmin)) {
        m_fitText = tr("no power-law fit (fewer than 2 eigenvalues above 1e-5)");
        return;
    }
    const auto fitted = (lambda.array() > kPowerLawThreshold).count();
    // p(λ) = (tail share) · (α − 1)/xmin · (λ/xmin)^(−α) for λ ≥ xmin: the fitted tail on the same density scale.
    QCPGraph *law = addGraphTo(m_densityRect);
    law->setPen(QPen(theme().fit, 2.0, Qt::DashLine));
    const double share = fit.alphaTailSize / double(lambda.size());
    const double top = lambda.maxCoeff();
    for (int i = 0; i <= 40; ++i) {
        const double x = fit.alphaXmin * std::pow(top / fit.alphaXmin, i / 40.0);
        const double p = share * (fit.alpha - 1) / fit.alphaXmin * std::pow(x / fit.alphaXmin, -fit.alpha);
        if (std::isfinite(x) && std::isfinite(p) && p > 0) // a log–log axis holds nothing else
            law->addData(x, p);
    }
    m_fitText = tr("power law: \u03b1 = %1, D = %2, x\u2098\u1d62\u2099 = %3 (%4 of %5)")
                    .arg(fit.alpha, 0, 'f', 2).arg(fit.alphaKsDistance, 0, 'f', 3).arg(fit.alphaXmin, 0, 'g', 3).arg(fit.alphaTailSize).arg(fitted);
    m_lawGraph = law;
    law->setName(fitTextFor(layoutSize()));
    m_densityLegend->addItem(new QCPPlottableLegendItem(m_densityLegend, law));
    law->removeFromLegend(plot()->legend);
    auto *xminLine = new QCPItemStraightLine(plot());
    xminLine->setClipAxisRect(m_densityRect);
    xminLine->point1->setAxes(m_densityRect->axis(QCPAxis::atBottom), m_densityRect->axis(QCPAxis::atLeft));
    xminLine->point2->setAxes(m_densityRect->axis(QCPAxis::atBottom), m_densityRect->axis(QCPAxis::atLeft));
    xminLine->point1->setCoords(fit.alphaXmin, 1);
    xminLine->point2->setCoords(fit.alphaXmin, 10);
    QColor xminColour = theme().fit;
    xminColour.setAlpha(120);
    xminLine->setPen(QPen(xminColour, 1, Qt::DotLine));
}

void SpectrumView::addMarchenkoPasturBulk(const MatrixResult &r, const Eigen::VectorXd &lambda)
{
    // WeightWatcher's MP fit (num_spikes, mp_softrank come from it), by the same function; it is
    // cheap next to a decomposition. The edge drawn is λ₊; num_spikes counts the eigenvalues beyond
    // λ₊ plus its Tracy–Widom margin, which the legend says.
    const MarchenkoPasturFit fit = fitMarchenkoPastur(lambda, r.rows, r.cols);
    if (!fit.ok || !(fit.bulkMax > 0))
        return;
    // The law on λ's own axis: p(λ) = scale·ρ(scale·λ), sampled densely towards both edges, where
    // it rises and falls as a square root; values far below its peak would only stretch the log axis.
    const double low = std::max(fit.bulkMin, fit.bulkMax * 1e-4), high = fit.bulkMax;
    QList<QPair<double, double>> points;
    double peak = 0;
    for (int i = 0; i <= 160; ++i) {
        const double t = std::numbers::pi / 2 * i / 160;
        const double x = fit.bulkMin > 0 ? low + (high - low) * std::sin(t) * std::sin(t) : low * std::pow(high / low, std::sin(t));
        const double p = fit.scale * marchenkoPasturDensity(std::clamp(x, low * (1 + 1e-12), high * (1 - 1e-12)), fit.sigma, fit.q);
        points.append({x / fit.scale, p});
        peak = std::max(peak, p);
    }
    QCPGraph *bulk = addGraphTo(m_densityRect);
    QColor edge = theme().bulk, fill = theme().bulk;
    fill.setAlpha(theme().dark ? 60 : 45);
    bulk->setPen(QPen(edge, 1.4));
    bulk->setBrush(fill);
    for (const auto &[x, p] : points)
        if (p > peak * 1e-3)
            bulk->addData(x, p);
    const QString q = QString::number(fit.q, 'g', 3);
    bulk->setName(fit.numSpikes == 1 ? tr("MP bulk, Q = %1: 1 spike past λ₊ + TW").arg(q)
                                     : tr("MP bulk, Q = %1: %2 spikes past λ₊ + TW").arg(q).arg(fit.numSpikes));
    bulk->removeFromLegend(plot()->legend);
    m_densityLegend->addItem(new QCPPlottableLegendItem(m_densityLegend, bulk));
    m_bulkGraph = bulk;
    auto *edgeLine = new QCPItemStraightLine(plot());
    edgeLine->setClipAxisRect(m_densityRect);
    edgeLine->point1->setAxes(m_densityRect->axis(QCPAxis::atBottom), m_densityRect->axis(QCPAxis::atLeft));
    edgeLine->point2->setAxes(m_densityRect->axis(QCPAxis::atBottom), m_densityRect->axis(QCPAxis::atLeft));
    edgeLine->point1->setCoords(fit.bulkMax / fit.scale, 1);
    edgeLine->point2->setCoords(fit.bulkMax / fit.scale, 10);
    edgeLine->setPen(QPen(edge, 1.2, Qt::DashLine));
    m_bulkEdge = fit.bulkMax / fit.scale;
}

void SpectrumView::rebuild()
{
    plot()->clearGraphs();
    plot()->clearItems();
    m_densityLegend->clearItems();
    m_fitText.clear();
    m_lawGraph = nullptr;
    m_bulkGraph = nullptr;
    m_deltaGraph = nullptr;
    m_bulkEdge = 0;
    const MatrixResult *r = m_key ? state()->find(*m_key) : nullptr;
    if (!r) {
        setTitle(tr("Click a bar, a heatmap cell or a per-layer point to see that matrix's spectrum"));
        refresh();
        return;
    }
    // A spectrum the metrics cannot take (NaN, Inf, negative, or σ whose squares overflow) is
    // named, not drawn: its eigenvalues would give the density and the axes no finite range. The
    // solver and the results file let none through; a view must not depend on it.
    if (const QString problem = spectrumProblem(r->singularValues); !problem.isEmpty()) {
        setTitle(tr("Spectrum of %1, step %2: %3 is not drawn: %4").arg(r->identity().text()).arg(r->step).arg(r->tensor, problem));
        refresh();
        return;
    }
    const QList<qint64> runSteps = state()->stepsAt(m_key->run);
    if (m_overlay && !runSteps.isEmpty() && runSteps.first() != r->step)
        if (const MatrixResult *first = state()->find({m_key->run, runSteps.first(), r->identity()}); first && spectrumProblem(first->singularValues).isEmpty())
            addSpectrum(*first, QColor(0x99, 0x99, 0x99), false);
    addSpectrum(*r, typeColour(r->type).value() > 200 && r->type == MatrixType::MlpDown ? typeColour(r->type).darker(130) : typeColour(r->type), true);
    setTitle(tr("Spectrum of %1, step %2: %3 [%4\u00d7%5] — %6")
                 .arg(r->identity().text()).arg(r->step).arg(r->tensor).arg(r->rows).arg(r->cols).arg(state()->runNameAt(m_key->run)));
    for (QCPAxisRect *rect : {m_rankRect, m_densityRect}) {
        bool first = true;
        QCPRange keys, values;
        for (int gi = 0; gi < plot()->graphCount(); ++gi) {
            QCPGraph *g = plot()->graph(gi);
            if (g->keyAxis()->axisRect() != rect || g == m_bulkGraph) // the law fits under the ESD's range
                continue;
            bool ok = false;
            const QCPRange k = g->getKeyRange(ok, QCP::sdPositive);
            bool ok2 = false;
            const QCPRange v = g->getValueRange(ok2, QCP::sdPositive);
            if (!ok || !ok2)
                continue;
            keys = first ? k : QCPRange(std::min(keys.lower, k.lower), std::max(keys.upper, k.upper));
            values = first ? v : QCPRange(std::min(values.lower, v.lower), std::max(values.upper, v.upper));
            first = false;
        }
        if (!first) {
            rect->axis(QCPAxis::atBottom)->setRange(keys.lower / 1.3, keys.upper * 1.3);
            rect->axis(QCPAxis::atLeft)->setRange(values.lower / 2, values.upper * 3);
        }
    }
    // The xmin marker spans the density panel's height.
    for (int i = 0; i < plot()->itemCount(); ++i)
        if (auto *line = qobject_cast<QCPItemStraightLine *>(plot()->item(i))) {
            const QCPRange y = m_densityRect->axis(QCPAxis::atLeft)->range();
            line->point1->setCoords(line->point1->coords().x(), y.lower);
            line->point2->setCoords(line->point2->coords().x(), y.upper);
        }
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
    return PlotStyle::wrapText(m_fitText, m_densityLegend->font(), width, 4);
}

void SpectrumView::adaptLayout(QSize size)
{
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

} // namespace rankscope
