#include "TypeLayerHeatmap.h"

#include "PlotStyle.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <cmath>

namespace rankscope {

namespace {
constexpr int kScaleLabelRoom = 4; // pixels right of the colour bar's label
} // namespace

TypeLayerHeatmap::TypeLayerHeatmap(ViewState *state, Metric metric, QWidget *parent)
    : RunStepView(state, metric, parent), m_map(new QCPColorMap(plot()->xAxis, plot()->yAxis)),
      m_scale(new QCPColorScale(plot())), m_cellTexts(plot(), m_map)
{
    addColourControls();
    headerLayout()->addStretch(1);

    m_map->setInterpolate(false); // crisp cells
    m_map->setTightBoundary(false);
    body()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_scale->setBarWidth(12);
    m_scale->axis()->setLabelFont(PlotStyle::labelFont());
    m_scale->axis()->setTickLabelFont(PlotStyle::tickFont());
    m_map->setColorScale(m_scale);
    auto *margins = new QCPMarginGroup(plot());
    plot()->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    plot()->xAxis->setLabel(tr("Layer"));
    plot()->yAxis->setLabel(tr("Matrix type"));
    plot()->yAxis->setRangeReversed(true); // Q at the top, as in a table
    for (QCPAxis *axis : {plot()->xAxis, plot()->yAxis}) {
        axis->grid()->setVisible(false);
        axis->setTickLength(0, 3);
        axis->setSubTicks(false);
    }

    m_highlight = new QCPItemRect(plot());
    m_highlight->setBrush(Qt::NoBrush);
    m_highlight->setSelectable(false);
    m_highlight->setVisible(false);
    connect(plot(), &QCustomPlot::afterLayout, this, &TypeLayerHeatmap::placeCellTexts);
    connect(state, &ViewState::highlightChanged, this, &TypeLayerHeatmap::rebuild);
    connect(state, &ViewState::resultsChanged, this, &TypeLayerHeatmap::rebuild);
    connect(state, &ViewState::displayChanged, this, &TypeLayerHeatmap::rebuild);
    connect(state, &ViewState::currentStepChanged, this, &TypeLayerHeatmap::rebuild);
    rebuild();
}

std::unique_ptr<ChartView> TypeLayerHeatmap::createSibling() const
{
    auto sibling = std::make_unique<TypeLayerHeatmap>(state(), m_metric);
    sibling->m_run = m_run;
    sibling->m_colourRange = m_colourRange;
    return sibling;
}

void TypeLayerHeatmap::addColourControls()
{
    m_colourFit = new QComboBox(this);
    m_colourFit->addItem(tr("All steps"));
    m_colourFit->addItem(tr("This step"));
    m_colourFit->addItem(tr("Set by hand"));
    m_colourFit->setToolTip(tr("What the colours span: every step of the run (one colour is one value while scrubbing or playing), "
                               "the step shown (the default: each metric's own range at that step), or a minimum and maximum of yours"));
    m_colourMin = new QDoubleSpinBox(this);
    m_colourMax = new QDoubleSpinBox(this);
    for (QDoubleSpinBox *box : {m_colourMin, m_colourMax}) {
        box->setRange(-1e9, 1e9);
        box->setDecimals(3);
        box->setVisible(false);
    }
    m_colourMin->setToolTip(tr("The value at the bottom of the colour bar"));
    m_colourMax->setToolTip(tr("The value at the top of the colour bar"));
    headerLayout()->addSpacing(12);
    headerLayout()->addWidget(new QLabel(tr("Colours"), this));
    headerLayout()->addWidget(m_colourFit);
    headerLayout()->addWidget(m_colourMin);
    headerLayout()->addWidget(m_colourMax);
    connect(m_colourFit, &QComboBox::activated, this, [this](int index) {
        HeatmapColourRange range;
        range.fit = index == 1 ? HeatmapColourRange::Fit::ShownStep : HeatmapColourRange::Fit::AllSteps;
        if (index == 2 && m_figure.colours.range) { // by hand, starting from the range shown
            range.min = m_figure.colours.range->lower;
            range.max = m_figure.colours.range->upper;
        }
        setColourRange(range);
    });
    for (QDoubleSpinBox *box : {m_colourMin, m_colourMax})
        connect(box, &QDoubleSpinBox::editingFinished, this, [this] {
            if (m_colourMin->value() < m_colourMax->value()) // an empty or upside-down range is not taken
                setColourRange({m_colourRange.fit, m_colourMin->value(), m_colourMax->value()});
        });
}

void TypeLayerHeatmap::setColourRange(const HeatmapColourRange &range)
{
    if (range == m_colourRange)
        return;
    m_colourRange = range;
    rebuild();
}

void TypeLayerHeatmap::syncColourControls()
{
    const bool byHand = m_colourRange.min && m_colourRange.max;
    const QSignalBlocker fit(m_colourFit), low(m_colourMin), high(m_colourMax);
    m_colourFit->setCurrentIndex(byHand ? 2 : m_colourRange.fit == HeatmapColourRange::Fit::ShownStep ? 1 : 0);
    for (QDoubleSpinBox *box : {m_colourMin, m_colourMax})
        box->setVisible(byHand);
    if (m_figure.colours.range) {
        m_colourMin->setValue(m_figure.colours.range->lower);
        m_colourMax->setValue(m_figure.colours.range->upper);
    }
}

QList<MatrixType> TypeLayerHeatmap::rowTypes() const
{
    QList<MatrixType> types;
    for (const HeatmapRow &row : m_figure.rows)
        types << row.type;
    return types;
}

void TypeLayerHeatmap::rebuild()
{
    m_figure = HeatmapFigureBuilder(*state(), m_metric, m_run, m_colourRange, figureMode()).build();
    syncColourControls();
    const HeatmapFigure &f = m_figure;
    setHeatmapGrid(plot(), m_map, f.columnLabels, f.rowLabels, [&f](int y, int x) { return f.value(y, x); });
    m_map->setGradient(f.colours.map == HeatmapColourScale::Map::YellowOrangeRed ? PlotStyle::yellowOrangeRed() : PlotStyle::viridis());
    if (f.colours.range)
        m_map->setDataRange(QCPRange(f.colours.range->lower, f.colours.range->upper));
    const bool narrow = layoutSize().width() < 420;
    m_scale->axis()->setLabel(narrow ? f.colours.shortLabel : f.colours.label); // adaptLayout() fits it to the bar
    plot()->xAxis->setLabel(f.xLabel);
    plot()->yAxis->setLabel(rowAxisLabelShown(narrow) ? f.yLabel : QString());
    // A rule in the background's colour between the blocks' groups of rows.
    setRowSeparators(plot(), m_separators, f.blockStarts, theme().background);
    setTitle(f.title);
    const auto [hx, hy] = f.highlighted.value_or(std::pair{-1, -1});
    m_highlight->setPen(QPen(theme().emphasis, 2.5));
    m_highlight->setVisible(f.highlighted.has_value());
    m_highlight->topLeft->setCoords(hx - 0.5, hy - 0.5);
    m_highlight->bottomRight->setCoords(hx + 0.5, hy + 0.5);
    m_cellTexts.invalidate();
    setNoDataMessage(f.noData);
    refresh();
}

HeatmapCellTexts::CellText TypeLayerHeatmap::cellText() const
{
    return [this](int y, int x, int fewer) { return HeatmapCellTexts::valueText(m_figure.value(y, x), fewer); };
}

void TypeLayerHeatmap::adaptLayout(QSize size)
{
    RunStepView::adaptLayout(size);
    // A narrow panel keeps its colour bar with the metric's short name, and says when its cells
    // are too small to print their values.
    const bool narrow = size.width() < 420;
    m_scale->setBarWidth(narrow ? 8 : 12);
    // The cells fill the plot and their labels sit at their centres: no end label stands out on
    // the right, so the plot runs up to the colour bar's gap (the cells get the width).
    QMargins margins = plot()->axisRect()->minimumMargins();
    margins.setRight(2);
    plot()->axisRect()->setMinimumMargins(margins);
    // The colour bar's label is the panel's last text on the right: a little room keeps it off the
    // figure's edge (and off the next panel's plot).
    body()->setMargins(QMargins(0, 0, kScaleLabelRoom, 0));
    const QRect rect = plot()->axisRect()->rect();
    const QRect viewport = plot()->viewport();
    const double width = rect.width() > 0 ? rect.width() + size.width() - viewport.width() : size.width() * 0.6;
    const double height = rect.height() > 0 ? rect.height() + size.height() - viewport.height() : size.height() * 0.6;
    labelColourScale(int(height) - 8);
    plot()->xAxis->setLabel(PlotStyle::wrapText(m_figure.xLabel, plot()->xAxis->labelFont(), int(width) + 40));
    plot()->yAxis->setLabel(rowAxisLabelShown(narrow) ? m_figure.yLabel : QString());
    m_cellTexts.invalidate(); // placeCellTexts() decides on the values and the note from the cells as laid out
}

bool TypeLayerHeatmap::rowAxisLabelShown(bool narrow) const
{
    // The rows are the same in every run's panel: the leftmost (the first run shown) names them,
    // however narrow; a single run's narrow panel gives the width to its cells.
    const QList<int> shown = state()->visibleRuns();
    const bool comparing = shown.size() > 1;
    return (shown.isEmpty() || m_run == shown.first()) && (comparing || !narrow);
}

void TypeLayerHeatmap::labelColourScale(int length)
{
    // The colour bar is as tall as the plot; its label names the metric as an axis would
    // ("Compression % (τ = 0.90)"), on two lines when one is too short, by its short name
    // ("Compression %") when two are; what the colours span is the header's choice, not the
    // figure's. A narrow panel gives its bar one line of label; the label may be set as small as
    // the ticks.
    const QString &full = m_figure.colours.label, &brief = m_figure.colours.shortLabel;
    const int most = layoutSize().width() >= 260 ? 2 : 1;
    QString label;
    QFont font = PlotStyle::labelFont(fontSize());
    for (const QFont &candidate : {font, PlotStyle::tickFont(fontSize())}) {
        for (const auto &[text, lines] : {std::pair{full, 1}, std::pair{full, 2}, std::pair{brief, 1}, std::pair{brief, 2}})
            if (lines <= most && PlotStyle::wrapsWithin(text, candidate, length, lines)) {
                label = PlotStyle::wrapText(text, candidate, length, lines);
                font = candidate;
                break;
            }
        if (!label.isEmpty())
            break;
    }
    m_scale->axis()->setLabelFont(font);
    m_scale->axis()->setLabel(label);
}

void TypeLayerHeatmap::showValuesNote(bool shown)
{
    // In the window, cells too small for their values say so under the plot, in small print (the
    // axis keeps its label); the tooltip has each value.
    if (shown == (m_valuesNote != nullptr))
        return;
    QCPLayoutGrid *layout = plot()->plotLayout();
    if (!shown) {
        layout->remove(m_valuesNote);
        layout->simplify();
        m_valuesNote = nullptr;
        return;
    }
    QFont font = PlotStyle::tickFont(std::max(5.0, fontSize() - 1));
    font.setItalic(true);
    const QString text = tr("Values left out: the cells are too small (hover for each value).");
    m_valuesNote = new QCPTextElement(plot(), PlotStyle::wrapText(text, font, std::max(60, layoutSize().width() - 12)), font);
    m_valuesNote->setTextColor(theme().ink);
    m_valuesNote->setMargins(QMargins(0, 2, 0, 2));
    // A row of the whole panel (under the colour bar too), so the note has the panel's width.
    layout->addElement(layout->rowCount(), 0, m_valuesNote);
    layout->setRowStretchFactor(layout->rowCount() - 1, 0.001);
}

void TypeLayerHeatmap::placeCellTexts()
{
    const int nx = int(m_figure.columns.size()), ny = int(m_figure.rows.size());
    const bool shown = m_cellTexts.place(nx, ny, fontSize(), cellText());
    // The values and the note are decided from the cells as laid out, never from an estimate. The
    // note takes a row (or gives it back), so the panel is laid out again at once; the cells then
    // shrink with the note shown (still too small) or grow with it gone (still fit): no flip-flop.
    // On paper there is no note: a figure in a paper simply has no values (nothing to hover).
    if (const bool note = !isPaper() && nx > 0 && ny > 0 && !shown; note != (m_valuesNote != nullptr)) {
        showValuesNote(note);
        for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
            plot()->plotLayout()->update(phase);
        m_cellTexts.invalidate();
        m_cellTexts.place(nx, ny, fontSize(), cellText());
    }
}

QPoint TypeLayerHeatmap::cellCentre(MatrixType type, int layer, const QString &block) const
{
    const qsizetype x = m_figure.columns.indexOf(layer), y = m_figure.rows.indexOf(HeatmapRow{block, type});
    if (x < 0 || y < 0)
        return {-1, -1};
    return QPointF(plot()->xAxis->coordToPixel(double(x)), plot()->yAxis->coordToPixel(double(y))).toPoint();
}

std::optional<MatrixKey> TypeLayerHeatmap::matrixAt(const QPoint &pixel) const
{
    const QList<int> &columns = m_figure.columns;
    const QList<HeatmapRow> &rows = m_figure.rows;
    if (!plot()->axisRect()->rect().contains(pixel) || columns.isEmpty() || rows.isEmpty())
        return std::nullopt;
    const long x = std::lround(plot()->xAxis->pixelToCoord(pixel.x()));
    const long y = std::lround(plot()->yAxis->pixelToCoord(pixel.y()));
    if (x < 0 || y < 0 || x >= columns.size() || y >= rows.size())
        return std::nullopt;
    // A cell of several experts opens the first of them.
    const qint64 step = state()->stepAt(m_run);
    const MatrixCell cell = state()->cell(m_run, step, rows[y].block, columns[x], rows[y].type);
    if (cell.isEmpty())
        return MatrixKey{m_run, step, {rows[y].block, columns[x], rows[y].type, {}}};
    return MatrixKey{m_run, step, cell.matrices.first()->identity()};
}

} // namespace rankscope
