// What figure 1 shows, as numbers and words, computed from the shown runs and the view state without
// a widget: its series (one per matrix type and run, or one per layer of one type), their points on
// the x axis, the titles, the axis ranges, the legend and the layer colour scale. MetricLineChart
// draws it; tests read it directly.
#pragma once

#include "analysis/results/MetricAggregation.h"
#include "figures/AxisRange.h"
#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QCoreApplication>
#include <optional>

namespace rankscope {

// The training steps a line chart shows, both ends included (`rankscope export --steps A-B`).
struct StepWindow {
    qint64 first = 0;
    qint64 last = 0;
    bool contains(qint64 step) const { return step >= first && step <= last; }
    bool operator==(const StepWindow &other) const = default;
};

// What the line chart is asked to show besides the state.
struct LineFigureOptions {
    Metric metric = Metric::StableRank;
    std::optional<MatrixType> perLayerType; // nullopt: one line per type; a type: its layers
    bool alphaGuide = true;                 // WeightWatcher's 2 ≤ α ≤ 6 band, when the metric is α
    bool interactive = true;                // false for a figure on paper: no highlight, no step line
    // false: no title names what is shown (a figure under a paper's caption); the value axis' label
    // says what it would have (FigureMode): "Stable rank (mean of layers 0–3)".
    bool titled = true;
};

// One line: a type's aggregate over layers in one run, or one layer of one type in the first run.
struct LineSeries {
    MatrixType type = MatrixType::Q;
    int layer = -1;  // -1: the aggregate line of the type
    int run = 0;     // the run's index in the state
    int runOrder = 0; // its place among the shown runs: the line's dash pattern
    QList<AggregatePoint> points;
    QList<double> x; // where each point sits on the x axis (its step, or its fraction of the run)
    // --alpha-ci, when the metric is α: each point's 95 % interval ({NaN, NaN} where it has none;
    // figures/AlphaIntervals says how a mean's is made); empty when no point has one.
    QList<AxisRange> intervals;
    bool visible = true;
    bool highlighted = false;
    bool inLegend = false; // each type is listed once, for the first shown run
};

// A legend entry for a compared run's dash pattern.
struct RunKey {
    QString name;
    int runOrder = 0;
};

// The per-layer lines' colours: layers mapped on a sequential colour map over this range.
struct LayerColourScale {
    AxisRange range;
    QString label;
};

// The crosshair's readout at a checkpoint: what the lines are there, as TensorBoard lists them.
struct LineReadout {
    double x = 0;     // the checkpoint's place on the x axis
    qint64 step = 0;  // its step
    struct Entry {
        QString name;  // "Q", "Q · run-b", "layer 2"
        QString value; // rounded as the value axis is
    };
    QList<Entry> entries; // each visible line with a point there, in the figure's order
    QString text() const;
};

struct LineFigure {
    Metric metric = Metric::StableRank;
    bool perLayer = false; // the lines are one type's layers
    QString title, xLabel, yLabel;
    // Without a title, the value axis' label in short where the lines average every layer of one
    // run ("Stable rank (mean)"), for a panel too narrow for the whole one; empty: none shorter.
    QString compactYLabel;
    // The title without what the axes and the caption say ("vs training step", the run): for a
    // panel too narrow for the title on two lines (figure (1) in one column).
    QString shortTitle;
    bool logY = false;
    QList<LineSeries> series;
    bool bands = false;  // a min–max band under each aggregate line (one run only)
    int bandAlpha = 45;  // in the window lighter when many types share the plot; on paper 51 (20 %)
    QList<RunKey> runKeys; // after the types in the legend, when runs are compared
    bool legendShown = true;
    std::optional<AxisRange> guideBand; // α's well-trained range, shaded
    QString guideLabel;                  // its legend entry (when the legend is shown)
    // What the error bars on α's lines are (when a line has intervals): a legend entry, or with no
    // legend the end of the title.
    QString intervalLabel;
    std::optional<LayerColourScale> layerScale;
    std::optional<AxisRange> xRange, yRange; // nullopt: no data, the axis keeps its range
    std::optional<double> stepMarker;        // x of the current step's line
    QString noData; // why nothing is drawn (FigureNoData), empty when something is

    // The readout at x: the checkpoint nearest to it among the visible lines and each visible
    // line's value there, rounded to one digit finer than the ticks of the value axis shown
    // (`shownY`: the zoomed range, or the figure's); nullopt when no line has a point.
    std::optional<LineReadout> readoutAt(double x, const ViewState &state, std::optional<AxisRange> shownY = std::nullopt) const;

    // The numbers behind the figure as CSV with a header line.
    QString csv(const ViewState &state) const;
};

// Builds a LineFigure from the state. Each part of the figure has its own step below.
class LineFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(MetricLineChart)
public:
    LineFigureBuilder(const ViewState &state, const LineFigureOptions &options) : m_state(state), m_options(options) {}
    // Only the checkpoints in a window of steps (nullopt: every step).
    LineFigureBuilder &setStepWindow(std::optional<StepWindow> steps)
    {
        m_steps = steps;
        return *this;
    }
    LineFigure build() const;

    // Where a run's step sits on the x axis: the step, or its fraction of the run.
    static double xOf(const ViewState &state, int run, qint64 step);
    // The y range of the visible lines (and bands) padded for the axis; nullopt when nothing is finite.
    static std::optional<AxisRange> valueRange(const LineFigure &figure);
    // The x range of every shown run's steps (those in `window`), padded by 3 % each side.
    static std::optional<AxisRange> stepRange(const ViewState &state, std::optional<StepWindow> window = std::nullopt);

private:
    void addTypeLines(LineFigure &figure) const;
    void addLayerLines(LineFigure &figure) const;
    QString typeLinesTitle() const;
    QString layerLinesTitle() const;
    // "mean of layers 0–3", or for compared runs "mean of each run's layers (none in …)", plus the experts.
    QString layerScopeText() const;
    QString aggregateName() const;
    // A line of the points in the step window.
    LineSeries seriesOf(MatrixType type, int layer, int run, QList<AggregatePoint> points) const;
    // --alpha-ci: the intervals of a line of α, and what the figure then says of them.
    void addIntervals(LineFigure &figure, LineSeries &series, const QList<MatrixResult> &results, const MatrixFilter &filter) const;

    const ViewState &m_state;
    LineFigureOptions m_options;
    std::optional<StepWindow> m_steps;
};

} // namespace rankscope
