// Meta's own Llama checkpoints, as meta-llama's download writes them and llama/generation.py
// (Llama.build) loads them: one folder holding params.json (ModelArgs: dim, n_layers, n_heads,
// n_kv_heads, vocab_size, multiple_of, ffn_dim_multiplier, …) and consolidated.00.pth …
// consolidated.NN.pth, one torch.save state dict per model-parallel rank; the number of files is the
// model-parallel size (Llama.build asserts it equals the world size). Each file holds its rank's share
// of fairscale's parallel layers (llama/model.py, fairscale/nn/model_parallel/layers.py):
// - ColumnParallelLinear (attention.wq, wk, wv; feed_forward.w1, w3; output): a block of rows, the
//   rank's n_heads / MP query heads (n_kv_heads / MP key/value heads) in order;
// - RowParallelLinear (attention.wo, feed_forward.w2): a block of columns;
// - tok_embeddings: ParallelEmbedding in Llama 1 and 2 (meta-llama/llama) splits the embedding
//   dimension (columns), VocabParallelEmbedding in Llama 3 (meta-llama/llama-models) the vocabulary
//   (rows): told apart by the shard's width against params.json's dim;
// - the RMSNorm weights (attention_norm, ffn_norm, norm) and Llama 1's rope.freqs: whole on every rank.
// transformers' convert_llama_weights_to_hf.py joins them the same way (torch.cat on dim 0 for wq,
// wk, wv, w1, w3 and output, on dim 1 for wo and w2, tok_embeddings on dim 1, or 0 for Llama 3).
#pragma once

#include "io/megatron/MegatronShardMerge.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QVariantMap>
#include <optional>

namespace rankscope {

class FolderWeights;

// params.json: Llama's ModelArgs as the download writes them (nested under "model" in some, as the
// conversion script's params.get("model", params) reads them).
struct MetaLlamaParams {
    qint64 dim = 0, layers = 0, heads = 0, kvHeads = 0; // kvHeads = n_heads when n_kv_heads is not given
    qint64 vocab = 0;                                    // 0 when not given (Llama 1 and 2 write -1)
    QVariantMap values;                                  // as written
    QString problem;                                     // why it is not Llama's ModelArgs
    bool ok() const { return problem.isEmpty(); }
    qint64 headDim() const { return heads > 0 ? dim / heads : 0; }

    static MetaLlamaParams read(const QString &path);
    static MetaLlamaParams fromJson(const QJsonObject &json);
    // What the analysis reads of the model: the keys as written, and under the names the head
    // split reads (num_attention_heads, num_key_value_heads, hidden_size, num_hidden_layers, head_dim).
    QVariantMap modelConfig() const;
    // "dim 16, n_heads 4, n_kv_heads 2, n_layers 2": for messages.
    QString summary() const;
};

// How the tensors of one consolidated file are joined with those of the other files, decided from
// the first file's tensors and params.json; nothing is read.
struct MetaShardPlan {
    QHash<QString, MegatronShardMerge::Split> splits;
    // Tensors listed by the merge but not analysed, and why: wk and wv when the files outnumber the
    // key/value heads, which Meta's model code cannot split.
    QHash<QString, QString> refused;
    // Why the files are not the model params.json describes, split over this many files; empty when they are.
    QString error;
    QString embedding; // how tok_embeddings was split, for `info`
};

class MetaLlamaLayout {
public:
    static const QString &paramsName(); // params.json
    // The rank of consolidated.NN.pth, written as Meta writes it (f"consolidated.{rank:02d}.pth");
    // nullopt for another name.
    static std::optional<int> shardNumber(const QString &fileName);

    // Of a folder's weights: its consolidated.NN.pth files beside params.json become one checkpoint
    // of all of them (a file missing, a damaged one, params.json missing or unreadable is its
    // error); a single consolidated.00.pth stays the file it is, its shapes checked against
    // params.json (a file that is one of several shards is refused, naming the files missing).
    static void recognise(const QString &folder, FolderWeights &weights);

    // The split of every tensor of the first file (`shapes`, named `where`) over `files` files, and
    // whether its shapes are what params.json gives.
    static MetaShardPlan plan(const QList<QPair<QString, QList<qint64>>> &shapes, const MetaLlamaParams &params, int files,
                              const QString &where);
};

} // namespace rankscope
