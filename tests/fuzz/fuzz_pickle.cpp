// The non-executing unpickler on arbitrary bytes: no crash, no hang, bounded memory.
#include "io/torch/PickleReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const rankscope::PickleResult result = rankscope::readPickle(QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)));
    return result.root ? 0 : 0;
}
