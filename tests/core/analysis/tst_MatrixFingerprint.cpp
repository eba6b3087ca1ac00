// The fingerprint of a matrix's stored bytes: XXH64 as its reference gives it (xxhash's published
// values of "" and "abc", seed 0), the same whatever the chunks it is fed in, and for a fused
// tensor's part the fingerprint of those rows (or columns) alone, stored on their own: the parts of
// two checkpoints compare equal exactly when their bytes do.
#include "analysis/execution/MatrixPartSource.h"
#include "io/StoredBytesHash.h"
#include "TestSuite.h"

#include <cstring>
#include <random>

namespace tst_matrixfingerprint {

using namespace rankscope;

namespace {

quint64 hashOf(const QByteArray &bytes)
{
    StoredBytesHash hash;
    hash.add(bytes.constData(), std::size_t(bytes.size()));
    return hash.value();
}

// rows×cols float32 values, row-major (transposed: column-major, a transposed torch view).
QByteArray float32Bytes(const std::vector<float> &rowMajor, qint64 rows, qint64 cols, bool transposed)
{
    QByteArray bytes(qsizetype(rows * cols * 4), Qt::Uninitialized);
    for (qint64 r = 0; r < rows; ++r)
        for (qint64 c = 0; c < cols; ++c)
            std::memcpy(bytes.data() + 4 * (transposed ? c * rows + r : r * cols + c), &rowMajor[std::size_t(r * cols + c)], 4);
    return bytes;
}

quint64 fingerprint(const QByteArray &bytes, qint64 rows, qint64 cols, bool transposed, const MatrixPart &part)
{
    auto stored = transposed ? std::make_shared<const StoredMatrix>(bytes, QStringLiteral("float32"), false, rows, cols, 0, 1, rows)
                             : std::make_shared<const StoredMatrix>(bytes, QStringLiteral("float32"), false, rows, cols);
    return MatrixPartSource(stored, part).contentHash();
}

MatrixPart part(MatrixPart::Axis axis, qint64 groupSize, qint64 offset, qint64 count)
{
    MatrixPart p;
    p.axis = axis;
    p.groupSize = groupSize;
    p.offset = offset;
    p.count = count;
    return p;
}

} // namespace

class TestMatrixFingerprint : public QObject {
    Q_OBJECT
private slots:
    void isXxh64()
    {
        QCOMPARE(hashOf(QByteArray()), quint64(0xEF46DB3751D8E999ULL));
        QCOMPARE(hashOf(QByteArrayLiteral("abc")), quint64(0x44BC2CF5AD770999ULL));
    }

    void chunksDoNotMatter()
    {
        std::mt19937_64 rng(7);
        QByteArray bytes(1000, Qt::Uninitialized);
        for (char &b : bytes)
            b = char(rng());
        const quint64 whole = hashOf(bytes);
        for (std::size_t cut : {1, 7, 31, 32, 33, 500, 999}) {
            StoredBytesHash hash;
            hash.add(bytes.constData(), cut);
            hash.add(bytes.constData() + cut, std::size_t(bytes.size()) - cut);
            QCOMPARE(hash.value(), whole);
        }
        bytes[500] = char(bytes[500] ^ 1);
        QVERIFY(hashOf(bytes) != whole);
    }

    // [Q; K; V] stored as rows (or Conv1D's Q | K | V as columns, transposed in storage): each part's
    // fingerprint is that of the part stored alone, and a changed element of K changes K's only.
    void aPartIsItsOwnBytes()
    {
        constexpr qint64 n = 6, cols = 5;
        std::mt19937_64 rng(8);
        std::normal_distribution<float> gauss;
        std::vector<float> fused(std::size_t(3 * n * cols));
        for (float &v : fused)
            v = gauss(rng);
        for (const bool transposed : {false, true}) {
            const QByteArray bytes = float32Bytes(fused, 3 * n, cols, transposed);
            std::vector<float> k(fused.begin() + n * cols, fused.begin() + 2 * n * cols);
            const quint64 alone = fingerprint(float32Bytes(k, n, cols, false), n, cols, false, part(MatrixPart::Axis::Rows, n, 0, n));
            QCOMPARE(fingerprint(bytes, 3 * n, cols, transposed, part(MatrixPart::Axis::Rows, 3 * n, n, n)), alone);
            const quint64 q = fingerprint(bytes, 3 * n, cols, transposed, part(MatrixPart::Axis::Rows, 3 * n, 0, n));
            QVERIFY(q != alone);
            std::vector<float> changed = fused;
            changed[std::size_t(n * cols + 3)] += 1.0f;
            const QByteArray changedBytes = float32Bytes(changed, 3 * n, cols, transposed);
            QVERIFY(fingerprint(changedBytes, 3 * n, cols, transposed, part(MatrixPart::Axis::Rows, 3 * n, n, n)) != alone);
            QCOMPARE(fingerprint(changedBytes, 3 * n, cols, transposed, part(MatrixPart::Axis::Rows, 3 * n, 0, n)), q);
        }
        // Columns: the columns n … 2n − 1 of a cols × 3n tensor are the tensor of those columns.
        std::vector<float> wide(std::size_t(cols * 3 * n)), middle(std::size_t(cols * n));
        for (float &v : wide)
            v = gauss(rng);
        for (qint64 r = 0; r < cols; ++r)
            for (qint64 c = 0; c < n; ++c)
                middle[std::size_t(r * n + c)] = wide[std::size_t(r * 3 * n + n + c)];
        QCOMPARE(fingerprint(float32Bytes(wide, cols, 3 * n, false), cols, 3 * n, false, part(MatrixPart::Axis::Columns, 3 * n, n, n)),
                 fingerprint(float32Bytes(middle, cols, n, false), cols, n, false, part(MatrixPart::Axis::Rows, cols, 0, cols)));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestMatrixFingerprint)
} // namespace tst_matrixfingerprint

#include "tst_MatrixFingerprint.moc"
