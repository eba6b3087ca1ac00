#include "io/CheckpointFormats.h"

#include "io/dcp/DistributedCheckpointReader.h"
#include "io/deepspeed/DeepSpeedCheckpointReader.h"
#include "io/megatron/MegatronDeepSpeedReader.h"
#include "io/FolderWeights.h"
#include "io/hdf5/Hdf5CheckpointReader.h"
#include "io/megatron/MegatronCheckpointReader.h"
#include "io/metallama/MetaLlamaReader.h"
#include "io/nanotron/NanotronReader.h"
#include "io/Mxfp4Experts.h"
#include "io/nemo/NemoCheckpointReader.h"
#include "io/numpy/NpyFormat.h"
#include "io/numpy/NumpyReaders.h"
#include "io/RegularFile.h"
#include "io/safetensors/SafetensorsReader.h"
#include "io/ShardedCheckpointReader.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QFile>
#include <QFileInfo>

namespace rankscope {

namespace {

std::unique_ptr<CheckpointReader> openLaidOut(WeightsLayout layout, const QStringList &files, QString *error);

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

// How one checkpoint format is recognised and opened. The rows are tried in order; the first whose
// sniff accepts the file opens it (an .npz is a zip archive too, so it comes before torch.save's).
struct CheckpointFormat {
    const char *name;
    // What files of this format are called (space-separated suffixes; none: known by bytes or a
    // name alone). Discovery takes a file so named for weights, whatever its bytes turn out to be.
    const char *suffixes;
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
        {"sharded index", "", false,
         [](const QString &path, const QByteArray &, QFile &) { return path.endsWith(QLatin1String(".index.json")); },
         openAs<ShardedCheckpointReader>},
        // NeMo 1.x: a tar (or, before 1.7, a gzip) of model_config.yaml and the weights, known by its name.
        {"nemo", "nemo", false, [](const QString &path, const QByteArray &, QFile &) { return path.endsWith(QLatin1String(".nemo")); },
         openAs<NemoCheckpointReader>},
        {"numpy-npz", "npz", true,
         [](const QString &path, const QByteArray &head, QFile &) { return isZip(head) && path.endsWith(QLatin1String(".npz")); },
         openAs<NpzReader>},
        {"pytorch", "pt pth bin ckpt", true, [](const QString &, const QByteArray &head, QFile &) { return isZip(head); }, openAs<TorchCheckpointReader>},
        // A zip archive that begins with its end record holds no files: complete, and no checkpoint.
        {"empty zip archive", "", true, [](const QString &, const QByteArray &head, QFile &) { return head.startsWith("PK\x05\x06"); },
         [](const QString &, QString *error) -> std::unique_ptr<CheckpointReader> {
             *error = kUnrecognisedFormat;
             return nullptr;
         }},
        {"hdf5", "h5 hdf5", true, [](const QString &, const QByteArray &head, QFile &) { return Hdf5CheckpointReader::hasSignature(head); },
         openAs<Hdf5CheckpointReader>},
        {"numpy-npy", "", false, [](const QString &, const QByteArray &head, QFile &) { return NpyFormat::hasMagic(head); },
         [](const QString &, QString *error) -> std::unique_ptr<CheckpointReader> {
             *error = QStringLiteral("a single .npy array: put a checkpoint's .npy files in one folder per step");
             return nullptr;
         }},
        // torch.save before 1.6 wrote a bare pickle stream starting with a magic number.
        {"pytorch-legacy", "", true,
         [](const QString &, const QByteArray &head, QFile &) { return head.startsWith("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8"); },
         [](const QString &, QString *error) -> std::unique_ptr<CheckpointReader> {
             *error = QStringLiteral("legacy PyTorch format (torch.save before 1.6) is not supported; "
                                     "re-save it with a current torch.save");
             return nullptr;
         }},
        {"safetensors", "safetensors", false,
         [](const QString &path, const QByteArray &, QFile &file) {
             return SafetensorsReader::looksLikeSafetensors(file) || path.endsWith(QLatin1String(".safetensors"));
         },
         openAs<SafetensorsReader>},
    };
    return formats;
}

} // namespace

const QStringList &weightFileSuffixes()
{
    static const QStringList suffixes = [] {
        QStringList all;
        for (const CheckpointFormat &format : checkpointFormats())
            all << QString::fromLatin1(format.suffixes).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        return all;
    }();
    return suffixes;
}

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
        return openFolder(path, error); // openCheckpointFiles decodes its MXFP4 experts
    return Mxfp4Experts::decoding(openCheckpointFile(path, error));
}

std::unique_ptr<CheckpointReader> openCheckpointFile(const QString &path, QString *error)
{
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
    if (layout == WeightsLayout::OneFile)
        return openCheckpoint(files.first(), error);
    // Over the whole checkpoint, not per shard: an index may put a tensor's blocks and its scales in
    // different files.
    return Mxfp4Experts::decoding(openLaidOut(layout, files, error));
}

namespace {

std::unique_ptr<CheckpointReader> openLaidOut(WeightsLayout layout, const QStringList &files, QString *error)
{
    switch (layout) {
    case WeightsLayout::OneFile: return openCheckpointFile(files.first(), error);
    case WeightsLayout::ShardIndex: return ShardedCheckpointReader::open(files.first(), error);
    case WeightsLayout::NamedShards: return ShardedCheckpointReader::openShards(files, error);
    case WeightsLayout::NpyArrays: return NpyFolderReader::openFiles(files, error);
    case WeightsLayout::DistributedCheckpoint: return DistributedCheckpointReader::open(QFileInfo(files.first()).absolutePath(), error);
    case WeightsLayout::MegatronShards: return MegatronCheckpointReader::open(files, error);
    case WeightsLayout::DeepSpeedTag:
        if (MegatronDeepSpeedReader::isModelParallel(files))
            return MegatronDeepSpeedReader::open(files, error);
        return DeepSpeedCheckpointReader::open(files, error);
    case WeightsLayout::MetaModelParallel: return MetaLlamaReader::open(files, error);
    case WeightsLayout::NanotronParameters: return NanotronReader::open(files, error);
    }
    return nullptr;
}

} // namespace

} // namespace rankscope
