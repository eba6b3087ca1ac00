// One checkpoint file (or sharded set), whatever wrote it: the tensors it holds and, one at a
// time, their values as float64. Readers never hold more than the tensor being read.
#pragma once

#include <Eigen/Core>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <memory>
#include <optional>

namespace rankscope {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct TensorInfo {
    QString name;
    QList<qint64> shape;
    QString dtype; // "float32", "float16", "bfloat16", "float64", or what the file says
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
    // A 2-D tensor widened to float64.
    virtual MatrixRead readMatrix(const QString &name) = 0;
};

// Suffixes of files that may hold a checkpoint's weights ("pt", "safetensors", …); the format
// itself is still detected by content.
const QStringList &weightFileSuffixes();
// Training state saved beside the weights (optimizer, scheduler, RNG state, trainer arguments),
// never weights: optimizer.pt, optim_000100_rank0.pt, scheduler.pt, rng_state_0.pth, training_args.bin.
bool isTrainingSidecar(const QString &fileName);

// Opens a checkpoint, detecting its format by content. On failure returns null and sets error
// to what is wrong (without the file name; callers prefix it).
std::unique_ptr<CheckpointReader> openCheckpoint(const QString &path, QString *error);

} // namespace rankscope
