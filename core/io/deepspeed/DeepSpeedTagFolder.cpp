#include "io/deepspeed/DeepSpeedCheckpointReader.h"
#include "io/megatron/MegatronDeepSpeedReader.h"

#include <QCollator>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>

namespace rankscope {

namespace {

using Name = DeepSpeedFileName;

// What one tag's files are, by their names.
struct TagFiles {
    QStringList all;           // every DeepSpeed file, in natural order
    QString modelStates;       // mp_rank_00_model_states.pt
    int rankModelStates = 0;   // zero_pp_rank_*_model_states.pt
    int optimStates = 0;       // *_optim_states.pt of mp rank 0
    QSet<int> mpRanks;
};

TagFiles tagFiles(const QStringList &paths)
{
    TagFiles tag;
    for (const QString &path : paths) {
        const Name name = Name::parse(QFileInfo(path).fileName());
        if (name.kind == Name::Kind::None || name.kind == Name::Kind::Expert)
            continue;
        tag.all << path;
        tag.mpRanks.insert(name.mpRank);
        if (name.kind == Name::Kind::ModelStates && name.mpRank == 0)
            tag.modelStates = path;
        tag.rankModelStates += name.kind == Name::Kind::RankModelStates ? 1 : 0;
        tag.optimStates += name.kind == Name::Kind::OptimStates && name.mpRank == 0 ? 1 : 0;
    }
    QCollator collator;
    collator.setNumericMode(true);
    std::sort(tag.all.begin(), tag.all.end(), [&](const QString &a, const QString &b) { return collator.compare(a, b) < 0; });
    return tag;
}

// The step DeepSpeed recorded (global_steps) in the model states, and whether its pickle names
// only DeepSpeed's own classes: one small pickle read, no tensor.
struct ModelStatesHead {
    std::optional<qint64> globalSteps;
    QStringList classes;
};

ModelStatesHead readHead(const QString &path)
{
    ModelStatesHead head;
    QString error;
    const auto reader = path.isEmpty() ? nullptr : TorchCheckpointReader::openAnyObject(path, &error);
    if (!reader || !reader->root() || reader->root()->kind != PickleValue::Kind::Dict)
        return head;
    if (const PickleRef steps = reader->root()->value(QStringLiteral("global_steps")); steps && steps->kind == PickleValue::Kind::Int)
        head.globalSteps = steps->integer;
    head.classes = reader->unsafeGlobals();
    return head;
}

QString classesNote(const QStringList &classes)
{
    if (classes.isEmpty())
        return {};
    const bool own = std::all_of(classes.begin(), classes.end(), &DeepSpeedTagFolder::isOwnClass);
    return own ? QStringLiteral("; its pickle names DeepSpeed's own classes (%1), which torch.load(weights_only=True) refuses: read as "
                                "data here, nothing run")
                     .arg(classes.mid(0, 4).join(QLatin1String(", ")))
               : QString();
}

} // namespace

bool DeepSpeedTagFolder::isOwnClass(const QString &global)
{
    static const QRegularExpression own(QStringLiteral(R"(^deepspeed(\.[a-z0-9_]+)+\.[A-Z][A-Za-z0-9]*(Config|Enum|Scaler)$)"));
    return own.match(global).hasMatch();
}

QString DeepSpeedTagFolder::describe(const QStringList &files, bool moduleHoldsWeights)
{
    const TagFiles tag = tagFiles(files);
    if (tag.mpRanks.size() > 1 && MegatronDeepSpeedReader::isModelParallel(files))
        return QStringLiteral("%1 model-parallel ranks, joined as Megatron's tensor-parallel shards where their args say how").arg(tag.mpRanks.size());
    if (tag.mpRanks.size() > 1)
        return QStringLiteral("%1 model-parallel ranks, which are not merged").arg(tag.mpRanks.size());
    if (tag.rankModelStates > 0)
        return QStringLiteral("ZeRO-3 over %1 ranks, weights rebuilt from the fp32 partitions").arg(std::max(tag.rankModelStates, tag.optimStates));
    if (!moduleHoldsWeights && tag.optimStates > 0)
        return QStringLiteral("ZeRO-1/2 over %1 ranks without weights in module, weights rebuilt from the fp32 partitions").arg(tag.optimStates);
    return QStringLiteral("ZeRO ≤ 2, the weights read from module of mp_rank_00_model_states.pt");
}

void DeepSpeedTagFolder::recognise(const QString &folder, FolderWeights &weights)
{
    QStringList paths;
    for (const ClassifiedFile &file : weights.files)
        paths << file.path;
    const TagFiles tag = tagFiles(paths);
    if (tag.modelStates.isEmpty() && tag.rankModelStates == 0 && tag.optimStates == 0)
        return;
    const QSet<QString> ours(tag.all.begin(), tag.all.end());
    // The weights FileContent found in module (ZeRO ≤ 2) decide whether partitions are read.
    const bool moduleHoldsWeights = std::any_of(weights.files.begin(), weights.files.end(), [&](const ClassifiedFile &f) {
        return f.path == tag.modelStates && f.role == FileRole::Weights;
    });
    const bool fromPartitions = tag.rankModelStates > 0 || !moduleHoldsWeights;
    weights.groups.removeIf([&](const WeightsGroup &g) {
        return std::any_of(g.files.begin(), g.files.end(), [&](const QString &f) { return ours.contains(f); });
    });
    const QString rankZero = tag.modelStates.isEmpty() ? QDir(folder).filePath(QStringLiteral("zero_pp_rank_0_mp_rank_00_model_states.pt")) : tag.modelStates;
    const ModelStatesHead head = readHead(QFileInfo(rankZero).isFile() ? rankZero : QString());
    WeightsGroup group;
    group.layout = WeightsLayout::DeepSpeedTag;
    group.files = tag.all;
    group.format = QStringLiteral("deepspeed");
    group.name = QStringLiteral("DeepSpeed %1").arg(describe(tag.all, moduleHoldsWeights));
    group.stepInFile = head.globalSteps;
    weights.groups.prepend(group);

    for (ClassifiedFile &file : weights.files) {
        const Name name = Name::parse(QFileInfo(file.path).fileName());
        const QString rank = QString::number(name.dpRank);
        switch (name.kind) {
        case Name::Kind::None: continue;
        case Name::Kind::Expert:
            file = {file.path, FileRole::Other, QStringLiteral("a DeepSpeed MoE expert file: experts saved apart from the model states are not read"), true};
            continue;
        case Name::Kind::ModelStates:
            file = {file.path, moduleHoldsWeights ? FileRole::Weights : FileRole::Shard,
                    (moduleHoldsWeights ? QStringLiteral("DeepSpeed model states: the weights under module")
                                        : QStringLiteral("DeepSpeed model states: param_shapes, by which the partitions are cut")) +
                        (head.globalSteps ? QStringLiteral(" (global_steps %1)").arg(*head.globalSteps) : QString()) +
                        (file.path == rankZero ? classesNote(head.classes) : QString())};
            break;
        case Name::Kind::RankModelStates:
            file = {file.path, FileRole::Shard,
                    QStringLiteral("DeepSpeed ZeRO-3 model states of rank %1: its module holds placeholders; param_shapes%2 cut the partitions")
                            .arg(rank, name.dpRank == 0 ? QString() : QStringLiteral(" (of rank 0)")) +
                        (file.path == rankZero ? classesNote(head.classes) : QString())};
            break;
        case Name::Kind::OptimStates:
            file = fromPartitions ? ClassifiedFile{file.path, FileRole::Shard,
                                                   QStringLiteral("DeepSpeed fp32 partition of rank %1%2: the weights are rebuilt from it as zero_to_fp32.py does")
                                                       .arg(rank, name.bf16 ? QStringLiteral(" (bf16 run)") : QString())}
                                  : ClassifiedFile{file.path, FileRole::TrainingSidecar,
                                                   QStringLiteral("DeepSpeed optimizer partition of rank %1: optimizer state, not weights; the weights are "
                                                                  "module of mp_rank_00_model_states.pt").arg(rank)};
            break;
        }
        if (name.mpRank > 0)
            file.reason += MegatronDeepSpeedReader::isModelParallel(tag.all) ? QStringLiteral("; model-parallel rank %1, merged with the others").arg(name.mpRank)
                                                                              : QStringLiteral("; model-parallel rank %1, not merged").arg(name.mpRank);
    }
}

} // namespace rankscope
