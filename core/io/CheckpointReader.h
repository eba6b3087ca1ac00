// One checkpoint file (or sharded set), whatever wrote it: the tensors it holds and, one at a
// time, their values: as stored (for widening a block at a time) or widened to float64. Readers
// never hold more than the tensor being read.
#pragma once

#include "io/StoredMatrix.h"

#include <Eigen/Core>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <memory>
#include <optional>

namespace rankscope {

struct TensorInfo {
    QString name;
    QList<qint64> shape;
    QString dtype; // "float32", "float16", "bfloat16", "float64", or what the file says
};

struct StoredRead {
    StoredMatrix matrix; // [shape[0], shape[1]] as stored, not yet widened
    QString error;       // why it could not be read
    bool ok() const { return error.isEmpty(); }
};

struct MatrixRead {
    RowMajorMatrix values; // [shape[0], shape[1]] as stored (PyTorch's [out, in] for nn.Linear)
    QString error;         // why it could not be read
    bool ok() const { return error.isEmpty(); }
};

class CheckpointReader {
public:
    virtual ~CheckpointReader() = default;
    virtual QString formatName() const = 0;
    virtual QList<TensorInfo> tensors() const = 0;
    // The training step recorded inside the file (nanoGPT's iter_num, …), if any.
    virtual std::optional<qint64> step() const { return std::nullopt; }
    // Model hyper-parameters found inside the file (nanoGPT's model_args), for naming rules.
    virtual QVariantMap modelConfig() const { return {}; }
    // What is wrong with the file as a whole that did not stop its tensors being read (an unsafe
    // pickle): reported with the file, never dropped, so a file is never taken for clean.
    virtual QStringList warnings() const { return m_warnings; }

    // A 2-D tensor, or one matrix of a 3-D one (index `slice` along its first dimension, e.g. one
    // expert of experts stored together), as stored: its bytes and how to widen them. The checks
    // every format shares are made here, once (a limit on what one matrix may take belongs with
    // them); the format then reads the elements.
    StoredRead readStoredMatrix(const QString &name, qint64 slice = -1);
    // The same matrix widened to float64 at once.
    MatrixRead readMatrix(const QString &name, qint64 slice = -1);

protected:
    // rows×cols elements of a tensor whose name, rank, slice and dtype have been checked (slice is -1
    // for a 2-D tensor), as stored. The format checks that its bytes exist before it allocates
    // anything. Errors say what is wrong without the tensor's name: callers prefix it.
    virtual StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) = 0;

    // A tensor the file declares but cannot hold as declared, found when the file is opened: it is
    // never listed (nothing is planned for it, not one of 10⁸ declared experts) and said with the file.
    void refuseTensor(const QString &name, const QString &why);
    QStringList m_warnings;

private:
    QHash<QString, qsizetype> m_lookup; // tensor name → index in tensors(), built on first use
};

// Bytes one element takes as stored, for every dtype a reader lists (int64 and bool too), or 0 for
// one not known: what sizing a declared shape against the bytes stored needs.
int storedElementBytes(const QString &dtype);
// Why a tensor cannot be what its file declares, asked before anything is planned for it: its shape
// and dtype need more than the `storedBytes` the file holds for it (a 1 KB file declaring 10⁸
// stacked experts). Empty when it fits, and for a dtype whose size is not known.
QString declaredSizeProblem(const TensorInfo &tensor, qint64 storedBytes);

// Suffixes of files that may hold a checkpoint's weights ("pt", "safetensors", …); the format
// itself is still detected by content.
const QStringList &weightFileSuffixes();
// What training writes beside the weights, known by name and never weights: optimizer, scheduler,
// gradient scaler and RNG state, trainer arguments and state, tokenizer files, configs, TensorBoard
// event files, logs and images. The kind ("optimizer state", "tokenizer", …), or empty.
QString trainingSidecarKind(const QString &fileName);
// optimizer.pt, optim_000100_rank0.pt, scheduler.pt, scaler.pt, rng_state_0.pth, training_args.bin, …
bool isTrainingSidecar(const QString &fileName);

// Opens a checkpoint, detecting its format by content: a file, or a folder holding one checkpoint.
// Never opens what is not a regular file (a FIFO, a device). On failure returns null and sets
// error to what is wrong (without the file name; callers prefix it).
std::unique_ptr<CheckpointReader> openCheckpoint(const QString &path, QString *error);
// Whether a file's first 16 bytes are those of a format known by its bytes alone (a zip archive as
// torch.save and .npz write, HDF5, torch.save's format before 1.6), whatever the file is called.
bool hasCheckpointSignature(const QByteArray &head);

// openCheckpoint's error for bytes no reader recognises (not a truncated file of a known format):
// such a file is not a checkpoint still being written, and is never waited for.
inline const QString kUnrecognisedFormat = QStringLiteral("not a recognised checkpoint format");

// How one checkpoint's weights lie on disk: one file; an index and its shards; shards named
// -0000k-of-0000n without an index; .npy arrays, one per tensor.
enum class WeightsLayout { OneFile, ShardIndex, NamedShards, NpyArrays };
// Opens weights laid out so: `files` is the file, the index (then its shards), the shards, or the arrays.
std::unique_ptr<CheckpointReader> openCheckpointFiles(WeightsLayout layout, const QStringList &files, QString *error);

} // namespace rankscope
