// A nanotron step folder's model (NanotronLayout) as the unsharded state dict. Each parameter's
// files are joined as nanotron's own loader does (serialize/weights.py load_sharded_param_latest →
// utils.py merge_and_shard_tp_tensors: `unsharded[global_slices] = shard[local_slices]` for every
// pair of every file's metadata "local_global_slices_pairs", into a tensor of "unsharded_shape").
// The slices, not the rank order, place each block: a column-parallel qkv_proj holds
// [q_r; k_r; v_r] on rank r, and its three pairs put each part into the fused [Q; K; V].
// The pairs must tile the unsharded tensor exactly, each local block inside its file's tensor and no
// two blocks of a file naming the same elements, so the joined tensor is made of exactly the bytes
// the files hold.
#pragma once

#include "io/CheckpointReader.h"

#include <QHash>
#include <QList>

namespace rankscope {

struct NanotronFileName;

class NanotronReader : public CheckpointReader {
public:
    // `files`: the step folder's checkpoint_metadata.json, then its parameter files under model/.
    static std::unique_ptr<NanotronReader> open(const QStringList &files, QString *error);

    QString formatName() const override { return QStringLiteral("nanotron"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    QVariantMap modelConfig() const override { return m_config; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

public:
    // [start, stop) along each dimension.
    struct Box {
        QList<qint64> start, stop;
    };
    struct Block {
        Box local, global;
    };
    // One pair list as nanotron writes it ("0,256,None|None,None,None#0,256,None|None,None,None;…"),
    // resolved against the local and unsharded shapes; nullopt and why when it cannot be.
    static std::optional<QList<Block>> parseSlices(const QString &text, const QList<qint64> &local, const QList<qint64> &unsharded, QString *error);
    // "(768, 512)", "(np.int64(768), 512)", "(32,)".
    static std::optional<QList<qint64>> parseShape(const QString &text);

private:
    struct Piece {
        QString path;
        QList<Block> blocks;
    };
    struct Parameter {
        TensorInfo info;
        QList<Piece> pieces;
    };
    NanotronReader() = default;
    bool load(const QStringList &files, QString *error);
    QString joinParameter(const QString &name, const QStringList &paths, Parameter &parameter);
    // joinParameter's checks: the files' shard grid, and the blocks covering the tensor once.
    static QString shardGridProblem(const QStringList &paths, const QList<NanotronFileName> &names);
    static QString coverageProblem(const QList<Piece> &pieces, const QList<qint64> &unsharded);

    QList<TensorInfo> m_tensors;
    QHash<QString, Parameter> m_parameters;
    QVariantMap m_config;
};

} // namespace rankscope
