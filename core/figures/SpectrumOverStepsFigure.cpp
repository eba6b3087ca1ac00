#include "figures/SpectrumOverStepsFigure.h"

#include "analysis/results/MetricsTable.h"
#include "figures/FigureNoData.h"
#include "figures/LineFigure.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

namespace rankscope {

namespace {

bool onLogAxis(double sigma) { return std::isfinite(sigma) && sigma > 0; }

} // namespace

int SpectrumOverStepsFigure::columnAt(double x) const
{
    for (qsizetype i = 0; i < columns.size(); ++i)
        if (x >= columns[i].left && x <= columns[i].right)
            return int(i);
    return -1;
}

int SpectrumOverStepsFigure::binAt(double sigma) const
{
    if (binEdges.size() < 2 || !onLogAxis(sigma) || sigma < binEdges.first() || sigma > binEdges.last())
        return -1;
    const double low = std::log10(binEdges.first()), width = (std::log10(binEdges.last()) - low) / bins();
    return std::clamp(int(std::floor((std::log10(sigma) - low) / width)), 0, bins() - 1);
}

QString SpectrumOverStepsFigure::csv() const
{
    // Every row names its matrix (or its type and no layer, for a mean), as the spectrum's CSV does.
    QString out = QStringLiteral("step,block,layer,type,expert,matrices,sigma_low,sigma_high,density,stable_rank,left_out\n");
    if (!type)
        return out;
    const MatrixIdentity &id = subject.id;
    const QString layer = subject.meanOverLayers ? QString() : QString::number(id.layer);
    const QString expert = subject.meanOverLayers ? QString() : MetricsTable::csvField(id.expert);
    for (const SpectrumOverStepsColumn &c : columns)
        for (int k = 0; k < int(c.density.size()); ++k)
            out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11\n")
                       .arg(c.step).arg(MetricsTable::csvField(id.block), layer, csvName(id.type), expert).arg(c.matrices)
                       .arg(MetricsTable::formatNumber(binEdges[k]), MetricsTable::formatNumber(binEdges[k + 1]),
                            MetricsTable::formatNumber(c.density[k]), MetricsTable::formatNumber(c.stableRank))
                       .arg(c.leftOut);
    return out;
}

int SpectrumOverStepsFigureBuilder::binsFor(qsizetype n)
{
    // Odd, so that a spectrum of one repeated σ sits in the middle of a bin, not on an edge.
    return std::clamp(2 * int(std::lround(std::sqrt(double(std::max<qsizetype>(0, n))))) + 1, 13, 81);
}

QList<const MatrixResult *> SpectrumOverStepsFigureBuilder::matricesAt(qint64 step) const
{
    const MatrixIdentity &id = m_subject.id;
    if (!m_subject.meanOverLayers) {
        const MatrixResult *r = m_state.find({m_subject.run, step, id});
        return r ? QList<const MatrixResult *>{r} : QList<const MatrixResult *>{};
    }
    QList<const MatrixResult *> out;
    for (int layer : m_state.visibleLayersAt(m_subject.run, id.block))
        out += m_state.cell(m_subject.run, step, id.block, layer, id.type).matrices;
    return out;
}

SpectrumOverStepsFigure SpectrumOverStepsFigureBuilder::build() const
{
    SpectrumOverStepsFigure figure;
    figure.subject = m_subject;
    figure.xLabel = m_state.relativeStep() ? tr("Fraction of training (step / last step)") : tr("Training step");
    figure.yLabel = tr("Singular value \u03c3");
    figure.rankLabel = tr("Stable rank");
    figure.colourLabel = tr("fraction of \u03c3 per bin");
    QList<qint64> steps;
    QList<QList<const MatrixResult *>> byStep;
    for (qint64 step : m_state.stepsAt(m_subject.run))
        if (const QList<const MatrixResult *> matrices = matricesAt(step); !matrices.isEmpty()) {
            steps << step;
            byStep << matrices;
        }
    figure.subjectText = subjectText();
    figure.title = tr("Spectrum over steps: %1 — %2").arg(figure.subjectText, m_state.runNameAt(m_subject.run));
    figure.shortTitle = figure.title;
    if (!m_subject.meanOverLayers && !byStep.isEmpty()) {
        const MatrixResult &last = *byStep.last().first();
        figure.title = tr("Spectrum over steps: %1, %2 [%3\u00d7%4] — %5")
                           .arg(subjectText(), last.tensor).arg(last.rows).arg(last.cols).arg(m_state.runNameAt(m_subject.run));
    }
    if (byStep.isEmpty()) {
        figure.noData = m_state.resultsAt(m_subject.run).isEmpty() || (m_subject.meanOverLayers && m_state.visibleLayersAt(m_subject.run, m_subject.id.block).isEmpty())
                            ? FigureNoData::reason(m_state, Metric::StableRank, m_subject.run)
                            : tr("%1 has no %2 at any step.").arg(m_state.runNameAt(m_subject.run), subjectText());
        return figure;
    }
    addBins(figure, byStep);
    for (qsizetype i = 0; i < steps.size(); ++i)
        addColumn(figure, steps[i], byStep[i]);
    for (SpectrumOverStepsColumn &column : figure.columns)
        column.x = LineFigureBuilder::xOf(m_state, m_subject.run, column.step);
    placeColumns(figure);
    if (figure.leftOut > 0)
        figure.leftOutNote = tr("%n \u03c3 zero or not finite left out", nullptr, int(std::min<qsizetype>(figure.leftOut, INT_MAX)));
    if (figure.binEdges.isEmpty()) {
        figure.noData = tr("Every singular value of %1 is zero or not finite at every step: a log \u03c3 axis has nothing to show.").arg(subjectText());
        return figure;
    }
    figure.type = m_subject.id.type;
    fitRanges(figure);
    if (!figure.leftOutNote.isEmpty())
        for (QString *title : {&figure.title, &figure.shortTitle})
            *title += QStringLiteral(" (") + figure.leftOutNote + QLatin1Char(')');
    return figure;
}

void SpectrumOverStepsFigureBuilder::addBins(SpectrumOverStepsFigure &figure, const QList<QList<const MatrixResult *>> &byStep) const
{
    // One set of bins for every step: the run's smallest and largest positive finite σ sit at the
    // centres of the first and last bin, equal widths of log10 σ between.
    double low = std::numeric_limits<double>::infinity(), high = 0;
    qsizetype largest = 0;
    for (const QList<const MatrixResult *> &matrices : byStep)
        for (const MatrixResult *r : matrices) {
            largest = std::max<qsizetype>(largest, r->singularValues.size());
            for (double sigma : r->singularValues)
                if (onLogAxis(sigma)) {
                    low = std::min(low, sigma);
                    high = std::max(high, sigma);
                }
        }
    if (!(high > 0))
        return;
    if (high <= low * (1 + 1e-12)) { // one value: a decade around it
        low /= std::sqrt(10.0);
        high *= std::sqrt(10.0);
    }
    const int bins = binsFor(largest);
    const double width = (std::log10(high) - std::log10(low)) / (bins - 1);
    const double first = std::log10(low) - width / 2;
    for (int k = 0; k <= bins; ++k)
        figure.binEdges << std::pow(10.0, first + k * width);
}

void SpectrumOverStepsFigureBuilder::addColumn(SpectrumOverStepsFigure &figure, qint64 step, const QList<const MatrixResult *> &matrices) const
{
    SpectrumOverStepsColumn column;
    column.step = step;
    column.matrices = int(matrices.size());
    column.density = QList<double>(figure.bins(), 0.0);
    double rankSum = 0;
    int ranks = 0;
    for (const MatrixResult *r : matrices) {
        const Eigen::Index n = r->singularValues.size();
        column.sigmaCount += n;
        for (double sigma : r->singularValues)
            if (const int k = figure.binAt(sigma); k >= 0)
                column.density[k] += 1.0 / double(n) / double(matrices.size()); // this matrix's share, averaged over the matrices
            else
                ++column.leftOut;
        if (const double rank = r->metrics.stableRank; std::isfinite(rank)) {
            rankSum += rank;
            ++ranks;
        }
    }
    column.stableRank = ranks > 0 ? rankSum / ranks : std::nan("");
    figure.leftOut += column.leftOut;
    figure.columns << column;
}

void SpectrumOverStepsFigureBuilder::placeColumns(SpectrumOverStepsFigure &figure)
{
    // Each cell reaches halfway to its neighbours, so uneven steps keep their true positions; the
    // first starts at the first checkpoint and the last ends at the last: nothing is drawn for
    // steps no checkpoint was taken at. A single step spans half a unit each way. The axis has a
    // little room beyond, so the stable-rank line's first and last points are whole.
    QList<SpectrumOverStepsColumn> &c = figure.columns;
    const qsizetype n = c.size();
    for (qsizetype i = 0; i < n; ++i) {
        const double before = i > 0 ? (c[i].x - c[i - 1].x) / 2 : n > 1 ? 0 : 0.5;
        const double after = i + 1 < n ? (c[i + 1].x - c[i].x) / 2 : n > 1 ? 0 : 0.5;
        c[i].left = c[i].x - before;
        c[i].right = c[i].x + after;
    }
    if (n > 0) {
        const double pad = 0.03 * (c.last().right - c.first().left);
        figure.xRange = AxisRange{c.first().left - pad, c.last().right + pad};
    }
}

void SpectrumOverStepsFigureBuilder::fitRanges(SpectrumOverStepsFigure &figure)
{
    figure.sigmaRange = AxisRange{figure.binEdges.first(), figure.binEdges.last()};
    double top = 0, lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
    for (const SpectrumOverStepsColumn &c : figure.columns) {
        for (double d : c.density)
            top = std::max(top, d);
        if (std::isfinite(c.stableRank)) {
            lowest = std::min(lowest, c.stableRank);
            highest = std::max(highest, c.stableRank);
        }
    }
    figure.densityRange = AxisRange{0, top > 0 ? top : 1};
    if (highest >= lowest) {
        // The line keeps off the plot's edges; a constant one sits in the middle.
        const double pad = highest > lowest ? (highest - lowest) * 0.08 : std::max(0.5, highest * 0.05);
        figure.stableRankRange = AxisRange{std::max(0.0, lowest - pad), highest + pad};
    }
}

QString SpectrumOverStepsFigureBuilder::subjectText() const
{
    const MatrixIdentity &id = m_subject.id;
    if (!m_subject.meanOverLayers)
        return id.text();
    const QList<int> layers = m_state.visibleLayersAt(m_subject.run, id.block);
    const QString block = id.block.isEmpty() ? QString() : id.block + QLatin1Char(' ');
    QString what = layers.isEmpty() ? tr("%1%2, no layer").arg(block, displayLabel(id.type))
                   : layers.size() == 1 ? tr("%1%2, layer %3").arg(block, displayLabel(id.type)).arg(layers.first())
                                        : tr("%1%2, mean of layers %3–%4").arg(block, displayLabel(id.type)).arg(layers.first()).arg(layers.last());
    if (!m_state.experts().isEmpty())
        what += m_state.expert().isEmpty() ? tr(", mean of experts")
                : m_state.expert() == QLatin1String(kSharedExpert) ? tr(", shared expert") : tr(", expert %1").arg(m_state.expert());
    return what;
}

} // namespace rankscope
