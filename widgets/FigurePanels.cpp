#include "FigurePanels.h"

#include <QGridLayout>

namespace rankscope {

FigurePanels::FigurePanels(QWidget *figure) : QObject(figure), m_figure(figure) {}

void FigurePanels::place(QGridLayout *grid, QSize size) { placeRows(grid, panels(size)); }

QString FigurePanels::configure(const ViewState &, const FigureOptions &options)
{
    if (options.metric)
        setMetrics({*options.metric});
    return {};
}

void FigurePanels::adopt(ChartView *view)
{
    if (!view->parentWidget())
        view->setParent(m_figure);
    connect(view, &ChartView::exportRequested, this, &FigurePanels::exportRequested);
}

void FigurePanels::placeRows(QGridLayout *grid, const QList<QList<ChartView *>> &rows)
{
    QWidget *figure = grid->parentWidget();
    for (ChartView *view : figure->findChildren<ChartView *>(Qt::FindDirectChildrenOnly))
        grid->removeWidget(view);
    for (int r = 0; r < rows.size(); ++r)
        for (int c = 0; c < rows[r].size(); ++c)
            grid->addWidget(rows[r][c], r, c);
    for (int r = 0; r < grid->rowCount(); ++r)
        grid->setRowStretch(r, r >= rows.size() ? 0 : 3);
    for (int c = 0; c < grid->columnCount(); ++c)
        grid->setColumnStretch(c, 1);
}

} // namespace rankscope
