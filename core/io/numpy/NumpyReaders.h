// NumPy checkpoints: a folder of .npy files (each file's base name is the tensor name) or one
// .npz archive (each entry's name is the tensor name). Object arrays are refused.
#pragma once

#include "io/CheckpointReader.h"
#include "io/numpy/NpyFormat.h"
#include "io/torch/ZipDirectory.h"

#include <QFile>
#include <QHash>

namespace rankscope {

class NpyFolderReader : public CheckpointReader {
public:
    static std::unique_ptr<NpyFolderReader> open(const QString &folder, QString *error);
    // These arrays only (a folder may hold other .npy files too: losses, metrics).
    static std::unique_ptr<NpyFolderReader> openFiles(const QStringList &paths, QString *error);

    QString formatName() const override { return QStringLiteral("numpy-npy"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    QList<TensorInfo> m_tensors;
    QHash<QString, QString> m_paths;
    QHash<QString, NpyHeader> m_headers;
};

class NpzReader : public CheckpointReader {
public:
    static std::unique_ptr<NpzReader> open(const QString &path, QString *error);

    QString formatName() const override { return QStringLiteral("numpy-npz"); }
    QList<TensorInfo> tensors() const override { return m_tensors; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    QFile m_file;
    ZipDirectory m_zip;
    QList<TensorInfo> m_tensors;
    QHash<QString, QString> m_entries; // tensor name → zip entry name
    QHash<QString, NpyHeader> m_headers;
};

} // namespace rankscope
