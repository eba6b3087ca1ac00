// PyTorch checkpoints written by torch.save (≥ 1.6): a zip archive holding <prefix>/data.pkl and
// one entry per storage, <prefix>/data/<key>. The pickle is read without executing anything.
#pragma once

#include "io/CheckpointReader.h"
#include "io/PickleValue.h"
#include "io/ZipDirectory.h"

#include <QFile>
#include <QHash>

namespace rankscope {

class TorchCheckpointReader : public CheckpointReader {
public:
    static std::unique_ptr<TorchCheckpointReader> open(const QString &path, QString *error);

    QString formatName() const override { return QStringLiteral("pytorch"); }
    QList<TensorInfo> tensors() const override;
    std::optional<qint64> step() const override { return m_step; }
    QVariantMap modelConfig() const override { return m_modelConfig; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    TorchCheckpointReader() = default;
    bool load(const QString &path, QString *error);
    void collectTensors(const PickleRef &dict, const QString &prefix, int depth);
    // Drops (and names) the stacks of matrices (3-D: experts) that cannot be what they declare:
    // more elements than their storage holds, or an axis repeating one stored matrix (stride 0).
    void refuseImpossibleViews();

    QFile m_file;
    ZipDirectory m_zip;
    QString m_prefix; // the archive's folder: the file's original base name, or "archive"
    bool m_bigEndian = false;
    QList<QString> m_order;
    QHash<QString, TensorRecord> m_tensors;
    std::optional<qint64> m_step;
    QVariantMap m_modelConfig;
};

} // namespace rankscope
