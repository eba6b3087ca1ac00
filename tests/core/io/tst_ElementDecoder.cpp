#include "io/ElementDecoder.h"
#include "TestSuite.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tst_elementdecoder {

using namespace rankscope;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The element's bytes, little-endian, from its bit pattern.
QByteArray littleEndian(quint64 bits, int size)
{
    QByteArray out;
    for (int i = 0; i < size; ++i)
        out.append(char((bits >> (8 * i)) & 0xFF));
    return out;
}

QByteArray reversed(QByteArray bytes)
{
    std::reverse(bytes.begin(), bytes.end());
    return bytes;
}

// Equal to the last bit (so −0 is not 0), or both NaN; the values as hex floats when not.
bool sameValue(double got, double want) { return std::isnan(want) ? std::isnan(got) : std::bit_cast<quint64>(got) == std::bit_cast<quint64>(want); }
QByteArray describe(double got, double want)
{
    char text[128];
    std::snprintf(text, sizeof text, "got %a (%.17g), want %a (%.17g)", got, got, want, want);
    return text;
}

} // namespace

class TestElementDecoder : public QObject {
    Q_OBJECT

    void addRow(const char *dtype, quint64 bits, double value, const char *what)
    {
        const int size = elementSize(QLatin1String(dtype));
        QTest::addRow("%s %s", dtype, what) << QString::fromLatin1(dtype) << littleEndian(bits, size) << value;
    }

private slots:
    void sizesAndTypesOfDtypeNames()
    {
        QCOMPARE(elementSize(QStringLiteral("float64")), 8);
        QCOMPARE(elementSize(QStringLiteral("float32")), 4);
        QCOMPARE(elementSize(QStringLiteral("float16")), 2);
        QCOMPARE(elementSize(QStringLiteral("bfloat16")), 2);
        QCOMPARE(elementSize(QStringLiteral("float8_e4m3fn")), 1);
        QCOMPARE(elementSize(QStringLiteral("float8_e5m2")), 1);
        QCOMPARE(elementTypeOf(QStringLiteral("float64")), ElementType::Float64);
        QCOMPARE(elementTypeOf(QStringLiteral("float32")), ElementType::Float32);
        QCOMPARE(elementTypeOf(QStringLiteral("float16")), ElementType::Float16);
        QCOMPARE(elementTypeOf(QStringLiteral("bfloat16")), ElementType::BFloat16);
        QCOMPARE(elementTypeOf(QStringLiteral("float8_e4m3fn")), ElementType::Float8E4M3);
        QCOMPARE(elementTypeOf(QStringLiteral("float8_e5m2")), ElementType::Float8E5M2);
        // Names are exact: no case folding, no aliases, no integer or complex types.
        for (const char *name : {"", "Float32", "float", "half", "f4", "<f4", "float8_e4m3fnuz", "int8", "uint8", "bool", "complex64", "float32 "}) {
            QCOMPARE(elementTypeOf(QLatin1String(name)), ElementType::Unsupported);
            QCOMPARE(elementSize(QLatin1String(name)), 0);
        }
    }

    // Exact values of every class of number each type holds: ones, the largest finite value,
    // the smallest normal and subnormal, signed zeros, infinities and NaNs (quiet and signalling).
    void widensExactly_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QByteArray>("bytes"); // little-endian
        QTest::addColumn<double>("value");

        addRow("float16", 0x3C00, 1.0, "one");
        addRow("float16", 0xC000, -2.0, "minus two");
        addRow("float16", 0x3555, 0x1.554p-2, "one third");
        addRow("float16", 0x3BFF, 1.0 - 0x1p-11, "below one");
        addRow("float16", 0x7BFF, 65504.0, "largest");
        addRow("float16", 0xFBFF, -65504.0, "most negative");
        addRow("float16", 0x0400, 0x1p-14, "smallest normal");
        addRow("float16", 0x03FF, 0x3FFp-24, "largest subnormal");
        addRow("float16", 0x0001, 0x1p-24, "smallest subnormal");
        addRow("float16", 0x8001, -0x1p-24, "negative subnormal");
        addRow("float16", 0x0000, 0.0, "zero");
        addRow("float16", 0x8000, -0.0, "negative zero");
        addRow("float16", 0x7C00, kInf, "infinity");
        addRow("float16", 0xFC00, -kInf, "negative infinity");
        addRow("float16", 0x7E00, kNaN, "quiet NaN");
        addRow("float16", 0x7C01, kNaN, "signalling NaN");
        addRow("float16", 0xFFFF, kNaN, "negative NaN");

        addRow("bfloat16", 0x3F80, 1.0, "one");
        addRow("bfloat16", 0xC000, -2.0, "minus two");
        addRow("bfloat16", 0x3EAB, 0x1.56p-2, "one third");
        addRow("bfloat16", 0x7F7F, 0x1.FEp127, "largest");
        addRow("bfloat16", 0x0080, 0x1p-126, "smallest normal");
        addRow("bfloat16", 0x007F, 0x7Fp-133, "largest subnormal");
        addRow("bfloat16", 0x0001, 0x1p-133, "smallest subnormal");
        addRow("bfloat16", 0x8000, -0.0, "negative zero");
        addRow("bfloat16", 0x7F80, kInf, "infinity");
        addRow("bfloat16", 0xFF80, -kInf, "negative infinity");
        addRow("bfloat16", 0x7FC0, kNaN, "quiet NaN");
        addRow("bfloat16", 0x7F81, kNaN, "signalling NaN");

        addRow("float32", 0x3F800000, 1.0, "one");
        addRow("float32", 0x3DCCCCCD, 0x1.99999Ap-4, "0.1 rounded to float");
        addRow("float32", 0xC0490FDB, -0x1.921FB6p1, "minus pi");
        addRow("float32", 0x7F7FFFFF, 0x1.FFFFFEp127, "largest");
        addRow("float32", 0x00800000, 0x1p-126, "smallest normal");
        addRow("float32", 0x007FFFFF, 0x7FFFFFp-149, "largest subnormal");
        addRow("float32", 0x00000001, 0x1p-149, "smallest subnormal");
        addRow("float32", 0x80000000, -0.0, "negative zero");
        addRow("float32", 0x7F800000, kInf, "infinity");
        addRow("float32", 0xFF800000, -kInf, "negative infinity");
        addRow("float32", 0x7FC00000, kNaN, "quiet NaN");
        addRow("float32", 0x7F800001, kNaN, "signalling NaN");

        addRow("float64", 0x3FF0000000000000, 1.0, "one");
        addRow("float64", 0x3FB999999999999A, 0.1, "0.1");
        addRow("float64", 0x7FEFFFFFFFFFFFFF, std::numeric_limits<double>::max(), "largest");
        addRow("float64", 0x0010000000000000, 0x1p-1022, "smallest normal");
        addRow("float64", 0x0000000000000001, 0x1p-1074, "smallest subnormal");
        addRow("float64", 0x8000000000000000, -0.0, "negative zero");
        addRow("float64", 0x7FF0000000000000, kInf, "infinity");
        addRow("float64", 0xFFF0000000000000, -kInf, "negative infinity");
        addRow("float64", 0x7FF8000000000000, kNaN, "quiet NaN");
        addRow("float64", 0x7FF0000000000001, kNaN, "signalling NaN");

        // OCP float8: E4M3 "fn" has no infinities (S.1111.111 is its only NaN); E5M2 is the top
        // byte of a float16.
        addRow("float8_e4m3fn", 0x38, 1.0, "one");
        addRow("float8_e4m3fn", 0xC0, -2.0, "minus two");
        addRow("float8_e4m3fn", 0x7E, 448.0, "largest");
        addRow("float8_e4m3fn", 0x78, 256.0, "top exponent is finite");
        addRow("float8_e4m3fn", 0x08, 0x1p-6, "smallest normal");
        addRow("float8_e4m3fn", 0x07, 0x7p-9, "largest subnormal");
        addRow("float8_e4m3fn", 0x01, 0x1p-9, "smallest subnormal");
        addRow("float8_e4m3fn", 0x80, -0.0, "negative zero");
        addRow("float8_e4m3fn", 0x7F, kNaN, "NaN");
        addRow("float8_e4m3fn", 0xFF, kNaN, "negative NaN");
        addRow("float8_e5m2", 0x3C, 1.0, "one");
        addRow("float8_e5m2", 0x7B, 57344.0, "largest");
        addRow("float8_e5m2", 0x04, 0x1p-14, "smallest normal");
        addRow("float8_e5m2", 0x01, 0x1p-16, "smallest subnormal");
        addRow("float8_e5m2", 0x80, -0.0, "negative zero");
        addRow("float8_e5m2", 0x7C, kInf, "infinity");
        addRow("float8_e5m2", 0xFC, -kInf, "negative infinity");
        addRow("float8_e5m2", 0x7E, kNaN, "NaN");
    }

    // Each value from its little- and big-endian bytes (a float8 byte has no order: the flag
    // changes nothing), through the name and the resolved type, and from an odd address.
    void widensExactly()
    {
        QFETCH(QString, dtype);
        QFETCH(QByteArray, bytes);
        QFETCH(double, value);
        const ElementType type = elementTypeOf(dtype);
        for (const bool bigEndian : {false, true}) {
            const QByteArray stored = bigEndian ? reversed(bytes) : bytes;
            double byName = 12345.0, byType = 12345.0;
            decodeElements(dtype, stored.constData(), 1, bigEndian, &byName);
            QVERIFY2(sameValue(byName, value), describe(byName, value) + (bigEndian ? " big-endian" : " little-endian"));
            const QByteArray unaligned = QByteArray(1, '\x55') + stored;
            decodeElements(type, unaligned.constData() + 1, 1, bigEndian, &byType);
            QVERIFY2(sameValue(byType, value), describe(byType, value) + " unaligned");
        }
    }

    // Many elements in one call: the packed float32 loop (the common case, vectorised) and the
    // general loops agree with one-at-a-time widening for every byte order and stride.
    void widensBlocksLikeSingleElements_data()
    {
        QTest::addColumn<QString>("dtype");
        for (const char *dtype : {"float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2"})
            QTest::newRow(dtype) << QString::fromLatin1(dtype);
    }
    void widensBlocksLikeSingleElements()
    {
        QFETCH(QString, dtype);
        const ElementType type = elementTypeOf(dtype);
        const int size = elementSize(dtype);
        constexpr int kCount = 37;
        QByteArray packed;
        quint64 x = 0x9E3779B97F4A7C15;
        for (int i = 0; i < kCount * size; ++i) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            packed.append(char(x));
        }
        for (const bool bigEndian : {false, true}) {
            double one[kCount];
            for (int i = 0; i < kCount; ++i)
                decodeElements(type, packed.constData() + i * size, 1, bigEndian, &one[i]);
            double block[kCount + 1];
            block[kCount] = 777.0;
            decodeElements(type, packed.constData(), kCount, bigEndian, block);
            double stridedPacked[kCount];
            decodeElements(type, packed.constData(), kCount, bigEndian, stridedPacked, size);
            // Every element followed by three bytes of something else (an interleaved record).
            QByteArray spaced;
            for (int i = 0; i < kCount; ++i)
                spaced.append(packed.mid(i * size, size)).append("\xAA\xBB\xCC", 3);
            double strided[kCount];
            decodeElements(type, spaced.constData(), kCount, bigEndian, strided, size + 3);
            for (int i = 0; i < kCount; ++i) {
                QVERIFY2(sameValue(block[i], one[i]), describe(block[i], one[i]) + " packed, element " + QByteArray::number(i));
                QVERIFY2(sameValue(stridedPacked[i], one[i]), describe(stridedPacked[i], one[i]) + " stride = size");
                QVERIFY2(sameValue(strided[i], one[i]), describe(strided[i], one[i]) + " stride = size + 3");
            }
            QCOMPARE(block[kCount], 777.0); // nothing past count is written
        }
    }

    // Stride 0 repeats one element (a broadcast tensor); count 0 writes nothing.
    void strideZeroRepeatsOneElement()
    {
        const QByteArray half = littleEndian(0x3C00, 2) + littleEndian(0x4000, 2);
        double out[4] = {0, 0, 0, 0};
        decodeElements(ElementType::Float16, half.constData() + 2, 4, false, out, 0);
        for (const double v : out)
            QCOMPARE(v, 2.0);
        const QByteArray single = littleEndian(0x3F800000, 4);
        decodeElements(ElementType::Float32, single.constData(), 4, false, out, 0);
        for (const double v : out)
            QCOMPARE(v, 1.0);
        out[0] = 5.0;
        decodeElements(ElementType::Float32, single.constData(), 0, false, out);
        QCOMPARE(out[0], 5.0);
    }

    // An unsupported type converts nothing: the output is left as it was rather than filled
    // with something taken for weights.
    void unsupportedTypesWriteNothing()
    {
        const QByteArray bytes(16, '\x7F');
        double out[2] = {-1.0, -2.0};
        decodeElements(ElementType::Unsupported, bytes.constData(), 2, false, out);
        decodeElements(QStringLiteral("int32"), bytes.constData(), 2, true, out);
        QCOMPARE(out[0], -1.0);
        QCOMPARE(out[1], -2.0);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestElementDecoder)
} // namespace tst_elementdecoder

#include "tst_ElementDecoder.moc"
