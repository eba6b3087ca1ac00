#include "io/ElementDecoder.h"

#include <cmath>
#include <QtEndian>
#include <cstring>

namespace rankscope {

namespace {
// IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
double halfToDouble(quint16 h)
{
    const int sign = h >> 15 ? -1 : 1;
    const int exponent = (h >> 10) & 0x1F;
    const int mantissa = h & 0x3FF;
    if (exponent == 0)
        return sign * std::ldexp(mantissa, -24); // zero and subnormals
    if (exponent == 31)
        return mantissa ? std::nan("") : sign * HUGE_VAL;
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

// OCP float8 E4M3 "fn": no infinities, S.1111.111 is NaN.
double e4m3ToDouble(quint8 b)
{
    const int sign = b >> 7 ? -1 : 1;
    const int exponent = (b >> 3) & 0xF;
    const int mantissa = b & 0x7;
    if (exponent == 15 && mantissa == 7)
        return std::nan("");
    if (exponent == 0)
        return sign * std::ldexp(mantissa, -9);
    return sign * std::ldexp(8 + mantissa, exponent - 10);
}
} // namespace

int elementSize(const QString &dtype)
{
    if (dtype == QLatin1String("float32"))
        return 4;
    if (dtype == QLatin1String("float16") || dtype == QLatin1String("bfloat16"))
        return 2;
    if (dtype == QLatin1String("float64"))
        return 8;
    if (dtype == QLatin1String("float8_e4m3fn") || dtype == QLatin1String("float8_e5m2"))
        return 1;
    return 0;
}

void decodeElements(const QString &dtype, const char *src, qint64 count, bool bigEndian, double *dst)
{
    auto u16 = [&](qint64 i) { return bigEndian ? qFromBigEndian<quint16>(src + 2 * i) : qFromLittleEndian<quint16>(src + 2 * i); };
    if (dtype == QLatin1String("float32")) {
        for (qint64 i = 0; i < count; ++i) {
            const quint32 bits = bigEndian ? qFromBigEndian<quint32>(src + 4 * i) : qFromLittleEndian<quint32>(src + 4 * i);
            float f;
            std::memcpy(&f, &bits, 4);
            dst[i] = f;
        }
    } else if (dtype == QLatin1String("float64")) {
        for (qint64 i = 0; i < count; ++i) {
            const quint64 bits = bigEndian ? qFromBigEndian<quint64>(src + 8 * i) : qFromLittleEndian<quint64>(src + 8 * i);
            std::memcpy(&dst[i], &bits, 8);
        }
    } else if (dtype == QLatin1String("bfloat16")) {
        for (qint64 i = 0; i < count; ++i) {
            const quint32 bits = quint32(u16(i)) << 16; // bfloat16 is the top half of a float32
            float f;
            std::memcpy(&f, &bits, 4);
            dst[i] = f;
        }
    } else if (dtype == QLatin1String("float16")) {
        for (qint64 i = 0; i < count; ++i) {
            dst[i] = halfToDouble(u16(i));
        }
    } else if (dtype == QLatin1String("float8_e5m2")) {
        for (qint64 i = 0; i < count; ++i)
            dst[i] = halfToDouble(quint16(quint8(src[i])) << 8); // E5M2 is the top byte of a float16
    } else if (dtype == QLatin1String("float8_e4m3fn")) {
        for (qint64 i = 0; i < count; ++i)
            dst[i] = e4m3ToDouble(quint8(src[i]));
    }
}

} // namespace rankscope
