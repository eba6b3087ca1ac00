#include "io/FolderWeights.h"

#include "io/CheckpointFormats.h"
#include "io/dcp/DcpFolderLayout.h"
#include "io/deepspeed/DeepSpeedCheckpointReader.h"
#include "io/FileContent.h"
#include "io/megatron/MegatronLayout.h"
#include "io/metallama/MetaLlamaLayout.h"
#include "io/nanotron/NanotronLayout.h"
#include "base/PrintableText.h"
#include "io/RegularFile.h"
#include "io/ShardedCheckpointReader.h"
#include "io/TrainingFileNames.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QMap>
#include <algorithm>
#include <QRegularExpression>
#include <QSet>

namespace rankscope {

namespace {

const QRegularExpression &shardNamePattern()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^(.+)-(\d{5})-of-(\d{5})\.(\w+)$)"));
    return pattern;
}

// A shard index: the group of the index and the shards it names that are here, or why it is not one.
std::optional<WeightsGroup> readShardIndex(const QDir &dir, const QFileInfo &index, QString *why, bool *problem)
{
    *problem = true; // an index that cannot be used loses the checkpoint it indexes
    QString error;
    const std::optional<QJsonObject> json = readSmallJsonObject(index.filePath(), kMaxShardIndexBytes, &error);
    if (!json) {
        *why = QStringLiteral("a shard index that cannot be read: %1").arg(error);
        return std::nullopt;
    }
    const QJsonObject weightMap = json->value(QLatin1String("weight_map")).toObject();
    // Each distinct shard once, found by a set: a 64 MiB index can name a million of them.
    QStringList named;
    QSet<QString> seen;
    for (auto it = weightMap.begin(); it != weightMap.end(); ++it)
        if (const QString shard = it.value().toString(); !seen.contains(shard)) {
            seen.insert(shard);
            named << shard;
        }
    if (named.isEmpty()) {
        *problem = false; // nothing says it indexes a checkpoint
        *why = QStringLiteral("a JSON file named like a shard index, without a weight_map");
        return std::nullopt;
    }
    named.sort();
    QStringList present, missing;
    for (const QString &shard : named) {
        if (const QString reason = ShardedCheckpointReader::unusableShardReason(dir, shard); !reason.isEmpty()) {
            *why = QStringLiteral("a shard index that names '%1' as a shard, which is %2").arg(printableText(shard.left(200)), reason);
            return std::nullopt;
        }
        (QFileInfo::exists(dir.filePath(shard)) ? present : missing) << shard;
    }
    if (present.isEmpty()) {
        *why = QStringLiteral("a shard index whose %1 shard(s) are not here (%2): nothing to read").arg(QString::number(named.size()), briefList(named));
        return std::nullopt;
    }
    WeightsGroup group;
    group.layout = WeightsLayout::ShardIndex;
    group.name = index.fileName();
    group.files << index.filePath();
    for (const QString &shard : present)
        group.files << dir.filePath(shard);
    if (!missing.isEmpty())
        group.error = missing.size() == 1 ? QStringLiteral("shard %1 named by the index is missing").arg(briefList(missing))
                                          : QStringLiteral("shards %1 named by the index are missing").arg(briefList(missing));
    return group;
}

// A name that says weights: a weights suffix (.pt, .safetensors, …), an .npy array, a shard index,
// or a name carrying a step or a tensor's name (ckpt_001000.npy, transformer.h.0.mlp.c_fc.weight.npy).
bool namedLikeWeights(const QString &fileName)
{
    const QFileInfo info(fileName);
    const QString suffix = info.suffix().toLower();
    if (weightFileSuffixes().contains(suffix) || fileName.endsWith(QLatin1String(".index.json")))
        return true;
    if (suffix != QLatin1String("npy"))
        return false;
    static const QRegularExpression checkpointWords(QStringLiteral(R"(\d|ckpt|checkpoint|model|weight|state|param)"),
                                                    QRegularExpression::CaseInsensitiveOption);
    return looksLikeTensorName(info.completeBaseName()) || checkpointWords.match(info.completeBaseName()).hasMatch();
}

// torchtune writes a LoRA adapter twice in one folder: adapter_model.pt in its own names and, for
// most models, adapter_model.safetensors (.bin without safe_serialization) in PEFT's, the copy its
// adapter_config.json describes (training/checkpointing/_checkpointer.py, FullModelHFCheckpointer.
// save_checkpoint). One adapter, read once: from the PEFT copy.
void keepOnePeftAdapterCopy(FolderWeights &weights)
{
    const auto named = [&](const QString &name) {
        return std::find_if(weights.groups.begin(), weights.groups.end(), [&](const WeightsGroup &g) { return g.name == name; });
    };
    const auto own = named(QStringLiteral("adapter_model.pt"));
    if (own == weights.groups.end() || !own->error.isEmpty())
        return;
    for (const char *copy : {"adapter_model.safetensors", "adapter_model.bin"}) {
        const auto peft = named(QLatin1String(copy));
        if (peft == weights.groups.end() || !peft->error.isEmpty())
            continue;
        const QString path = own->files.first();
        weights.groups.erase(own);
        weights.classifyAs(path, FileRole::Other,
                           QStringLiteral("the same LoRA adapter as %1, in torchtune's names (torchtune writes both): read once, from %1")
                               .arg(QLatin1String(copy)));
        return;
    }
}

} // namespace

QString fileRoleName(FileRole role)
{
    switch (role) {
    case FileRole::Weights: return QStringLiteral("weights");
    case FileRole::DamagedWeights: return QStringLiteral("unreadable weights");
    case FileRole::Shard: return QStringLiteral("shard");
    case FileRole::ShardIndex: return QStringLiteral("shard index");
    case FileRole::WeightArray: return QStringLiteral("weight array");
    case FileRole::TrainingSidecar: return QStringLiteral("sidecar");
    case FileRole::ResultsFile: return QStringLiteral("results file");
    case FileRole::Link: return QStringLiteral("link");
    case FileRole::Other: return QStringLiteral("other");
    case FileRole::NotRegular: return QStringLiteral("not read");
    case FileRole::CheckpointFolder: return QStringLiteral("checkpoint folder");
    case FileRole::RunFolder: return QStringLiteral("run");
    case FileRole::Folder: return QStringLiteral("folder");
    }
    return {};
}

QString shardSetPrefix(const QString &fileName)
{
    const QRegularExpressionMatch m = shardNamePattern().match(fileName);
    return m.hasMatch() ? m.captured(1) : QString();
}

namespace {

void classify(FolderWeights &result, const QFileInfo &file, FileRole role, const QString &reason, bool problem = false)
{
    result.files.append({file.filePath(), role, reason, problem});
}

// A folder's files that may hold weights, by how they are grouped; the rest are classified at once.
struct WeightCandidates {
    QList<QFileInfo> indexes;
    QList<QPair<QFileInfo, FileContent>> weights;
    QList<QPair<QFileInfo, FileContent>> arrays;
};

WeightCandidates classifyEntries(const QFileInfoList &entries, FolderWeights &result)
{
    WeightCandidates found;
    for (const QFileInfo &entry : entries) {
        const QString name = entry.fileName();
        if (entry.isDir()) {
            result.subfolders << entry.filePath();
            continue;
        }
        if (const QString irregular = notRegularFileReason(entry.filePath()); !irregular.isEmpty()) {
            classify(result, entry, FileRole::NotRegular, irregular + QStringLiteral(": not read"), namedLikeWeights(name));
            continue;
        }
        if (name.startsWith(QLatin1Char('.'))) {
            classify(result, entry, FileRole::Other, QStringLiteral("a hidden file"));
            continue;
        }
        if (name.endsWith(QLatin1String(".index.json"))) {
            found.indexes << entry;
            continue;
        }
        if (const QString orphan = DcpFolderLayout::orphanChunkReason(name); !orphan.isEmpty()) {
            classify(result, entry, FileRole::Other, orphan, true);
            continue;
        }
        if (const QString sidecar = trainingSidecarKind(name); !sidecar.isEmpty()) {
            classify(result, entry, FileRole::TrainingSidecar, sidecar);
            continue;
        }
        const FileContent content = FileContent::probe(entry.filePath());
        switch (content.kind) {
        case FileContent::Kind::Weights:
        case FileContent::Kind::DamagedWeights:
            found.weights.append({entry, content});
            break;
        case FileContent::Kind::NpyArray:
            found.arrays.append({entry, content});
            break;
        case FileContent::Kind::NotRegular:
            classify(result, entry, FileRole::NotRegular, content.detail, namedLikeWeights(name));
            break;
        case FileContent::Kind::NoMatrices:
        case FileContent::Kind::NotAFormat:
            classify(result, entry, FileRole::Other, content.detail);
            break;
        }
    }
    return found;
}

// Each index whose shards are here is a group; returns the names of the files an index names.
QSet<QString> groupShardIndexes(const QDir &dir, const QList<QFileInfo> &indexes, FolderWeights &result)
{
    QSet<QString> inShardSet;
    for (const QFileInfo &index : indexes) {
        QString why;
        bool problem = false;
        std::optional<WeightsGroup> group = readShardIndex(dir, index, &why, &problem);
        if (!group) {
            classify(result, index, FileRole::Other, why, problem);
            continue;
        }
        classify(result, index, FileRole::ShardIndex, group->error.isEmpty() ? QStringLiteral("index of %1 shard(s), all here").arg(group->files.size() - 1) : group->error);
        for (const QString &shard : group->files.mid(1))
            inShardSet.insert(QFileInfo(shard).fileName());
        result.groups.append(*group);
    }
    for (ClassifiedFile &file : result.files)
        if (file.role == FileRole::Other && inShardSet.contains(QFileInfo(file.path).fileName()))
            file = {file.path, FileRole::Shard, QStringLiteral("%1; a shard named by an index").arg(file.reason)};
    return inShardSet;
}

// One group of the files named -0000k-of-0000n alike; the shards missing are named.
WeightsGroup namedShardGroup(const QList<QPair<QFileInfo, FileContent>> &shards, FolderWeights &result)
{
    WeightsGroup group;
    group.layout = WeightsLayout::NamedShards;
    const QRegularExpressionMatch first = shardNamePattern().match(shards.first().first.fileName());
    group.name = first.captured(1);
    const int total = first.captured(3).toInt();
    QSet<int> present;
    for (const auto &[file, content] : shards) {
        group.files << file.filePath();
        present.insert(shardNamePattern().match(file.fileName()).captured(2).toInt());
        if (group.format.isEmpty())
            group.format = content.format;
        if (group.error.isEmpty() && content.kind == FileContent::Kind::DamagedWeights)
            group.error = QStringLiteral("%1: %2").arg(file.fileName(), content.detail);
        classify(result, file, FileRole::Shard, QStringLiteral("%1; shard %2 of %3").arg(content.detail, shardNamePattern().match(file.fileName()).captured(2)).arg(total));
    }
    // "-of-99999" is a name's claim: the shards missing are counted from the ones here (those
    // numbered 1 to total), and only the first few are named, found in at most (shards here +
    // kBriefListItems) steps.
    const qint64 onList = std::count_if(present.begin(), present.end(), [total](int k) { return k >= 1 && k <= total; });
    if (const qint64 missing = total - onList; missing > 0) {
        QStringList named;
        for (int k = 1; k <= total && named.size() < kBriefListItems; ++k)
            if (!present.contains(k))
                named << QString::number(k);
        group.error = QStringLiteral("shard(s) %1 of %2 are missing").arg(briefList(named, missing), QString::number(total));
    }
    return group;
}

// Shard sets named -0000k-of-0000n become groups; returns the weight files that stand alone.
QList<QPair<QFileInfo, FileContent>> groupNamedShards(const QList<QPair<QFileInfo, FileContent>> &weights, const QSet<QString> &inShardSet,
                                                      FolderWeights &result)
{
    QMap<QString, QList<QPair<QFileInfo, FileContent>>> namedShards; // by prefix, total and suffix
    QList<QPair<QFileInfo, FileContent>> single;
    for (const auto &[file, content] : weights) {
        if (inShardSet.contains(file.fileName())) {
            classify(result, file, FileRole::Shard, QStringLiteral("%1; a shard named by an index").arg(content.detail));
            continue;
        }
        const QRegularExpressionMatch m = shardNamePattern().match(file.fileName());
        if (m.hasMatch())
            namedShards[m.captured(1) + QLatin1Char('|') + m.captured(3) + QLatin1Char('|') + m.captured(4)].append({file, content});
        else
            single.append({file, content});
    }
    for (const QList<QPair<QFileInfo, FileContent>> &shards : std::as_const(namedShards))
        result.groups.append(namedShardGroup(shards, result));
    return single;
}

// .npy arrays are a checkpoint when some hold named matrices (transformer.h.0.mlp.c_fc.weight.npy);
// every other matrix beside them is read with them. A 1-D array (losses.npy) never is.
void groupArrays(const QDir &dir, const QList<QPair<QFileInfo, FileContent>> &arrays, FolderWeights &result)
{
    const bool anyNamedMatrix = std::any_of(arrays.begin(), arrays.end(), [](const auto &a) { return a.second.namedMatrix; });
    WeightsGroup arrayGroup;
    arrayGroup.layout = WeightsLayout::NpyArrays;
    arrayGroup.name = dir.dirName();
    arrayGroup.format = QStringLiteral("numpy-npy");
    for (const auto &[file, content] : arrays) {
        if (anyNamedMatrix && content.arrayRank >= 2) {
            arrayGroup.files << file.filePath();
            classify(result, file, FileRole::WeightArray, content.namedMatrix ? content.detail : content.detail + QStringLiteral("; read with the named matrices beside it"));
        } else {
            classify(result, file, FileRole::Other, content.detail, content.unreadable && namedLikeWeights(file.fileName()));
        }
    }
    if (!arrayGroup.files.isEmpty())
        result.groups.append(arrayGroup);
}

// Every other weights file is one checkpoint.
void groupSingleFiles(const QList<QPair<QFileInfo, FileContent>> &single, FolderWeights &result)
{
    for (const auto &[file, content] : single) {
        WeightsGroup group;
        group.layout = WeightsLayout::OneFile;
        group.files << file.filePath();
        group.name = file.fileName();
        group.format = content.format;
        group.stepInFile = content.stepInFile;
        if (content.kind == FileContent::Kind::DamagedWeights)
            group.error = content.detail;
        classify(result, file, content.kind == FileContent::Kind::Weights ? FileRole::Weights : FileRole::DamagedWeights, content.detail);
        result.groups.append(group);
    }
}

// Folder layouts whose files are one checkpoint together, each given the folder in turn after its
// files are grouped: Meta's Llama (consolidated.NN.pth beside params.json), a Megatron-LM iteration
// (its mp_rank_* folders), a DeepSpeed tag, a nanotron step (checkpoint_metadata.json beside
// model/, one file per parameter and rank). A new layout is a row here.
void recogniseMetaLlama(const QString &folder, FolderWeights &weights) { MetaLlamaLayout::recognise(folder, weights); }
void recogniseMegatronIteration(const QString &folder, FolderWeights &weights) { MegatronLayout::readIteration(folder, weights); }
void recogniseDeepSpeedTag(const QString &folder, FolderWeights &weights) { DeepSpeedTagFolder::recognise(folder, weights); }
void recogniseNanotronStep(const QString &folder, FolderWeights &weights) { NanotronLayout::recognise(folder, weights); }
constexpr void (*kFolderLayouts[])(const QString &, FolderWeights &) = {recogniseMetaLlama, recogniseMegatronIteration,
                                                                       recogniseDeepSpeedTag, recogniseNanotronStep};

} // namespace

FolderWeights FolderWeights::read(const QString &folder)
{
    FolderWeights result;
    const QDir dir(folder);
    if (const QString error = unlistableFolderReason(folder); !error.isEmpty()) {
        result.listingError = error;
        return result;
    }
    if (DcpFolderLayout::read(folder, result))
        return result;
    // System: FIFOs, sockets, devices and broken links are listed too, to be named, never opened.
    const QFileInfoList entries =
        dir.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System | QDir::Hidden, QDir::Name);
    const WeightCandidates found = classifyEntries(entries, result);
    // Shard sets first: an index whose shards are here, then shards named -0000k-of-0000n.
    const QSet<QString> inShardSet = groupShardIndexes(dir, found.indexes, result);
    const QList<QPair<QFileInfo, FileContent>> single = groupNamedShards(found.weights, inShardSet, result);
    groupArrays(dir, found.arrays, result);
    groupSingleFiles(single, result);
    keepOnePeftAdapterCopy(result);
    for (const auto recognise : kFolderLayouts)
        recognise(folder, result);
    return result;
}

void FolderWeights::classifyAs(const QString &path, FileRole role, const QString &reason)
{
    for (ClassifiedFile &file : files)
        if (file.path == path) {
            file = {path, role, reason, false};
            return;
        }
    files.append({path, role, reason, false});
}

const WeightsGroup *FolderWeights::checkpoint(QString *error) const
{
    if (groups.size() == 1)
        return &groups.first();
    if (groups.isEmpty()) {
        // Say why the files that could have been weights are not.
        QStringList why;
        for (const ClassifiedFile &file : files) {
            const QString suffix = QFileInfo(file.path).suffix().toLower();
            if (file.problem || ((file.role == FileRole::Other || file.role == FileRole::NotRegular) &&
                                 (weightFileSuffixes().contains(suffix) || suffix == QLatin1String("npy"))))
                why << QStringLiteral("%1: %2").arg(QFileInfo(file.path).fileName(), file.reason);
        }
        *error = QStringLiteral("folder holds no model weights") +
                 (why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(briefList(why, -1, QStringLiteral("; "), kBriefListLength / 2)));
        return nullptr;
    }
    auto named = [&](const QString &name) -> const WeightsGroup * {
        for (const WeightsGroup &g : groups)
            if (g.name == name)
                return &g;
        return nullptr;
    };
    for (const char *name : {"model.safetensors.index.json", "pytorch_model.bin.index.json"})
        if (const WeightsGroup *g = named(QLatin1String(name)))
            return g;
    // A DeepSpeed tag is its model states and partitions, whatever else was saved beside them.
    for (const WeightsGroup &g : groups)
        if (g.layout == WeightsLayout::DeepSpeedTag || g.layout == WeightsLayout::NanotronParameters)
            return &g;
    for (const WeightsLayout layout : {WeightsLayout::ShardIndex, WeightsLayout::NamedShards, WeightsLayout::MetaModelParallel})
        for (const WeightsGroup &g : groups)
            if (g.layout == layout)
                return &g;
    for (const char *name : {"model.safetensors", "pytorch_model.bin", "model.pt", "model.h5", "tf_model.h5"})
        if (const WeightsGroup *g = named(QLatin1String(name)))
            return g;
    QStringList names;
    for (const WeightsGroup &g : groups)
        names << g.name;
    *error = QStringLiteral("folder holds several weight files and no index (%1)").arg(briefList(names));
    return nullptr;
}

} // namespace rankscope
