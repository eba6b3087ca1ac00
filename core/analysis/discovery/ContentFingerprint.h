// A cheap hash of what a checkpoint holds, part of its identity beside size and modification
// time: a checkpoint replaced by another of the same size and mtime (cp -p, rsync -a, tar x) is
// analysed again instead of keeping stale metrics. It covers a few blocks of each file (the first
// and last 64 KiB, 16 blocks of 4 KiB spread evenly between: a header, and samples of the
// tensors; a file up to 128 KiB, a config or a tracker, is hashed whole), every file of a checkpoint
// folder (of its whole subtree when the folder is the checkpoint's alone: Megatron's rank folders,
// NeMo 2's weights/ and context/), and the sidecars that give the checkpoint its step and model
// config (meta_N.json, trainer_state.json, config.json, adapter_config.json). What it can miss: a
// change inside a large file that leaves its size, its first and last 64 KiB and its 16 sampled
// blocks as they were, with the same modification time.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

#include <QString>

namespace rankscope {

class ContentFingerprint {
public:
    // SHA-256, hex; never empty.
    static QString of(const CheckpointFile &checkpoint);
};

} // namespace rankscope
