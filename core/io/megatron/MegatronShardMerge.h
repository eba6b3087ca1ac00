// The tensors of one Megatron-LM model split over tensor-parallel ranks and pipeline stages (a
// legacy save's mp_rank_TT_PPP/model_optim_rng.pt files, a model-parallel .nemo's members), joined
// into the tensors of the unsharded model, as Megatron's own layers split them:
// - column-parallel linears (fused QKV, fc1, word embeddings, the output layer) hold a block of rows
//   each and are joined on rows: a TP shard of linear_qkv holds whole query groups, so the joined
//   rows keep Megatron's [group][q × heads/groups, k, v][head_dim] order;
// - a gated fc1 (swiglu) holds its own [gate_t; up_t] on each rank (torch.chunk(x, 2, dim=-1) in
//   the MLP's glu), so the unsharded one is [gate_0; …; gate_n; up_0; …; up_n];
// - row-parallel linears (the attention output and fc2) are joined on columns;
// - norms, position embeddings, routers and row-parallel biases are replicated: rank 0's is taken.
// A 2-D tensor whose split is not known is refused when there are several TP ranks, never guessed.
// Each stage's local layer numbers (layers.N under encoder/decoder) become global ones: a stage's
// offset is the layers of the stages before it (chunk-major for a virtual pipeline).
#pragma once

#include "io/CheckpointReader.h"
#include "io/torch/PickleValue.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QVariantMap>
#include <functional>
#include <optional>

namespace rankscope {

class TorchCheckpointReader;

// One rank's share of the model: the tensors of one model chunk of one (TP rank, PP stage).
struct MegatronShardPart {
    int tensorRank = 0;
    int pipelineRank = 0;
    int virtualChunk = 0;  // model0, model1, … under a virtual pipeline; 0 otherwise
    QString where;         // "mp_rank_01_000/model_optim_rng.pt": how messages name it
    TorchCheckpointReader *reader = nullptr;
    QList<QPair<QString, TensorRecord>> tensors; // dotted names, local layer numbers
};

struct MegatronParallelism {
    int tensor = 1;
    int pipeline = 1;
    int virtualChunks = 1;
    std::optional<qint64> numLayers; // args.num_layers / num_layers of the yaml, checked against the stages
    bool gatedLinearUnit = false;
};

// A config's positive integer (args.tensor_model_parallel_size, num_layers of a yaml, …); 0 when
// absent or not positive.
qint64 positiveField(const QVariantMap &config, const char *key);

// What Megatron's args (or NeMo's yaml) add to the sizes the ranks found: their tensor and pipeline
// counts when given (a last rank missing is then found, not taken for a smaller TP), the layers
// and whether fc1 is gate|up.
void applyConfig(const QVariantMap &config, MegatronParallelism &sizes);

class MegatronShardMerge {
public:
    // How a tensor lies across the tensor-parallel ranks: whole on each (rank 0's taken), a block of
    // rows or of columns on each, or a gated fc1's [gate_t; up_t] on each.
    enum class Split { Replicated, Rows, GatedRows, Columns };
    // Another writer's splits (Meta's Llama shards, fairscale's parallel layers): the split of a
    // tensor by its name, or nullopt when it is not known; such a tensor is refused with
    // `unknown`, whose %1 is the number of ranks. Without one, Megatron's own names decide.
    struct SplitRule {
        std::function<std::optional<Split>(const QString &name)> splitOf;
        QString unknown;
    };
    void setSplitRule(SplitRule rule) { m_rule = std::move(rule); }

    // The tensors of a (nested) state dict as dotted names: Megatron's legacy models save
    // {'language_model': {'embedding': {'word_embeddings': {'weight': T}}, 'encoder': {'layers.0.…': T}}}.
    static QList<QPair<QString, TensorRecord>> flatten(PickleRef dict);

    // Checks that every (TP rank, stage, chunk) is there once, that the ranks of a stage hold the
    // same tensors with shapes that join, and that the stages' layers add up; then lists the
    // unsharded tensors. Nothing is read or allocated.
    bool build(const QList<MegatronShardPart> &parts, const MegatronParallelism &parallelism, QString *error);

    QList<TensorInfo> tensors() const { return m_tensors; }
    // Tensors that are not listed, and why (a 2-D tensor of unknown split under TP > 1).
    const QList<QPair<QString, QString>> &refused() const { return m_refused; }
    // What a reader lists: each merged tensor to `list`, or to `refuse` with its reason (the
    // merge's refusals, a stacked tensor's storage problem, or `problem`'s own for that tensor).
    void collect(const std::function<void(const TensorInfo &)> &list, const std::function<void(const QString &, const QString &)> &refuse,
                 const std::function<QString(const TensorInfo &)> &problem = {}) const;
    // Each stage's local layer count and its offset, for what `info` says.
    QString layerSummary() const { return m_layerSummary; }

    // rows × cols of the unsharded tensor (one matrix of a 3-D one when slice ≥ 0), as stored:
    // every shard is read (each checked against the bytes it has) before the joined one is built.
    StoredRead read(const QString &name, qint64 slice, qint64 rows, qint64 cols) const;
    // Why a stack of matrices (3-D) cannot be what it declares: a shard's storage holds fewer bytes
    // than its shape needs (checked by reading its last element, nothing allocated). Empty when it fits.
    QString storageProblem(const QString &name) const;

private:
    struct Piece {
        TorchCheckpointReader *reader = nullptr;
        TensorRecord record;
        QString where;
    };
    struct Joined {
        Split split = Split::Replicated;
        QList<Piece> pieces; // by TP rank
    };
    static std::optional<Split> splitOf(const QString &name, bool gated);
    bool renumberStages(const QList<MegatronShardPart> &parts, const MegatronParallelism &parallelism,
                        QHash<const MegatronShardPart *, QHash<QString, QString>> &renamed, QString *error);
    bool joinStage(const QList<const MegatronShardPart *> &ranks, const QHash<QString, QString> &names, bool gated, QString *error);

    QList<TensorInfo> m_tensors;
    QHash<QString, Joined> m_joined;
    QList<QPair<QString, QString>> m_refused;
    QString m_layerSummary;
    SplitRule m_rule;
};

} // namespace rankscope
