// The .npy header parser in memory, and the same bytes as an .npz archive read end to end.
#include "FuzzInput.h"
#include "io/numpy/NpyFormat.h"
#include "io/numpy/NumpyReaders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    QString error;
    if (const auto header = rankscope::NpyFormat::parseHeader(bytes, &error))
        if (header->shape.size() == 2)
            if (const auto read = rankscope::NpyFormat::decodeMatrix(*header, bytes.mid(header->dataOffset), header->shape[0], header->shape[1]); read.ok())
                read.matrix.widened(); // widening reads every element the header promised
    const QString path = rankscope::fuzz::writeInput(data, size, QStringLiteral("arrays.npz"));
    if (auto reader = rankscope::NpzReader::open(path, &error))
        for (const rankscope::TensorInfo &t : reader->tensors())
            reader->readMatrix(t.name);
    return 0;
}
