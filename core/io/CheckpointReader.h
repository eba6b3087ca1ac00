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

// The stored bytes of one slice of a packed tensor (io/Mxfp4Experts.h), whatever its dtype.
struct PackedRead {
    QByteArray bytes;
    QString error;
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
    // Slice `slice` along the first dimension of a tensor of 3 or more dimensions, of any dtype whose
    // element size is known, as its raw bytes: shape[1] rows of the product of the rest. What a
    // decoder of packed data (MXFP4's uint8 [experts, rows, groups, 16] blocks) reads; no widening.
    PackedRead readPackedSlice(const QString &name, qint64 slice);
    // Whether readPackedSlice can read this format's tensors (formats opt in: a reader that follows
    // a tensor's own strides would misread a flattened view).
    virtual bool readsPackedSlices() const { return false; }

protected:
    // rows×cols elements of a tensor whose name, rank, slice and dtype have been checked (slice is -1
    // for a 2-D tensor), as stored. The format checks that its bytes exist before it allocates
    // anything. Errors say what is wrong without the tensor's name: callers prefix it.
    virtual StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) = 0;
    // The bytes of slice `slice` of `view`, a contiguous [shape[0], rows, cols] view of a tensor of the
    // same name whose dtype size is known: for formats that say readsPackedSlices().
    virtual PackedRead readPackedElements(const TensorInfo &view, qint64 slice, qint64 rows, qint64 cols);

    // A tensor the file declares but cannot hold as declared, found when the file is opened: it is
    // never listed (nothing is planned for it, not one of 10⁸ declared experts) and said with the file.
    void refuseTensor(const QString &name, const QString &why);
    QStringList m_warnings;

private:
    std::optional<TensorInfo> find(const QString &name);
    QHash<QString, qsizetype> m_lookup; // tensor name → index in tensors(), built on first use
};

// Bytes one element takes as stored, for every dtype a reader lists (int64 and bool too), or 0 for
// one not known: what sizing a declared shape against the bytes stored needs.
int storedElementBytes(const QString &dtype);
// Why a tensor cannot be what its file declares, asked before anything is planned for it: its shape
// and dtype need more than the `storedBytes` the file holds for it (a 1 KB file declaring 10⁸
// stacked experts). Empty when it fits, and for a dtype whose size is not known.
QString declaredSizeProblem(const TensorInfo &tensor, qint64 storedBytes);

} // namespace rankscope
