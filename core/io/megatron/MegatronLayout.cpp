#include "io/megatron/MegatronLayout.h"

#include "base/PrintableText.h"
#include "io/FileContent.h"
#include "io/RegularFile.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>

namespace rankscope {

namespace {

// The tracker holds one number or "release"; anything longer is not Megatron's.
constexpr qint64 kMaxTrackerBytes = 256;

bool isIterationName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^(?:iter_\d{1,19}|release)$)"));
    return pattern.match(name).hasMatch();
}

QString rankFolderName(const MegatronRank &rank)
{
    QString name = QStringLiteral("mp_rank_%1").arg(rank.tensor, 2, 10, QLatin1Char('0'));
    if (rank.numbers >= 2)
        name += QStringLiteral("_%1").arg(rank.pipeline, 3, 10, QLatin1Char('0'));
    if (rank.numbers >= 3)
        name += QStringLiteral("_%1").arg(rank.expert, 3, 10, QLatin1Char('0'));
    return name;
}

// The role of a file in a rank folder other than its model_optim_rng.pt.
ClassifiedFile rankFolderFile(const QFileInfo &file)
{
    const QString name = file.fileName();
    if (name == QLatin1String("distrib_optim.pt"))
        return {file.filePath(), FileRole::TrainingSidecar, QStringLiteral("Megatron-LM's distributed optimizer state (not weights)")};
    static const QRegularExpression layerWise(QStringLiteral(R"(^layer_wise_optimizer_\d+\.pt$)"));
    if (layerWise.match(name).hasMatch())
        return {file.filePath(), FileRole::TrainingSidecar, QStringLiteral("Megatron-LM's layer-wise optimizer state (not weights)")};
    return {file.filePath(), FileRole::Other, QStringLiteral("not a file Megatron-LM writes in a rank folder: not read")};
}

// The iteration the rank-0 file records (checkpointing.py's state_dict['iteration']).
std::optional<qint64> iterationIn(const QString &path)
{
    QString error;
    const std::unique_ptr<TorchCheckpointReader> reader = TorchCheckpointReader::open(path, &error);
    const PickleRef root = reader ? reader->root() : nullptr;
    const PickleRef iteration = root && root->kind == PickleValue::Kind::Dict ? root->value(QStringLiteral("iteration")) : nullptr;
    return iteration && iteration->kind == PickleValue::Kind::Int ? std::optional(iteration->integer) : std::nullopt;
}

} // namespace

const QString &MegatronLayout::trackerName()
{
    static const QString name = QStringLiteral("latest_checkpointed_iteration.txt");
    return name;
}

const QString &MegatronLayout::modelFileName()
{
    static const QString name = QStringLiteral("model_optim_rng.pt");
    return name;
}

std::optional<MegatronRank> MegatronLayout::rankOf(const QString &folderName)
{
    // get_checkpoint_name: f'mp_rank_{tensor_rank:02d}', then f'_{pipeline_rank:03d}' when PP > 1,
    // then f'_{expert_rank:03d}' when EP > 1.
    static const QRegularExpression pattern(QStringLiteral(R"(^mp_rank_(\d{2,4})(?:_(\d{3,4}))?(?:_(\d{3,4}))?$)"));
    const QRegularExpressionMatch m = pattern.match(folderName);
    if (!m.hasMatch())
        return std::nullopt;
    MegatronRank rank;
    rank.tensor = m.captured(1).toInt();
    rank.numbers = 1 + int(m.hasCaptured(2)) + int(m.hasCaptured(3));
    rank.pipeline = m.hasCaptured(2) ? m.captured(2).toInt() : 0;
    rank.expert = m.hasCaptured(3) ? m.captured(3).toInt() : 0;
    return rank;
}

std::optional<MegatronRank> MegatronLayout::rankOfFile(const QString &path)
{
    return rankOf(QFileInfo(path).dir().dirName());
}

bool MegatronLayout::readIteration(const QString &folder, FolderWeights &weights)
{
    const QString name = QFileInfo(folder).fileName();
    if (!isIterationName(name))
        return false;
    QList<QPair<QString, MegatronRank>> rankFolders;
    for (const QString &sub : weights.subfolders)
        if (const std::optional<MegatronRank> rank = rankOf(QFileInfo(sub).fileName()))
            rankFolders.append({sub, *rank});
    if (rankFolders.isEmpty())
        return false;
    WeightsGroup group;
    group.layout = WeightsLayout::MegatronShards;
    group.name = name;
    group.format = QStringLiteral("megatron");
    QSet<QString> present;
    int maxTensor = 0, maxPipeline = 0, maxExpert = 0, numbers = rankFolders.first().second.numbers;
    for (const auto &[path, rank] : rankFolders) {
        weights.subfolders.removeAll(path);
        present.insert(QFileInfo(path).fileName());
        maxTensor = std::max(maxTensor, rank.tensor);
        maxPipeline = std::max(maxPipeline, rank.pipeline);
        maxExpert = std::max(maxExpert, rank.expert);
        numbers = std::max(numbers, rank.numbers);
        const QString model = QDir(path).filePath(modelFileName());
        weights.files.append({path, FileRole::Folder, QStringLiteral("the folder of TP rank %1, PP stage %2 of this iteration").arg(rank.tensor).arg(rank.pipeline)});
        for (const QFileInfo &file : QDir(path).entryInfoList(QDir::Files | QDir::System | QDir::Hidden, QDir::Name))
            if (file.fileName() != modelFileName())
                weights.files.append(rankFolderFile(file));
        if (!QFileInfo::exists(model)) {
            if (group.error.isEmpty())
                group.error = QStringLiteral("%1 holds no %2: the iteration is not read").arg(QFileInfo(path).fileName(), modelFileName());
            continue;
        }
        const FileContent content = FileContent::probe(model);
        const bool damaged = content.kind == FileContent::Kind::DamagedWeights || content.kind == FileContent::Kind::NotRegular;
        if (damaged && group.error.isEmpty())
            group.error = QStringLiteral("%1/%2: %3").arg(QFileInfo(path).fileName(), modelFileName(), content.detail);
        weights.files.append({model, damaged ? FileRole::DamagedWeights : FileRole::Shard,
                              damaged ? content.detail
                                      : QStringLiteral("Megatron-LM shard (torch.save) of TP rank %1, PP stage %2: merged with the iteration's other ranks")
                                            .arg(rank.tensor).arg(rank.pipeline)});
        group.files << model;
    }
    // Every rank up to the largest named must be here: a save never skips one. The grid the names
    // span is a claim (one empty mp_rank_9999_9999_9999 spans 10¹²) and is never walked: its size
    // less the rank folders on it is how many are missing, and only the first few are named, found
    // in at most (folders here + kBriefListItems) steps.
    const qint64 tensors = qint64(maxTensor) + 1, pipelines = qint64(maxPipeline) + 1, experts = qint64(maxExpert) + 1;
    const qint64 grid = tensors * pipelines * experts;
    qint64 onGrid = 0; // the folders named as that grid names its ranks (no other spelling counts)
    for (const auto &[path, rank] : std::as_const(rankFolders))
        onGrid += rankFolderName({rank.tensor, rank.pipeline, rank.expert, numbers}) == QFileInfo(path).fileName() ? 1 : 0;
    if (const qint64 missing = grid - onGrid; missing > 0) {
        QStringList named;
        for (qint64 i = 0; i < grid && named.size() < kBriefListItems; ++i) {
            const MegatronRank rank{int(i % tensors), int(i / tensors % pipelines), int(i / (tensors * pipelines)), numbers};
            if (const QString expected = rankFolderName(rank); !present.contains(expected))
                named << expected;
        }
        group.error = QStringLiteral("rank folder(s) %1 missing: the iteration is not read (its shards are never merged short)")
                          .arg(briefList(named, missing));
    }
    std::sort(group.files.begin(), group.files.end());
    if (!group.files.isEmpty())
        group.stepInFile = iterationIn(group.files.first());
    if (!group.stepInFile && name == QLatin1String("release"))
        group.stepInFile = 0;
    weights.groups.append(group);
    return true;
}

MegatronTracker MegatronLayout::readTracker(const QString &saveFolder)
{
    MegatronTracker tracker;
    const QString path = QDir(saveFolder).filePath(trackerName());
    if (!QFileInfo(path).isFile())
        return tracker;
    tracker.present = true;
    QString error;
    const std::optional<QByteArray> bytes = readSmallRegularFile(path, kMaxTrackerBytes, &error);
    if (!bytes) {
        tracker.problem = error;
        return tracker;
    }
    // read_metadata: int(text.strip()), or 'release' (iteration 0).
    tracker.text = QString::fromUtf8(bytes->trimmed());
    bool ok = false;
    const qint64 iteration = tracker.text.toLongLong(&ok);
    if (ok && iteration >= 0)
        tracker.iteration = iteration;
    else if (tracker.text == QLatin1String("release"))
        tracker.iteration = 0;
    else
        tracker.problem = QStringLiteral("says '%1', neither an iteration nor 'release'").arg(printableText(tracker.text.left(40)));
    return tracker;
}

QString MegatronLayout::parallelismOf(const QStringList &files)
{
    int tensor = 0, pipeline = 0, expert = 0;
    for (const QString &file : files)
        if (const std::optional<MegatronRank> rank = rankOfFile(file)) {
            tensor = std::max(tensor, rank->tensor + 1);
            pipeline = std::max(pipeline, rank->pipeline + 1);
            expert = std::max(expert, rank->expert + 1);
        }
    return expert > 1 ? QStringLiteral("TP %1 × PP %2 × EP %3").arg(tensor).arg(pipeline).arg(expert) : QStringLiteral("TP %1 × PP %2").arg(tensor).arg(pipeline);
}

} // namespace rankscope
