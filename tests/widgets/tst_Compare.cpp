// Comparing runs of different depth and length: lines per run with their own style, a panel per
// run on one shared scale, and the relative-depth and step-fraction axes.
#include "../core/TorchCheckpointWriter.h"
#include "DemoFixture.h"
#include "figures/BarFigure.h"
#include "figures/HeatmapFigure.h"
#include "figures/ViewState.h"
#include "LayerBarChart.h"
#include "MetricLineChart.h"
#include "TestSuite.h"
#include "TypeLayerHeatmap.h"

#include <QTemporaryDir>
#include <random>

namespace tst_compare {

using namespace rankscope;
using namespace rankscope::test;

namespace {

// A 2-layer nanoGPT run (d = 8) with checkpoints at steps 0 and 50, random weights.
RunAnalysis shallowRun(const QString &folder)
{
    std::mt19937 rng(7);
    std::normal_distribution<float> gauss(0, 0.1f);
    for (int step : {0, 50}) {
        QList<FakeTensor> tensors;
        QList<QPair<QString, QByteArray>> entries;
        int key = 0;
        for (int layer = 0; layer < 2; ++layer)
            for (auto [name, rows, cols] : {std::tuple{"attn.c_attn.weight", 24, 8}, {"attn.c_proj.weight", 8, 8},
                                            {"mlp.c_fc.weight", 32, 8}, {"mlp.c_proj.weight", 8, 32}}) {
                QList<float> values(rows * cols);
                for (float &v : values)
                    v = gauss(rng);
                const QString k = QString::number(key++);
                tensors.append({QStringLiteral("transformer.h.%1.%2").arg(layer).arg(name), "FloatStorage", k, qint64(rows * cols), 0,
                                {rows, cols}, {cols, 1}});
                entries.append({"shallow/data/" + k, rawBytes(values)});
            }
        entries.prepend({"shallow/data.pkl", torchPickle(tensors, step)});
        QFile f(QStringLiteral("%1/ckpt_%2.pt").arg(folder).arg(step, 6, 10, QLatin1Char('0')));
        f.open(QIODevice::WriteOnly);
        f.write(zipArchive(entries));
    }
    return RunAnalyzer().analyzeFolder(folder);
}

QStringList tickLabels(QCPAxis *axis)
{
    QStringList labels;
    const auto ticker = axis->ticker().dynamicCast<QCPAxisTickerText>();
    for (const QString &label : ticker->ticks())
        labels << label;
    return labels;
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    ViewState *m_state = nullptr;

private slots:
    void init()
    {
        m_state = new ViewState(this);
        m_state->setRun(demoRun(), "d4");
        static const RunAnalysis shallow = shallowRun(m_dir.path());
        QCOMPARE(shallow.results.size(), 24); // 2 steps × 2 layers × 6 types
        m_state->addComparedRun(shallow, "d2");
    }
    void cleanup() { delete m_state; }

    void linesHaveAStylePerRunAndALegendForBoth()
    {
        MetricLineChart chart(m_state);
        QCOMPARE(m_state->runCount(), 2);
        QCOMPARE(chart.visibleLines().size(), 12); // 6 types × 2 runs
        QCOMPARE(chart.visibleLines()[0]->pen().style(), Qt::SolidLine);
        QCOMPARE(chart.visibleLines()[6]->pen().style(), Qt::DashLine);
        QCOMPARE(chart.visibleLines()[6]->pen().color(), chart.visibleLines()[0]->pen().color()); // colour is the type
        QStringList legend;
        for (int i = 0; i < chart.plot()->legend->itemCount(); ++i)
            if (auto *item = qobject_cast<QCPPlottableLegendItem *>(chart.plot()->legend->item(i)))
                legend << item->plottable()->name();
        QCOMPARE(legend, (QStringList{"Q", "K", "V", "O", QString::fromUtf8("MLP\u2191"), QString::fromUtf8("MLP\u2193"), "d4", "d2"}));
        QVERIFY(chart.title().contains("d4 vs d2"));

        // Step as a fraction of each run: both end at 1.
        m_state->setRelativeStep(true);
        QCOMPARE(chart.visibleLines()[0]->data()->at(chart.visibleLines()[0]->dataCount() - 1)->key, 1.0);
        QCOMPARE(chart.visibleLines()[6]->data()->at(1)->key, 1.0);
        QVERIFY(chart.plot()->xAxis->label().startsWith("Fraction of training"));

        m_state->setRunVisible(1, false);
        QCOMPARE(chart.visibleLines().size(), 6);
    }

    void barsAndHeatmapsHaveAPanelPerRunOnOneScale()
    {
        LayerBarChart deep(m_state), shallow(m_state);
        shallow.setRunIndex(1);
        QCOMPARE(shallow.barsOf(MatrixType::Q)->dataCount(), 2);
        QCOMPARE(deep.barsOf(MatrixType::Q)->dataCount(), 4);
        QCOMPARE(shallow.plot()->yAxis->range(), deep.plot()->yAxis->range());
        QVERIFY(shallow.title().contains("at final step 50 — d2")); // the shallow run's own last step

        TypeLayerHeatmap left(m_state, Metric::StableRank), right(m_state, Metric::StableRank);
        right.setRunIndex(1);
        QCOMPARE(right.colorMap()->data()->keySize(), 2);
        QCOMPARE(left.colorMap()->dataRange(), right.colorMap()->dataRange()); // equal colours, equal values

        m_state->setRelativeDepth(true);
        QCOMPARE(tickLabels(deep.plot()->xAxis), (QStringList{"0.00", "0.33", "0.67", "1.00"}));
        QCOMPARE(tickLabels(shallow.plot()->xAxis), (QStringList{"0.00", "1.00"}));
        QCOMPARE(tickLabels(right.plot()->xAxis), (QStringList{"0.00", "1.00"}));
        // The layer range selects the same share of every model: the deeper half of d4 is d2's layer 1.
        m_state->setLayerRange({2, 3});
        QCOMPARE(m_state->visibleLayersAt(1), QList<int>{1});
    }

    void theLayerRangeMeansTheSameForEveryRun()
    {
        // The shallow run first, the deeper one compared: the range is chosen from both runs' layers.
        ViewState state;
        state.setRun(shallowRun(m_dir.path()), "d2");
        state.addComparedRun(demoRun(), "d4");
        QCOMPARE(state.layers(), (QList<int>{0, 1, 2, 3}));
        QCOMPARE(state.layerRangeText(), QString());
        MetricLineChart chart(&state);
        QVERIFY2(chart.title().contains("of each run's layers"), qPrintable(chart.title()));

        // Layer numbers: the same layers of each run, and a run without any says so.
        state.setLayerRange({2, 3});
        QCOMPARE(state.visibleLayersAt(0), QList<int>{});
        QCOMPARE(state.visibleLayersAt(1), (QList<int>{2, 3}));
        QVERIFY2(chart.title().contains(QString::fromUtf8("mean of layers 2\u20133 of each run (none in d2)")), qPrintable(chart.title()));
        LayerBarChart deep(&state);
        deep.setRunIndex(1);
        QVERIFY2(deep.title().contains(QString::fromUtf8("layers 2\u20133, d4")), qPrintable(deep.title()));

        // Relative depth: the share of the deepest run, whichever run came first.
        state.setRelativeDepth(true);
        QCOMPARE(state.visibleLayersAt(0), QList<int>{1}); // 0.67–1.00 of d2 is its last layer
        QCOMPARE(state.layerRangeText(), QString::fromUtf8("relative depth 0.67\u20131.00"));
        state.setLayerRange({0, 1});
        QCOMPARE(state.visibleLayersAt(0), QList<int>{0});
        QCOMPARE(state.visibleLayersAt(1), (QList<int>{0, 1}));

        // The whole range is every layer of every run, in either mode.
        state.setLayerRange({0, 3});
        QCOMPARE(state.visibleLayersAt(0), (QList<int>{0, 1}));
        QCOMPARE(state.visibleLayersAt(1), (QList<int>{0, 1, 2, 3}));
    }

    // The deeper run first, then hidden: relative depth is measured on the deepest run shown.
    void relativeDepthIgnoresHiddenRuns()
    {
        ViewState state;
        state.setRun(demoRun(), "d4");
        state.addComparedRun(shallowRun(m_dir.path()), "d2");
        state.addComparedRun(shallowRun(m_dir.path()), "d2 again");
        state.setRelativeDepth(true);
        state.setRunVisible(0, false);
        state.setLayerRange({1, 1});
        // d2's last layer: depth 1.00 of d2 (measured on the hidden d4 it would be 0.33, no layer of d2).
        QCOMPARE(state.visibleLayersAt(1), QList<int>{1});
        QCOMPARE(state.visibleLayersAt(2), QList<int>{1});
        QCOMPARE(state.layerRangeText(), QString::fromUtf8("relative depth 1.00\u20131.00"));
    }

    // "Final" is each run's own last step, whichever run is first; a run without a checkpoint at
    // the step shown shows its nearest earlier one, and its panel says so.
    void finalIsEachRunsOwnLastStep()
    {
        m_state->setCurrentStep(m_state->steps().last());
        QCOMPARE(m_state->stepAt(1), 50);
        QCOMPARE(m_state->stepWords(1, 50), QStringLiteral("final step 50"));
        QCOMPARE(m_state->stepWords(0, 1500), QStringLiteral("final step 1500"));

        ViewState reversed;
        reversed.setRun(shallowRun(m_dir.path()), "d2");
        reversed.addComparedRun(demoRun(), "d4");
        reversed.setCurrentStep(50);
        QCOMPARE(reversed.stepAt(1), 1500); // not d4's step 0, nearest to 50, mid-training
        QCOMPARE(BarFigureBuilder(reversed, Metric::StableRank, 1, {false, false}).build().xLabel, QStringLiteral("Layer (final step)"));
        reversed.setCurrentStep(0);
        QCOMPARE(reversed.stepAt(1), 0);

        ViewState gap;
        gap.setRun(demoRun(), "d4");
        RunAnalysis fewer = demoRun();
        const qint64 missing = gap.steps()[2];
        fewer.results.removeIf([missing](const MatrixResult &r) { return r.step == missing; });
        fewer.checkpoints.removeIf([missing](const CheckpointRecord &c) { return c.step == missing; });
        gap.addComparedRun(fewer, "d4 without one step");
        gap.setCurrentStep(missing);
        QCOMPARE(gap.stepAt(1), gap.steps()[1]);
        QCOMPARE(HeatmapFigureBuilder(gap, Metric::StableRank, 1, {}, {false, false}).build().xLabel,
                 QStringLiteral("Layer (step %1, none at %2)").arg(gap.steps()[1]).arg(missing));
    }

    // The rows are the same in every run's panel: the leftmost names them, however narrow, and
    // the others leave the width to their cells.
    void theFirstRunsHeatmapNamesTheRows()
    {
        TypeLayerHeatmap first(m_state, Metric::StableRank), second(m_state, Metric::StableRank);
        second.setRunIndex(1);
        for (TypeLayerHeatmap *panel : {&first, &second})
            panel->resize(300, 300);
        QCOMPARE(first.plot()->yAxis->label(), QStringLiteral("Matrix type"));
        QCOMPARE(second.plot()->yAxis->label(), QString());
    }

    void aCompareStepFollowsTheCurrentStep()
    {
        m_state->setCurrentStep(0);
        QCOMPARE(m_state->stepAt(1), 0);
        m_state->setCurrentStep(100);
        QCOMPARE(m_state->stepAt(1), 50); // the nearest step the shallow run has
        m_state->setRelativeStep(true);
        m_state->setCurrentStep(600); // 0.4 of d4's 1500 steps: nearest fraction of d2 is 0.0
        QCOMPARE(m_state->stepAt(1), 0);
        m_state->setCurrentStep(1000);
        QCOMPARE(m_state->stepAt(1), 50);
    }
};

RANKSCOPE_TEST_MAIN(TestCompare)
} // namespace tst_compare

#include "tst_Compare.moc"
