// A first draft of naming rules for tensors no rule types (`rankscope info --suggest-rules`): one rule
// per distinct name pattern, its layer (and expert) numbers turned into groups, and the type guessed
// from the module's name where it says it. The user checks and edits it rather than writing from nothing.
#pragma once

#include "model/CheckpointLayout.h"

#include <QJsonDocument>

namespace rankscope {

class RuleSuggestions {
public:
    static QJsonDocument draft(const QList<LeftOutTensor> &tensors, const ModelConfig &config);
    // "^model\.blocks\.(?<layer>\d+)\.attn\.qkv\.weight$" for "model.blocks.3.attn.qkv.weight".
    static QString patternFor(const QString &tensorName);
};

} // namespace rankscope
