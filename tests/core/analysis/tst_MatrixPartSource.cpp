// A typed matrix widened a block at a time from the tensor as stored (float32, strided, fused parts,
// FP8 block scales) is the matrix that widening everything at once and cutting it out gives.
#include "analysis/execution/MatrixPartExtractor.h"
#include "analysis/execution/MatrixPartSource.h"
#include "spectral/SingularValueSolver.h"
#include "TestSuite.h"

#include <cstring>
#include <random>

namespace tst_matrixpartsource {

using namespace rankscope;

namespace {

// rows×cols float32 values, stored row-major (transposed: column-major, as a transposed torch view).
std::pair<RowMajorMatrix, QByteArray> float32Tensor(qint64 rows, qint64 cols, bool transposed, std::mt19937_64 &rng)
{
    std::normal_distribution<float> gauss;
    RowMajorMatrix values(rows, cols);
    QByteArray bytes(qsizetype(rows * cols * 4), Qt::Uninitialized);
    for (qint64 r = 0; r < rows; ++r)
        for (qint64 c = 0; c < cols; ++c) {
            const float f = gauss(rng);
            values(r, c) = f;
            std::memcpy(bytes.data() + 4 * (transposed ? c * rows + r : r * cols + c), &f, 4);
        }
    return {values, bytes};
}

MatrixPart fusedPart(MatrixPart::Axis axis, qint64 groups, qint64 groupSize, qint64 offset, qint64 count)
{
    MatrixPart part;
    part.axis = axis;
    part.groups = groups;
    part.groupSize = groupSize;
    part.offset = offset;
    part.count = count;
    return part;
}

} // namespace

class TestMatrixPartSource : public QObject {
    Q_OBJECT
private slots:
    void blocksEqualTheExtractedMatrix_data()
    {
        QTest::addColumn<bool>("transposed");
        QTest::addColumn<int>("axis");
        QTest::addColumn<bool>("scaled");
        for (bool transposed : {false, true})
            for (int axis : {0, 1})
                for (bool scaled : {false, true})
                    QTest::addRow("%s %s%s", transposed ? "strided" : "row-major", axis ? "columns" : "rows", scaled ? " scaled" : "")
                        << transposed << axis << scaled;
    }
    void blocksEqualTheExtractedMatrix()
    {
        QFETCH(bool, transposed);
        QFETCH(int, axis);
        QFETCH(bool, scaled);
        std::mt19937_64 rng(5);
        const qint64 rows = 12, cols = 18;
        const auto [values, bytes] = float32Tensor(rows, cols, transposed, rng);
        auto stored = std::make_shared<const StoredMatrix>(bytes, QStringLiteral("float32"), false, rows, cols, 0,
                                                           transposed ? 1 : cols, transposed ? rows : 1);
        QCOMPARE(stored->widened(), values);
        // Per head [q|k|v]: 3 groups of 4 rows (or 6 columns), the part at offset 1 taking 2 (or 3).
        const MatrixPart part = axis == 0 ? fusedPart(MatrixPart::Axis::Rows, 3, 4, 1, 2) : fusedPart(MatrixPart::Axis::Columns, 3, 6, 2, 3);
        std::shared_ptr<MatrixPartSource::BlockScales> scales;
        RowMajorMatrix tensor = values;
        if (scaled) {
            RowMajorMatrix grid(3, 4); // 5×5 blocks over 12×18: a ragged last row and column of blocks
            grid << 1, 2, 3, 4, 0.5, 0.25, 8, 16, -1, 3, 7, 9;
            scales = std::make_shared<MatrixPartSource::BlockScales>(MatrixPartSource::BlockScales{grid, 5, 5});
            QVERIFY(applyBlockScales(tensor, grid, 5, 5));
        }
        const RowMajorMatrix expected = extractMatrixPart(tensor, part);
        const MatrixPartSource source(stored, part, scales);
        QCOMPARE(source.rows(), expected.rows());
        QCOMPARE(source.cols(), expected.cols());
        QCOMPARE(source.widened(), expected);
        // A block that starts and ends inside groups.
        RowMajorMatrix block(3, 5);
        source.widenBlock(1, 3, 2, 5, block.data());
        QCOMPARE(block, RowMajorMatrix(expected.block(1, 2, 3, 5)));

        // The solver's spectrum from blocks of the stored tensor is the one from the float64 copy.
        SingularValueSolver blocked;
        blocked.setGramBlockBytes(2 * sizeof(double) * std::min(source.rows(), source.cols()));
        const Spectrum fromBlocks = blocked.compute(source);
        const Eigen::Map<const Eigen::MatrixXd> transposedCopy(expected.data(), expected.cols(), expected.rows());
        const Spectrum fromCopy = SingularValueSolver().compute(transposedCopy);
        QVERIFY(fromBlocks.ok() && fromCopy.ok());
        QVERIFY((fromBlocks.singularValues - fromCopy.singularValues).cwiseAbs().maxCoeff() <= 1e-12 * fromCopy.singularValues[0]);
    }

    void theTensorCanBeFreedBeforeTheEigensolver()
    {
        // The analyzer lets go of the tensor in the solver's callback; the solver must not read it
        // after (under AddressSanitizer a read would be a use after free), and the spectrum is the same.
        RowMajorMatrix values(30, 7);
        for (qsizetype i = 0; i < values.size(); ++i)
            values.data()[i] = std::sin(0.37 * double(i)) + 0.01 * double(i % 5);
        for (SvdMethod method : {SvdMethod::FastGram, SvdMethod::ExactSvd}) {
            auto stored = std::make_shared<const StoredMatrix>(StoredMatrix::fromDouble(values));
            const std::weak_ptr<const StoredMatrix> watch = stored;
            auto source = std::make_shared<MatrixPartSource>(std::move(stored), MatrixPart::whole({}, {}, 30));
            SingularValueSolver solver(method);
            solver.setGramBlockBytes(4 * sizeof(double) * 7);
            int calls = 0;
            const Spectrum s = solver.compute(*source, [&] {
                ++calls;
                source.reset();
                QVERIFY(watch.expired()); // nothing else held it: the memory is back
            });
            QCOMPARE(calls, 1);
            QVERIFY(s.ok());
            const Eigen::Map<const Eigen::MatrixXd> transposed(values.data(), values.cols(), values.rows());
            const Spectrum reference = SingularValueSolver(SvdMethod::ExactSvd).compute(transposed);
            QVERIFY((s.singularValues - reference.singularValues).cwiseAbs().maxCoeff() <= 1e-12 * reference.singularValues[0]);
        }
    }

    void blockScalesMustTileTheTensor()
    {
        MatrixPartSource::BlockScales scales{RowMajorMatrix::Ones(3, 4), 5, 5};
        QVERIFY(scales.fit(12, 18));
        QVERIFY(!scales.fit(16, 18)); // 4 block rows, not 3
        QVERIFY(!scales.fit(12, 21));
        scales.blockRows = 0;
        QVERIFY(!scales.fit(12, 18));
    }

    void nonFiniteElementsAreCountedAcrossBlocks()
    {
        RowMajorMatrix values = RowMajorMatrix::Ones(40, 6);
        values(3, 1) = std::nan("");
        values(37, 5) = INFINITY;
        const MatrixPartSource source(std::make_shared<const StoredMatrix>(StoredMatrix::fromDouble(values)),
                                      MatrixPart::whole({}, {}, 40));
        SingularValueSolver solver;
        solver.setGramBlockBytes(8 * sizeof(double) * 6);
        const Spectrum s = solver.compute(source);
        QVERIFY(!s.ok());
        QVERIFY2(s.error.contains(QLatin1String("2 of 240")), qPrintable(s.error));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMatrixPartSource)
} // namespace tst_matrixpartsource

#include "tst_MatrixPartSource.moc"
