// PyTorch checkpoints written by torch.save (≥ 1.6): a zip archive holding <prefix>/data.pkl and
// one entry per storage, <prefix>/data/<key>. The pickle is read without executing anything.
#pragma once

#include "io/CheckpointReader.h"
#include "io/torch/PickleReader.h"
#include "io/torch/ZipDirectory.h"

#include <QFile>
#include <QHash>

namespace rankscope {

class TorchCheckpointReader : public CheckpointReader {
public:
    static std::unique_ptr<TorchCheckpointReader> open(const QString &path, QString *error);
    // The archive that is bytes [base, base + size) of a larger file: a chunk of a DCP .distcp
    // file, a member of a .nemo tar. Nothing outside those bytes is read.
    static std::unique_ptr<TorchCheckpointReader> openArchive(const QString &path, qint64 base, qint64 size, QString *error);
    // An archive opened for its pickle whatever that holds: a trainer's file whose tensors lie in
    // lists (DeepSpeed's optimizer partitions) beside the trainer's own objects is no error here;
    // its unsafe globals are still listed.
    static std::unique_ptr<TorchCheckpointReader> openAnyObject(const QString &path, QString *error);

    // The whole unpickled object (null when the pickle failed): for trainers' readers that need
    // more than the weights dict (Megatron's args and nested model, DeepSpeed's param_shapes).
    // It lives as long as the reader.
    PickleRef root() const { return m_pickle.root; }
    // The globals the pickle names that torch's weights_only policy refuses (argparse.Namespace in
    // every Megatron save): a trainer's reader decides which of them its format always holds.
    const QStringList &unsafeGlobals() const { return m_pickle.unsafeGlobals; }
    // The elements of any tensor the pickle holds (one found under root(), not only a listed one)
    // as a rows × cols matrix: for a 1-D tensor, `count` elements from element `first` as one row.
    StoredRead readRecord(const TensorRecord &tensor, qint64 first, qint64 count);

    QString formatName() const override { return QStringLiteral("pytorch"); }
    QList<TensorInfo> tensors() const override;
    std::optional<qint64> step() const override { return m_step; }
    QVariantMap modelConfig() const override { return m_modelConfig; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    TorchCheckpointReader() = default;
    bool load(const QString &path, qint64 base, qint64 size, QString *error);
    // load's steps: the pickle's bytes, and what the checkpoint records beside its weights.
    std::optional<QByteArray> readPickleBytes(QString *error);
    void readStepAndConfig(const PickleRef &root);
    void collectTensors(const PickleRef &dict, const QString &prefix, int depth);
    // Drops (and names) the stacks of matrices (3-D: experts) that cannot be what they declare:
    // more elements than their storage holds, or an axis repeating one stored matrix (stride 0).
    void refuseImpossibleViews();
    // rows × cols elements of t from element t.offset + skip·skipStride, strides in elements.
    StoredRead readView(const TensorRecord &t, qint64 skip, qint64 skipStride, qint64 rows, qint64 cols, qint64 rowStride, qint64 colStride);

    QFile m_file;
    PickleResult m_pickle;
    ZipDirectory m_zip;
    QString m_prefix; // the archive's folder: the file's original base name, or "archive"
    bool m_bigEndian = false;
    QList<QString> m_order;
    QHash<QString, TensorRecord> m_tensors;
    std::optional<qint64> m_step;
    QVariantMap m_modelConfig;
    bool m_anyObject = false; // opened by openAnyObject
};

} // namespace rankscope
