// What one heatmap of figure 3 shows, as numbers and words, computed from the view state without a
// widget: the rows (block and type, the visible types of every block, Q at the top), the columns
// (the shown layers), each cell's value (a cell of several experts their mean, NaN where there is
// no matrix), the colour scale shared by every run's panel, the labels and the highlighted cell.
// TypeLayerHeatmap draws it; tests read it directly.
#pragma once

#include "figures/AxisRange.h"
#include "figures/FigureMode.h"
#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QCoreApplication>

namespace rankscope {

struct HeatmapRow {
    QString block;
    MatrixType type = MatrixType::Q;
    bool operator==(const HeatmapRow &other) const = default;
};

// What the colours span: by default the step shown (its own range in each metric's panel: the
// last step's weighted α spans its colours, not a sliver of the range of every step); or every
// step of the shown runs, so that while scrubbing or playing one colour means one value; and
// either end set by hand.
struct HeatmapColourRange {
    enum class Fit { AllSteps, ShownStep };
    Fit fit = Fit::ShownStep;
    std::optional<double> min, max; // set by hand: they replace the fitted ends
    bool operator==(const HeatmapColourRange &other) const = default;
};

// The colours of the cells: a sequential map over `range`; compression % gets its own map.
struct HeatmapColourScale {
    enum class Map { YellowOrangeRed, Viridis };
    Map map = Map::Viridis;
    std::optional<AxisRange> range; // nullopt: no finite value, the scale keeps its range
    // The metric, as its axes name it ("Compression % (τ = 0.90)"), and its short name for a bar
    // too short for that ("Compression %"). What the range spans is the header's choice, not the figure's.
    QString label;
    QString shortLabel;
};

struct HeatmapFigure {
    Metric metric = Metric::CompressionPct;
    int run = 0;
    qint64 step = 0;
    QString title, xLabel, yLabel;
    QList<HeatmapRow> rows;
    QList<int> columns;        // layers
    QList<QString> columnLabels; // the layer, or its relative depth
    QList<QString> rowLabels;    // "Q", or "decoder · Q" for a model of several stacks
    QList<QList<double>> values; // values[row][column]
    QList<int> blockStarts;      // rows that begin another block's group (a rule above them)
    HeatmapColourScale colours;
    std::optional<std::pair<int, int>> highlighted; // (column, row) of the highlighted matrix (in the window only)
    QString noData; // why no cell has a value (FigureNoData), empty when one has

    double value(int row, int column) const { return values[row][column]; }
};

class HeatmapFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(TypeLayerHeatmap)
public:
    HeatmapFigureBuilder(const ViewState &state, Metric metric, int run, HeatmapColourRange colourRange = {}, FigureMode mode = {})
        : m_state(state), m_metric(metric), m_run(run), m_colourRange(colourRange), m_mode(mode)
    {
    }
    HeatmapFigure build() const;

private:
    // The colour range as asked, and the words that say what it spans.
    void addColourRange(HeatmapFigure &figure) const;
    // The smallest and largest finite cell of the metric over every step of the shown runs (their
    // shown layers, every block, the visible types).
    std::optional<std::pair<double, double>> rangeOverAllSteps() const;
    void addRowsAndColumns(HeatmapFigure &figure) const;
    void addCells(HeatmapFigure &figure) const;
    QString title(const HeatmapFigure &figure) const;

    const ViewState &m_state;
    Metric m_metric;
    int m_run;
    HeatmapColourRange m_colourRange;
    FigureMode m_mode;
};

} // namespace rankscope
