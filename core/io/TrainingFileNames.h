// What a training run's files are called: the suffixes weights are saved under, and the files
// training writes beside them that are never weights. Names only; formats are told by content.
#pragma once

#include <QString>
#include <QStringList>

namespace rankscope {

// Suffixes of files that may hold a checkpoint's weights ("pt", "safetensors", …); the format
// itself is still detected by content.
const QStringList &weightFileSuffixes();
// What training writes beside the weights, known by name and never weights: optimizer, scheduler,
// gradient scaler and RNG state, trainer arguments and state, tokenizer files, configs, TensorBoard
// event files, logs and images. The kind ("optimizer state", "tokenizer", …), or empty.
QString trainingSidecarKind(const QString &fileName);
// optimizer.pt, optim_000100_rank0.pt, scheduler.pt, scaler.pt, rng_state_0.pth, training_args.bin, …
bool isTrainingSidecar(const QString &fileName);

} // namespace rankscope
