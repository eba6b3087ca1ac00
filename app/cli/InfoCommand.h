// `rankscope info FOLDER`: every file and folder with what it was taken for and why, the
// checkpoints found (step, where the step came from, config.json used), and for one of them every
// 2-D tensor with the layer and type it is assigned or why it is not analysed.
#pragma once

#include "CommandOptions.h"

#include <QStringList>
#include <optional>

namespace rankscope {

// What `rankscope info` was asked.
struct InfoOptions {
    QString folder;
    QString step = QStringLiteral("last"); // the checkpoint whose tensors are listed
    std::optional<QString> rules;
    std::optional<QString> suggestRules; // where the draft rules go
    std::optional<QString> base;         // --base: how the listed checkpoint's LoRA updates merge into it
};

// arguments: "info" and what follows it.
ParsedOptions<InfoOptions> parseInfoOptions(const QStringList &arguments);
int runInfoCommand(const QStringList &arguments);

} // namespace rankscope
