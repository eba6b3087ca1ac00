// What training writes beside its weights that is never weights, by name (the suffixes weights are
// saved under are the format table's: weightFileSuffixes in io/CheckpointFormats.h).
#pragma once

#include <QString>
#include <QStringList>

namespace rankscope {

// What training writes beside the weights, known by name and never weights: optimizer, scheduler,
// gradient scaler and RNG state, trainer arguments and state, tokenizer files, configs, TensorBoard
// event files, logs and images. The kind ("optimizer state", "tokenizer", …), or empty.
QString trainingSidecarKind(const QString &fileName);
// optimizer.pt, optim_000100_rank0.pt, scheduler.pt, scaler.pt, rng_state_0.pth, training_args.bin, …
bool isTrainingSidecar(const QString &fileName);

} // namespace rankscope
