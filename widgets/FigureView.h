// One of RankScope's figures (FigureCatalog), as the window shows it and as every export writes it:
// the panels its catalog row builds (FigurePanels), laid out in a grid, titled, exported and read
// back as CSV.
// The window's tabs, its exports and `rankscope export` all build figures here, so the same state
// gives the same figure.
#pragma once

#include "FigureCatalog.h"
#include "FigurePanels.h"
#include "figures/FigureSize.h"
#include "figures/ViewState.h"

#include <QWidget>
#include <optional>

class QGridLayout;

namespace rankscope {

class FigureView : public QWidget {
    Q_OBJECT
public:
    FigureView(ViewState *state, FigureKind kind, QWidget *parent = nullptr);

    FigureKind kind() const { return m_kind; }
    // The name the command line and file names use ("spectrogram"), from FigureCatalog.
    static QString name(FigureKind kind) { return QLatin1String(kind.info().id); }

    // The metric of each row of panels: one for lines and bars, one per row of heatmaps (by default
    // compression % and weighted α), the lines' then the bars' for lines+bars (by default stable
    // rank and compression %; one metric: both). Changing one panel's metric changes its row.
    QList<Metric> metrics() const { return m_panels->metrics(); }
    void setMetrics(const QList<Metric> &metrics);
    void setTitleOverride(const QString &title);
    // Each panel's own title, in the order panels() lists them (an empty one, or one past the
    // list: the generated title, which names the panel's metric and run).
    void setPanelTitles(const QStringList &titles);
    // What export's options ask of the figure: empty, or why it cannot be drawn as asked.
    QString configure(const ViewState &state, const FigureOptions &options);

    // The panels as drawn at a size (default: the widget's): rows of views.
    QList<QList<ChartView *>> panels(QSize size = {}) const;
    FigurePanels *figurePanels() const { return m_panels; }
    // The figure's first view of a kind, shown or not (the line chart of "lines", the training
    // curves under it, the first run's bars), and its panels of that kind in order: null and
    // empty when it has none.
    template <class View>
    View *view() const { return findChild<View *>(); }
    template <class View>
    QList<View *> viewsOf() const
    {
        QList<View *> views;
        for (const QList<ChartView *> &row : panels())
            for (ChartView *panel : row)
                if (auto *view = qobject_cast<View *>(panel))
                    views << view;
        return views;
    }

    // Writes the figure; a figure with nothing to draw (a spectrum no matrix was chosen for) is an
    // error. `title`: the whole figure's (FigureExporter::write): nullopt the generated ones, empty none.
    bool exportTo(const QString &path, const FigureSize &size, QString *error, const std::optional<QString> &title = std::nullopt);
    // The numbers behind every panel, as CSV (ChartView::dataCsv, panel after panel).
    QString dataCsv() const;

signals:
    // A panel's context menu asked to export the figure as it is seen.
    void exportRequested();

private:
    // The panels were made again (a run shown or hidden, a metric changed): titled as asked, and
    // laid out again (FigurePanels::panelsChanged).
    void panelsChanged();
    // The panels' grid laid out again at the view's size.
    void layoutPanels();
    void resizeEvent(QResizeEvent *event) override;
    // The panel titles asked for, on the panels there are now.
    void applyPanelTitles();

    FigureKind m_kind;
    QString m_titleOverride;
    QStringList m_panelTitles;
    QGridLayout *m_grid;
    FigurePanels *m_panels;
};

} // namespace rankscope
