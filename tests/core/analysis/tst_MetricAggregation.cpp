// What the line chart and the per-layer cells show over several matrices: mean or median with min
// and max, NaN values left out and counted, a step whose values are all NaN kept as a gap, and the
// filter's block, layer range and experts applied.
#include "analysis/results/MetricAggregation.h"
#include "TestSuite.h"

#include <cmath>

namespace tst_metricaggregation {

using namespace rankscope;

namespace {

MatrixResult matrix(qint64 step, int layer, double stableRank, const QString &expert = {}, MatrixType type = MatrixType::Q)
{
    MatrixResult r;
    r.step = step;
    r.layer = layer;
    r.type = type;
    r.expert = expert;
    r.metrics.stableRank = stableRank;
    return r;
}

} // namespace

class TestMetricAggregation : public QObject {
    Q_OBJECT
private slots:
    void nanValuesAreLeftOutAndCounted()
    {
        const MatrixResult a = matrix(10, 0, 2), b = matrix(10, 1, std::nan("")), c = matrix(10, 2, 4), d = matrix(10, 3, 12);
        const AggregatePoint mean = aggregateValues({&a, &b, &c}, Metric::StableRank);
        QCOMPARE(mean.value, 3.0);
        QCOMPARE(mean.min, 2.0);
        QCOMPARE(mean.max, 4.0);
        QCOMPARE(mean.count, 2);
        QCOMPARE(mean.missing, 1);
        QCOMPARE(mean.step, 10);
        const AggregatePoint median = aggregateValues({&a, &b, &c, &d}, Metric::StableRank, Aggregate::Median);
        QCOMPARE(median.value, 4.0); // of 2, 4, 12
        QCOMPARE(median.missing, 1);
        const AggregatePoint even = aggregateValues({&a, &c, &d, &d}, Metric::StableRank, Aggregate::Median);
        QCOMPARE(even.value, 8.0); // (4 + 12) / 2
        const AggregatePoint none = aggregateValues({&b}, Metric::StableRank);
        QVERIFY(std::isnan(none.value));
        QCOMPARE(none.count, 0);
        QCOMPARE(none.missing, 1);
    }

    void layersArePooledPerStepWithinTheFilter()
    {
        const QList<MatrixResult> results = {
            matrix(0, 0, 1), matrix(0, 1, 3), matrix(0, 2, 100), // layer 2 is outside the range
            matrix(5, 0, std::nan("")), matrix(5, 1, std::nan("")), // all NaN: a gap, still a point
            matrix(9, 0, 2, "0"), matrix(9, 0, 6, "1"), matrix(9, 1, 4, "shared"), // experts pool with layers
            matrix(9, 1, 50, {}, MatrixType::K), // another type
        };
        MatrixFilter filter{QString(), LayerRange{0, 1}, ExpertChoice{}};
        const QList<AggregatePoint> points = aggregateOverLayers(results, MatrixType::Q, Metric::StableRank, Aggregate::Mean, filter);
        QCOMPARE(points.size(), 3);
        QCOMPARE(points[0].step, 0);
        QCOMPARE(points[0].value, 2.0);
        QCOMPARE(points[0].count, 2);
        QCOMPARE(points[1].step, 5);
        QVERIFY(std::isnan(points[1].value));
        QCOMPARE(points[1].missing, 2);
        // Routed experts count by default, the shared one only when chosen.
        QCOMPARE(points[2].value, 4.0);
        QCOMPARE(points[2].count, 2);
        filter.experts.expert = QStringLiteral("shared");
        const QList<AggregatePoint> shared = aggregateOverLayers(results, MatrixType::Q, Metric::StableRank, Aggregate::Mean, filter);
        QCOMPARE(shared.last().value, 4.0);
        QCOMPARE(shared.last().count, 1);
        filter.experts.expert = QStringLiteral("1");
        QCOMPARE(aggregateOverLayers(results, MatrixType::Q, Metric::StableRank, Aggregate::Mean, filter).last().value, 6.0);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMetricAggregation)
} // namespace tst_metricaggregation

#include "tst_MetricAggregation.moc"
