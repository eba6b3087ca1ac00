#include "io/CheckpointReader.h"

#include "io/Hdf5CheckpointReader.h"
#include "io/NumpyReaders.h"
#include "io/SafetensorsReader.h"
#include "io/ShardedCheckpointReader.h"
#include "io/TorchCheckpointReader.h"
#include "io/NpyFormat.h"
#include "io/ElementDecoder.h"
#include "io/FolderWeights.h"
#include "io/MemoryBudget.h"
#include "io/PrintableText.h"
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
// folder of .npy arrays), chosen as discovery chooses them.
std::unique_ptr<CheckpointReader> openFolder(const QString &folder, QString *error)
{
    const FolderWeights weights = FolderWeights::read(folder);
    const WeightsGroup *group = weights.checkpoint(error);
    if (!group)
        return nullptr;
    if (!group->error.isEmpty()) {
        *error = group->error;
        return nullptr;
    }
    return openCheckpointFiles(group->layout, group->files, error);
}

} // namespace

MatrixRead CheckpointReader::readMatrix(const QString &name, qint64 slice)
{
    const StoredRead stored = readStoredMatrix(name, slice);
    if (!stored.ok())
        return {{}, stored.error};
    // Widening allocates the float64 copy the limit was checked against; it can still fail.
    try {
        return {stored.matrix.widened(), {}};
    } catch (const std::bad_alloc &) {
        return {{}, QStringLiteral("there was not enough memory to read it (%1×%2, %3 as float64)")
                        .arg(stored.matrix.rows()).arg(stored.matrix.cols())
                        .arg(MemoryBudget::bytesText(stored.matrix.rows() * stored.matrix.cols() * qint64(sizeof(double))))};
    }
}

StoredRead CheckpointReader::readStoredMatrix(const QString &name, qint64 slice)
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
        StoredRead read = readElements(tensor, slice, rows, cols);
        if (read.ok() && !read.matrix.elementsInside())
            return {{}, QStringLiteral("its %1 elements do not lie inside the %2 bytes stored for it")
                            .arg(read.matrix.dtype()).arg(read.matrix.storedBytes())};
        return read;
    } catch (const std::bad_alloc &) {
        return {{}, QStringLiteral("there was not enough memory to read it (%1×%2, %3 as float64)")
                        .arg(rows).arg(cols).arg(MemoryBudget::bytesText(rows * cols * qint64(sizeof(double))))};
    }
}

void CheckpointReader::refuseTensor(const QString &name, const QString &why)
{
    m_warnings << QStringLiteral("tensor %1 %2: not read").arg(printableText(name.left(200)), why);
}

int storedElementBytes(const QString &dtype)
{
    if (const int size = elementSize(dtype))
        return size;
    static const QHash<QString, int> others = {{"int64", 8}, {"uint64", 8}, {"int32", 4}, {"uint32", 4}, {"int16", 2},
                                               {"uint16", 2}, {"int8", 1}, {"uint8", 1}, {"bool", 1},
                                               {"complex64", 8}, {"complex128", 16}};
    return others.value(dtype, 0);
}

QString declaredSizeProblem(const TensorInfo &tensor, qint64 storedBytes)
{
    const int size = storedElementBytes(tensor.dtype);
    if (size == 0)
        return {};
    // In 128 bits with a cap: a shape of 10⁸ × 10⁸ × 10⁸ must not wrap into something small.
    unsigned __int128 declared = size;
    QStringList dims;
    for (const qint64 d : tensor.shape) {
        dims << QString::number(d);
        declared *= (unsigned __int128)(std::max<qint64>(d, 0));
        declared = std::min(declared, (unsigned __int128)(1) << 100);
    }
    if (declared <= (unsigned __int128)(std::max<qint64>(storedBytes, 0)))
        return {};
    const qint64 shown = declared > (unsigned __int128)(std::numeric_limits<qint64>::max()) ? std::numeric_limits<qint64>::max() : qint64(declared);
    return QStringLiteral("declares [%1] %2 (%3) but the file stores %4 for it")
        .arg(dims.join(QLatin1String(", ")), tensor.dtype, MemoryBudget::bytesText(shown), MemoryBudget::bytesText(storedBytes));
}

const QStringList &weightFileSuffixes()
{
    static const QStringList suffixes = {"pt", "pth", "bin", "ckpt", "safetensors", "h5", "hdf5", "npz"};
    return suffixes;
}

QString trainingSidecarKind(const QString &fileName)
{
    // One list, first match wins; every pattern is anchored so that no weights name matches.
    static const QList<QPair<QRegularExpression, QString>> kinds = [] {
        QList<QPair<QRegularExpression, QString>> list;
        auto add = [&](const char *pattern, const char *kind) {
            list.append({QRegularExpression(QLatin1String(pattern), QRegularExpression::CaseInsensitiveOption), QLatin1String(kind)});
        };
        add(R"(^optim.*\.\w+$)", "optimizer state");
        add(R"(^(lr_)?scheduler.*\.\w+$)", "learning-rate scheduler state");
        add(R"(^(grad_?)?scaler.*\.\w+$)", "gradient scaler state");
        add(R"(^(rng_state|random_states).*\.\w+$)", "random number generator state");
        add(R"(^(training_args|args|hparams|hyperparameters)\.\w+$)", "training arguments");
        add(R"(^trainer_state\.json$)", "trainer state (step, logs)");
        add(R"(^meta_\d+\.json$)", "checkpoint metadata (step, model config)");
        add(R"(^(tokenizer.*|special_tokens_map\.json|added_tokens\.json|vocab\.(json|txt)|merges\.txt|spiece\.model|.*\.tiktoken)$)", "tokenizer");
        add(R"(^(config|generation_config|adapter_config|model_config|preprocessor_config)\.json$)", "model configuration");
        add(R"(\.(ya?ml|toml|cfg|ini)$)", "configuration");
        add(R"(^events\.out\.tfevents\.)", "TensorBoard event file");
        add(R"((\.(log|out|err)$)|^(stdout|stderr|log|logs)(\.txt)?$)", "log");
        add(R"(\.(png|jpe?g|gif|svg|pdf|webp|bmp)$)", "image");
        return list;
    }();
    for (const auto &[pattern, kind] : kinds)
        if (pattern.match(fileName).hasMatch())
            return kind;
    return {};
}

bool isTrainingSidecar(const QString &fileName) { return !trainingSidecarKind(fileName).isEmpty(); }

namespace {

// How one checkpoint format is recognised and opened. The rows are tried in order; the first whose
// sniff accepts the file opens it (an .npz is a zip archive too, so it comes before torch.save's).
struct CheckpointFormat {
    const char *name;
    // Recognised by its bytes whatever the file is called: such bytes under another name are a
    // checkpoint being written or left over, not unrelated data.
    bool bySignature;
    bool (*sniff)(const QString &path, const QByteArray &head, QFile &file);
    std::unique_ptr<CheckpointReader> (*open)(const QString &path, QString *error);
};

bool isZip(const QByteArray &head) { return head.startsWith("PK\x03\x04"); }

template <typename Reader>
std::unique_ptr<CheckpointReader> openAs(const QString &path, QString *error)
{
    return Reader::open(path, error);
}

const QList<CheckpointFormat> &checkpointFormats()
{
    static const QList<CheckpointFormat> formats = {
        {"sharded index", false,
         [](const QString &path, const QByteArray &, QFile &) { return path.endsWith(QLatin1String(".index.json")); },
         openAs<ShardedCheckpointReader>},
        {"numpy-npz", true,
         [](const QString &path, const QByteArray &head, QFile &) { return isZip(head) && path.endsWith(QLatin1String(".npz")); },
         openAs<NpzReader>},
        {"pytorch", true, [](const QString &, const QByteArray &head, QFile &) { return isZip(head); }, openAs<TorchCheckpointReader>},
        // A zip archive that begins with its end record holds no files: complete, and no checkpoint.
        {"empty zip archive", true, [](const QString &, const QByteArray &head, QFile &) { return head.startsWith("PK\x05\x06"); },
         [](const QString &, QString *error) -> std::unique_ptr<CheckpointReader> {
             *error = kUnrecognisedFormat;
             return nullptr;
         }},
        {"hdf5", true, [](const QString &, const QByteArray &head, QFile &) { return Hdf5CheckpointReader::hasSignature(head); },
         openAs<Hdf5CheckpointReader>},
        {"numpy-npy", false, [](const QString &, const QByteArray &head, QFile &) { return NpyFormat::hasMagic(head); },
         [](const QString &, QString *error) -> std::unique_ptr<CheckpointReader> {
             *error = QStringLiteral("a single .npy array: put a checkpoint's .npy files in one folder per step");
             return nullptr;
         }},
        // torch.save before 1.6 wrote a bare pickle stream starting with a magic number.
        {"pytorch-legacy", true,
         [](const QString &, const QByteArray &head, QFile &) { return head.startsWith("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8"); },
         [](const QString &, QString *error) -> std::unique_ptr<CheckpointReader> {
             *error = QStringLiteral("legacy PyTorch format (torch.save before 1.6) is not supported; "
                                     "re-save it with a current torch.save");
             return nullptr;
         }},
        {"safetensors", false,
         [](const QString &path, const QByteArray &, QFile &file) {
             return SafetensorsReader::looksLikeSafetensors(file) || path.endsWith(QLatin1String(".safetensors"));
         },
         openAs<SafetensorsReader>},
    };
    return formats;
}

} // namespace

bool hasCheckpointSignature(const QByteArray &head)
{
    QFile none;
    for (const CheckpointFormat &format : checkpointFormats())
        if (format.bySignature && format.sniff(QString(), head, none))
            return true;
    return false;
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
    for (const CheckpointFormat &format : checkpointFormats()) {
        if (format.sniff(path, head, file)) {
            file.close();
            return format.open(path, error);
        }
    }
    *error = kUnrecognisedFormat;
    return nullptr;
}

std::unique_ptr<CheckpointReader> openCheckpointFiles(WeightsLayout layout, const QStringList &files, QString *error)
{
    if (files.isEmpty()) {
        *error = QStringLiteral("no weights files");
        return nullptr;
    }
    switch (layout) {
    case WeightsLayout::OneFile: return openCheckpoint(files.first(), error);
    case WeightsLayout::ShardIndex: return ShardedCheckpointReader::open(files.first(), error);
    case WeightsLayout::NamedShards: return ShardedCheckpointReader::openShards(files, error);
    case WeightsLayout::NpyArrays: return NpyFolderReader::openFiles(files, error);
    }
    return nullptr;
}

} // namespace rankscope
