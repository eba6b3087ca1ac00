// --alpha-ci in the figures, by their numbers: on α's lines each per-layer point's interval is its
// matrix's columns, a mean's is the propagated standard error of the columns (figures/
// AlphaIntervals), a median gets none, and the readout and the figure's CSV name them; the
// spectrum's CCDF panel holds the empirical CCDF of the spectrum, the fitted power law meets it at
// x_min, and the legend names α with its interval, D, the tail's size, x_min and λ₊.
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/MetricsTable.h"
#include "figures/AlphaIntervals.h"
#include "figures/LineFigure.h"
#include "figures/SpectrumFigure.h"
#include "spectral/PowerLawFit.h"
#include "TestSuite.h"

#include <QRegularExpression>
#include <cmath>

namespace tst_alphaintervalfigures {

using namespace rankscope;

namespace {

const RunAnalysis &demoWithIntervals()
{
    static const RunAnalysis run = [] {
        AnalysisSettings settings;
        settings.alphaCi = true;
        return RunAnalyzer(settings).analyzeFolder(QStringLiteral(RANKSCOPE_DEMO_RUN));
    }();
    return run;
}

QList<const MatrixResult *> matricesAt(const RunAnalysis &run, qint64 step, MatrixType type)
{
    QList<const MatrixResult *> out;
    for (const MatrixResult &r : run.results)
        if (r.step == step && r.type == type)
            out << &r;
    return out;
}

} // namespace

class TestAlphaIntervalFigures : public QObject {
    Q_OBJECT
private slots:
    void layerLinesCarryTheColumns()
    {
        ViewState state;
        state.setRun(demoWithIntervals(), QStringLiteral("demo"));
        const LineFigure figure = LineFigureBuilder(state, {Metric::Alpha, MatrixType::K}).build();
        QVERIFY(!figure.series.isEmpty());
        QCOMPARE(figure.intervalLabel, QStringLiteral("bars: 95 % bootstrap interval"));
        QVERIFY(figure.title.endsWith(QStringLiteral("(bars: 95 % bootstrap interval)"))); // no legend: the title says
        int checked = 0;
        for (const LineSeries &line : figure.series) {
            QCOMPARE(line.intervals.size(), line.points.size());
            for (qsizetype i = 0; i < line.points.size(); ++i) {
                const MatrixResult *r = state.find({0, line.points[i].step, {{}, line.layer, MatrixType::K, {}}});
                QVERIFY(r);
                QCOMPARE(line.intervals[i].lower, r->metrics.alphaCiLow);
                QCOMPARE(line.intervals[i].upper, r->metrics.alphaCiHigh);
                ++checked;
            }
        }
        QCOMPARE(checked, int(state.visibleLayers().size() * state.steps().size()));
        // The figure's CSV: the interval after the value, as the columns write it.
        const QString csv = figure.csv(state);
        QVERIFY(csv.startsWith(QStringLiteral("step,block,layer,type,alpha,alpha_ci_low,alpha_ci_high\n")));
        const LineSeries &first = figure.series.first();
        QVERIFY(csv.contains(QStringLiteral(",%1,%2\n").arg(MetricsTable::formatNumber(first.intervals[0].lower),
                                                            MetricsTable::formatNumber(first.intervals[0].upper))));
    }

    // The mean of the layers: mean ± 1.96·√(Σ SEᵢ²)/k with SEᵢ = (highᵢ − lowᵢ)/(2·1.96), computed
    // here from the columns; the readout names it after the value.
    void meanLinesCarryTheIntervalOfTheMean()
    {
        ViewState state;
        state.setRun(demoWithIntervals(), QStringLiteral("demo"));
        const LineFigure figure = LineFigureBuilder(state, {Metric::Alpha, std::nullopt}).build();
        QCOMPARE(figure.intervalLabel, QStringLiteral("bars: 95 % interval of the mean"));
        const LineSeries *q = nullptr;
        for (const LineSeries &line : figure.series)
            if (line.type == MatrixType::Q)
                q = &line;
        QVERIFY(q && q->intervals.size() == q->points.size());
        for (qsizetype i = 0; i < q->points.size(); ++i) {
            const QList<const MatrixResult *> layers = matricesAt(demoWithIntervals(), q->points[i].step, MatrixType::Q);
            double sum = 0, variance = 0;
            for (const MatrixResult *r : layers) {
                sum += r->metrics.alpha;
                const double se = (r->metrics.alphaCiHigh - r->metrics.alphaCiLow) / (2 * 1.959963984540054);
                variance += se * se;
            }
            const double k = double(layers.size()), mean = sum / k, half = 1.959963984540054 * std::sqrt(variance) / k;
            QVERIFY(layers.size() > 1);
            QVERIFY(std::abs(q->points[i].value - mean) < 1e-12);
            QVERIFY(std::abs(q->intervals[i].lower - (mean - half)) < 1e-12);
            QVERIFY(std::abs(q->intervals[i].upper - (mean + half)) < 1e-12);
        }
        const std::optional<LineReadout> readout = figure.readoutAt(q->x.last(), state);
        QVERIFY(readout);
        QVERIFY2(readout->text().contains(QRegularExpression(QStringLiteral("Q  \\d+\\.\\d+ \\[\\d+\\.\\d+, \\d+\\.\\d+\\]"))), qPrintable(readout->text()));
        // The median has no such interval; another metric none at all.
        state.setAggregate(Aggregate::Median);
        const LineFigure median = LineFigureBuilder(state, {Metric::Alpha, std::nullopt}).build();
        QVERIFY(median.intervalLabel.isEmpty());
        for (const LineSeries &line : median.series)
            QVERIFY(line.intervals.isEmpty());
        state.setAggregate(Aggregate::Mean);
        for (const LineSeries &line : LineFigureBuilder(state, {Metric::StableRank, std::nullopt}).build().series)
            QVERIFY(line.intervals.isEmpty());
    }

    // A run analysed without --alpha-ci: no bars, nothing said of them.
    void noIntervalsWithoutTheOption()
    {
        ViewState state;
        state.setRun(RunAnalyzer().analyzeFolder(QStringLiteral(RANKSCOPE_DEMO_RUN)), QStringLiteral("demo"));
        const LineFigure figure = LineFigureBuilder(state, {Metric::Alpha, std::nullopt}).build();
        QVERIFY(figure.intervalLabel.isEmpty());
        for (const LineSeries &line : figure.series)
            QVERIFY(line.intervals.isEmpty());
        QVERIFY(!figure.csv(state).contains(QStringLiteral("alpha_ci")));
    }

    void spectrumCcdfIsTheEmpiricalOne()
    {
        ViewState state;
        state.setRun(demoWithIntervals(), QStringLiteral("demo"));
        const MatrixKey key{0, 1500, {{}, 2, MatrixType::MlpUp, {}}};
        const MatrixResult *r = state.find(key);
        QVERIFY(r);
        const SpectrumFigure figure = SpectrumFigureBuilder(state, key, false, SpectrumTail::Ccdf).build();
        QCOMPARE(figure.tail, SpectrumTail::Ccdf);
        QVERIFY(!figure.curve(SpectrumCurve::Kind::Density) && !figure.curve(SpectrumCurve::Kind::Bulk));
        const SpectrumCurve *ccdf = figure.curve(SpectrumCurve::Kind::Ccdf);
        QVERIFY(ccdf);
        // P(Λ ≥ λ) by counting, for every eigenvalue the fit took.
        const Eigen::VectorXd lambda = r->singularValues.array().square();
        const auto fitted = (lambda.array() > kPowerLawThreshold).count();
        QCOMPARE(ccdf->points.size(), qsizetype(fitted));
        for (const QPointF &p : ccdf->points) {
            const auto atLeast = (lambda.array() >= p.x()).count();
            QCOMPARE(p.y(), double(atLeast) / double(fitted));
        }
        // The fitted law from x_min: through the CCDF there, a straight line of slope 1 − α.
        const SpectrumCurve *law = figure.curve(SpectrumCurve::Kind::PowerLaw);
        QVERIFY(law && law->points.size() > 2);
        const double xmin = r->metrics.alphaXmin;
        QCOMPARE(law->points.first().x(), xmin);
        const auto atXmin = std::find_if(ccdf->points.begin(), ccdf->points.end(), [&](const QPointF &p) { return p.x() == xmin; });
        QVERIFY(atXmin != ccdf->points.end());
        QVERIFY(std::abs(law->points.first().y() - atXmin->y()) < 1e-12 * atXmin->y());
        QCOMPARE(atXmin->y(), r->metrics.alphaTailSize / double(fitted));
        const QPointF a = law->points.first(), b = law->points.last();
        const double slope = std::log(b.y() / a.y()) / std::log(b.x() / a.x());
        QVERIFY(std::abs(slope - (1 - r->metrics.alpha)) < 1e-9);
        // The legend: α with its interval, D, the tail's size; x_min and λ₊ as the markers' entries.
        QVERIFY2(figure.fitText.contains(QStringLiteral("\u03b1 = %1 [%2, %3]").arg(r->metrics.alpha, 0, 'f', 2)
                                             .arg(r->metrics.alphaCiLow, 0, 'f', 2).arg(r->metrics.alphaCiHigh, 0, 'f', 2)), qPrintable(figure.fitText));
        QVERIFY(figure.fitText.contains(QStringLiteral("D = %1").arg(r->metrics.alphaKsDistance, 0, 'f', 3)));
        QVERIFY(figure.fitText.contains(QStringLiteral("tail %1 of %2").arg(r->metrics.alphaTailSize).arg(fitted)));
        QVERIFY(figure.fitText.contains(QStringLiteral("x\u2098\u1d62\u2099 = %1").arg(xmin, 0, 'g', 3)));
        QStringList names;
        for (const SpectrumMarker &m : figure.markers)
            names << m.name;
        QVERIFY2(names.contains(QStringLiteral("\u03bb\u208a (MP edge) = %1").arg(figure.bulkEdge, 0, 'g', 3)), qPrintable(names.join(" | ")));
        QCOMPARE(figure.tailYLabel, QStringLiteral("P(\u039b \u2265 \u03bb)"));
        // The density view is still there, with the same legend of the fit.
        const SpectrumFigure density = SpectrumFigureBuilder(state, key, false, SpectrumTail::Density).build();
        QVERIFY(density.curve(SpectrumCurve::Kind::Density) && density.curve(SpectrumCurve::Kind::Bulk) && !density.curve(SpectrumCurve::Kind::Ccdf));
        QCOMPARE(density.fitText, figure.fitText);
        QCOMPARE(density.markers.size(), figure.markers.size());
        QVERIFY(density.curve(SpectrumCurve::Kind::Bulk)->name.contains(QStringLiteral("\u03bb\u208a = %1").arg(density.bulkEdge, 0, 'g', 3)));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestAlphaIntervalFigures)
} // namespace tst_alphaintervalfigures

#include "tst_AlphaIntervalFigures.moc"
