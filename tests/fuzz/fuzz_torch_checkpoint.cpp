// A torch.save archive end to end: zip directory, data.pkl, and every 2-D tensor read.
#include "FuzzInput.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString path = rankscope::fuzz::writeInput(data, size, QStringLiteral("checkpoint.pt"));
    QString error;
    if (auto reader = rankscope::openCheckpoint(path, &error))
        for (const rankscope::TensorInfo &t : reader->tensors())
            if (t.shape.size() == 2)
                reader->readMatrix(t.name);
    return 0;
}
