// One iteration of a Megatron-LM legacy save: every rank's model_optim_rng.pt opened (as torch.save
// archives, never executed), the model under 'model' (or 'model0', 'model1', … for a virtual
// pipeline) flattened to dotted names, and the ranks' shares joined into the unsharded model by
// MegatronShardMerge. The shape of the model comes from the pickled args (an argparse.Namespace).
// The optimizer and RNG state beside the model in each pickle are never read.
#pragma once

#include "io/CheckpointReader.h"
#include "io/megatron/MegatronShardMerge.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QStringList>
#include <memory>
#include <vector>

namespace rankscope {

class MegatronCheckpointReader : public CheckpointReader {
public:
    // `files`: every rank's model_optim_rng.pt of one iteration (mp_rank_TT[_PPP]/…).
    static std::unique_ptr<MegatronCheckpointReader> open(const QStringList &files, QString *error);

    QString formatName() const override { return QStringLiteral("megatron"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    std::optional<qint64> step() const override { return m_step; }
    QVariantMap modelConfig() const override { return m_config; }
    // "TP 2 × PP 2, layers per stage 2 + 2": how the iteration was sharded.
    QString sharding() const { return m_sharding; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    MegatronCheckpointReader() = default;
    bool load(const QStringList &files, QString *error);
    // The parallel sizes the args give, checked against the ranks' folders; nullopt and why when
    // the iteration cannot be joined (expert parallelism).
    std::optional<MegatronParallelism> parallelism(const QList<MegatronShardPart> &parts, QString *error) const;

    std::vector<std::unique_ptr<TorchCheckpointReader>> m_ranks;
    MegatronShardMerge m_merge;
    QList<TensorInfo> m_tensors; // the merged ones that can be read
    std::optional<qint64> m_step;
    QVariantMap m_config;
    QString m_sharding;
};

} // namespace rankscope
