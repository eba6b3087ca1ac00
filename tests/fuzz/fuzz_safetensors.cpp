// A safetensors file: header validation, then every 2-D tensor read.
#include "FuzzInput.h"
#include "io/safetensors/SafetensorsReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString path = rankscope::fuzz::writeInput(data, size, QStringLiteral("model.safetensors"));
    QString error;
    if (auto reader = rankscope::SafetensorsReader::open(path, &error))
        for (const rankscope::TensorInfo &t : reader->tensors())
            if (t.shape.size() == 2)
                reader->readMatrix(t.name);
    return 0;
}
