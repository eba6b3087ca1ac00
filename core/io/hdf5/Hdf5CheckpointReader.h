// HDF5 checkpoints (.h5, .hdf5): one dataset per tensor, its path the tensor name (slashes become
// dots), an optional integer root attribute "step"; Keras files (model_weights/<layer>/<layer>/
// kernel:0) read the same way. bfloat16 is stored as uint16 with the attribute dtype="bfloat16".
#pragma once

#include "io/CheckpointReader.h"

#include <QHash>

namespace rankscope {

class Hdf5CheckpointReader : public CheckpointReader {
public:
    static std::unique_ptr<Hdf5CheckpointReader> open(const QString &path, QString *error);
    static bool hasSignature(const QByteArray &head);
    ~Hdf5CheckpointReader() override;

    QString formatName() const override { return QStringLiteral("hdf5"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }
    std::optional<qint64> step() const override { return m_step; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    Hdf5CheckpointReader() = default;
    long long m_file = -1; // hid_t
    QList<TensorInfo> m_tensors;
    QHash<QString, QString> m_datasetPaths; // tensor name → dataset path
    std::optional<qint64> m_step;

    friend struct Hdf5Visitor;
};

} // namespace rankscope
