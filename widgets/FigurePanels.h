// What one figure of the catalog (FigureCatalog) draws inside its FigureView: its chart views as
// rows of panels, where they go in the view's grid, and what the window and `rankscope export`
// set on them. FigureView lays out, titles, exports and reads back whatever a figure's panels
// hold, and listens to them; the panels know nothing of it. Each figure's own behaviour lives
// here, beside its views, and nowhere else.
#pragma once

#include "ChartView.h"
#include "figures/FigureOptions.h"

#include <QObject>

class QGridLayout;

namespace rankscope {

class FigurePanels : public QObject {
    Q_OBJECT
public:
    // figure: the widget the panels are shown in, their views' parent.
    explicit FigurePanels(QWidget *figure);

    // The views as drawn at a size in layout pixels (rows of panels; every row shares its width).
    virtual QList<QList<ChartView *>> panels(QSize size) const = 0;
    // Puts the panels in the view's grid, stretched as they share it (default: panels(), the rows
    // and columns equal). Called again whenever the panels or the view's size change.
    virtual void place(QGridLayout *grid, QSize size);
    // The metric of each row of panels (none for a figure of no metric). Changing a panel's metric
    // changes its row's.
    virtual QList<Metric> metrics() const { return {}; }
    virtual void setMetrics(const QList<Metric> &) {}
    // What export's options ask of this figure, once the runs are loaded: empty, or why the figure
    // cannot be drawn as asked.
    virtual QString configure(const ViewState &state, const FigureOptions &options);
    // Why the figure cannot be exported as it stands (a spectrum no matrix was chosen for), or empty.
    virtual QString exportProblem() const { return {}; }

signals:
    // A panel's context menu asked to export the figure as it is seen.
    void exportRequested();
    // The panels were made again (a run shown or hidden, a metric changed): to be titled and laid out.
    void panelsChanged();
    // The same panels want their grid laid out again (the layers or the logs shown changed).
    void layoutChanged();

protected:
    QWidget *figure() const { return m_figure; }
    // A view of this figure (a child of the figure's widget unless already placed in another):
    // its context menu's export is the figure's.
    void adopt(ChartView *view);
    // The rows into the grid, each cell stretched alike (rows beyond them emptied).
    static void placeRows(QGridLayout *grid, const QList<QList<ChartView *>> &rows);

private:
    QWidget *m_figure;
};

// A figure drawn by one view of type View (a spectrum, the spectrogram, the heads). What the view
// has of `metric()`, `setMetric(Metric)`, `QString configure(const ViewState &, const FigureOptions &)`
// (what export sets on it; else its metric) and `QString exportProblem()` is the figure's.
template <class View>
class SingleViewPanels : public FigurePanels {
public:
    SingleViewPanels(ViewState *state, QWidget *figure) : FigurePanels(figure), m_view(new View(state, figure))
    {
        adopt(m_view);
    }
    QList<QList<ChartView *>> panels(QSize) const override { return {{m_view}}; }
    QList<Metric> metrics() const override
    {
        if constexpr (requires(const View &v) { v.metric(); })
            return {m_view->metric()};
        return {};
    }
    void setMetrics(const QList<Metric> &metrics) override
    {
        if constexpr (requires(View &v) { v.setMetric(Metric()); })
            if (!metrics.isEmpty())
                m_view->setMetric(metrics.first());
    }
    QString configure(const ViewState &state, const FigureOptions &options) override
    {
        if constexpr (requires(View &v) { v.configure(state, options); })
            return m_view->configure(state, options);
        return FigurePanels::configure(state, options);
    }
    QString exportProblem() const override
    {
        if constexpr (requires(const View &v) { v.exportProblem(); })
            return m_view->exportProblem();
        return {};
    }

private:
    View *m_view;
};

} // namespace rankscope
