// DeepSpeed checkpoints (deepspeed/runtime/engine.py `save_checkpoint`, read as
// deepspeed/utils/zero_to_fp32.py reads them; layout of DeepSpeed 0.9 – 0.16): a save folder holds
// `latest` (the last tag written, no newline), `zero_to_fp32.py`, and one folder per tag
// (`global_step300/`). A tag holds `mp_rank_00_model_states.pt` (the full weights under `module`
// up to ZeRO-2) or, under ZeRO-3, `zero_pp_rank_R_mp_rank_00_model_states.pt` per data-parallel
// rank, and `[bf16_]zero_pp_rank_R_mp_rank_00_optim_states.pt`: each rank's fp32 flat partitions,
// where ZeRO-3 keeps the only copy of the weights. The pickles are read without running anything.
#pragma once

#include "io/CheckpointReader.h"
#include "io/FolderWeights.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <memory>
#include <vector>

namespace rankscope {

// What engine.py's `_get_ckpt_name` / `_get_rank_zero_ckpt_name` made a file's name from.
struct DeepSpeedFileName {
    enum class Kind {
        None,            // not a DeepSpeed name
        ModelStates,     // mp_rank_TT_model_states.pt: module, param_shapes, global_steps, …
        RankModelStates, // zero_pp_rank_R_mp_rank_TT_model_states.pt (ZeRO-3, one per DP rank)
        OptimStates,     // [bf16_]zero_pp_rank_R_mp_rank_TT_optim_states.pt
        Expert,          // MoE: expert_E_…_model_states.pt, layer_L_expert_E_…, expp_rank_R_…_optim_states.pt
    };
    Kind kind = Kind::None;
    int dpRank = -1;
    int mpRank = -1;
    bool bf16 = false;

    static DeepSpeedFileName parse(const QString &fileName);
};

// Whether a folder is one DeepSpeed tag and, if so, its files as one checkpoint: the one weights
// group of the folder (layout DeepSpeedTag), every DeepSpeed file given its role and the reason.
// Called by FolderWeights::read once it has classified the folder's files.
class DeepSpeedTagFolder {
public:
    static void recognise(const QString &folder, FolderWeights &weights);
    // What a tag's files say of how it was saved, from their names alone ("ZeRO-3 over 4 ranks,
    // weights rebuilt from the fp32 partitions"), for `info`'s "taken for".
    static QString describe(const QStringList &files, bool moduleHoldsWeights);
    // Whether an unsafe global is one of the classes DeepSpeed pickles into every checkpoint: its
    // config objects (DeepSpeedConfig and the config models inside it), its enums (ZeroStageEnum)
    // and its loss scalers. Told by what they are (a class of deepspeed's named …Config, …Enum,
    // …Scaler), not by the package alone: a pickle can name any attribute of any module.
    static bool isOwnClass(const QString &global);
};

// One tag's weights: under ZeRO-3 (and ZeRO-1/2 saved without `module`) each parameter is rebuilt
// from the ranks' fp32 partitions exactly as zero_to_fp32.py rebuilds it, reading only the elements
// of the matrix asked for; otherwise `module` of mp_rank_00_model_states.pt is read.
class DeepSpeedCheckpointReader : public CheckpointReader {
public:
    // `files`: the tag's DeepSpeed files, in any order.
    static std::unique_ptr<DeepSpeedCheckpointReader> open(const QStringList &files, QString *error);

    QString formatName() const override { return QStringLiteral("deepspeed"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    std::optional<qint64> step() const override { return m_step; }
    int zeroStage() const { return m_zeroStage; }
    int worldSize() const { return m_worldSize; }
    bool rebuiltFromPartitions() const { return !m_params.empty(); }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    // A run of elements of one 1-D tensor in one file.
    struct Piece {
        int file = 0;
        TensorRecord record;
        qint64 first = 0;
        qint64 count = 0;
    };
    // The 1-D tensors one rank (ZeRO-3) or one group across ranks (ZeRO-2) lays end to end.
    struct Flat {
        QList<Piece> segments; // whole tensors, first = 0
        qint64 numel = 0;
    };
    // A rebuilt parameter: the concatenation of its pieces, row-major in its shape.
    struct Rebuilt {
        QList<Piece> pieces;
    };

    DeepSpeedCheckpointReader() = default;
    bool load(const QStringList &files, QString *error);
    bool openFiles(const QStringList &files, QString *error);
    bool readOptimizerStates(QString *error);
    bool rebuildZero3(QString *error);
    bool rebuildZero2(QString *error);
    bool addFrozenZero3(QString *error);
    void listModuleTensors(bool buffersOnly);
    void addSharedParams();
    bool addRebuilt(const QString &name, const QList<qint64> &shape, Rebuilt rebuilt);
    void collectWarnings();
    std::optional<Flat> flatOf(int file, const PickleRef &tensors, const QString &what, QString *error);
    static void appendRange(const Flat &flat, qint64 start, qint64 count, QList<Piece> &out);

    std::vector<std::unique_ptr<TorchCheckpointReader>> m_readers; // model states first, then ranks' partitions
    QStringList m_paths;                                            // the file of each reader
    int m_modelStates = -1;                                         // reader of (rank 0's) model states
    QList<int> m_rankModelStates;                                   // ZeRO-3: each rank's model states, by rank
    QList<int> m_optim;                                             // each rank's partitions, by rank
    QList<PickleRef> m_optimStates;                                 // each rank's optimizer_state_dict
    int m_zeroStage = 0;
    int m_worldSize = 1;
    std::optional<qint64> m_step;
    QList<TensorInfo> m_tensors;
    QHash<QString, qsizetype> m_rebuiltIndex;   // tensor name → m_params
    std::vector<Rebuilt> m_params;
    QSet<QString> m_fromModule;                 // names read from `module` as stored
};

} // namespace rankscope
