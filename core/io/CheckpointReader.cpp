#include "io/CheckpointReader.h"

#include "io/Hdf5CheckpointReader.h"
#include "io/NumpyReaders.h"
#include "io/SafetensorsReader.h"
#include "io/ShardedCheckpointReader.h"
#include "io/TorchCheckpointReader.h"
#include "io/ZipDirectory.h"
#include "io/ElementDecoder.h"
#include "io/MemoryBudget.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <limits>
#include <new>

namespace rankscope {

namespace {

// The weights inside a checkpoint folder (a Trainer's checkpoint-N/, a save_pretrained folder, a
// folder of .npy arrays): an index for shards first, then a single weights file.
std::unique_ptr<CheckpointReader> openFolder(const QString &folder, QString *error)
{
    const QDir dir(folder);
    for (const char *index : {"model.safetensors.index.json", "pytorch_model.bin.index.json"})
        if (dir.exists(QLatin1String(index)))
            return ShardedCheckpointReader::open(dir.filePath(QLatin1String(index)), error);
    const QStringList indexes = dir.entryList({QStringLiteral("*.safetensors.index.json")}, QDir::Files, QDir::Name);
    if (!indexes.isEmpty())
        return ShardedCheckpointReader::open(dir.filePath(indexes.first()), error);
    for (const char *single : {"model.safetensors", "pytorch_model.bin", "model.pt", "model.h5", "tf_model.h5"})
        if (dir.exists(QLatin1String(single)))
            return openCheckpoint(dir.filePath(QLatin1String(single)), error);
    QStringList candidates;
    for (const QFileInfo &file : dir.entryInfoList(QDir::Files, QDir::Name))
        if (weightFileSuffixes().contains(file.suffix().toLower()) && !isTrainingSidecar(file.fileName()))
            candidates << file.fileName();
    if (candidates.size() == 1)
        return openCheckpoint(dir.filePath(candidates.first()), error);
    if (!dir.entryList({QStringLiteral("*.npy")}, QDir::Files).isEmpty())
        return NpyFolderReader::open(folder, error);
    *error = candidates.isEmpty() ? QStringLiteral("folder holds no model weights")
                                  : QStringLiteral("folder holds several weight files and no index (%1)").arg(candidates.join(", "));
    return nullptr;
}

} // namespace

MatrixRead CheckpointReader::readMatrix(const QString &name, qint64 slice)
{
    if (m_lookup.isEmpty()) {
        const QList<TensorInfo> list = tensors();
        for (qsizetype i = 0; i < list.size(); ++i)
            m_lookup.insert(list[i].name, i);
    }
    const auto it = m_lookup.constFind(name);
    if (it == m_lookup.constEnd())
        return {{}, QStringLiteral("no such tensor")};
    const TensorInfo tensor = tensors().at(*it);
    const qsizetype rank = tensor.shape.size();
    if (rank != 2 && rank != 3)
        return {{}, QStringLiteral("has %1 dimensions, not 2").arg(rank)};
    if ((rank == 2) != (slice < 0) || (rank == 3 && slice >= tensor.shape[0]))
        return {{}, rank == 2 ? QStringLiteral("is 2-D: it has no slice %1").arg(slice)
                              : QStringLiteral("has no slice %1 along its first dimension of %2").arg(slice).arg(tensor.shape[0])};
    const qint64 rows = tensor.shape[rank - 2], cols = tensor.shape[rank - 1];
    if (rows <= 0 || cols <= 0 || (rank == 3 && tensor.shape[0] <= 0))
        return {{}, QStringLiteral("is empty (shape %1×%2)").arg(rows).arg(cols)};
    if (elementSize(tensor.dtype) == 0)
        return {{}, QStringLiteral("unsupported dtype %1").arg(tensor.dtype)};
    if (rows > std::numeric_limits<qint32>::max() / cols)
        return {{}, QStringLiteral("a %1×%2 matrix is beyond what RankScope reads").arg(rows).arg(cols)};
    if (const QString problem = MemoryBudget::matrixProblem(rows, cols); !problem.isEmpty())
        return {{}, problem};
    // What memory is available changes while RankScope runs: an allocation can still fail, and it
    // fails this tensor only.
    try {
        return readElements(tensor, slice, rows, cols);
    } catch (const std::bad_alloc &) {
        return {{}, QStringLiteral("there was not enough memory to read it (%1×%2, %3 as float64)")
                        .arg(rows).arg(cols).arg(MemoryBudget::bytesText(rows * cols * qint64(sizeof(double))))};
    }
}

const QStringList &weightFileSuffixes()
{
    static const QStringList suffixes = {"pt", "pth", "bin", "ckpt", "safetensors", "h5", "hdf5", "npz"};
    return suffixes;
}

bool isTrainingSidecar(const QString &fileName)
{
    static const QRegularExpression pattern(
        QStringLiteral(R"(^(optim.*|scheduler.*|rng_state.*|training_args|trainer_state)(\.\w+)+$)"));
    return pattern.match(fileName).hasMatch();
}

std::unique_ptr<CheckpointReader> openCheckpoint(const QString &path, QString *error)
{
    if (QFileInfo(path).isDir())
        return openFolder(path, error);
    QFile file;
    if (!RegularFile::open(file, path, error))
        return nullptr;
    if (file.size() == 0) {
        *error = QStringLiteral("empty file (0 bytes)");
        return nullptr;
    }
    const QByteArray head = file.peek(16);
    if (path.endsWith(QLatin1String(".index.json")))
        return ShardedCheckpointReader::open(path, error);
    if (ZipDirectory::looksLikeZip(file)) {
        file.close();
        if (path.endsWith(QLatin1String(".npz")))
            return NpzReader::open(path, error);
        return TorchCheckpointReader::open(path, error);
    }
    if (Hdf5CheckpointReader::hasSignature(head)) {
        file.close();
        return Hdf5CheckpointReader::open(path, error);
    }
    if (NpyFormat::hasMagic(head)) {
        *error = QStringLiteral("a single .npy array: put a checkpoint's .npy files in one folder per step");
        return nullptr;
    }
    // torch.save before 1.6 wrote a bare pickle stream starting with a magic number.
    if (head.startsWith("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8")) {
        *error = QStringLiteral("legacy PyTorch format (torch.save before 1.6) is not supported; "
                                "re-save it with a current torch.save");
        return nullptr;
    }
    if (SafetensorsReader::looksLikeSafetensors(file) || path.endsWith(QLatin1String(".safetensors"))) {
        file.close();
        return SafetensorsReader::open(path, error);
    }
    *error = QStringLiteral("not a recognised checkpoint format");
    return nullptr;
}

} // namespace rankscope
