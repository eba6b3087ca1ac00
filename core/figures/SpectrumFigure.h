// What figure 4 shows, as numbers and words, computed from one matrix's stored spectrum without a
// widget: its singular values by rank (and D = W − W_ref's with --delta); right, its eigenvalues
// λ = σ² either as their empirical CCDF P(Λ ≥ λ), where a power law is a straight line and the fit
// is judged, or as their density with the Marchenko–Pastur bulk; the fitted power law from x_min,
// the edge λ₊ and x_min marked and named; optionally the same matrix at the first step; each
// panel's axis ranges, the legends' entries and the title. SpectrumView draws it; tests read it.
#pragma once

#include "figures/AxisRange.h"
#include "figures/ViewState.h"
#include "spectral/MetricCatalog.h"

#include <QCoreApplication>
#include <QPointF>

namespace rankscope {

struct SpectrumCurve {
    enum class Kind {
        SingularValues, // σᵢ against rank i, left panel
        Density,        // the ESD, right panel (drawn as steps)
        Change,         // --delta: D = W − W_ref's singular values, left panel
        Bulk,           // the Marchenko–Pastur law, right panel, filled
        PowerLaw,       // the fitted tail, right panel (its density, or its CCDF)
        Ccdf,           // P(Λ ≥ λ) of the eigenvalues the fit took (λ > 1e-5), right panel (drawn as points)
    };
    enum class Legend { None, Rank, Density }; // which panel's legend names it
    Kind kind = Kind::SingularValues;
    bool main = true; // the chosen step's (else the first step's, overlaid)
    QString name;
    Legend legend = Legend::None;
    QList<QPointF> points;
    bool leftPanel() const { return kind == Kind::SingularValues || kind == Kind::Change; }
};

// A vertical line in the density panel: the power law's x_min, or the bulk's edge λ₊.
struct SpectrumMarker {
    enum class Kind { PowerLawXmin, BulkEdge };
    Kind kind = Kind::BulkEdge;
    double x = 0;
    QString name; // its own legend entry (the CCDF's λ₊ = 1.3), or empty: its curve's entry names it
};

// What the right panel shows of the eigenvalues.
enum class SpectrumTail {
    Ccdf,    // the empirical CCDF on log–log axes, the fitted power law a straight line from x_min
    Density, // the log-binned density with the Marchenko–Pastur bulk
};

struct SpectrumFigure {
    QString title;
    QString subjectText; // "layer 1 Q, final step": what a figure without a title says on its σ axis
    std::optional<MatrixType> type;  // the matrix's type (its colour); nullopt: nothing to draw
    qsizetype spectrumSize = 0;      // how many singular values: many get smaller markers
    qsizetype changeSize = 0;
    QList<SpectrumCurve> curves;     // in drawing order
    QList<SpectrumMarker> markers;
    SpectrumTail tail = SpectrumTail::Density;
    QString tailYLabel;              // the right panel's value axis: "Density p(λ)" or "P(Λ ≥ λ)"
    QString fitText;                 // the power law's legend entry, before wrapping
    double bulkEdge = 0;             // λ₊ on λ's own axis (0: no bulk)
    // Each panel's ranges on log–log axes (nullopt: nothing positive to show, the axes keep theirs).
    std::optional<AxisRange> rankX, rankY, densityX, densityY;

    const SpectrumCurve *curve(SpectrumCurve::Kind kind, bool main = true) const;
};

class SpectrumFigureBuilder {
    Q_DECLARE_TR_FUNCTIONS(SpectrumView)
public:
    SpectrumFigureBuilder(const ViewState &state, std::optional<MatrixKey> key, bool overlayFirstStep,
                          SpectrumTail tail = SpectrumTail::Density)
        : m_state(state), m_key(key), m_overlay(overlayFirstStep), m_tail(tail) {}
    SpectrumFigure build() const;

private:
    void addSpectrum(SpectrumFigure &figure, const MatrixResult &r, bool main) const;
    void addChange(SpectrumFigure &figure, const MatrixResult &r) const;
    void addMarchenkoPasturBulk(SpectrumFigure &figure, const MatrixResult &r, const Eigen::VectorXd &lambda) const;
    void addPowerLaw(SpectrumFigure &figure, const MatrixResult &r, const Eigen::VectorXd &lambda) const;
    // The power law's points: its density scaled to the tail's share of all eigenvalues, or its
    // CCDF (tail/fitted)·(λ/x_min)^(1−α), which meets the empirical CCDF at x_min.
    QList<QPointF> powerLawPoints(const SpectralMetrics &fit, const Eigen::VectorXd &lambda, double fitted) const;
    // The ranges of a panel's curves (the bulk left out: the law fits under the ESD's range), padded.
    static void fitRanges(SpectrumFigure &figure);

    const ViewState &m_state;
    std::optional<MatrixKey> m_key;
    bool m_overlay;
    SpectrumTail m_tail;
};

// The empirical CCDF P(Λ ≥ λ) of the eigenvalues above kPowerLawThreshold (the fit's), at each of
// them in ascending order: (λ₍ᵢ₎, (n − i)/n) for i = 0 … n − 1, equal eigenvalues each a point.
QList<QPointF> empiricalCcdf(const Eigen::Ref<const Eigen::VectorXd> &lambda);

} // namespace rankscope
