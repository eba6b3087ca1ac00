// Widening stored tensor elements (float32/16, bfloat16, float64, float8 E4M3/E5M2, either byte
// order) to double.
#pragma once

#include <QString>
#include <QtGlobal>

namespace rankscope {

// Bytes per element for a supported dtype name, 0 for an unsupported one.
int elementSize(const QString &dtype);

// Converts count elements at src to double. src need not be aligned.
void decodeElements(const QString &dtype, const char *src, qint64 count, bool bigEndian, double *dst);

} // namespace rankscope
