// What figure 2 shows for one run, as numbers and words, computed from the view state without a
// widget: a bar per matrix type in each shown layer at the run's step (a layer of several experts
// shows their mean, with a whisker from the smallest to the largest), the layer labels, the titles
// and the value range shared by every run's panel. LayerBarChart draws it; tests read it directly.
#pragma once

#include "figures/AxisRange.h"
#include "figures/FigureMode.h"
#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QCoreApplication>
#include <QMap>

namespace rankscope {

// One type's bars, one per shown layer (NaN where the layer has no such matrix).
struct BarSeries {
    MatrixType type = MatrixType::Q;
    bool visible = true;     // a hidden type leaves the group, so the others close up
    bool highlighted = false; // the highlighted matrix's type in this run (in the window only)
    QList<double> layers;
    QList<AggregatePoint> values; // of each layer's cell
    // Whiskers below and above each bar (NaN: none), when some layer holds several experts.
    QList<double> spreadBelow, spreadAbove;
    bool hasSpread() const { return !spreadBelow.isEmpty(); }
};

struct BarFigure {
    Metric metric = Metric::CompressionPct;
    int run = 0;
    qint64 step = 0;
    QString title, xLabel, yLabel;
    bool logY = false;
    double barWidth = 0.8; // each layer's group spans 80 % of the unit, split among the visible types (barGeometry)
    QList<BarSeries> series; // every type of the block, visible or not, in the contract's order
    QMap<double, QString> layerTicks; // the layer, or its relative depth
    std::optional<AxisRange> xRange, yRange; // nullopt: no data, the axis keeps its range
    QString noData; // why nothing is drawn (FigureNoData), empty when something is
    // Compared runs' panels share one legend of types, on the last shown run's panel.
    bool legendShown = true;
};

// How one layer's group of bars sits in its slot (a layer is one unit of the axis), drawn
// `slotPixels` wide: the group spans 80 % of the slot whatever the slot's width, so that groups
// never run into their neighbours nor past the plot's ends (16 and more layers in a column did),
// its bars a pixel apart while each keeps 3 px at least, touching when narrower; thin bars lose
// their outline, which would cover them.
struct BarGeometry {
    double barWidth = 0.8; // in axis units
    double spacing = 0;    // between neighbouring bars, in axis units
    bool outlined = true;
    static BarGeometry of(int bars, double slotPixels);
};

class BarFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(LayerBarChart)
public:
    BarFigureBuilder(const ViewState &state, Metric metric, int run, FigureMode mode = {})
        : m_state(state), m_metric(metric), m_run(run), m_mode(mode)
    {
    }
    BarFigure build() const;

private:
    BarSeries seriesOf(MatrixType type, const QList<int> &layers, qint64 step) const;
    // The value range of every shown run's panel, with this one's whiskers, padded for the axis.
    std::optional<AxisRange> valueRange(const BarFigure &figure) const;
    QString title(const BarFigure &figure) const;
    // Without a title: the step (and block) on the layer axis, the experts' mean on the value axis.
    void sayInLabels(BarFigure &figure) const;

    const ViewState &m_state;
    Metric m_metric;
    int m_run;
    FigureMode m_mode;
};

} // namespace rankscope
