// A torch.distributed.checkpoint (DCP) folder as FileSystemWriter writes it: `.metadata` (read by
// DcpMetadata) and the `__R_N.distcp` files holding each chunk as a torch.save archive. One matrix
// is stitched from the chunks that overlap it, each copied to its global offset. What torchtitan
// (step-N/, weights under `model.`), Megatron-Core's torch_dist (iter_NNNNNNN/, metadata.json and
// common.pt beside) and NeMo 2 (weights/ of its checkpoint) save is such a folder. Only model
// tensors are listed: optimizer state, training state, RNG and BYTE_IO objects never are. Megatron
// stacks each kind of layer parameter along a leading layer axis; its layers are listed one by one.
#pragma once

#include "io/CheckpointReader.h"
#include "io/dcp/DcpMetadata.h"
#include "io/nemo/TarDirectory.h"

#include <QDir>
#include <QHash>

namespace rankscope {

class DistributedCheckpointReader : public CheckpointReader {
public:
    static std::unique_ptr<DistributedCheckpointReader> open(const QString &folder, QString *error);
    // The same checkpoint as a folder inside a tar archive (a NeMo 1 .nemo's ./model_weights/,
    // nemo/collections/nlp/parts/nlp_overrides.py save_to with dist_ckpt): every file is the
    // member `prefix` + its name ("model_weights/.metadata"), read in place, never extracted.
    static std::unique_ptr<DistributedCheckpointReader> openInTar(const QString &tarPath, const QList<TarMember> &members, const QString &prefix,
                                                                  QString *error);
    // Whether a folder is one DCP checkpoint: it holds a regular file `.metadata`. Nothing is parsed.
    static bool isCheckpointFolder(const QString &folder);
    // Who wrote the folder, told by its sidecars: "Megatron torch_dist" (metadata.json names the
    // torch_dist backend), or plain "torch.distributed.checkpoint".
    static QString writerOf(const QString &folder);
    // Fully qualified names that are not the model's: optimizer state, trainer state, RNG.
    static bool isTrainingState(const QString &fqn);

    QString formatName() const override { return m_format; }
    QList<TensorInfo> tensors() const override { return m_listed; }
    std::optional<qint64> step() const override { return m_step; }
    QVariantMap modelConfig() const override { return m_modelConfig; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    // A listed tensor: a DCP tensor, or one layer of a stacked one (its leading indices fixed).
    struct Listed {
        qsizetype tensor = 0;
        QList<qint64> fixed;
    };
    DistributedCheckpointReader() = default;
    // Where one file of the checkpoint lies: a file of the folder, or bytes [base, base + size) of
    // the tar archive; or why it cannot be read ("missing", not a regular file).
    struct Place {
        QString path;
        qint64 base = 0;
        qint64 size = 0;
        QString problem;
    };
    Place placeOf(const QString &name) const;
    std::optional<QByteArray> readSmallFile(const QString &name, qint64 maxBytes, QString *why) const;
    QString writerInTar() const;
    bool load(const QString &folder, QString *error);
    // Why a tensor cannot be read as its chunks declare (empty when it can): checked before
    // anything is allocated for it.
    QString tensorProblem(const DcpTensor &tensor);
    static QHash<QString, QString> sharedBytes(const DcpMetadata &metadata);
    QString storageProblem(const DcpTensor &tensor, const DcpChunk &chunk);
    void list(const DcpTensor &tensor, qsizetype index, bool stacked);
    void readMegatronCommonState();
    void readNemoContext();
    // One matrix being stitched, in its stored dtype: a row-major buffer of its elements' bytes and
    // the byte order of the chunks copied so far.
    struct Stitch {
        QByteArray bytes;
        qint64 cols = 0;
        int elementSize = 0;
        std::optional<bool> bigEndian;
    };
    // Copies the part of one chunk that lies in the matrix at leading indices `fixed` into out.
    QString copyChunk(const DcpTensor &tensor, const DcpChunk &chunk, const QList<qint64> &fixed, Stitch &out);

    QDir m_folder;
    QString m_tarPath;                  // set when the checkpoint is a folder inside a tar archive
    QHash<QString, TarMember> m_members; // its files, by name inside that folder
    DcpMetadata m_metadata;
    QString m_format;
    QList<TensorInfo> m_listed;
    QHash<QString, Listed> m_where;
    QHash<QString, qint64> m_fileSizes; // of the files chunks name, checked regular
    std::optional<qint64> m_step;
    QVariantMap m_modelConfig;
};

} // namespace rankscope
