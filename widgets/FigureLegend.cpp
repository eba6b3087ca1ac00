#include "FigureLegend.h"

#include "PlotStyle.h"

#include <qcustomplot.h>

namespace rankscope {

namespace {

// What an entry says: its name and its colour (a bar's fill, a line's pen), so that a line and a
// bar of one type are the same entry.
struct Entry {
    QString name;
    QRgb colour;
    bool operator==(const Entry &) const = default;
};

QCPAbstractPlottable *plottableOf(QCPAbstractLegendItem *item)
{
    auto *entry = qobject_cast<QCPPlottableLegendItem *>(item);
    return entry ? entry->plottable() : nullptr;
}

std::optional<QList<Entry>> entriesOf(QCPLegend *legend)
{
    QList<Entry> entries;
    for (QCPAbstractLegendItem *item : PlotStyle::legendItems(legend)) {
        QCPAbstractPlottable *p = plottableOf(item);
        if (!p)
            return std::nullopt;
        entries.append({p->name(), (p->brush().style() != Qt::NoBrush ? p->brush().color() : p->pen().color()).rgb()});
    }
    return entries;
}

// A plottable of `plot` with no data that draws `source`'s legend icon; null for a kind not redrawn.
QCPAbstractPlottable *iconCopy(const QCPAbstractPlottable *source, QCPAxis *x, QCPAxis *y)
{
    QCPAbstractPlottable *copy = nullptr;
    if (auto *graph = qobject_cast<const QCPGraph *>(source)) {
        auto *c = new QCPGraph(x, y);
        c->setLineStyle(graph->lineStyle());
        c->setScatterStyle(graph->scatterStyle());
        copy = c;
    } else if (qobject_cast<const QCPBars *>(source)) {
        copy = new QCPBars(x, y);
    } else if (auto *errors = qobject_cast<const QCPErrorBars *>(source)) {
        auto *c = new QCPErrorBars(x, y);
        c->setErrorType(errors->errorType());
        c->setWhiskerWidth(errors->whiskerWidth());
        c->setSymbolGap(errors->symbolGap());
        copy = c;
    } else {
        return nullptr;
    }
    copy->setPen(source->pen());
    copy->setBrush(source->brush());
    copy->setName(source->name());
    return copy;
}

} // namespace

FigureLegend::~FigureLegend() = default;

std::unique_ptr<FigureLegend> FigureLegend::shared(const std::vector<QCPLegend *> &legends, int width, bool dark)
{
    // The fullest legend, and every other's entries among its entries.
    QList<QList<Entry>> all;
    for (QCPLegend *legend : legends) {
        const std::optional<QList<Entry>> entries = entriesOf(legend);
        if (!entries || entries->isEmpty())
            return nullptr;
        all.append(*entries);
    }
    if (all.isEmpty())
        return nullptr;
    qsizetype best = 0;
    for (qsizetype i = 1; i < all.size(); ++i)
        if (all[i].size() > all[best].size())
            best = i;
    for (const QList<Entry> &entries : all)
        for (const Entry &e : entries)
            if (!all[best].contains(e))
                return nullptr;
    QCPLegend *fullest = legends[size_t(best)];

    std::unique_ptr<FigureLegend> out(new FigureLegend);
    out->m_plot = std::make_unique<QCustomPlot>();
    QCustomPlot *plot = out->m_plot.get();
    const PlotStyle::Theme &theme = PlotStyle::Theme::of(dark);
    PlotStyle::applyTheme(plot, theme);
    // No axes: the plot holds the entries' plottables (without data) and draws only the legend.
    QCPAxisRect *rect = plot->axisRect();
    for (QCPAxis *axis : rect->axes()) {
        axis->setVisible(false);
        axis->grid()->setVisible(false);
    }
    rect->setVisible(false);
    QCPLegend *legend = plot->legend;
    rect->insetLayout()->take(legend);
    plot->plotLayout()->take(rect);
    auto *holder = new QCPLayoutGrid;
    plot->plotLayout()->addElement(0, 0, holder);
    holder->addElement(0, 0, new QCPLayoutElement(plot));
    holder->addElement(0, 1, legend);
    holder->addElement(0, 2, new QCPLayoutElement(plot));
    holder->setColumnStretchFactors({1, 0.001, 1});

    legend->setFont(fullest->font());
    legend->setIconSize(fullest->iconSize());
    legend->setIconTextPadding(fullest->iconTextPadding());
    legend->setIconBorderPen(fullest->iconBorderPen());
    legend->setColumnSpacing(fullest->columnSpacing());
    legend->setRowSpacing(fullest->rowSpacing());
    legend->setMargins(fullest->margins());
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    for (QCPAbstractLegendItem *item : PlotStyle::legendItems(fullest)) {
        QCPAbstractPlottable *copy = iconCopy(plottableOf(item), rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        if (!copy)
            return nullptr;
        copy->addToLegend(legend);
        QCPPlottableLegendItem *entry = legend->itemWithPlottable(copy);
        entry->setFont(item->font());
        entry->setTextColor(item->textColor()); // a hidden type's stays grey
    }
    // As many entries to a row as fit the figure's width.
    const int rows = std::max(1, PlotStyle::legendRowsAbove(legend, width - 16));
    const int count = int(PlotStyle::legendItems(legend).size());
    legend->setWrap((count + rows - 1) / rows);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    legend->setVisible(true);
    out->m_legend = legend;
    out->m_width = width;
    out->m_height = legend->minimumOuterSizeHint().height();
    return out;
}

QStringList FigureLegend::entries() const
{
    QStringList names;
    for (QCPAbstractLegendItem *item : PlotStyle::legendItems(m_legend))
        names << plottableOf(item)->name();
    return names;
}

void FigureLegend::render(QCPPainter *painter, QPoint origin)
{
    painter->save();
    painter->translate(origin);
    m_plot->toPainter(painter, m_width, m_height);
    painter->restore();
}

} // namespace rankscope
