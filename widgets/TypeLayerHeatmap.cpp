#include "TypeLayerHeatmap.h"

#include "PlotStyle.h"

#include <QComboBox>
#include <QLabel>
#include <cmath>

namespace rankscope {

namespace {
QString cellText(double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("–");
    const double a = std::abs(v);
    return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : 2);
}
} // namespace

TypeLayerHeatmap::TypeLayerHeatmap(ViewState *state, Metric metric, QWidget *parent)
    : RunStepView(state, metric, parent), m_map(new QCPColorMap(plot()->xAxis, plot()->yAxis)),
      m_scale(new QCPColorScale(plot()))
{
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

QList<MatrixType> TypeLayerHeatmap::rowTypes() const
{
    QList<MatrixType> types;
    for (const Row &row : m_rows)
        types << row.type;
    return types;
}

void TypeLayerHeatmap::rebuild()
{
    const ViewState *s = state();
    const QStringList blocks = s->blocks();
    m_rows.clear();
    QSet<int> layerSet;
    for (const QString &block : blocks) {
        for (MatrixType type : s->typesIn(block))
            if (s->isTypeVisible(type))
                m_rows.append({block, type});
        for (int layer : s->visibleLayersAt(m_run, block))
            layerSet.insert(layer);
    }
    m_columns = QList<int>(layerSet.begin(), layerSet.end());
    std::sort(m_columns.begin(), m_columns.end());
    const qint64 step = s->stepAt(m_run);
    const int nx = int(m_columns.size()), ny = int(m_rows.size());
    QCPColorMapData *data = m_map->data();
    data->setSize(std::max(1, nx), std::max(1, ny));
    // Cells sit at integer positions; a single row or column spans ±0.5 around it.
    data->setRange(nx > 1 ? QCPRange(0, nx - 1) : QCPRange(-0.5, 0.5), ny > 1 ? QCPRange(0, ny - 1) : QCPRange(-0.5, 0.5));
    for (int x = 0; x < std::max(1, nx); ++x)
        for (int y = 0; y < std::max(1, ny); ++y) {
            const MatrixCell cell = x < nx && y < ny ? s->cell(m_run, step, m_rows[y].block, m_columns[x], m_rows[y].type) : MatrixCell{};
            data->setCell(x, y, cell.isEmpty() ? std::nan("") : aggregateValues(cell.matrices, m_metric).value);
        }
    const bool percent = m_metric == Metric::CompressionPct;
    m_map->setGradient(percent ? PlotStyle::yellowOrangeRed() : PlotStyle::viridis());
    // One colour scale for every shown run: equal colours mean equal values across panels.
    if (const auto range = s->valueRangeAtSteps(m_metric, blocks, s->visibleTypes(), false)) {
        const auto [lowest, highest] = *range;
        m_map->setDataRange(highest > lowest ? QCPRange(lowest, highest) : QCPRange(lowest - 0.5, highest + 0.5));
    }
    m_scale->axis()->setLabel(layoutSize().width() < 420 ? QString() : metricAxisLabel(m_metric, s->energy()));

    QSharedPointer<QCPAxisTickerText> xTicks(new QCPAxisTickerText), yTicks(new QCPAxisTickerText);
    for (int x = 0; x < nx; ++x)
        xTicks->addTick(x, s->relativeDepth() ? QString::number(s->depthFraction(m_run, m_columns[x]), 'f', 2) : QString::number(m_columns[x]));
    plot()->xAxis->setLabel(xAxisLabel());
    for (int y = 0; y < ny; ++y)
        yTicks->addTick(y, m_rows[y].block.isEmpty() ? displayLabel(m_rows[y].type)
                                                     : QStringLiteral("%1 · %2").arg(m_rows[y].block, displayLabel(m_rows[y].type)));
    plot()->yAxis->setLabel(layoutSize().width() < 420 ? QString() : yAxisLabel());
    plot()->xAxis->setTicker(xTicks);
    plot()->yAxis->setTicker(yTicks);
    plot()->xAxis->setRange(-0.5, std::max(0, nx - 1) + 0.5);
    plot()->yAxis->setRange(-0.5, std::max(0, ny - 1) + 0.5);
    // A white rule between the blocks' groups of rows.
    for (QCPItemStraightLine *line : m_separators)
        plot()->removeItem(line);
    m_separators.clear();
    for (int y = 1; y < ny; ++y)
        if (m_rows[y].block != m_rows[y - 1].block) {
            auto *line = new QCPItemStraightLine(plot());
            line->point1->setCoords(0, y - 0.5);
            line->point2->setCoords(1, y - 0.5);
            line->setPen(QPen(theme().background, 3)); // a gap between blocks
            line->setSelectable(false);
            m_separators << line;
        }
    QString scope = s->runNameAt(m_run);
    if (const QString range = s->layerRangeText(); !range.isEmpty())
        scope = range + QStringLiteral(", ") + scope;
    if (!s->experts().isEmpty())
        scope = (s->expert().isEmpty() ? tr("mean of experts")
                 : s->expert() == QLatin1String(kSharedExpert) ? tr("shared expert") : tr("expert %1").arg(s->expert())) +
                QStringLiteral(", ") + scope;
    setTitle(tr("%1 at step %2 — %3").arg(QString::fromUtf8(metricInfo(m_metric).label)).arg(step).arg(scope));
    const auto h = s->highlighted();
    const qsizetype hx = h && h->run == m_run ? m_columns.indexOf(h->id.layer) : -1;
    const qsizetype hy = h ? m_rows.indexOf(Row{h->id.block, h->id.type}) : -1;
    m_highlight->setPen(QPen(theme().emphasis, 2.5));
    m_highlight->setVisible(hx >= 0 && hy >= 0);
    m_highlight->topLeft->setCoords(hx - 0.5, hy - 0.5);
    m_highlight->bottomRight->setCoords(hx + 0.5, hy + 0.5);
    m_textsStale = true;
    refresh();
}

std::optional<QFont> TypeLayerHeatmap::cellFont(QSizeF cell) const
{
    // The largest font, up to the tick labels', whose widest value fits the cell; none below 5 pt.
    QFont font = PlotStyle::tickFont(fontSize());
    for (double pt = fontSize() - 0.5; pt >= 5; pt -= 0.5) {
        font.setPointSizeF(pt);
        const QFontMetricsF metrics(font);
        if (metrics.horizontalAdvance(QStringLiteral("88.8")) + 4 <= cell.width() && metrics.height() + 1 <= cell.height())
            return font;
    }
    return std::nullopt;
}

void TypeLayerHeatmap::adaptLayout(QSize size)
{
    RunStepView::adaptLayout(size);
    // A narrow panel keeps its colour bar but drops its label (the title names the metric), and
    // says when its cells are too small to print their values.
    const bool narrow = size.width() < 420;
    m_scale->setBarWidth(narrow ? 8 : 12);
    m_scale->axis()->setLabel(narrow ? QString() : metricAxisLabel(m_metric, state()->energy()));
    const QRect rect = plot()->axisRect()->rect();
    const QRect viewport = plot()->viewport();
    const double width = rect.width() > 0 ? rect.width() + size.width() - viewport.width() : size.width() * 0.6;
    const double height = rect.height() > 0 ? rect.height() + size.height() - viewport.height() : size.height() * 0.6;
    const QSizeF cell(width / std::max<qsizetype>(1, m_columns.size()), height / std::max<qsizetype>(1, m_rows.size()));
    const bool printable = cellFont(cell).has_value();
    const QString label = printable || m_columns.isEmpty() ? xAxisLabel() : tr("%1 (no room for values)").arg(xAxisLabel());
    plot()->xAxis->setLabel(PlotStyle::wrapText(label, plot()->xAxis->labelFont(), int(width) + 40));
    plot()->yAxis->setLabel(narrow ? QString() : yAxisLabel());
}

QString TypeLayerHeatmap::yAxisLabel() const { return state()->blocks().size() > 1 ? tr("Block · matrix type") : tr("Matrix type"); }

QString TypeLayerHeatmap::xAxisLabel() const { return state()->relativeDepth() ? tr("Relative depth") : tr("Layer"); }

void TypeLayerHeatmap::placeCellTexts()
{
    const double cellWidth = std::abs(plot()->xAxis->coordToPixel(1) - plot()->xAxis->coordToPixel(0));
    const double cellHeight = std::abs(plot()->yAxis->coordToPixel(1) - plot()->yAxis->coordToPixel(0));
    if (!m_textsStale && QSizeF(cellWidth, cellHeight) == m_textCellSize)
        return;
    m_textsStale = false;
    m_textCellSize = QSizeF(cellWidth, cellHeight);
    for (QCPItemText *t : m_cellTexts)
        plot()->removeItem(t);
    m_cellTexts.clear();
    const int nx = int(m_columns.size()), ny = int(m_rows.size());
    if (nx == 0 || ny == 0)
        return;
    const std::optional<QFont> font = cellFont(QSizeF(cellWidth, cellHeight));
    if (!font)
        return; // too small to read: the tooltip has the value, and the axis says so
    QCPColorGradient gradient = m_map->gradient(); // colorize() is not const
    const QCPRange range = m_map->dataRange();
    for (int x = 0; x < nx; ++x)
        for (int y = 0; y < ny; ++y) {
            const double v = m_map->data()->cell(x, y);
            auto *text = new QCPItemText(plot());
            text->position->setCoords(x, y);
            text->setText(cellText(v));
            text->setFont(*font);
            text->setSelectable(false);
            text->setClipToAxisRect(true);
            // Dark text on light cells, light text on dark ones.
            QRgb colour = qRgb(217, 217, 217);
            if (std::isfinite(v))
                gradient.colorize(&v, range, &colour, 1);
            text->setColor(qGray(colour) > 140 ? QColor(0x22, 0x22, 0x22) : Qt::white);
            m_cellTexts.append(text);
        }
}

QPoint TypeLayerHeatmap::cellCentre(MatrixType type, int layer, const QString &block) const
{
    const qsizetype x = m_columns.indexOf(layer), y = m_rows.indexOf(Row{block, type});
    if (x < 0 || y < 0)
        return {-1, -1};
    return QPointF(plot()->xAxis->coordToPixel(double(x)), plot()->yAxis->coordToPixel(double(y))).toPoint();
}

std::optional<MatrixKey> TypeLayerHeatmap::matrixAt(const QPoint &pixel) const
{
    if (!plot()->axisRect()->rect().contains(pixel) || m_columns.isEmpty() || m_rows.isEmpty())
        return std::nullopt;
    const long x = std::lround(plot()->xAxis->pixelToCoord(pixel.x()));
    const long y = std::lround(plot()->yAxis->pixelToCoord(pixel.y()));
    if (x < 0 || y < 0 || x >= m_columns.size() || y >= m_rows.size())
        return std::nullopt;
    // A cell of several experts opens the first of them.
    const qint64 step = state()->stepAt(m_run);
    const MatrixCell cell = state()->cell(m_run, step, m_rows[y].block, m_columns[x], m_rows[y].type);
    if (cell.isEmpty())
        return MatrixKey{m_run, step, {m_rows[y].block, m_columns[x], m_rows[y].type, {}}};
    return MatrixKey{m_run, step, cell.matrices.first()->identity()};
}

} // namespace rankscope
