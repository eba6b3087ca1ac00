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
    // Hides what marks the interactive state (the current-step line) while a figure is exported.
    virtual void setExporting(bool) {}
    // A title of the user's instead of the generated one (empty: generated).
    void setTitleOverride(const QString &title);

public slots:
    virtual void rebuild() = 0;

protected:
    // A click at the pixel: by default, the matrix there opens its spectrum.
    virtual void activate(const QPoint &pixel);
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
    QHBoxLayout *m_header;
    QString m_lastTooltip;
    QString m_titleOverride;
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
