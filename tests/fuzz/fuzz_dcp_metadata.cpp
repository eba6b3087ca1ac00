// A torch.distributed.checkpoint folder whose .metadata is arbitrary bytes, beside a valid chunk
// file: the allow-list, the geometry checks and the stitching of every matrix never crash, hang or
// allocate what the files do not hold.
#include "../core/DcpCheckpointWriter.h"
#include "io/CheckpointFormats.h"

#include <QTemporaryDir>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTemporaryDir dir;
    static const bool written = rankscope::test::DcpFolderWriter::write(dir.path(), rankscope::test::dcpFuzzFolder());
    if (!written || !rankscope::test::DcpFolderWriter::writeBytes(dir.filePath(".metadata"), QByteArray(reinterpret_cast<const char *>(data), qsizetype(size))))
        return 0;
    QString error;
    const auto reader = rankscope::openCheckpoint(dir.path(), &error);
    if (reader)
        for (const rankscope::TensorInfo &t : reader->tensors())
            reader->readMatrix(t.name, t.shape.size() == 3 ? 0 : -1);
    return 0;
}
