// Widening stored tensor elements (float32/16, bfloat16, float64, float8 E4M3/E5M2, either byte
// order) to double.
#pragma once

#include <QString>
#include <QtGlobal>

namespace rankscope {

// Bytes per element for a supported dtype name, 0 for an unsupported one.
int elementSize(const QString &dtype);

// A dtype resolved once, so that widening a block does not compare dtype names per element.
enum class ElementType { Unsupported, Float64, Float32, Float16, BFloat16, Float8E4M3, Float8E5M2 };
ElementType elementTypeOf(const QString &dtype);

// Converts count elements to double: element i at src + i·strideBytes (−1: packed; 0 repeats one element).
// src need not be aligned.
void decodeElements(ElementType type, const char *src, qint64 count, bool bigEndian, double *dst, qint64 strideBytes = -1);
inline void decodeElements(const QString &dtype, const char *src, qint64 count, bool bigEndian, double *dst)
{
    decodeElements(elementTypeOf(dtype), src, count, bigEndian, dst);
}

} // namespace rankscope
