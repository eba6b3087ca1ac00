// A scalar training logged (loss, learning rate) as a curve on the lines' step axis: the points as
// logged, TensorBoard's smoothing of them, and where the first run's checkpoints were taken on the
// smoothed curve. TrainingCurveChart draws it; tests read it.
#pragma once

#include "figures/AxisRange.h"
#include "figures/LineFigure.h"
#include "figures/ViewState.h"

#include <QCoreApplication>
#include <QList>
#include <QString>
#include <optional>

namespace rankscope {

// TensorBoard's "classic" smoothing (webapp/widgets/line_chart_v2/data_transformer.ts,
// classicSmoothing): an exponential moving average debiased for its start, last = last·w + (1 − w)·y,
// y' = last / (1 − wⁿ) after n finite points; a point that is not finite passes through and does
// not count; a constant series is left as it is. w in [0, 1]; 0 leaves every point as it is.
QList<double> debiasedSmoothing(const QList<double> &values, double weight);

// One run's curve: the first run's, or a compared run's.
struct CurveSeries {
    int run = 0;      // the run in the ViewState
    int runOrder = 0; // its place among the shown runs: its dash pattern, as its lines have it
    QString runName;
    QList<qint64> steps;         // as logged
    QList<double> x;             // where each point sits on the lines' step axis
    QList<double> raw, smoothed; // the values, and TensorBoard's smoothing of them
    QList<double> markX, markY;  // each of the run's checkpoints on its smoothed curve
};

struct CurveFigure {
    QString tag;
    QString xLabel, yLabel;
    // Each shown run whose logs hold the tag, in the runs' order (the first run alone when no
    // run is compared).
    QList<CurveSeries> series;
    bool compared = false; // several runs shown: the runs' dash patterns and names are keyed
    std::optional<AxisRange> xRange; // the lines' step range (LineFigureBuilder::stepRange)
    bool logY = false;
    std::optional<AxisRange> yRange;
    QString noData; // why nothing is drawn, empty when something is

    // The logged point nearest x on the step axis, as the crosshair and the hover read it out:
    // "step 1200\nloss  2.345 (smoothed 2.401)"; compared, each run's nearest point there
    // ("loss · run-b  2.310 (smoothed 2.380)"). None when nothing is drawn.
    std::optional<LineReadout> readoutAt(double x) const;
    // step,tag,value,smoothed (and run, when runs are compared): the points as drawn.
    QString csv() const;
};

class CurveFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(CurveFigureBuilder)
public:
    CurveFigureBuilder(const ViewState &state, const QString &tag, double smoothing, bool logY)
        : m_state(state), m_tag(tag), m_smoothing(smoothing), m_logY(logY)
    {
    }
    // The lines' window of steps (nullopt: every step): the range the curve shares with them.
    CurveFigureBuilder &setStepWindow(std::optional<StepWindow> steps)
    {
        m_steps = steps;
        return *this;
    }
    CurveFigure build() const;

private:
    std::optional<StepWindow> m_steps;
    const ViewState &m_state;
    QString m_tag;
    double m_smoothing;
    bool m_logY;
};

} // namespace rankscope
