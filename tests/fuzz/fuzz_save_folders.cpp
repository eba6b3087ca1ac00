// A whole save folder from arbitrary bytes (FolderFuzzInput.h): Megatron-LM's iter_N/mp_rank_TT_PPP/
// and tracker, NeMo's .nemo tars and 2.x checkpoint folders, DeepSpeed tags, shard sets. Discovery,
// the claimed-rank checks, the shard merges and every matrix read never crash, hang or allocate what
// the folder does not hold.
#include "FolderFuzzInput.h"

#include <QTemporaryDir>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("run"));
    rankscope::fuzz::writeFolder(QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)), folder);
    rankscope::fuzz::folderProblems(folder);
    return 0;
}
