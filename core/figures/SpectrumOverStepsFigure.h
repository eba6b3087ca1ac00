// What the spectrum-over-steps figure shows, as numbers and words, computed from the stored
// spectra without a widget: one matrix (or a type's mean over the shown layers) across every step
// of its run, as TensorBoard's distributions view shows a tensor's values. x is the step, y is σ
// in equal steps of log10 σ over the whole run's range of positive finite σ, and each cell's
// colour is the fraction of the matrix's singular values in that bin at that step; the stable
// rank at each step is a line over it, on an axis of its own. SpectrumOverStepsView draws it;
// tests read it directly.
//
// Density: count of σ in the bin / number of σ of the matrix (its zeros and non-finite values
// included), so matrices of different sizes compare and a column sums to 1 less the share left
// out. A type's mean is the plain average of its layers' (and chosen experts') columns, each
// matrix weighing the same, and its stable rank the mean of theirs.
#pragma once

#include "figures/AxisRange.h"
#include "figures/ViewState.h"

#include <QCoreApplication>

namespace rankscope {

// What the figure is of: one matrix of a run, or a type's mean over the shown layers of a block.
struct SpectrumOverStepsSubject {
    int run = 0;
    MatrixIdentity id;         // block, layer, type, expert; the layer (and expert) unused for a mean
    bool meanOverLayers = false;
    bool operator==(const SpectrumOverStepsSubject &other) const = default;
};

// One step's column of cells.
struct SpectrumOverStepsColumn {
    qint64 step = 0;
    double x = 0;                // where the step sits on the x axis (the step, or its fraction of the run)
    double left = 0, right = 0;  // the cell's edges: halfway to the neighbouring steps
    QList<double> density;       // per bin, lowest σ first: the fraction of σ in it
    double stableRank = 0;       // the matrix's stable_rank, or the mean of the layers' (NaN: none)
    int matrices = 0;            // how many matrices the column averages (1 for one matrix)
    qsizetype sigmaCount = 0;    // their singular values, all of them
    qsizetype leftOut = 0;       // of which zero, negative or not finite: on no log axis
};

struct SpectrumOverStepsFigure {
    SpectrumOverStepsSubject subject;
    std::optional<MatrixType> type; // the subject's type; nullopt: nothing to draw
    QString title, xLabel, yLabel, rankLabel, colourLabel;
    QString subjectText; // "layer 1 Q": what a figure without a title says on its σ axis
    QString shortTitle;             // the title without the tensor's name and shape, for narrow figures
    QList<double> binEdges;         // σ at the bins' edges, ascending: bins + 1 of them
    QList<SpectrumOverStepsColumn> columns; // by step
    std::optional<AxisRange> xRange, sigmaRange, stableRankRange;
    AxisRange densityRange{0, 1};   // the colour bar: 0 to the largest cell
    qsizetype leftOut = 0;          // σ left out over every step
    QString leftOutNote;            // says so, for the figure (empty when none)
    QString noData;                 // why nothing is drawn (empty when something is)

    int bins() const { return int(std::max<qsizetype>(0, binEdges.size() - 1)); }
    // The column whose cell spans x, and the bin that holds σ (-1: none).
    int columnAt(double x) const;
    int binAt(double sigma) const;
    // The numbers behind it: step,block,layer,type,expert,matrices,sigma_low,sigma_high,density,
    // stable_rank,left_out; a row per step and bin.
    QString csv() const;
};

class SpectrumOverStepsFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(SpectrumOverStepsView)
public:
    SpectrumOverStepsFigureBuilder(const ViewState &state, const SpectrumOverStepsSubject &subject) : m_state(state), m_subject(subject) {}
    SpectrumOverStepsFigure build() const;

    // The bin count for matrices of at most n singular values: 2·√n, from 12 to 80.
    static int binsFor(qsizetype n);

private:
    // The subject's matrices at a step: the one matrix, or every matrix of the type in the shown
    // layers (each chosen expert).
    QList<const MatrixResult *> matricesAt(qint64 step) const;
    void addBins(SpectrumOverStepsFigure &figure, const QList<QList<const MatrixResult *>> &byStep) const;
    void addColumn(SpectrumOverStepsFigure &figure, qint64 step, const QList<const MatrixResult *> &matrices) const;
    static void placeColumns(SpectrumOverStepsFigure &figure);
    static void fitRanges(SpectrumOverStepsFigure &figure);
    QString subjectText() const;

    const ViewState &m_state;
    SpectrumOverStepsSubject m_subject;
};

} // namespace rankscope
