#include "FigureView.h"

#include "FigureExporter.h"

#include <QGridLayout>

namespace rankscope {

FigureView::FigureView(ViewState *state, FigureKind kind, QWidget *parent)
    : QWidget(parent), m_kind(kind), m_grid(new QGridLayout(this)), m_panels(kind.info().build(state, this))
{
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->setSpacing(4);
    connect(m_panels, &FigurePanels::exportRequested, this, &FigureView::exportRequested);
    connect(m_panels, &FigurePanels::panelsChanged, this, &FigureView::panelsChanged);
    connect(m_panels, &FigurePanels::layoutChanged, this, &FigureView::layoutPanels);
    layoutPanels();
}

void FigureView::setMetrics(const QList<Metric> &metrics)
{
    if (!metrics.isEmpty())
        m_panels->setMetrics(metrics);
}

QString FigureView::configure(const ViewState &state, const FigureOptions &options) { return m_panels->configure(state, options); }

void FigureView::setTitleOverride(const QString &title)
{
    m_titleOverride = title;
    for (const QList<ChartView *> &row : panels())
        for (ChartView *view : row)
            view->setTitleOverride(title);
}

void FigureView::setPanelTitles(const QStringList &titles)
{
    m_panelTitles = titles;
    applyPanelTitles();
}

void FigureView::applyPanelTitles()
{
    if (m_panelTitles.isEmpty())
        return;
    qsizetype i = 0;
    for (const QList<ChartView *> &row : panels())
        for (ChartView *view : row) {
            const QString own = m_panelTitles.value(i++); // empty, or past the list: the figure's title
            view->setTitleOverride(own.isEmpty() ? m_titleOverride : own);
        }
}

void FigureView::panelsChanged()
{
    if (!m_titleOverride.isEmpty())
        for (const QList<ChartView *> &row : panels())
            for (ChartView *view : row)
                view->setTitleOverride(m_titleOverride);
    applyPanelTitles();
    layoutPanels();
}

QList<QList<ChartView *>> FigureView::panels(QSize size) const { return m_panels->panels(size.isValid() ? size : this->size()); }

void FigureView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    layoutPanels();
}

void FigureView::layoutPanels() { m_panels->place(m_grid, size()); }

bool FigureView::exportTo(const QString &path, const FigureSize &size, QString *error, const std::optional<QString> &title)
{
    if (const QString problem = m_panels->exportProblem(); !problem.isEmpty()) {
        *error = problem;
        return false;
    }
    const QList<QList<ChartView *>> rows = panels(size.layoutSize());
    if (rows.isEmpty() || rows.first().isEmpty()) {
        *error = QStringLiteral("no run is shown");
        return false;
    }
    return FigureExporter::write(rows, path, size, error, title);
}

QString FigureView::dataCsv() const
{
    // Panels of one kind (bars, heatmaps, a comparison's runs) are one table: a header repeated
    // by the next panel is not written again.
    QString csv, header;
    for (const QList<ChartView *> &row : panels())
        for (const ChartView *view : row) {
            QString part = view->dataCsv();
            const QString first = part.section(QLatin1Char('\n'), 0, 0);
            if (!header.isEmpty() && first == header)
                part.remove(0, first.size() + 1);
            header = first;
            csv += part;
        }
    return csv;
}

} // namespace rankscope
