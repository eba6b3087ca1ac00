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

ElementType elementTypeOf(const QString &dtype)
{
    if (dtype == QLatin1String("float32"))
        return ElementType::Float32;
    if (dtype == QLatin1String("float16"))
        return ElementType::Float16;
    if (dtype == QLatin1String("bfloat16"))
        return ElementType::BFloat16;
    if (dtype == QLatin1String("float64"))
        return ElementType::Float64;
    if (dtype == QLatin1String("float8_e4m3fn"))
        return ElementType::Float8E4M3;
    if (dtype == QLatin1String("float8_e5m2"))
        return ElementType::Float8E5M2;
    return ElementType::Unsupported;
}

int elementSize(const QString &dtype)
{
    switch (elementTypeOf(dtype)) {
    case ElementType::Float64: return 8;
    case ElementType::Float32: return 4;
    case ElementType::Float16:
    case ElementType::BFloat16: return 2;
    case ElementType::Float8E4M3:
    case ElementType::Float8E5M2: return 1;
    case ElementType::Unsupported: break;
    }
    return 0;
}

namespace {
// One loop per type and byte order: the packed little-endian float32 case (nearly every
// checkpoint) compiles to a vectorised widening loop.
template <typename Bits, typename Convert>
void decodeAll(const char *src, qint64 count, qint64 stride, bool bigEndian, double *dst, Convert convert)
{
    if (bigEndian) {
        for (qint64 i = 0; i < count; ++i)
            dst[i] = convert(qFromBigEndian<Bits>(src + i * stride));
    } else {
        for (qint64 i = 0; i < count; ++i)
            dst[i] = convert(qFromLittleEndian<Bits>(src + i * stride));
    }
}

float floatFromBits(quint32 bits)
{
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
} // namespace

void decodeElements(ElementType type, const char *src, qint64 count, bool bigEndian, double *dst, qint64 strideBytes)
{
    switch (type) {
    case ElementType::Float32:
        if (!bigEndian && (strideBytes < 0 || strideBytes == 4) && QSysInfo::ByteOrder == QSysInfo::LittleEndian) {
            for (qint64 i = 0; i < count; ++i) {
                float f;
                std::memcpy(&f, src + 4 * i, 4);
                dst[i] = f;
            }
            return;
        }
        decodeAll<quint32>(src, count, strideBytes >= 0 ? strideBytes : 4, bigEndian, dst, [](quint32 bits) { return double(floatFromBits(bits)); });
        return;
    case ElementType::Float64:
        decodeAll<quint64>(src, count, strideBytes >= 0 ? strideBytes : 8, bigEndian, dst, [](quint64 bits) {
            double d;
            std::memcpy(&d, &bits, 8);
            return d;
        });
        return;
    case ElementType::BFloat16: // bfloat16 is the top half of a float32
        decodeAll<quint16>(src, count, strideBytes >= 0 ? strideBytes : 2, bigEndian, dst,
                           [](quint16 h) { return double(floatFromBits(quint32(h) << 16)); });
        return;
    case ElementType::Float16:
        decodeAll<quint16>(src, count, strideBytes >= 0 ? strideBytes : 2, bigEndian, dst, halfToDouble);
        return;
    case ElementType::Float8E5M2: // E5M2 is the top byte of a float16
        decodeAll<quint8>(src, count, strideBytes >= 0 ? strideBytes : 1, false, dst, [](quint8 b) { return halfToDouble(quint16(b) << 8); });
        return;
    case ElementType::Float8E4M3:
        decodeAll<quint8>(src, count, strideBytes >= 0 ? strideBytes : 1, false, dst, e4m3ToDouble);
        return;
    case ElementType::Unsupported: return;
    }
}

} // namespace rankscope
