// The format registry: which reader opens a file, a checkpoint folder or a set of shards, told by
// the bytes (a table of formats in CheckpointFormats.cpp, tried in order).
#pragma once

#include "io/CheckpointReader.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <memory>

namespace rankscope {

// Opens a checkpoint, detecting its format by content: a file, or a folder holding one checkpoint.
// Never opens what is not a regular file (a FIFO, a device). On failure returns null and sets
// error to what is wrong (without the file name; callers prefix it).
std::unique_ptr<CheckpointReader> openCheckpoint(const QString &path, QString *error);
// The same for one file, as its format stores it: MXFP4 experts left packed (what a reader of one
// shard among others opens; the checkpoint as a whole decodes them, io/Mxfp4Experts.h).
std::unique_ptr<CheckpointReader> openCheckpointFile(const QString &path, QString *error);
// Whether a file's first 16 bytes are those of a format known by its bytes alone (a zip archive as
// torch.save and .npz write, HDF5, torch.save's format before 1.6), whatever the file is called.
bool hasCheckpointSignature(const QByteArray &head);

// Suffixes of files that may hold a checkpoint's weights ("pt", "safetensors", …), from the format
// table; the format itself is still detected by content.
const QStringList &weightFileSuffixes();

// openCheckpoint's error for bytes no reader recognises (not a truncated file of a known format):
// such a file is not a checkpoint still being written, and is never waited for.
inline const QString kUnrecognisedFormat = QStringLiteral("not a recognised checkpoint format");

// How one checkpoint's weights lie on disk: one file; an index and its shards; shards named
// -0000k-of-0000n without an index; .npy arrays, one per tensor; a torch.distributed.checkpoint
// folder (its .metadata, then its .distcp files); a Megatron-LM iteration's
// mp_rank_*/model_optim_rng.pt files, one per tensor-parallel rank and pipeline stage, merged; a
// DeepSpeed tag's model states and partitions (io/deepspeed/DeepSpeedCheckpointReader.h); Meta's Llama
// consolidated.NN.pth files, one per model-parallel rank, merged by params.json (io/metallama/MetaLlamaLayout.h).
enum class WeightsLayout { OneFile, ShardIndex, NamedShards, NpyArrays, DistributedCheckpoint, MegatronShards, DeepSpeedTag, MetaModelParallel, NanotronParameters };
// Opens weights laid out so: `files` is the file, the index (then its shards), the shards, the
// arrays, a DCP folder's .metadata (then its chunk files), a Megatron iteration's rank files, a
// DeepSpeed tag's files, Meta's consolidated files in rank order (then params.json), or a nanotron
// step folder's checkpoint_metadata.json then its parameter files. MXFP4 experts are presented
// dequantized (io/Mxfp4Experts.h).
std::unique_ptr<CheckpointReader> openCheckpointFiles(WeightsLayout layout, const QStringList &files, QString *error);

} // namespace rankscope
