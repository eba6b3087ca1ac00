// Megatron-DeepSpeed's tensor-parallel ranks in one DeepSpeed tag: megatron/checkpointing.py
// save_checkpoint with --deepspeed (microsoft/Megatron-DeepSpeed f4157bea69, 2024-12) has the engine
// save mp_rank_TT_model_states.pt per tensor-parallel rank (deepspeed/runtime/engine.py
// _get_ckpt_name), each that rank's share of the model under `module` (with --no-pipeline-parallel,
// the legacy GPTModel's state_dict_for_save_checkpoint: the nested language_model dict) and
// Megatron's client state merged beside it (args, checkpoint_version, iteration). The shares are
// joined as a Megatron legacy save's are (MegatronShardMerge), their split axes told by Megatron's
// names and the args' head and group counts. Ranks that carry no Megatron args are refused, named:
// how their tensors split is then the model's own code, not in the checkpoint.
#pragma once

#include "io/CheckpointReader.h"
#include "io/megatron/MegatronShardMerge.h"
#include "io/torch/TorchCheckpointReader.h"

#include <memory>
#include <vector>

namespace rankscope {

class MegatronDeepSpeedReader : public CheckpointReader {
public:
    // Whether a tag's files hold several model-parallel ranks' full model states
    // (mp_rank_TT_model_states.pt, not ZeRO-3's per-data-parallel-rank placeholders).
    static bool isModelParallel(const QStringList &files);
    static std::unique_ptr<MegatronDeepSpeedReader> open(const QStringList &files, QString *error);

    QString formatName() const override { return m_format; }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    std::optional<qint64> step() const override { return m_step; }
    QVariantMap modelConfig() const override { return m_config; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    MegatronDeepSpeedReader() = default;
    bool load(const QStringList &files, QString *error);
    bool openRank(int rank, const QString &path, QList<MegatronShardPart> &parts, QStringList &unsafe, QString *error);

    std::vector<std::unique_ptr<TorchCheckpointReader>> m_ranks;
    MegatronShardMerge m_merge;
    QList<TensorInfo> m_tensors;
    QVariantMap m_config;
    std::optional<qint64> m_step;
    QString m_format;
};

} // namespace rankscope
