// Fits a plot's axes to the size it is laid out for, on screen and on paper: an axis label
// wrapped onto a second line (or its bracketed qualifier dropped) rather than cut, heatmap row
// labels shrunk to their rows, layer labels upright, turned or thinned so neighbours never touch,
// number ticks that fit. It keeps each axis' label and tick labels as the view set them, so that
// every fit starts from the whole text, not from the last fit's.
#pragma once

#include <QHash>
#include <QMap>
#include <QSize>
#include <QString>
#include <qcustomplot.h>

namespace rankscope {

class AxisFitter {
public:
    explicit AxisFitter(QCustomPlot *plot) : m_plot(plot) {}

    // Every visible axis of the plot and its colour scales fitted to `size`, in fonts of fontPt;
    // stepAxisBelow: the x axis' numbers are left to the plot below (ChartView::leaveStepAxisToBelow).
    void fit(QSize size, double fontPt, bool stepAxisBelow);
    // An axis label as the view last set it, before any wrapping.
    QString fullLabel(const QCPAxis *axis) const;

private:
    // An axis label set to fit its axis' length, kept whole in m_fullLabels.
    void fitAxisLabel(QCPAxis *axis, int length, double fontPt);
    // Each kind of axis: a heatmap's row labels, layer labels, numbers.
    void fitRowLabels(QCPAxis *axis, QCPAxisTickerText *ticker, int length, double fontPt);
    void fitLayerLabels(QCPAxis *axis, QCPAxisTickerText *ticker, int length, double fontPt);
    void fitNumbers(QCPAxis *axis, int length, bool numberedBelow);
    // Every label of a text ticker, as the view set them, before any thinning.
    QMap<double, QString> fullTickLabels(const QCPAxis *axis, QCPAxisTickerText *ticker);

    struct Ticks {
        const QCPAxisTicker *ticker = nullptr; // the ticker the labels were taken from
        QMap<double, QString> labels;          // every label, before thinning
    };
    QCustomPlot *m_plot;
    QHash<const QCPAxis *, Ticks> m_fullTicks;
    QHash<const QCPAxis *, QString> m_fullLabels;    // an axis label as the view set it
    QHash<const QCPAxis *, QString> m_wrappedLabels; // and as it was last shown
};

} // namespace rankscope
