// The spectrum-over-steps figure as numbers, without a widget: σ at known powers of ten land in
// the bins they must with the fractions they must, uneven steps get cells reaching halfway to
// their neighbours, the stable-rank line is the stable_rank column, a type's mean is the average
// of its layers, the CSV, and what a run of one step or a matrix of zeros shows.
#include "figures/SpectrumOverStepsFigure.h"
#include "KnownMatrices.h"
#include "spectral/MetricCatalog.h"
#include "TestSuite.h"

#include <cmath>
#include <numeric>

namespace tst_spectrumoverstepsfigure {

using namespace rankscope;
using test::knownMatrix;

namespace {

const SpectrumOverStepsSubject kLayer1Q{0, {{}, 1, MatrixType::Q, {}}, false};

SpectrumOverStepsFigure build(const ViewState &state, const SpectrumOverStepsSubject &subject = kLayer1Q)
{
    return SpectrumOverStepsFigureBuilder(state, subject).build();
}

void show(ViewState &state, const QList<MatrixResult> &results)
{
    RunAnalysis run;
    run.results = results;
    sortResults(run.results);
    state.setRun(run, QStringLiteral("known"));
}

double sum(const QList<double> &values) { return std::accumulate(values.begin(), values.end(), 0.0); }

} // namespace

class TestSpectrumOverStepsFigure : public QObject {
    Q_OBJECT

private slots:
    // σ from 0.1 to 1000 over the run: 13 bins (4 σ per matrix: the fewest), 0.1 and 1000 at the
    // centres of the first and last, so each bin is a third of a decade and 10^e falls in bin
    // 3·(e + 1). Each σ is a quarter of its matrix; a zero is left out, counted, and still in the
    // denominator, so that step's column sums to 3/4.
    void powersOfTenLandInTheirBins()
    {
        ViewState state;
        show(state, {knownMatrix(0, 1, MatrixType::Q, {100, 10, 1, 0.1}), knownMatrix(100, 1, MatrixType::Q, {1000, 10, 1, 0})});
        const SpectrumOverStepsFigure f = build(state);
        QCOMPARE(f.bins(), 13);
        QCOMPARE(f.binEdges.size(), 14);
        QVERIFY(qFuzzyCompare(f.binEdges.first(), std::pow(10.0, -1 - 1.0 / 6)));
        QVERIFY(qFuzzyCompare(f.binEdges.last(), std::pow(10.0, 3 + 1.0 / 6)));
        QCOMPARE(f.columns.size(), 2);
        auto expected = [](std::initializer_list<int> exponents) {
            QList<double> density(13, 0.0);
            for (int e : exponents)
                density[3 * (e + 1)] += 0.25;
            return density;
        };
        QCOMPARE(f.columns[0].density, expected({2, 1, 0, -1}));
        QCOMPARE(f.columns[1].density, expected({3, 1, 0}));
        QCOMPARE(sum(f.columns[0].density), 1.0);
        QCOMPARE(sum(f.columns[1].density), 0.75);
        QCOMPARE(f.columns[0].leftOut, 0);
        QCOMPARE(f.columns[1].leftOut, 1);
        QCOMPARE(f.leftOut, 1);
        QVERIFY2(f.title.endsWith(QStringLiteral("(1 \u03c3 zero or not finite left out)")), qPrintable(f.title));
        QCOMPARE(f.shortTitle, QStringLiteral("Spectrum over steps: layer 1 Q — known (1 \u03c3 zero or not finite left out)"));
        QCOMPARE(f.densityRange, (AxisRange{0, 0.25}));
        QCOMPARE(f.binAt(10), 6);
        QCOMPARE(f.binAt(0), -1);
        QCOMPARE(f.type, std::optional<MatrixType>(MatrixType::Q));
    }

    // NaN and Inf are left out and counted as zeros are; the bins span the finite σ only.
    void nonFiniteSigmaAreLeftOutAndCounted()
    {
        MatrixResult r = knownMatrix(0, 1, MatrixType::Q, {10, 1, 0.1, 0.01});
        r.singularValues[1] = std::nan("");
        r.singularValues[2] = std::numeric_limits<double>::infinity();
        ViewState state;
        show(state, {r});
        const SpectrumOverStepsFigure f = build(state);
        QVERIFY(qFuzzyCompare(f.binEdges.first(), std::pow(10.0, -2 - 3.0 / 24)));
        QCOMPARE(f.columns[0].leftOut, 2);
        QCOMPARE(sum(f.columns[0].density), 0.5);
        QCOMPARE(f.columns[0].density.first(), 0.25);
        QCOMPARE(f.columns[0].density.last(), 0.25);
    }

    // A spectrum of one repeated value gets a decade around it and sits in the middle bin.
    void oneRepeatedValueSitsInTheMiddleBin()
    {
        ViewState state;
        show(state, {knownMatrix(0, 1, MatrixType::Q, {2, 2, 2})});
        const SpectrumOverStepsFigure f = build(state);
        QCOMPARE(f.bins(), 13);
        QCOMPARE(f.binAt(2), 6);
        QCOMPARE(f.columns[0].density[6], 1.0);
        QVERIFY(qFuzzyCompare(f.sigmaRange->upper / f.sigmaRange->lower, std::pow(10.0, 13.0 / 12)));
    }

    // Steps 0, 100, 300, 1000: each cell reaches halfway to its neighbours, as TensorBoard's
    // distributions place uneven steps; the outer ones stop at the first and last checkpoint.
    void unevenStepsKeepTheirPositions()
    {
        ViewState state;
        QList<MatrixResult> results;
        for (qint64 step : {0, 100, 300, 1000})
            results << knownMatrix(step, 1, MatrixType::Q, {2, 1});
        show(state, results);
        const SpectrumOverStepsFigure f = build(state);
        QCOMPARE(f.columns.size(), 4);
        const QList<std::pair<double, double>> edges = {{0, 50}, {50, 200}, {200, 650}, {650, 1000}};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(f.columns[i].x, double(f.columns[i].step));
            QCOMPARE(std::pair(f.columns[i].left, f.columns[i].right), edges[i]);
        }
        QCOMPARE(f.xRange, (AxisRange{-30, 1030}));
        QCOMPARE(f.columnAt(199), 1);
        QCOMPARE(f.columnAt(201), 2);
        QCOMPARE(f.columnAt(1001), -1);
        // As a fraction of the run, the same halfway edges.
        state.setRelativeStep(true);
        const SpectrumOverStepsFigure relative = build(state);
        QCOMPARE(relative.columns[2].x, 0.3);
        QVERIFY(qFuzzyCompare(relative.columns[2].right, 0.65));
    }

    // The line over the cells is the stable_rank column of each step's matrix, exactly.
    void stableRankLineIsTheStableRankColumn()
    {
        ViewState state;
        show(state, {knownMatrix(0, 1, MatrixType::Q, {1, 1}), knownMatrix(10, 1, MatrixType::Q, {2, 1}), knownMatrix(20, 1, MatrixType::Q, {2, 0})});
        const SpectrumOverStepsFigure f = build(state);
        QCOMPARE(f.columns.size(), 3);
        for (const SpectrumOverStepsColumn &c : f.columns)
            QCOMPARE(c.stableRank, metricValue(state.find({0, c.step, kLayer1Q.id})->metrics, Metric::StableRank));
        QCOMPARE(f.columns[0].stableRank, 2.0);
        QCOMPARE(f.columns[1].stableRank, 1.25);
        QCOMPARE(f.columns[2].stableRank, 1.0);
        QCOMPARE(f.stableRankRange, (AxisRange{1 - 0.08, 2 + 0.08}));
    }

    // A type's mean over the shown layers is the average of the layers' columns (matrices of
    // different sizes each weighing the same) and of their stable ranks; the layer range limits it.
    void aTypesMeanIsTheAverageOfItsLayers()
    {
        ViewState state;
        show(state, {knownMatrix(0, 0, MatrixType::Q, {100, 10, 1, 0.1}), knownMatrix(0, 1, MatrixType::Q, {1000, 1}),
                     knownMatrix(0, 1, MatrixType::K, {5, 5}), knownMatrix(50, 0, MatrixType::Q, {1000, 10, 10, 10}),
                     knownMatrix(50, 1, MatrixType::Q, {1, 0.1})});
        const SpectrumOverStepsSubject mean{0, {{}, 0, MatrixType::Q, {}}, true};
        const SpectrumOverStepsFigure f = build(state, mean);
        const SpectrumOverStepsFigure layer0 = build(state, {0, {{}, 0, MatrixType::Q, {}}, false});
        const SpectrumOverStepsFigure layer1 = build(state, kLayer1Q);
        QCOMPARE(f.binEdges, layer0.binEdges); // each spans 0.1 to 1000 over the run, as their mean does
        QCOMPARE(f.binEdges, layer1.binEdges);
        for (int i = 0; i < 2; ++i) {
            const SpectrumOverStepsColumn &c = f.columns[i];
            QCOMPARE(c.matrices, 2);
            for (int k = 0; k < f.bins(); ++k)
                QCOMPARE(c.density[k], (layer0.columns[i].density[k] + layer1.columns[i].density[k]) / 2);
            QCOMPARE(c.stableRank, (layer0.columns[i].stableRank + layer1.columns[i].stableRank) / 2);
            QVERIFY(qFuzzyCompare(sum(c.density), 1.0));
        }
        QCOMPARE(f.columns[0].density[3 * 4], 0.25);       // σ = 1000: half of layer 1's two
        QCOMPARE(f.columns[0].density[3 * 1], 0.125 + 0.25); // σ = 1: a quarter of layer 0's, half of layer 1's
        QVERIFY2(f.title.contains(QStringLiteral("Q, mean of layers 0–1")), qPrintable(f.title));
        state.setLayerRange({1, 1});
        const SpectrumOverStepsFigure one = build(state, mean);
        QCOMPARE(one.columns[0].density, layer1.columns[0].density);
        QCOMPARE(one.columns[0].matrices, 1);
    }

    // A row per step and bin, naming the matrix; the edges, density and stable rank as figured.
    void csvHoldsEveryCell()
    {
        ViewState state;
        show(state, {knownMatrix(0, 1, MatrixType::Q, {100, 10, 1, 0.1}), knownMatrix(100, 1, MatrixType::Q, {1000, 10, 1, 0})});
        const SpectrumOverStepsFigure f = build(state);
        const QStringList lines = f.csv().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("step,block,layer,type,expert,matrices,sigma_low,sigma_high,density,stable_rank,left_out"));
        QCOMPARE(lines.size(), 1 + 2 * 13);
        const QStringList row = lines[1 + 13 + 12].split(QLatin1Char(',')); // step 100, the top bin: σ = 1000
        QCOMPARE(row.size(), 11);
        QCOMPARE(row.mid(0, 6), (QStringList{"100", "", "1", "Q", "", "1"}));
        // Numbers as the metrics table writes them: ten significant digits.
        auto same = [](const QString &text, double value) { return std::abs(text.toDouble() - value) <= 1e-9 * std::abs(value); };
        QVERIFY(same(row[6], f.binEdges[12]));
        QVERIFY(same(row[7], f.binEdges[13]));
        QCOMPARE(row[8], QStringLiteral("0.25"));
        QVERIFY(same(row[9], f.columns[1].stableRank));
        QCOMPARE(row[10], QStringLiteral("1"));
        const QStringList mean = build(state, {0, {{}, 1, MatrixType::Q, {}}, true}).csv().split(QLatin1Char('\n'))[1].split(QLatin1Char(','));
        QCOMPARE(mean.mid(0, 6), (QStringList{"0", "", "", "Q", "", "1"}));
    }

    // One checkpoint: one column a step wide around it. A matrix whose σ are all zero: nothing on
    // a log axis, said, its zeros counted; the CSV is its header alone.
    void oneStepAndAllZeroSpectra()
    {
        ViewState state;
        show(state, {knownMatrix(700, 1, MatrixType::Q, {3, 1})});
        SpectrumOverStepsFigure f = build(state);
        QCOMPARE(f.columns.size(), 1);
        QCOMPARE(std::pair(f.columns[0].left, f.columns[0].right), std::pair(699.5, 700.5));
        QVERIFY(f.noData.isEmpty());

        show(state, {knownMatrix(0, 1, MatrixType::Q, {0, 0, 0}), knownMatrix(10, 1, MatrixType::Q, {0, 0, 0})});
        f = build(state);
        QVERIFY(!f.type);
        QVERIFY2(f.noData.startsWith(QStringLiteral("Every singular value of layer 1 Q is zero or not finite")), qPrintable(f.noData));
        QCOMPARE(f.leftOut, 6);
        QCOMPARE(f.csv().count(QLatin1Char('\n')), 1);
    }

    // Nothing analysed, or no such matrix: said, nothing drawn.
    void missingMatricesAreSaid()
    {
        ViewState state;
        QVERIFY(build(state).noData.startsWith(QStringLiteral("No checkpoint")));
        show(state, {knownMatrix(0, 0, MatrixType::Q, {1})});
        const SpectrumOverStepsFigure f = build(state);
        QVERIFY(!f.type && f.columns.isEmpty());
        QCOMPARE(f.noData, QStringLiteral("known has no layer 1 Q at any step."));
    }

    void binCountGrowsWithTheSpectrum()
    {
        QCOMPARE(SpectrumOverStepsFigureBuilder::binsFor(0), 13);
        QCOMPARE(SpectrumOverStepsFigureBuilder::binsFor(64), 17);
        QCOMPARE(SpectrumOverStepsFigureBuilder::binsFor(768), 57);
        QCOMPARE(SpectrumOverStepsFigureBuilder::binsFor(1 << 20), 81);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestSpectrumOverStepsFigure)
} // namespace tst_spectrumoverstepsfigure

#include "tst_SpectrumOverStepsFigure.moc"
