#include "io/TrainingFileNames.h"

#include <QList>
#include <QPair>
#include <QRegularExpression>

namespace rankscope {

QString trainingSidecarKind(const QString &fileName)
{
    // One list, first match wins; every pattern is anchored so that no weights name matches.
    static const QList<QPair<QRegularExpression, QString>> kinds = [] {
        QList<QPair<QRegularExpression, QString>> list;
        auto add = [&](const char *pattern, const char *kind) {
            list.append({QRegularExpression(QLatin1String(pattern), QRegularExpression::CaseInsensitiveOption), QLatin1String(kind)});
        };
        add(R"(^optim.*\.\w+$)", "optimizer state");
        add(R"(^(lr_)?scheduler.*\.\w+$)", "learning-rate scheduler state");
        add(R"(^(grad_?)?scaler.*\.\w+$)", "gradient scaler state");
        add(R"(^(rng_state|random_states).*\.\w+$)", "random number generator state");
        // Accelerate's save_state (checkpointing.py): the samplers' and stateful data loaders' state,
        // and each object registered for checkpointing (custom_checkpoint_{i}.pkl).
        add(R"(^(sampler|dl_state_dict)(_\d+)?\.bin$)", "data loader state");
        add(R"(^custom_checkpoint_\d+\.pkl$)", "an object registered for checkpointing (Accelerate's save_state)");
        // torchtune's intermediate checkpoints: everything but the weights (optimizer, epochs_run, seed).
        add(R"(^recipe_state\.pt$)", "torchtune's recipe state (optimizer, epochs run, seed)");
        add(R"(^(training_args|args|hparams|hyperparameters)\.\w+$)", "training arguments");
        add(R"(^trainer_state\.json$)", "trainer state (step, logs)");
        add(R"(^meta_\d+\.json$)", "checkpoint metadata (step, model config)");
        add(R"(^latest_checkpointed_iteration\.txt$)", "Megatron-LM's tracker (the last complete iteration)");
        add(R"(^(tokenizer.*|special_tokens_map\.json|added_tokens\.json|vocab\.(json|txt)|merges\.txt|spiece\.model|.*\.tiktoken)$)", "tokenizer");
        add(R"(^(config|generation_config|adapter_config|model_config|preprocessor_config)\.json$)", "model configuration");
        add(R"(\.(ya?ml|toml|cfg|ini)$)", "configuration");
        add(R"(^events\.out\.tfevents\.)", "TensorBoard event file");
        add(R"((\.(log|out|err)$)|^(stdout|stderr|log|logs)(\.txt)?$)", "log");
        add(R"(\.(png|jpe?g|gif|svg|pdf|webp|bmp)$)", "image");
        return list;
    }();
    for (const auto &[pattern, kind] : kinds)
        if (pattern.match(fileName).hasMatch())
            return kind;
    return {};
}

bool isTrainingSidecar(const QString &fileName) { return !trainingSidecarKind(fileName).isEmpty(); }

} // namespace rankscope
