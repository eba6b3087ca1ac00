// A tiny Trainer + PEFT LoRA run and the base model it adapts, for the tests of --base as a user
// meets it (the command line, the window): checkpoint-5/ and checkpoint-10/ hold
// adapter_model.safetensors (layer 0's q_proj adapted, r = 2, lora_alpha = 4, PEFT's names),
// adapter_config.json and trainer_state.json; the base folder holds model.safetensors with q_proj
// and v_proj of layer 0 (Hugging Face's names), v_proj not adapted. Gaussian values, fixed seed.
#pragma once

#include "FormatWriters.h"

#include <QDir>
#include <QFile>
#include <random>

namespace rankscope::test {

inline void writeTinyLoraRun(const QString &run, const QString &base)
{
    std::mt19937_64 rng(31);
    std::normal_distribution<float> normal;
    const auto matrix = [&](const QString &name, int rows, int cols, float scale) {
        QByteArray data;
        for (int i = 0; i < rows * cols; ++i) {
            const float v = scale * normal(rng);
            data.append(reinterpret_cast<const char *>(&v), sizeof v);
        }
        return SafeTensor{name, "F32", {rows, cols}, data};
    };
    const auto save = [](const QString &path, const QByteArray &bytes) {
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(bytes);
    };
    save(QDir(base).filePath("model.safetensors"), safetensorsFile({matrix("model.layers.0.self_attn.q_proj.weight", 16, 16, 0.2f),
                                                                     matrix("model.layers.0.self_attn.v_proj.weight", 16, 16, 0.2f)}));
    for (int step : {5, 10}) {
        const QString folder = QDir(run).filePath(QStringLiteral("checkpoint-%1").arg(step));
        QDir().mkpath(folder);
        save(QDir(folder).filePath("adapter_model.safetensors"),
             safetensorsFile({matrix("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", 2, 16, 0.5f),
                              matrix("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", 16, 2, 0.5f)}));
        save(QDir(folder).filePath("adapter_config.json"),
             R"({"peft_type": "LORA", "r": 2, "lora_alpha": 4, "target_modules": ["q_proj"], "base_model_name_or_path": "meta-llama/Llama-3.2-1B"})");
        save(QDir(folder).filePath("trainer_state.json"), QByteArray("{\"global_step\": ") + QByteArray::number(step) + "}");
    }
}

} // namespace rankscope::test
