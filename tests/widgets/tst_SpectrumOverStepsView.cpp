// The spectrum-over-steps view on the demo run, offscreen: the cells drawn where and in the
// colour the figure says, the stable-rank line against the independently computed CSV, the
// current-step marker following the slider's step, hover and click, the mean over layers, both
// themes, and its exports through FigureView (a figure file and the CSV of the cells).
#include "DemoFixture.h"
#include "figures/ViewState.h"
#include "FigureView.h"
#include "MatrixPicker.h"
#include "PlotStyle.h"
#include "SpectrumOverStepsView.h"
#include "TestSuite.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>

namespace tst_spectrumoverstepsview {

using namespace rankscope;

namespace {

const MatrixKey kMlpUp2{0, 1500, {{}, 2, MatrixType::MlpUp, {}}};

double expectedValue(const QString &metric, qint64 step, int layer, const QString &type)
{
    static const auto expected = test::expectedMetrics();
    return expected[QStringLiteral("%1/%2/%3").arg(step).arg(layer).arg(type)][metric];
}

QColor backgroundOf(QCustomPlot *plot) { return plot->toPixmap(120, 80).toImage().pixelColor(1, 1); }

} // namespace

class TestSpectrumOverStepsView : public QObject {
    Q_OBJECT
    ViewState *m_state = nullptr;

    void showView(SpectrumOverStepsView &view)
    {
        view.resize(1000, 650);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.plot()->replot();
    }

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(test::demoRun(), QStringLiteral("nanogpt-d4"));
    }
    void cleanup() { delete m_state; }

    // Six steps of one matrix, each cell drawn in its density's colour at its place, empty bins
    // left to the background; the line is the stable_rank column of the expected CSV.
    void cellsAndStableRankOfOneMatrix()
    {
        SpectrumOverStepsView view(m_state);
        view.showMatrix(kMlpUp2);
        showView(view);
        const SpectrumOverStepsFigure &f = view.figure();
        QCOMPARE(f.columns.size(), 6);
        QVERIFY(f.noData.isEmpty());
        QVERIFY2(f.title.contains(QStringLiteral("layer 2 MLP\u2191, transformer.h.2.mlp.c_fc.weight [256\u00d764]")), qPrintable(f.title));
        // Drawn without the line over it, the cells alone (the step marker stands on the last column's centre).
        for (int i = 0; i < view.plot()->graphCount(); ++i)
            view.plot()->graph(i)->setVisible(false);
        const QImage image = view.plot()->toPixmap(view.plot()->width(), view.plot()->height()).toImage();
        for (int i = 0; i < view.plot()->graphCount(); ++i)
            view.plot()->graph(i)->setVisible(true);
        int drawn = 0, blank = 0;
        for (int c = 0; c < int(f.columns.size()); ++c)
            for (int k = 0; k < f.bins(); ++k) {
                const QColor colour = view.cellColour(c, k);
                const QPoint centre = view.cellCentre(c, k);
                if (f.columns[c].density[k] > 0) {
                    QCOMPARE(colour, QColor::fromRgb(PlotStyle::viridis().color(f.columns[c].density[k], QCPRange(0, f.densityRange.upper))));
                    ++drawn;
                } else {
                    QVERIFY(!colour.isValid());
                    ++blank;
                }
                if (std::abs(centre.x() - view.plot()->xAxis->coordToPixel(1500)) > 6)
                    QCOMPARE(image.pixelColor(centre), colour.isValid() ? colour : PlotStyle::Theme::paper().background);
            }
        QVERIFY(drawn > 6 && blank > 6);
        QCPGraph *line = view.stableRankGraph();
        QCOMPARE(line->valueAxis(), view.plot()->yAxis2);
        QCOMPARE(line->data()->size(), 6);
        for (auto it = line->data()->constBegin(); it != line->data()->constEnd(); ++it) {
            const double expected = expectedValue(QStringLiteral("stable_rank"), qint64(it->key), 2, QStringLiteral("MLP_UP"));
            QVERIFY2(std::abs(it->value - expected) <= 1e-6 * expected, qPrintable(QStringLiteral("step %1: %2, not %3").arg(it->key).arg(it->value).arg(expected)));
        }
        QCOMPARE(view.colorScale()->axis()->label(), QStringLiteral("fraction of \u03c3 per bin"));
        QCOMPARE(view.colorScale()->dataRange().upper, f.densityRange.upper);
        QCOMPARE(view.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    }

    // The marker stands at the current step and follows it; a click on a column makes its step
    // the current one; a paper copy has no marker.
    void stepMarkerFollowsTheCurrentStep()
    {
        SpectrumOverStepsView view(m_state);
        view.showMatrix(kMlpUp2);
        showView(view);
        QVERIFY(view.isStepMarkerShown());
        QCOMPARE(view.stepMarkerX(), 1500.0);
        m_state->setCurrentStep(300);
        QCOMPARE(view.stepMarkerX(), 300.0);
        const int column = view.figure().columnAt(600);
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, view.cellCentre(column, view.figure().bins() / 2));
        QCOMPARE(m_state->currentStep(), 600);
        QCOMPARE(view.stepMarkerX(), 600.0);
        const std::unique_ptr<ChartView> paper = view.paperCopy({QSize(700, 400), 9});
        auto *copy = qobject_cast<SpectrumOverStepsView *>(paper.get());
        QVERIFY(copy && !copy->isStepMarkerShown());
        QCOMPARE(copy->subject(), view.subject());
        QCOMPARE(copy->figure().columns.size(), 6);
    }

    // Hovering a cell names its step, its bin's σ range and its density with the count behind it.
    void hoverNamesStepSigmaAndDensity()
    {
        SpectrumOverStepsView view(m_state);
        view.showMatrix(kMlpUp2);
        showView(view);
        const SpectrumOverStepsFigure &f = view.figure();
        const int column = 3;
        int bin = -1;
        for (int k = 0; k < f.bins(); ++k)
            if (bin < 0 || f.columns[column].density[k] > f.columns[column].density[bin])
                bin = k;
        QTest::mouseMove(view.plot(), view.cellCentre(column, bin));
        const QString tip = view.lastTooltip();
        QVERIFY2(tip.startsWith(QStringLiteral("<b>step 600</b>")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("\u03c3 %1 – %2").arg(f.binEdges[bin], 0, 'g', 3).arg(f.binEdges[bin + 1], 0, 'g', 3)), qPrintable(tip));
        const double d = f.columns[column].density[bin];
        QVERIFY2(tip.contains(QStringLiteral("density %1: %2 of 64 \u03c3").arg(d, 0, 'g', 3).arg(std::lround(d * 64))), qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("stable rank %1").arg(f.columns[column].stableRank, 0, 'g', 4)));
        QVERIFY2(view.crosshairText().startsWith(QStringLiteral("step 600 · stable rank")), qPrintable(view.crosshairText()));
        QTest::mouseMove(view.plot(), QPoint(3, 3));
        QVERIFY(view.lastTooltip().isEmpty());
    }

    // The mean box makes it the type's mean over the shown layers; the picker's layer is then not
    // asked for. A matrix asked for elsewhere is shown alone again.
    void meanOverLayersAndMatricesAskedForElsewhere()
    {
        SpectrumOverStepsView view(m_state);
        view.showMatrix(kMlpUp2);
        view.meanBox()->setChecked(true);
        QVERIFY(view.subject().meanOverLayers);
        QCOMPARE(view.subject().id.type, MatrixType::MlpUp);
        QCOMPARE(view.figure().columns.first().matrices, 4);
        QVERIFY(!view.picker()->boxes()[3]->isEnabled());
        QVERIFY(view.figure().title.contains(QStringLiteral("mean of layers 0–3")));
        m_state->setLayerRange({1, 2});
        QCOMPARE(view.figure().columns.first().matrices, 2);
        m_state->requestSpectrum({0, 300, {{}, 1, MatrixType::K, {}}});
        QVERIFY(!view.subject().meanOverLayers && !view.meanBox()->isChecked());
        QCOMPARE(view.subject().id, (MatrixIdentity{{}, 1, MatrixType::K, {}}));
        QVERIFY(view.picker()->boxes()[3]->isEnabled());
        QVERIFY(!view.picker()->boxes()[5]->isVisibleTo(&view)); // every step is shown: no step to choose
        QVERIFY(view.picker()->boxes()[2]->isVisibleTo(&view));
    }

    // The frame takes the theme; the data's colours stay; the line is the theme's strongest ink.
    void bothThemes()
    {
        SpectrumOverStepsView view(m_state);
        view.showMatrix(kMlpUp2);
        const QList<double> &density = view.figure().columns[0].density;
        const int bin = int(std::max_element(density.begin(), density.end()) - density.begin());
        const QColor cell = view.cellColour(0, bin);
        QVERIFY(cell.isValid());
        QCOMPARE(view.stableRankGraph()->pen().color(), PlotStyle::Theme::paper().emphasis);
        m_state->setDarkTheme(true);
        QCOMPARE(backgroundOf(view.plot()), PlotStyle::Theme::darkTheme().background);
        QCOMPARE(view.colorScale()->axis()->labelColor(), PlotStyle::Theme::darkTheme().ink);
        QCOMPARE(view.plot()->yAxis2->tickLabelColor(), PlotStyle::Theme::darkTheme().ink);
        QCOMPARE(view.stableRankGraph()->pen().color(), PlotStyle::Theme::darkTheme().emphasis);
        QCOMPARE(view.cellColour(0, bin), cell); // viridis in both
        m_state->setDarkTheme(false);
        QCOMPARE(backgroundOf(view.plot()), PlotStyle::Theme::paper().background);
    }

    // Exported like every figure: a figure file at a paper preset, and the CSV of its cells.
    void exportsAFigureAndItsCells()
    {
        QTemporaryDir dir;
        FigureView figure(m_state, FigureKind::SpectrumOverSteps);
        QCOMPARE(FigureView::name(FigureKind::SpectrumOverSteps), QStringLiteral("spectrogram"));
        QCOMPARE(*figureOfName(QStringLiteral("spectrogram")), FigureKind::SpectrumOverSteps);
        figure.view<SpectrumOverStepsView>()->showMatrix(kMlpUp2);
        QString error;
        for (const char *suffix : {"png", "svg", "pdf"}) {
            const QString path = dir.filePath(QStringLiteral("s.%1").arg(QLatin1String(suffix)));
            QVERIFY2(figure.exportTo(path, *FigureSize::preset(QStringLiteral("column")), &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 1000);
        }
        const QString csv = figure.dataCsv();
        QCOMPARE(csv, figure.view<SpectrumOverStepsView>()->figure().csv());
        QVERIFY(csv.startsWith(QStringLiteral("step,block,layer,type,expert,matrices,sigma_low,sigma_high,density,stable_rank,left_out\n")));
        QCOMPARE(csv.count(QLatin1Char('\n')), 1 + 6 * figure.view<SpectrumOverStepsView>()->figure().bins());
        QVERIFY(csv.contains(QStringLiteral("\n0,,2,MLP_UP,,1,")));
    }
};

RANKSCOPE_TEST_MAIN(TestSpectrumOverStepsView)
} // namespace tst_spectrumoverstepsview

#include "tst_SpectrumOverStepsView.moc"
