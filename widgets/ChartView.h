// The shared frame of RankScope's chart views: a QCustomPlot in the paper style with a title,
// hover tooltips found by the subclass, and the run's ViewState to follow.
#pragma once

#include "ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QWidget>
#include <qcustomplot.h>

namespace rankscope {

class MetricSelector;

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

    // Export: the view laid out for `size` (pixels at 96 dpi) with tick labels of `fontPt` points,
    // without what marks the interactive state (the selection, the current-step line); endExport()
    // puts the screen layout back.
    void beginExport(QSize size, double fontPt);
    void endExport();
    bool isExporting() const { return m_exportSize.isValid(); }
    double fontSize() const { return m_fontPt; }

public slots:
    virtual void rebuild() = 0;

protected:
    // A click at the pixel: by default, the matrix there opens its spectrum.
    virtual void activate(const QPoint &pixel);
    // Lays the view out for a size: the legend beside the plot, or below it in as many columns as
    // fit; the title wrapped. Views add their own (thinning tick labels, cell labels).
    virtual void adaptLayout(QSize size);
    // The size the view is laid out for: the export's, or the widget's.
    QSize layoutSize() const { return isExporting() ? m_exportSize : m_plot->size(); }
    // The legend goes in a column right of the plot (and below it when the view is narrow).
    void useSideLegend();
    // The grid under the title holding the axis rect (at 0, 0); views add columns to it.
    QCPLayoutGrid *body() const { return m_body; }
    void resizeEvent(QResizeEvent *event) override;
    // Replots now unless the widget is hidden, in which case it replots when shown.
    void refresh();
    void setTitle(const QString &text);
    void showEvent(QShowEvent *event) override;
    ViewState *state() const { return m_state; }
    QHBoxLayout *headerLayout() const { return m_header; }
    // A labelled metric choice in the header.
    MetricSelector *addMetricSelector(Metric initial);

private:
    void onMouseMove(QMouseEvent *event);
    void onMouseRelease(QMouseEvent *event);

    ViewState *m_state;
    QCustomPlot *m_plot;
    QCPTextElement *m_title;
    QCPLayoutGrid *m_body;
    QHBoxLayout *m_header;
    void applyTitle();
    // Tick labels that fit their axis at `size`: fewer numbers, every k-th layer label.
    void fitTicks(QSize size);
    struct Ticks {
        const QCPAxisTicker *ticker = nullptr; // the ticker the labels were taken from
        QMap<double, QString> labels;          // every label, before thinning
    };
    QHash<const QCPAxis *, Ticks> m_fullTicks;
    QHash<const QCPAxis *, QString> m_fullLabels;    // an axis label as the view set it
    QHash<const QCPAxis *, QString> m_wrappedLabels; // and as it was last shown

    QString m_lastTooltip;
    QString m_titleOverride;
    QString m_titleText;
    QSize m_exportSize; // valid while exporting
    double m_fontPt = 9;
    bool m_sideLegend = false;
    QPoint m_pressPos;
    bool m_stale = false;
};

// step,block,layer,type,expert,tensor,rows,cols,<metric>: every matrix of the visible layers and
// types of the given blocks at the run's step (each chosen expert on a row of its own).
QString stepTableCsv(const ViewState &state, Metric metric, int run, const QStringList &blocks);

// A one-line text for a matrix: "decoder · MLP↑ · layer 2 · expert 3 · step 1500", its tensor and shape.
QString describeMatrix(const MatrixResult &r);
// A cell's value for the tooltips: its one matrix, or the mean (min, max) of its experts.
QString describeCell(const MatrixCell &cell, Metric metric);

} // namespace rankscope
