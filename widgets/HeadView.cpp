#include "HeadView.h"

#include "FigurePanels.h"
#include "base/PrintableText.h"
#include "MetricSelector.h"
#include "PlotStyle.h"
#include "TypeStyle.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <cmath>

namespace rankscope {

HeadView::HeadView(ViewState *state, QWidget *parent) : ChartView(state, parent), m_margins(new QCPMarginGroup(plot()))
{
    plot()->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, m_margins);
    addControls();
    useSideLegend();
    enableZoom({plot()->axisRect()});
    connect(state, &ViewState::resultsChanged, this, &HeadView::rebuild);
    connect(state, &ViewState::displayChanged, this, &HeadView::rebuild);
    connect(state, &ViewState::currentStepChanged, this, &HeadView::rebuild);
    // After every layout, the heatmap's values where its cells (now of their final size) hold them.
    connect(plot(), &QCustomPlot::afterLayout, this, [this] {
        if (m_cellTexts)
            m_cellTexts->place(int(m_heatmap.layers.size()), int(m_heatmap.heads.size()), fontSize(),
                               [this](int y, int x, int fewer) { return HeatmapCellTexts::valueText(m_heatmap.values[y][x], fewer); });
    });
    rebuild();
}

void HeadView::addControls()
{
    m_modeBox = new QComboBox(this);
    m_modeBox->addItems({tr("Head × layer"), tr("Heads over steps"), tr("One head's spectrum")});
    m_typeBox = new QComboBox(this);
    for (MatrixType type : kHeadTypes)
        m_typeBox->addItem(displayLabel(type), int(type));
    m_typeBox->setToolTip(tr("A head of Q, K, V or O, or a head's QK circuit W_Q\u02b0 W_K\u02b0\u1d40 or OV circuit W_V\u02b0 W_O\u02b0"));
    m_metricBox = new MetricSelector(m_metric, this);
    m_layerBox = new QSpinBox(this);
    m_headBox = new QSpinBox(this);
    m_layerBox->setPrefix(tr("layer "));
    m_headBox->setPrefix(tr("head "));
    QHBoxLayout *header = headerLayout();
    for (QWidget *w : std::initializer_list<QWidget *>{m_modeBox, m_typeBox, m_metricBox, m_layerBox, m_headBox})
        header->addWidget(w);
    header->addStretch(1);
    connect(m_modeBox, &QComboBox::activated, this, [this](int i) { setMode(Mode(i)); });
    connect(m_typeBox, &QComboBox::activated, this, [this](int i) { setHeadType(MatrixType(m_typeBox->itemData(i).toInt())); });
    connect(m_metricBox, &MetricSelector::metricChosen, this, &HeadView::setMetric);
    connect(m_layerBox, &QSpinBox::valueChanged, this, [this](int v) { setLayer(v); });
    connect(m_headBox, &QSpinBox::valueChanged, this, [this](int v) { setHead(v); });
}

void HeadView::setMode(Mode mode)
{
    const bool changed = mode != m_mode;
    m_mode = mode;
    rebuild();
    if (changed)
        emit modeChanged(mode);
}
void HeadView::setHeadType(MatrixType type)
{
    m_type = type;
    rebuild();
}
void HeadView::setMetric(Metric metric)
{
    m_metric = metric;
    rebuild();
}
void HeadView::setLayer(int layer)
{
    if (layer == m_layer)
        return;
    m_layer = layer;
    rebuild();
}
void HeadView::setHead(int head)
{
    if (head == m_head)
        return;
    m_head = head;
    rebuild();
}

std::unique_ptr<ChartView> HeadView::createSibling() const
{
    auto sibling = std::make_unique<HeadView>(state());
    sibling->m_mode = m_mode;
    sibling->m_type = m_type;
    sibling->m_metric = m_metric;
    sibling->m_layer = m_layer;
    sibling->m_head = m_head;
    sibling->rebuild();
    return sibling;
}

void HeadView::syncControls()
{
    const QSignalBlocker a(m_modeBox), b(m_typeBox), c(m_metricBox), d(m_layerBox), e(m_headBox);
    m_modeBox->setCurrentIndex(int(m_mode));
    m_typeBox->setCurrentIndex(m_typeBox->findData(int(m_type)));
    m_metricBox->setMetric(m_metric);
    const QList<int> layers = HeadFigureBuilder(*state(), m_metric, m_type).layers();
    m_layerBox->setRange(layers.isEmpty() ? 0 : layers.first(), layers.isEmpty() ? 0 : layers.last());
    m_layerBox->setValue(m_layer);
    m_layerBox->setVisible(m_mode != Mode::Heatmap);
    m_metricBox->setVisible(m_mode != Mode::Spectrum); // a spectrum is every σ, of no one metric
    m_headBox->setRange(0, std::max(0, int(m_heatmap.heads.size()) - 1));
    m_headBox->setValue(m_head);
    m_headBox->setVisible(m_mode == Mode::Spectrum);
}

void HeadView::clearPlot()
{
    if (m_cellTexts)
        m_cellTexts->clear();
    m_cellTexts.reset();
    plot()->clearGraphs();
    plot()->clearPlottables();
    m_map = nullptr;
    if (m_scale) {
        body()->remove(m_scale);
        body()->simplify();
        m_scale = nullptr;
    }
    plot()->legend->setVisible(false);
    plot()->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot()->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot()->yAxis->setScaleType(QCPAxis::stLinear);
    plot()->yAxis->setRangeReversed(false);
}

void HeadView::rebuild()
{
    const HeadFigureBuilder builder(*state(), m_metric, m_type);
    const QList<int> layers = builder.layers();
    if (!layers.isEmpty() && !layers.contains(m_layer))
        m_layer = layers.first();
    m_heatmap = builder.heatmap();
    m_lines = builder.lines(m_layer);
    m_head = std::clamp(m_head, 0, std::max(0, int(m_heatmap.heads.size()) - 1));
    syncControls();
    clearPlot();
    if (m_mode == Mode::Heatmap)
        drawHeatmap();
    else if (m_mode == Mode::Lines)
        drawLines();
    else
        drawSpectrum();
    refresh();
}

void HeadView::drawHeatmap()
{
    const HeadHeatmap &f = m_heatmap;
    m_map = new QCPColorMap(plot()->xAxis, plot()->yAxis);
    m_scale = new QCPColorScale(plot());
    body()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(12);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, m_margins);
    m_scale->axis()->setLabel(QString::fromUtf8(f.metric.info().label));
    // Made anew on each rebuild: at the figure's font size, as its axes are (a paper size's too).
    m_scale->axis()->setLabelFont(PlotStyle::labelFont(fontSize()));
    m_scale->axis()->setTickLabelFont(PlotStyle::tickFont(fontSize()));
    m_map->setColorScale(m_scale);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    QStringList layers, heads;
    for (int layer : f.layers)
        layers << QString::number(layer);
    for (int head : f.heads)
        heads << QString::number(head);
    setHeatmapGrid(plot(), m_map, layers, heads, [&f](int y, int x) { return f.values[y][x]; });
    m_map->setGradient(PlotStyle::viridis());
    if (f.range)
        m_map->setDataRange(f.range->lower < f.range->upper ? QCPRange(f.range->lower, f.range->upper)
                                                            : QCPRange(f.range->lower - 0.5, f.range->upper + 0.5));
    m_cellTexts = std::make_unique<HeatmapCellTexts>(plot(), m_map);
    plot()->yAxis->setRangeReversed(true); // head 0 at the top
    labelHeatmapAxes();
    setTitle(f.title);
    setNoDataMessage(f.noData);
}

void HeadView::labelHeatmapAxes()
{
    // Under a caption (no title) the axes say the step and the circuit.
    const bool leftOut = titleLeftOut() && m_heatmap.noData.isEmpty();
    plot()->xAxis->setLabel(leftOut ? m_heatmap.captionedXLabel : m_heatmap.xLabel);
    plot()->yAxis->setLabel(leftOut ? m_heatmap.captionedYLabel : m_heatmap.yLabel);
}

void HeadView::adaptLayout(QSize size)
{
    if (m_mode == Mode::Heatmap)
        labelHeatmapAxes();
    ChartView::adaptLayout(size);
}

void HeadView::drawLines()
{
    const HeadLines &f = m_lines;
    const int n = int(f.lines.size());
    for (int i = 0; i < n; ++i) {
        const HeadLine &line = f.lines[i];
        QCPGraph *graph = plot()->addGraph();
        // Viridis short of its pale yellow end, which a white background swallows.
        const QColor colour = PlotStyle::viridis().color(n > 1 ? 0.85 * double(i) / (n - 1) : 0.0, QCPRange(0, 1));
        graph->setPen(QPen(colour, 1.6));
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, colour, colour, 4));
        graph->setName(HeadFigureBuilder::headText(f.type, line.head, line.kvHead));
        for (const QPointF &p : line.points)
            graph->addData(p.x(), p.y());
    }
    plot()->legend->setVisible(n > 0);
    plot()->xAxis->setLabel(f.xLabel);
    plot()->yAxis->setLabel(f.yLabel);
    plot()->rescaleAxes();
    // A margin round the points, so that none sits on the frame.
    for (QCPAxis *axis : {plot()->xAxis, plot()->yAxis}) {
        const QCPRange r = axis->range();
        const double pad = r.size() > 0 ? 0.04 * r.size() : 0.5;
        axis->setRange(r.lower - pad, r.upper + pad);
    }
    setTitle(f.title);
    setNoDataMessage(f.noData);
}

const MatrixResult *HeadView::spectrumRow() const
{
    for (const MatrixResult &r : state()->headResults())
        if (r.type == m_type && r.layer == m_layer && r.head == m_head && r.step == state()->currentStep() && r.block == state()->block())
            return &r;
    return nullptr;
}

void HeadView::drawSpectrum()
{
    const MatrixResult *row = spectrumRow();
    plot()->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot()->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot()->xAxis->setLabel(tr("Index i"));
    plot()->yAxis->setLabel(tr("Singular value \u03c3\u1d62"));
    if (!row) {
        setTitle(tr("Spectrum of one head"));
        setNoDataMessage(state()->headResults().isEmpty() ? HeadFigureBuilder::noHeadsReason()
                                                          : tr("No %1 of layer %2, head %3 at step %4.").arg(displayLabel(m_type)).arg(m_layer).arg(m_head).arg(state()->currentStep()));
        return;
    }
    QCPGraph *graph = plot()->addGraph();
    graph->setPen(QPen(theme().ink, 1.6));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme().ink, theme().ink, 5));
    for (Eigen::Index i = 0; i < row->singularValues.size(); ++i)
        if (row->singularValues[i] > 0)
            graph->addData(double(i + 1), row->singularValues[i]);
    graph->removeFromLegend(); // one series, named by the title
    plot()->rescaleAxes();
    plot()->xAxis->setRange(0.5, double(row->singularValues.size()) + 0.5);
    const QCPRange sigma = plot()->yAxis->range(); // log axis: a margin by factors
    plot()->yAxis->setRange(sigma.lower / 1.5, sigma.upper * 1.5);
    setTitle(tr("Spectrum of %1 \u00b7 layer %2 \u00b7 %3 \u00b7 step %4")
                 .arg(displayLabel(m_type)).arg(m_layer).arg(HeadFigureBuilder::headText(m_type, m_head, row->kvHead)).arg(row->step));
    setNoDataMessage({});
}

QString HeadView::tooltipAt(const QPoint &pixel) const
{
    const double x = plot()->xAxis->pixelToCoord(pixel.x()), y = plot()->yAxis->pixelToCoord(pixel.y());
    if (m_mode == Mode::Heatmap) {
        const int column = int(std::lround(x)), row = int(std::lround(y));
        if (column < 0 || row < 0 || column >= m_heatmap.layers.size() || row >= m_heatmap.heads.size())
            return {};
        return m_heatmap.tooltip(row, column);
    }
    if (m_mode == Mode::Spectrum) {
        const MatrixResult *r = spectrumRow();
        const int i = int(std::lround(x)) - 1;
        if (!r || i < 0 || i >= r->singularValues.size())
            return {};
        return QStringLiteral("layer %1 \u00b7 %2 \u00b7 %3: \u03c3%4 = %5")
            .arg(m_layer).arg(HeadFigureBuilder::headText(m_type, m_head, r->kvHead), displayLabel(m_type)).arg(i + 1).arg(r->singularValues[i], 0, 'g', 4);
    }
    // Lines: the nearest point of any head, in pixels.
    double best = 12;
    QString text;
    for (const HeadLine &line : m_lines.lines)
        for (const QPointF &p : line.points) {
            const double d = std::hypot(plot()->xAxis->coordToPixel(p.x()) - pixel.x(), plot()->yAxis->coordToPixel(p.y()) - pixel.y());
            if (d < best) {
                best = d;
                text = QStringLiteral("layer %1 \u00b7 %2 \u00b7 %3 \u00b7 step %4: %5 %6")
                           .arg(m_layer).arg(HeadFigureBuilder::headText(m_type, line.head, line.kvHead), displayLabel(m_type))
                           .arg(qint64(p.x())).arg(QString::fromUtf8(m_metric.info().label)).arg(p.y(), 0, 'g', 4);
            }
        }
    return text;
}

QString HeadView::dataCsv() const
{
    // One head's spectrum: its singular values, as drawn (and as stored in the results).
    if (m_mode == Mode::Spectrum) {
        QStringList lines{QStringLiteral("step,block,layer,type,head,kv_head,index,singular_value")};
        if (const MatrixResult *r = spectrumRow())
            for (Eigen::Index i = 0; i < r->singularValues.size(); ++i)
                lines << QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8").arg(r->step).arg(r->block).arg(r->layer).arg(csvName(r->type)).arg(r->head)
                             .arg(r->kvHead).arg(i + 1).arg(r->singularValues[i], 0, 'g', 17);
        return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
    }
    QStringList lines{QStringLiteral("step,block,layer,type,head,kv_head,%1").arg(QString::fromLatin1(m_metric.info().column))};
    for (const MatrixResult &r : state()->headResults())
        if (r.type == m_type && r.block == state()->block() && (m_mode == Mode::Lines ? r.layer == m_layer : r.step == state()->currentStep()))
            lines << QStringLiteral("%1,%2,%3,%4,%5,%6,%7").arg(r.step).arg(r.block).arg(r.layer).arg(csvName(r.type)).arg(r.head).arg(r.kvHead)
                         .arg(metricValue(r.metrics, m_metric), 0, 'g', 10);
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

FigurePanels *buildHeadPanels(ViewState *state, QWidget *figure) { return new SingleViewPanels<HeadView>(state, figure); }

QString HeadView::configure(const ViewState &state, const FigureOptions &options)
{
    // Nothing per head to draw: refused, as a figure that would only say so.
    if (state.headResults().isEmpty())
        return QStringLiteral("heads: ") + HeadFigureBuilder::noHeadsReason();
    if (options.metric)
        setMetric(*options.metric);
    if (!options.type.isEmpty()) {
        const auto type = anyTypeFromCsvName(options.type);
        if (!type || std::find(kHeadTypes.begin(), kHeadTypes.end(), *type) == kHeadTypes.end())
            return QStringLiteral("heads: --type is one of Q, K, V, O, QK, OV, not '%1'").arg(printableText(options.type));
        setHeadType(*type);
    }
    if (options.head && !options.layer)
        return QStringLiteral("heads: --head needs --layer L");
    if (options.layer) {
        setLayer(int(*options.layer));
        setMode(options.head ? Mode::Spectrum : Mode::Lines);
        if (layer() != int(*options.layer))
            return QStringLiteral("heads: no layer %1 with per-head spectra").arg(*options.layer);
    }
    if (options.head) {
        setHead(int(*options.head));
        if (!spectrumRow() || head() != int(*options.head))
            return QStringLiteral("heads: no %1 head %2 in layer %3 at this step").arg(displayLabel(headType())).arg(*options.head).arg(*options.layer);
    }
    return {};
}

} // namespace rankscope
