#include "figures/SpectrumFigure.h"

#include "spectral/EigenvalueDensity.h"
#include "spectral/PowerLawFit.h"
#include "spectral/SpectralMetrics.h"
#include "spectral/WeightWatcherMetrics.h"

#include <algorithm>
#include <vector>
#include <numbers>

namespace rankscope {

const SpectrumCurve *SpectrumFigure::curve(SpectrumCurve::Kind kind, bool main) const
{
    for (const SpectrumCurve &c : curves)
        if (c.kind == kind && c.main == main)
            return &c;
    return nullptr;
}

QList<QPointF> empiricalCcdf(const Eigen::Ref<const Eigen::VectorXd> &lambda)
{
    std::vector<double> x;
    for (double value : lambda)
        if (value > kPowerLawThreshold && std::isfinite(value))
            x.push_back(value);
    std::sort(x.begin(), x.end());
    QList<QPointF> points;
    const double n = double(x.size());
    for (size_t i = 0; i < x.size(); ++i)
        points.append({x[i], (n - double(i)) / n});
    return points;
}

SpectrumFigure SpectrumFigureBuilder::build() const
{
    SpectrumFigure figure;
    figure.tail = m_tail;
    figure.tailYLabel = m_tail == SpectrumTail::Ccdf ? tr("P(Λ ≥ λ)") : tr("Density p(λ)");
    const MatrixResult *r = m_key ? m_state.find(*m_key) : nullptr;
    if (!r) {
        figure.title = tr("Click a bar, a heatmap cell or a per-layer point to see that matrix's spectrum");
        return figure;
    }
    // A spectrum the metrics cannot take (NaN, Inf, negative, or σ whose squares overflow) is
    // named, not drawn: its eigenvalues would give the density and the axes no finite range. The
    // solver and the results file let none through; a view must not depend on it.
    if (const QString problem = spectrumProblem(r->singularValues); !problem.isEmpty()) {
        figure.title = tr("Spectrum of %1, step %2: %3 is not drawn: %4").arg(r->identity().text()).arg(r->step).arg(r->tensor, problem);
        return figure;
    }
    figure.type = r->type;
    figure.spectrumSize = r->singularValues.size();
    const QList<qint64> runSteps = m_state.stepsAt(m_key->run);
    if (m_overlay && !runSteps.isEmpty() && runSteps.first() != r->step)
        if (const MatrixResult *first = m_state.find({m_key->run, runSteps.first(), r->identity()}); first && spectrumProblem(first->singularValues).isEmpty())
            addSpectrum(figure, *first, false);
    addSpectrum(figure, *r, true);
    figure.subjectText = QStringLiteral("%1, %2").arg(r->identity().text(), m_state.stepWords(m_key->run, r->step, true));
    figure.title = tr("Spectrum of %1%2, step %3: %4 [%5\u00d7%6] — %7")
                       .arg(r->identity().text(), r->updateRank > 0 ? tr(" (LoRA update, r = %1)").arg(r->updateRank) : QString())
                       .arg(r->step).arg(r->tensor).arg(r->rows).arg(r->cols).arg(m_state.runNameAt(m_key->run));
    fitRanges(figure);
    return figure;
}

void SpectrumFigureBuilder::addSpectrum(SpectrumFigure &figure, const MatrixResult &r, bool main) const
{
    // With one spectrum the title names its step: the legends then carry only the fit.
    SpectrumCurve sigma{SpectrumCurve::Kind::SingularValues, main, tr("step %1").arg(r.step),
                        m_overlay ? SpectrumCurve::Legend::Rank : SpectrumCurve::Legend::None, {}};
    for (Eigen::Index i = 0; i < r.singularValues.size(); ++i)
        if (r.singularValues[i] > 0)
            sigma.points.append({double(i + 1), r.singularValues[i]});
    const Eigen::VectorXd lambda = r.singularValues.array().square();
    const bool ccdf = m_tail == SpectrumTail::Ccdf;
    SpectrumCurve tail{ccdf ? SpectrumCurve::Kind::Ccdf : SpectrumCurve::Kind::Density, main,
                       ccdf ? tr("CCDF, step %1").arg(r.step) : tr("ESD, step %1").arg(r.step),
                       m_overlay ? SpectrumCurve::Legend::Density : SpectrumCurve::Legend::None, {}};
    if (ccdf)
        tail.points = empiricalCcdf(lambda);
    else
        for (const auto &[x, y] : logBinnedDensity(lambda, densityBinsFor(lambda.size())))
            tail.points.append({x, y});
    figure.curves << sigma << tail;
    if (!main)
        return;
    addChange(figure, r);
    // A LoRA update is r spikes and zeros: no bulk to fit (docs/metrics.md, "LoRA updates").
    if (r.updateRank == 0)
        addMarchenkoPasturBulk(figure, r, lambda);
    addPowerLaw(figure, r, lambda);
}

void SpectrumFigureBuilder::addChange(SpectrumFigure &figure, const MatrixResult &r) const
{
    // --delta: D = W − W_ref's singular values beside W's, on the same axes.
    if (r.deltaSingularValues.size() == 0 || !spectrumProblem(r.deltaSingularValues).isEmpty())
        return;
    SpectrumCurve change{SpectrumCurve::Kind::Change, true, tr("W \u2212 W\u2080 (change from the reference)"), SpectrumCurve::Legend::Rank, {}};
    for (Eigen::Index i = 0; i < r.deltaSingularValues.size(); ++i)
        if (r.deltaSingularValues[i] > 0)
            change.points.append({double(i + 1), r.deltaSingularValues[i]});
    figure.changeSize = r.deltaSingularValues.size();
    for (SpectrumCurve &c : figure.curves)
        if (c.kind == SpectrumCurve::Kind::SingularValues && c.main && !m_overlay) { // two lines in the panel: both named, W first
            c.name = tr("W, step %1").arg(r.step);
            c.legend = SpectrumCurve::Legend::Rank;
        }
    figure.curves << change;
}

void SpectrumFigureBuilder::addMarchenkoPasturBulk(SpectrumFigure &figure, const MatrixResult &r, const Eigen::VectorXd &lambda) const
{
    // WeightWatcher's MP fit (num_spikes, mp_softrank come from it), by the same function; it is
    // cheap next to a decomposition. The edge drawn is λ₊; num_spikes counts the eigenvalues beyond
    // λ₊ plus its Tracy–Widom margin, which the legend says.
    const MarchenkoPasturFit fit = fitMarchenkoPastur(lambda, r.rows, r.cols);
    if (!fit.ok || !(fit.bulkMax > 0))
        return;
    figure.bulkEdge = fit.bulkMax / fit.scale;
    const QString edgeText = QString::number(figure.bulkEdge, 'g', 3);
    // On the CCDF the bulk is its edge alone, named in the legend: the law's density has no place
    // on that scale. On the density the bulk's own entry names it.
    if (m_tail == SpectrumTail::Ccdf) {
        figure.markers.append({SpectrumMarker::Kind::BulkEdge, figure.bulkEdge, tr("\u03bb\u208a (MP edge) = %1").arg(edgeText)});
        return;
    }
    // The law on λ's own axis: p(λ) = scale·ρ(scale·λ), sampled densely towards both edges, where
    // it rises and falls as a square root; values far below its peak would only stretch the log axis.
    const double low = std::max(fit.bulkMin, fit.bulkMax * 1e-4), high = fit.bulkMax;
    QList<QPointF> points;
    double peak = 0;
    for (int i = 0; i <= 160; ++i) {
        const double t = std::numbers::pi / 2 * i / 160;
        const double x = fit.bulkMin > 0 ? low + (high - low) * std::sin(t) * std::sin(t) : low * std::pow(high / low, std::sin(t));
        const double p = fit.scale * marchenkoPasturDensity(std::clamp(x, low * (1 + 1e-12), high * (1 - 1e-12)), fit.sigma, fit.q);
        points.append({x / fit.scale, p});
        peak = std::max(peak, p);
    }
    const QString q = QString::number(fit.q, 'g', 3);
    SpectrumCurve bulk{SpectrumCurve::Kind::Bulk, true,
                       fit.numSpikes == 1 ? tr("MP bulk, Q = %1, λ₊ = %2: 1 spike past λ₊ + TW").arg(q, edgeText)
                                          : tr("MP bulk, Q = %1, λ₊ = %2: %3 spikes past λ₊ + TW").arg(q, edgeText).arg(fit.numSpikes),
                       SpectrumCurve::Legend::Density, {}};
    for (const QPointF &point : points)
        if (point.y() > peak * 1e-3)
            bulk.points.append(point);
    figure.curves << bulk;
    figure.markers.append({SpectrumMarker::Kind::BulkEdge, figure.bulkEdge, {}});
}

QList<QPointF> SpectrumFigureBuilder::powerLawPoints(const SpectralMetrics &fit, const Eigen::VectorXd &lambda, double fitted) const
{
    QList<QPointF> points;
    const double top = lambda.maxCoeff();
    for (int i = 0; i <= 40; ++i) {
        const double x = fit.alphaXmin * std::pow(top / fit.alphaXmin, i / 40.0);
        const double p = m_tail == SpectrumTail::Ccdf
                             ? fit.alphaTailSize / fitted * std::pow(x / fit.alphaXmin, 1 - fit.alpha)
                             : fit.alphaTailSize / double(lambda.size()) * (fit.alpha - 1) / fit.alphaXmin * std::pow(x / fit.alphaXmin, -fit.alpha);
        if (std::isfinite(x) && std::isfinite(p) && p > 0) // a log–log axis holds nothing else
            points.append({x, p});
    }
    return points;
}

void SpectrumFigureBuilder::addPowerLaw(SpectrumFigure &figure, const MatrixResult &r, const Eigen::VectorXd &lambda) const
{
    // The fit the analysis made (metric contract, "alpha"): drawn, not fitted again.
    const SpectralMetrics &fit = r.metrics;
    if (!std::isfinite(fit.alpha) || !(fit.alphaXmin > 0) || !std::isfinite(fit.alphaXmin)) {
        figure.fitText = r.updateRank > 0 ? tr("no power-law fit (a LoRA update with fewer than 10 nonzero eigenvalues)")
                                          : tr("no power-law fit (fewer than 2 eigenvalues above 1e-5)");
        return;
    }
    const auto fitted = (lambda.array() > kPowerLawThreshold && lambda.array().isFinite()).count();
    // The fitted tail on the panel's scale: p(λ) = (tail share)·(α − 1)/x_min·(λ/x_min)^(−α), or
    // its CCDF, from x_min to the largest eigenvalue.
    SpectrumCurve law{SpectrumCurve::Kind::PowerLaw, true, {}, SpectrumCurve::Legend::Density, powerLawPoints(fit, lambda, double(fitted))};
    // --alpha-ci: the interval after α, "α = 3.12 [2.95, 3.30]".
    const bool interval = std::isfinite(fit.alphaCiLow) && std::isfinite(fit.alphaCiHigh);
    const QString alpha = interval ? QStringLiteral("%1 [%2, %3]").arg(fit.alpha, 0, 'f', 2).arg(fit.alphaCiLow, 0, 'f', 2).arg(fit.alphaCiHigh, 0, 'f', 2)
                                   : QString::number(fit.alpha, 'f', 2);
    // x_min's line is the law's start, in its colour: named here rather than in an entry of its own,
    // which would not fit a column-wide figure's legend.
    figure.fitText = tr("power law: \u03b1 = %1, D = %2, x\u2098\u1d62\u2099 = %3, tail %4 of %5 eigenvalues")
                         .arg(alpha).arg(fit.alphaKsDistance, 0, 'f', 3).arg(fit.alphaXmin, 0, 'g', 3).arg(fit.alphaTailSize).arg(fitted);
    law.name = figure.fitText;
    figure.curves << law;
    figure.markers.append({SpectrumMarker::Kind::PowerLawXmin, fit.alphaXmin, {}});
}

void SpectrumFigureBuilder::fitRanges(SpectrumFigure &figure)
{
    // As a log–log axis sees a curve: keys of points with a value, and values, both positive.
    auto fit = [&figure](bool left, std::optional<AxisRange> &x, std::optional<AxisRange> &y) {
        std::optional<AxisRange> keys, values;
        auto widen = [](std::optional<AxisRange> &range, const std::optional<AxisRange> &by) {
            range = range ? AxisRange{std::min(range->lower, by->lower), std::max(range->upper, by->upper)} : by;
        };
        for (const SpectrumCurve &c : figure.curves) {
            if (c.leftPanel() != left || c.kind == SpectrumCurve::Kind::Bulk) // the law fits under the ESD's range
                continue;
            std::optional<AxisRange> k, v;
            for (const QPointF &p : c.points) {
                if (!std::isnan(p.y()) && p.x() > 0)
                    widen(k, AxisRange{p.x(), p.x()});
                if (p.y() > 0)
                    widen(v, AxisRange{p.y(), p.y()});
            }
            if (!k || !v)
                continue;
            widen(keys, k);
            widen(values, v);
        }
        if (!keys)
            return;
        x = AxisRange{keys->lower / 1.3, keys->upper * 1.3};
        y = AxisRange{values->lower / 2, values->upper * 3};
    };
    fit(true, figure.rankX, figure.rankY);
    fit(false, figure.densityX, figure.densityY);
}

} // namespace rankscope
