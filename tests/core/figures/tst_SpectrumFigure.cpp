// The spectrum figure as numbers, without a widget: what each curve holds, which legend names it,
// the panels' log–log ranges, and what an unusable or missing matrix shows instead.
#include "figures/SpectrumFigure.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_spectrumfigure {

using namespace rankscope;

namespace {

MatrixResult matrix(qint64 step, const Eigen::VectorXd &sigma)
{
    MatrixResult r;
    r.step = step;
    r.layer = 1;
    r.type = MatrixType::V;
    r.tensor = QStringLiteral("h.1.attn.v.weight");
    r.rows = r.cols = sigma.size();
    r.singularValues = sigma;
    r.metrics = computeSpectralMetrics(r.singularValues, r.rows, r.cols);
    return r;
}

// σᵢ = i^(−0.7) for 200 ranks: a heavy tail the power law fits.
Eigen::VectorXd heavyTail()
{
    Eigen::VectorXd sigma(200);
    for (Eigen::Index i = 0; i < sigma.size(); ++i)
        sigma[i] = std::pow(double(i + 1), -0.7);
    return sigma;
}

const MatrixKey kKey{0, 100, {{}, 1, MatrixType::V, {}}};

} // namespace

class TestSpectrumFigure : public QObject {
    Q_OBJECT

    static SpectrumFigure build(const ViewState &state, bool overlay = false) { return SpectrumFigureBuilder(state, kKey, overlay).build(); }

private slots:
    // No matrix chosen (or none of that name): a title that says how to choose one, nothing drawn.
    void withoutAMatrixOnlyTheTitle()
    {
        ViewState state;
        const SpectrumFigure figure = SpectrumFigureBuilder(state, std::nullopt, false).build();
        QVERIFY(figure.title.startsWith(QStringLiteral("Click a bar")));
        QVERIFY(!figure.type && figure.curves.isEmpty());
        QVERIFY(build(state).curves.isEmpty());
    }

    // A spectrum the metrics cannot take is named in the title, not drawn.
    void anUnusableSpectrumIsNamedNotDrawn()
    {
        RunAnalysis run;
        run.results = {matrix(100, Eigen::Vector3d(2, std::nan(""), 1))};
        ViewState state;
        state.setRun(run, QStringLiteral("small"));
        const SpectrumFigure figure = build(state);
        QVERIFY2(figure.title.contains(QStringLiteral("h.1.attn.v.weight is not drawn")), qPrintable(figure.title));
        QVERIFY(!figure.type && figure.curves.isEmpty());
    }

    // σᵢ by rank (zeros left out: a log axis cannot show them), then the ESD; with one spectrum no
    // legend names them. The rank panel spans its points, ÷1.3 and ×1.3 in rank, ÷2 and ×3 in σ.
    void singularValuesByRankWithTheirRanges()
    {
        RunAnalysis run;
        run.results = {matrix(100, Eigen::Vector4d(4, 2, 1, 0))};
        ViewState state;
        state.setRun(run, QStringLiteral("small"));
        const SpectrumFigure figure = build(state);
        QCOMPARE(figure.type, std::optional<MatrixType>(MatrixType::V));
        const SpectrumCurve *sigma = figure.curve(SpectrumCurve::Kind::SingularValues);
        QVERIFY(sigma && figure.curves.first().kind == SpectrumCurve::Kind::SingularValues);
        QCOMPARE(sigma->points, (QList<QPointF>{{1, 4}, {2, 2}, {3, 1}}));
        QCOMPARE(sigma->legend, SpectrumCurve::Legend::None);
        QVERIFY(figure.curve(SpectrumCurve::Kind::Density));
        QCOMPARE(figure.rankX, (AxisRange{1 / 1.3, 3 * 1.3}));
        QCOMPARE(figure.rankY, (AxisRange{0.5, 12}));
        QVERIFY(figure.title.startsWith(QStringLiteral("Spectrum of ")) && figure.title.endsWith(QStringLiteral("[4×4] — small")));
    }

    // The first step overlaid comes first, both named in the legends; D = W − W₀ is named beside W.
    void overlayAndChangeAreNamed()
    {
        RunAnalysis run;
        MatrixResult last = matrix(100, heavyTail());
        last.deltaSingularValues = heavyTail() * 0.1;
        run.results = {matrix(0, heavyTail() * 2), last};
        ViewState state;
        state.setRun(run, QStringLiteral("small"));
        SpectrumFigure figure = build(state);
        const SpectrumCurve *change = figure.curve(SpectrumCurve::Kind::Change);
        QVERIFY(change && change->legend == SpectrumCurve::Legend::Rank);
        QCOMPARE(change->points.size(), 200);
        QCOMPARE(figure.curve(SpectrumCurve::Kind::SingularValues)->name, QStringLiteral("W, step 100"));
        QCOMPARE(figure.curve(SpectrumCurve::Kind::SingularValues)->legend, SpectrumCurve::Legend::Rank);
        QVERIFY(!figure.curve(SpectrumCurve::Kind::SingularValues, false));
        figure = build(state, true);
        const SpectrumCurve &first = figure.curves.first();
        QVERIFY(!first.main && first.kind == SpectrumCurve::Kind::SingularValues);
        QCOMPARE(first.name, QStringLiteral("step 0"));
        QCOMPARE(first.legend, SpectrumCurve::Legend::Rank);
        QCOMPARE(figure.curve(SpectrumCurve::Kind::Density, false)->legend, SpectrumCurve::Legend::Density);
        // The first step's larger σ widen the rank panel.
        QCOMPARE(figure.rankY->upper, 2 * 3.0);
    }

    // The power law the analysis fitted is drawn from x_min, with its marker and its legend text;
    // the Marchenko–Pastur bulk's edge is marked where λ₊ is.
    void powerLawFromXmin()
    {
        RunAnalysis run;
        run.results = {matrix(100, heavyTail())};
        ViewState state;
        state.setRun(run, QStringLiteral("small"));
        const MatrixResult &r = *state.find(kKey);
        QVERIFY(std::isfinite(r.metrics.alpha) && r.metrics.alphaXmin > 0);
        const SpectrumFigure figure = build(state);
        const SpectrumCurve *law = figure.curve(SpectrumCurve::Kind::PowerLaw);
        QVERIFY(law && !law->points.isEmpty());
        QCOMPARE(law->points.first().x(), r.metrics.alphaXmin);
        QCOMPARE(law->legend, SpectrumCurve::Legend::Density);
        QVERIFY2(figure.fitText.startsWith(QStringLiteral("power law: \u03b1 = %1").arg(r.metrics.alpha, 0, 'f', 2)), qPrintable(figure.fitText));
        bool xmin = false;
        for (const SpectrumMarker &m : figure.markers)
            xmin |= m.kind == SpectrumMarker::Kind::PowerLawXmin && m.x == r.metrics.alphaXmin;
        QVERIFY(xmin);
        for (const SpectrumMarker &m : figure.markers)
            if (m.kind == SpectrumMarker::Kind::BulkEdge)
                QCOMPARE(m.x, figure.bulkEdge);
        // The density panel holds the ESD (its bins with a density) and the law.
        for (const QPointF &p : figure.curve(SpectrumCurve::Kind::Density)->points)
            if (p.y() > 0)
                QVERIFY(p.x() >= figure.densityX->lower * 1.3 * (1 - 1e-12) && p.y() <= figure.densityY->upper / 3 * (1 + 1e-12));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestSpectrumFigure)
} // namespace tst_spectrumfigure

#include "tst_SpectrumFigure.moc"
