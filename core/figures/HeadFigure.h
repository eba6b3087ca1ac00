// The per-head figures of --heads, as data: a head × layer heatmap of one metric of one head type
// (a head of Q, K, V or O, or a QK or OV circuit) at one step, and one layer's heads as lines over
// the steps. Only RunAnalysis::headResults feed them: no whole matrix is ever a head's cell or
// line, and no per-head row ever enters a whole-matrix figure. A run without per-head rows says
// how to get them (noHeadsReason). HeadView draws them; tests read them directly.
#pragma once

#include "figures/AxisRange.h"
#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QCoreApplication>
#include <QPointF>

namespace rankscope {

struct HeadHeatmap {
    Metric metric = Metric::StableRank;
    MatrixType type = MatrixType::QK;
    qint64 step = 0;
    QString title, xLabel, yLabel;
    QString captionedXLabel, captionedYLabel; // under a caption, without the title: "Layer (final step)", "Head (QK circuit)"
    QList<int> layers;            // columns
    QList<int> heads;             // rows, head 0 at the top
    QList<QList<double>> values;  // values[row][column]; NaN where the head has none
    QList<QList<int>> kvHeads;    // the key/value head of each cell (-1: none)
    std::optional<AxisRange> range; // the finite values' span, for the colour scale
    QString noData;               // why no cell has a value, empty when one has

    // "layer 3 · head 5 (K/V head 1) · QK: Stable rank 2.41"
    QString tooltip(int row, int column) const;
};

struct HeadLine {
    int head = 0;
    int kvHead = -1;
    QList<QPointF> points; // (step, value), finite values only
};

struct HeadLines {
    Metric metric = Metric::StableRank;
    MatrixType type = MatrixType::QK;
    int layer = 0;
    QString title, xLabel, yLabel;
    QList<HeadLine> lines; // one per head, in head order
    QString noData;
};

class HeadFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(HeadFigureBuilder)
public:
    HeadFigureBuilder(const ViewState &state, Metric metric, MatrixType type) : m_state(state), m_metric(metric), m_type(type) {}

    // At the step shown (ViewState::currentStep), the shown block and layer range.
    HeadHeatmap heatmap() const;
    // One layer's heads over every step.
    HeadLines lines(int layer) const;
    // The layers that have heads of this type, in the shown block.
    QList<int> layers() const;

    // Why a run shows no per-head figure, and how to get one.
    static QString noHeadsReason();
    // "K/V head 1 of query heads 2–3" where the type is grouped, for tooltips.
    static QString headText(MatrixType type, int head, int kvHead);

private:
    bool takes(const MatrixResult &r) const;
    QString typeText() const;

    const ViewState &m_state;
    Metric m_metric;
    MatrixType m_type;
};

} // namespace rankscope
