// Everything known of one checkpoint before its matrices are read: its step and where that came
// from, its model's config, and how its tensors become typed matrices. The analysis and
// `rankscope info` both describe a checkpoint through this one function.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"
#include "io/CheckpointReader.h"
#include "model/CheckpointLayout.h"
#include "model/ModelConfig.h"

#include <optional>

namespace rankscope {

struct CheckpointPlan {
    std::optional<qint64> step;
    QString stepSource; // "trainer_state.json", "iter_num in the file", "the name", …
    ModelConfig config;
    CheckpointLayout layout;

    // Its step from CheckpointSteps::stepOf, with the reader open.
    static CheckpointPlan make(const CheckpointFile &file, const CheckpointReader &reader, const TensorNameRules &rules);
};

} // namespace rankscope
