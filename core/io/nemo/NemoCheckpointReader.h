// A NeMo 1.x .nemo file: a tar archive (nemo/core/connectors/save_restore_connector.py,
// tarfile.open(path, "w:"), members "./…") of model_config.yaml and the weights torch.save wrote:
// ./model_weights.ckpt, or one per model-parallel rank (nlp_overrides.py NLPSaveRestoreConnector):
// ./mp_rank_TT/model_weights.ckpt (PP 1) or ./tp_rank_TT_pp_rank_PPP/model_weights.ckpt. Each member
// is read in place (a torch.save zip inside the tar), never extracted; the ranks' shares are joined
// as Megatron's are (MegatronShardMerge), the model's shape read from model_config.yaml. With
// dist_ckpt the weights are a torch_dist folder, ./model_weights/ (DistributedCheckpointReader,
// reading its members in place).
#pragma once

#include "io/CheckpointReader.h"
#include "io/dcp/DistributedCheckpointReader.h"
#include "io/megatron/MegatronShardMerge.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QByteArray>
#include <memory>
#include <vector>

namespace rankscope {

class TarDirectory;

class NemoCheckpointReader : public CheckpointReader {
public:
    static std::unique_ptr<NemoCheckpointReader> open(const QString &path, QString *error);
    // The flat top-level scalars of model_config.yaml that give the model's shape (num_layers,
    // hidden_size, num_attention_heads, num_query_groups, kv_channels, activation, the parallel
    // sizes…), each "key: value" at the start of a line; nested sections are not read.
    static QVariantMap configFromYaml(const QByteArray &yaml);
    // One YAML scalar as OmegaConf and yaml.safe_dump write it: quoted text, null or ~ (invalid),
    // true/false, an integer, a real, else the text; a trailing " # comment" dropped.
    static QVariant yamlValue(const QString &value);

    QString formatName() const override;
    std::optional<qint64> step() const override;
    QList<TensorInfo> tensors() const override { return m_tensors; }
    QVariantMap modelConfig() const override { return m_config; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    NemoCheckpointReader() = default;
    bool load(const QString &path, QString *error);
    bool openDistributed(const QString &path, const TarDirectory &tar, QString *error);
    bool openRanks(const QString &path, const TarDirectory &tar, QList<MegatronShardPart> &parts, QStringList &unsafe, QString *error);

    std::vector<std::unique_ptr<TorchCheckpointReader>> m_ranks;
    MegatronShardMerge m_merge;
    std::unique_ptr<DistributedCheckpointReader> m_distributed; // the weights when they are ./model_weights/
    QList<TensorInfo> m_tensors; // the merged ones that can be read
    QVariantMap m_config;
};

} // namespace rankscope
