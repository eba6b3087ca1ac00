// The shared frame of RankScope's chart views: a QCustomPlot in the paper style with a title,
// hover tooltips found by the subclass, and the run's ViewState to follow.
#pragma once

#include "AxisFitter.h"
#include "PlotStyle.h"
#include "figures/AxisRange.h"
#include "figures/FigureMode.h"
#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QPointer>
#include <memory>
#include <QWidget>
#include <qcustomplot.h>
#include <optional>

class QMenu;

namespace rankscope {

class MetricSelector;

// What a figure on paper is laid out for: its size in layout pixels (96 dpi), the base font size
// in points, whether it is drawn on the dark theme's background, and whether it goes under a
// paper's caption (FigureSize::captioned: no generated title, lines without markers).
struct PaperLayout {
    QSize size;
    double fontPt = 9;
    bool dark = false;
    bool captioned = false;
};

class ChartView : public QWidget {
    Q_OBJECT
public:
    ChartView(ViewState *state, QWidget *parent = nullptr);

    QCustomPlot *plot() const { return m_plot; }
    QString title() const;
    // What hovering the pixel would show (empty: nothing there); the hover shows exactly this.
    virtual QString tooltipAt(const QPoint &pixel) const = 0;
    // The matrix under the pixel, if a click there opens a spectrum.
    virtual std::optional<MatrixKey> matrixAt(const QPoint &pixel) const = 0;
    QString lastTooltip() const { return m_lastTooltip; }
    // The numbers behind what the view shows, as CSV with a header line.
    virtual QString dataCsv() const = 0;
    // A title of the user's instead of the generated one (empty: generated).
    void setTitleOverride(const QString &title);

    // A figure on paper: a fresh view of the same kind showing what this one shows (its metric,
    // run, title and the user's zoom: "Export this view" exports what is seen), laid out for the
    // layout's size, fonts and theme, without what marks the interactive state (the selection, the
    // crosshair, the current-step line). This view is left as it is.
    // `title`: nullopt keeps this view's title (the generated one, left out under a caption when
    // the view's axis labels can say what it says); a text replaces it (an export's own title for
    // its one panel); an empty text leaves the copy without any.
    std::unique_ptr<ChartView> paperCopy(const PaperLayout &layout, const std::optional<QString> &title = std::nullopt) const;
    bool isPaper() const { return m_paper.has_value(); }
    // The title as drawn (empty: none), whatever title() generated.
    QString shownTitle() const;
    // The layers across this panel's x axis when its width should follow them beside panels of
    // its kind (compared runs' bars and heatmaps: a layer as wide in each); 0: an equal share.
    virtual int layerColumns() const { return 0; }
    // The run a generated title names (its end after " — "; empty when it names none or is the
    // user's), and whether the title shown still names it (a narrow panel drops it first).
    QString titleRun() const;
    bool titleNamesRun() const;
    // On paper: the title never names the run, as its neighbours' do not (one figure, one run,
    // named consistently); laid out again.
    void dropRunFromTitle();
    // The title keeps the run's name, on two lines if need be (panels of several runs side by
    // side, in the window and on paper: which is which is the point); on paper laid out again.
    void keepRunInTitle();

    // Whether the view shows a legend that goes in a row above its plot (the position auto or
    // above): one that a figure of several panels may gather into a row of its own.
    bool legendGoesAbove() const;
    // On paper: the legend is left to the figure's own row (FigureLegend), and the view is laid
    // out again at `size`, what the panel keeps of the figure below that row.
    void leaveLegendToFigure(QSize size);
    // The plot's top edge `top` pixels below the panel's and its bottom edge `bottom` above the
    // panel's at least, so that plots side by side are level (their titles and legends may differ
    // in height: on paper, or a comparison's one legend above the last panel in the window);
    // laid out again.
    void alignPlot(int top, int bottom);
    // The plot's left edge at least `left` pixels into the view, so a plot above or below with the
    // same x axis (the training curves under the lines) starts where it does; 0 leaves the edge
    // where the axis labels put it.
    void alignPlotLeft(int left);
    int plotLeft() const;
    // On paper, over a plot of the same step axis (the lines over the training curve): this plot
    // leaves the axis's numbers and label to the one below, as matplotlib's sharex does.
    void leaveStepAxisToBelow();
    // The x axis as it is labelled and the range it shows: what two stacked plots share.
    QString xAxisLabel() const { return fullLabel(m_plot->xAxis); }
    // The plot's top edge as the rows above it (title, legend) and its tick labels put it,
    // whatever alignPlot asked.
    int naturalPlotTop() const;

    double fontSize() const { return m_fontPt; }
    // How much lines and markers are scaled: 1 on screen; on paper with the font, so a 7 pt
    // column figure gets thinner lines and smaller markers than a 16 pt slide.
    double penScale() const { return m_paper ? m_fontPt / 10.0 : 1.0; }

    // Whether the user zoomed or panned (the wheel, a drag, a Shift+drag rectangle); the ranges
    // chosen survive rebuilds (another step, a new checkpoint) while the axes show the same thing.
    bool isZoomed() const { return !m_zoom.isEmpty(); }
    // Back to the ranges that fit the data (double-click, Home, the context menu).
    void resetZoom();
    // The readout of the values under the cursor, as the crosshair shows it (empty: none). It goes
    // when the mouse leaves the plot and whenever the view is rebuilt, zoomed or panned.
    QString crosshairText() const;
    // Why the view draws nothing, as printed in its plot (empty: it draws data).
    QString noDataMessage() const { return m_noDataText; }

    // Another view's crosshair at x on a shared axis (FigureView's lines and curves): the vertical
    // line and readout here at this view's nearest point; NaN takes them away. Never sent on.
    void followCrosshair(double x);

signals:
    // The context menu's "Export this view…": the window opens its export dialog.
    void exportRequested();
    // The user's cursor put the crosshair at x on the step axis; NaN: it went.
    void crosshairMoved(double x);

public slots:
    virtual void rebuild() = 0;

protected:
    // A click at the pixel: by default, the matrix there opens its spectrum.
    virtual void activate(const QPoint &pixel);
    // Lays the view out for a size: the legend in a row above the plot, beside it or below it in
    // as many columns as fit; the title and axis labels fitted; tick labels that never touch.
    // Views add their own (cell labels, colour bar labels).
    virtual void adaptLayout(QSize size);
    // The size the view is laid out for: the paper's, or the widget's.
    QSize layoutSize() const { return m_paper ? m_paper->size : m_plot->size(); }
    // A new view of the same kind on the same state, showing what this one shows (for paperCopy).
    virtual std::unique_ptr<ChartView> createSibling() const = 0;
    // Whether the view's axis labels say what its generated title says when it has none (the
    // figure builders' FigureMode::titled): only such a view leaves its title out under a caption.
    virtual bool labelsCanReplaceTitle() const { return false; }
    // On paper, whether the view has no title: none was asked for (`--title ""`), or under a
    // caption the generated one is left out for a view whose labels can say what it said. A title
    // of the user's is shown.
    bool titleLeftOut() const;
    // How the builders draw the view: on paper nothing interactive, and with the title left out
    // what it said in the axis labels.
    FigureMode figureMode() const { return {!isPaper(), !titleLeftOut()}; }
    // On paper under a caption: lines without markers (matplotlib's plain lines).
    bool isCaptioned() const { return m_paper && m_paper->captioned; }
    // The view has a legend of types and runs, placed where the state's position says (auto: in a
    // row above the plot when it fits, as matplotlib users put it; else beside or below it).
    void useSideLegend();
    // The grid under the title holding the axis rect (at 0, 0); views add columns to it.
    QCPLayoutGrid *body() const { return m_body; }
    void resizeEvent(QResizeEvent *event) override;
    // Replots now unless the widget is hidden, in which case it replots when shown. Views call it
    // at the end of every rebuild: it also colours the frame in the theme and places the legend
    // where the state says.
    void refresh();
    // The colours to draw in: the window's theme, or on paper the paper's.
    const PlotStyle::Theme &theme() const;
    // `shortText`: the title for a panel too narrow for `text` on two lines (e.g. without what
    // the x axis says); empty: `text` elided.
    void setTitle(const QString &text, const QString &shortText = {});
    void showEvent(QShowEvent *event) override;
    ViewState *state() const { return m_state; }
    QHBoxLayout *headerLayout() const { return m_header; }
    // A labelled metric choice in the header.
    MetricSelector *addMetricSelector(Metric initial);
    // Zoom and pan on these axis rects (the views whose axes are continuous: not the heatmaps).
    void enableZoom(const QList<QCPAxisRect *> &rects);
    // The window's current step as a dashed grey line on the first run's step axis: the lines and
    // the training curve under them mark the same step. Made once; placed at every step change and
    // rebuild, shown on screen when the run has several steps and the view draws something.
    QCPItemStraightLine *addStepMarker();
    void placeStepMarker(QCPItemStraightLine *marker, bool drawn = true) const;
    // A crosshair with the axis values under the cursor in the main axis rect.
    void enableCrosshair() { m_crosshairEnabled = true; }
    // The crosshair's readout at the axis coordinates under the cursor, and the x its vertical
    // line is drawn at: by default the coordinates themselves; a view whose data sit at steps snaps
    // to the nearest one. Empty: no readout there.
    virtual QString crosshairReadout(double x, double y, double *snappedX) const;
    // Nothing to draw: the message in the middle of the plot, without axes, colour bars or legend
    // (empty: the view draws as usual). Views set it in every rebuild, before refresh().
    void setNoDataMessage(const QString &text) { m_noDataText = text; }
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void onMouseMove(QMouseEvent *event);
    void onMouseRelease(QMouseEvent *event);
    void showContextMenu(const QPoint &pixel);
    // A range a user interaction set is kept; one a rebuild set is not.
    void rememberZoom(QCPAxisRect *rect);
    void applyZoom();
    // Makes this (fresh) view the figure on paper: fonts, rebuilt at the size, laid out twice.
    void layOutOnPaper(const PaperLayout &layout);
    void updateCrosshair(const QPoint &pixel);
    // The vertical line at x's readout, and the horizontal one at yPixel when the cursor is here;
    // returns the x the readout snapped to, none when there is no readout at x (nothing shown).
    std::optional<double> drawCrosshair(double x, double y, std::optional<int> yPixel);
    void hideCrosshair();
    // Shows or takes away the no-data message, and hides or restores what it replaces.
    void applyNoData();
    // An axis label as the view last set it, before any wrapping.
    QString fullLabel(const QCPAxis *axis) const { return m_axes.fullLabel(axis); }

    struct Zoom {
        QCPRange x, y;
        QString xLabel, yLabel; // what the axes showed: another metric or unit drops the zoom
    };
    QList<QCPAxisRect *> m_zoomRects;
    QHash<QCPAxisRect *, Zoom> m_zoom;
    bool m_userInteracting = false;
    bool m_crosshairEnabled = false;
    bool m_followingCrosshair = false; // shown for another view: its moves are not sent back
    bool m_stepAxisBelow = false;      // leaveStepAxisToBelow
    QPointer<QCPItemStraightLine> m_crossX, m_crossY;
    QPointer<QCPItemText> m_readout;
    QString m_noDataText;
    QPointer<QCPItemText> m_noData;
    QList<QPointer<QCPLayerable>> m_hiddenForNoData; // the axes and colour bars the message hides

    ViewState *m_state;
    QCustomPlot *m_plot;
    QCPTextElement *m_title;
    QCPLayoutGrid *m_body;
    QHBoxLayout *m_header;
    void applyTitle();
    // The legend of types and runs where the state's position says, for a figure of `size`.
    void placeSideLegend(QSize size);
    // The room round each plot: what its axes need, and no more above and right of it.
    void fitPlotMargins();
    // What a plot keeps above it for the half of its top tick label that stands out.
    static int topTickRoom(const QCPAxisRect *rect);
    AxisFitter m_axes;

    QString m_lastTooltip;
    QString m_titleOverride;
    bool m_noTitleAsked = false; // on paper: no title at all, as asked (--title "")
    QString m_titleText;
    QString m_shortTitle;
    bool m_titleDropsRun = false;
    bool m_titleKeepsRun = false;
    std::optional<PaperLayout> m_paper; // set once, on a paper copy
    double m_fontPt = 9;
    bool m_sideLegend = false;
    bool m_legendInFigure = false; // on paper: the figure draws this legend in a row of its own
    int m_plotTop = 0, m_plotBottom = 0; // on paper: where the plot's edges are at least (alignPlot)
    int m_plotLeft = 0;                  // where the plot's left edge is at least (alignPlotLeft)
    QPoint m_pressPos;
    bool m_stale = false;
};

// step,block,layer,type,expert,tensor,rows,cols,value,run,metric: every matrix of the visible layers
// and types of the given blocks at the run's step (each chosen expert on a row of its own), the
// value of `metric` named by its column name.
QString stepTableCsv(const ViewState &state, Metric metric, int run, const QStringList &blocks, LayerView view = LayerView::Shared);
QString stepTableCsvHeader();

// "Legend" choices (auto, beside, below, inside at a corner, none) that set the state's position:
// the figures' context menus and the window's View menu.
void addLegendMenu(QMenu *menu, ViewState *state);

// A one-line text for a matrix: "decoder · MLP↑ · layer 2 · expert 3 · step 1500", its tensor and shape.
QString describeMatrix(const MatrixResult &r);
// A cell's value for the tooltips: its one matrix, or the mean (min, max) of its experts (valueNumber).
QString describeCell(const MatrixCell &cell, Metric metric);

} // namespace rankscope
