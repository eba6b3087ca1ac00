// The cost model behind the ETA and the README's table: costs grow with the shapes as the
// algorithms do, and the schedule is RunAnalyzer's (workers in order, a lone matrix on every core).
#include "analysis/planning/SpectrumCostModel.h"
#include "TestSuite.h"

namespace tst_spectrumcostmodel {

using namespace rankscope;

class TestSpectrumCostModel : public QObject {
    Q_OBJECT
private slots:
    void costGrowsWithTheShape()
    {
        const SpectrumCostModel model;
        const double small = model.matrixSeconds({768, 768});
        QVERIFY(small > 0);
        // Transposing changes nothing. Four times the rows: four times the Gram product, the same
        // eigensolver (measured: 0.057 s against 0.031 s on the development machine).
        QCOMPARE(model.matrixSeconds({3072, 768}), model.matrixSeconds({768, 3072}));
        const double tall = model.matrixSeconds({3072, 768}) / small;
        QVERIFY2(tall > 1.5 && tall < 4, qPrintable(QString::number(tall)));
        // Doubling a square matrix: ~8× (n³ terms).
        const double ratio = model.matrixSeconds({1536, 1536}) / small;
        QVERIFY2(ratio > 5 && ratio < 9, qPrintable(QString::number(ratio)));
        QVERIFY(SpectrumCostModel(SvdMethod::ExactSvd).matrixSeconds({768, 768}) > 3 * small);
    }

    void scheduleIsListSchedulingWithALoneTail()
    {
        const SpectrumCostModel model;
        const MatrixShape square{1024, 1024};
        const double one = model.matrixSeconds(square);
        // Two equal matrices on two workers: side by side.
        QCOMPARE(model.wallSeconds({square, square}, 2), one);
        // One matrix on two workers: alone, on both cores.
        QCOMPARE(model.wallSeconds({square}, 2), one / SpectrumCostModel::speedupOnThreads(2));
        QCOMPARE(model.wallSeconds({square}, 1), one);
        // Three on two: two side by side, then the third alone on both cores.
        QCOMPARE(model.wallSeconds({square, square, square}, 2), one + one / SpectrumCostModel::speedupOnThreads(2));
        // More workers never make it slower; a GPT-2-small layer takes well under a second.
        const QList<MatrixShape> layer = SpectrumCostModel::gpt2Layer(768);
        QCOMPARE(layer.size(), 6);
        QVERIFY(model.wallSeconds(layer, 2) <= model.wallSeconds(layer, 1));
        QVERIFY(model.wallSeconds(layer, 1) < 2.0);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestSpectrumCostModel)
} // namespace tst_spectrumcostmodel

#include "tst_SpectrumCostModel.moc"
