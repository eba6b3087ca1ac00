// Recognises a torch.distributed.checkpoint folder as one checkpoint and gives each of its files a
// role: `.metadata` the index, each `.distcp` a chunk file, Megatron's metadata.json and common.pt
// sidecars of it. A NeMo 2 checkpoint (a folder holding weights/, a DCP folder, and context/) is
// one checkpoint too, read from weights/.
#pragma once

#include "io/FolderWeights.h"

namespace rankscope {

class DcpFolderLayout {
public:
    // Fills `result` (its one group, every file, its subfolders) and returns true when the folder is
    // such a checkpoint; leaves it untouched and returns false otherwise.
    static bool read(const QString &folder, FolderWeights &result);
    // Why a file is left out when it is a DCP chunk file but its folder has no .metadata (being
    // written, or incomplete); empty for any other file.
    static QString orphanChunkReason(const QString &fileName);

private:
    static void classifyFiles(const QString &folder, const QString &writer, WeightsGroup &group, FolderWeights &result, bool listSubfolders);
};

} // namespace rankscope
