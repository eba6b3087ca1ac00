#include "analysis/discovery/CheckpointDiscovery.h"

#include "analysis/discovery/AccelerateSaveFolder.h"
#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/discovery/DeepSpeedSaveFolder.h"
#include "analysis/discovery/HubCacheLayout.h"
#include "analysis/discovery/LightningDeepSpeedFolder.h"
#include "analysis/discovery/Nemo2SaveFolder.h"
#include "analysis/discovery/TorchtuneOutputFolder.h"
#include "analysis/results/ResultsFile.h"
#include "base/PrintableText.h"
#include "io/CheckpointFormats.h"
#include "io/LitGptConfig.h"
#include "io/megatron/MegatronLayout.h"
#include "io/metallama/MetaLlamaLayout.h"
#include "io/nanotron/NanotronLayout.h"
#include "io/RegularFile.h"
#include "io/TrainingFileNames.h"

#include <QCollator>
#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <limits>

namespace rankscope {

namespace {

// How far below the opened folder runs are looked for: run/lr3e-4/seed0/checkpoint-100/.
constexpr int kMaxRunDepth = 3;

// A step written in JSON (trainer_state's global_step, nanochat's step), or none and why.
std::optional<qint64> stepFromJson(const QJsonValue &value, const QString &where, QStringList &problems)
{
    if (value.isUndefined() || value.isNull())
        return std::nullopt;
    if (!value.isDouble()) {
        problems << QStringLiteral("%1 gives a step that is not a number").arg(where);
        return std::nullopt;
    }
    const double number = value.toDouble();
    const qint64 whole = value.toInteger(std::numeric_limits<qint64>::min());
    if (whole == std::numeric_limits<qint64>::min()) {
        problems << (number >= 9.2e18 ? QStringLiteral("%1 gives the step %2, which does not fit in 64 bits").arg(where).arg(number, 0, 'g', 21)
                                      : QStringLiteral("%1 gives the step %2, which is not a whole number").arg(where).arg(number));
        return std::nullopt;
    }
    if (whole < 0) {
        problems << QStringLiteral("%1 gives a negative step (%2)").arg(where).arg(whole);
        return std::nullopt;
    }
    return whole;
}

// What goes on the skipped list as well as in `info`: what a user might take for a checkpoint.
bool mightBeTakenForACheckpoint(const ClassifiedFile &file)
{
    switch (file.role) {
    case FileRole::NotRegular:
    case FileRole::ResultsFile:
    case FileRole::Link:
    case FileRole::RunFolder:
        return true;
    case FileRole::Other:
    case FileRole::TrainingSidecar: {
        const QFileInfo info(file.path);
        const QString suffix = info.suffix().toLower();
        return weightFileSuffixes().contains(suffix) || suffix == QLatin1String("npy") || info.fileName().endsWith(QLatin1String(".index.json"));
    }
    default:
        return false;
    }
}

// The trainers' save folders discovery knows beyond what FolderWeights reads, one row each, in
// the order they are tried: a folder that is one checkpoint in the trainer's own layout
// (checkpointIn; null: none), and what the run's listing says about such a save once read.
struct SaveFolderLayout {
    std::optional<FolderWeights> (*checkpointIn)(const QString &folder);
    void (*describe)(const QString &root, CheckpointListing &listing);
};
constexpr SaveFolderLayout kSaveFolderLayouts[] = {
    {nullptr, DeepSpeedSaveFolder::describe},
    {nullptr, Nemo2SaveFolder::describe},
    // Lightning's epoch=E-step=N.ckpt/ under DeepSpeed (a DeepSpeed save folder of one tag).
    {LightningDeepSpeedFolder::checkpointIn, LightningDeepSpeedFolder::describe},
    // Accelerate's FSDP checkpoint_N/.
    {AccelerateSaveFolder::checkpointIn, AccelerateSaveFolder::describe},
    {nullptr, TorchtuneOutputFolder::describe},
};

bool isLink(const QString &path) { return QFileInfo(path).isSymLink(); }

// Real files and folders before links to them, so that a link is what is named as read already.
template <typename T, typename PathOf>
void linksLast(QList<T> &list, PathOf pathOf)
{
    std::stable_partition(list.begin(), list.end(), [&](const T &item) { return !isLink(pathOf(item)); });
}

// One run folder being read: its checkpoints, and every file and folder it holds, classified.
class RunReading {
public:
    RunReading(const QString &folder, QSet<QString> &visited, int depth)
        : m_root(QFileInfo(folder).absoluteFilePath()), m_visited(visited), m_depth(depth)
    {
        m_rootConfig = configIn(m_root);
    }

    CheckpointListing read(const FolderWeights &top);

private:
    struct Config {
        QVariantMap values;
        QString path;
    };
    static Config configIn(const QDir &dir);
    QString relative(const QString &path) const { return m_root.relativeFilePath(QFileInfo(path).absoluteFilePath()); }
    void classify(ClassifiedFile file);
    void reclassify(const QString &path, FileRole role, const QString &reason);
    bool nameCarriesStep(const WeightsGroup &group) const { return CheckpointDiscovery::stepFromName(group.name).has_value(); }
    CheckpointFile checkpointOf(const WeightsGroup &group, const QDir &dir, const QString &path, bool isFolder);
    void applyTrainerState(CheckpointFile &checkpoint, const QDir &dir);
    void add(CheckpointFile checkpoint);
    void addCheckpointFolder(const QString &folder, const FolderWeights &weights);
    void readSubfolder(const QString &folder, QList<QPair<QString, FolderWeights>> &unnamedModels);
    void applyMegatronTracker();

    QDir m_root;
    Config m_rootConfig;
    QSet<QString> &m_visited;
    int m_depth;
    CheckpointListing m_listing;
    QHash<QString, QString> m_takenFiles; // canonical path of a weights file → the checkpoint reading it
};

RunReading::Config RunReading::configIn(const QDir &dir)
{
    const QString path = QDir::cleanPath(dir.absoluteFilePath(QStringLiteral("config.json")));
    const std::optional<QJsonObject> config = QFileInfo(path).isFile() ? readSmallJsonObject(path) : std::nullopt;
    // litgpt writes no config.json, but model_config.yaml beside each lit_model.pth.
    const QString litgpt = QDir::cleanPath(dir.absoluteFilePath(QStringLiteral("model_config.yaml")));
    if (const QVariantMap values = !config && QFileInfo(litgpt).isFile() ? LitGptConfig::read(litgpt) : QVariantMap(); !values.isEmpty())
        return Config{values, litgpt};
    // Meta's Llama downloads have params.json (dim, n_heads, n_kv_heads, …) beside consolidated.NN.pth.
    const QString meta = QDir::cleanPath(dir.absoluteFilePath(MetaLlamaLayout::paramsName()));
    if (const QVariantMap values = !config && QFileInfo(meta).isFile() ? MetaLlamaParams::read(meta).modelConfig() : QVariantMap(); !values.isEmpty())
        return Config{values, meta};
    // nanotron's step folders have model_config.json (transformers' Llama keys) beside checkpoint_metadata.json.
    if (const QVariantMap values = !config ? NanotronLayout::modelConfig(dir.absolutePath()) : QVariantMap(); !values.isEmpty())
        return Config{values, QDir::cleanPath(dir.absoluteFilePath(NanotronLayout::modelConfigName()))};
    return config ? Config{config->toVariantMap(), path} : Config{};
}

void RunReading::classify(ClassifiedFile file)
{
    // A results file is an HDF5 file, which the reader probed as holding no matrices.
    const QString suffix = QFileInfo(file.path).suffix().toLower();
    if (file.role == FileRole::Other && (suffix == QLatin1String("h5") || suffix == QLatin1String("hdf5")) && ResultsFile::isResultsFile(file.path))
        file = {file.path, FileRole::ResultsFile, QStringLiteral("a RankScope results file")};
    if (file.problem)
        m_listing.skipped.append({file.path, file.reason, false, true});
    else if (mightBeTakenForACheckpoint(file))
        m_listing.skipped.append({file.path, QStringLiteral("%1: %2").arg(fileRoleName(file.role), file.reason)});
    m_listing.files.append(file);
}

void RunReading::reclassify(const QString &path, FileRole role, const QString &reason)
{
    const QString target = cleanAbsolutePath(path);
    m_listing.files.removeIf([&](const ClassifiedFile &f) { return cleanAbsolutePath(f.path) == target; });
    m_listing.skipped.removeIf([&](const SkippedFile &f) { return cleanAbsolutePath(f.path) == target; });
    classify({path, role, reason});
}

CheckpointFile RunReading::checkpointOf(const WeightsGroup &group, const QDir &dir, const QString &path, bool isFolder)
{
    CheckpointFile c;
    c.path = cleanAbsolutePath(path);
    c.isFolder = isFolder;
    c.layout = group.layout;
    c.files = group.files;
    c.format = group.format;
    c.error = group.error;
    const QString name = QFileInfo(path).fileName();
    if (group.stepInFile && *group.stepInFile < 0)
        c.stepProblems << QStringLiteral("%1 records a negative step (%2)").arg(group.name).arg(*group.stepInFile);
    else
        c.stepInFile = group.stepInFile;
    // A folder's step is in its name (checkpoint-500/), or else in its weights file's.
    QString problem;
    c.stepFromName = CheckpointDiscovery::stepFromName(isFolder ? name : group.name, &problem);
    if (!c.stepFromName && problem.isEmpty() && isFolder)
        c.stepFromName = CheckpointDiscovery::stepFromName(group.name, &problem);
    if (!problem.isEmpty())
        c.stepProblems << problem;

    // The checkpoint's own folder's config.json, or else the opened folder's; never one above it.
    const Config own = dir.absolutePath() == m_root.absolutePath() ? m_rootConfig : configIn(dir);
    const Config &config = own.path.isEmpty() ? m_rootConfig : own;
    c.sidecarConfig = config.values;
    c.configPath = config.path;
    for (const QDir &where : {dir, m_root}) {
        const QString adapter = QDir::cleanPath(where.absoluteFilePath(QStringLiteral("adapter_config.json")));
        if (const std::optional<QJsonObject> values = QFileInfo(adapter).isFile() ? readSmallJsonObject(adapter) : std::nullopt) {
            c.adapterConfig = values->toVariantMap();
            c.adapterConfigPath = adapter;
            break;
        }
    }

    // nanochat writes model_000500.pt beside meta_000500.json, which holds the step and model_config.
    static const QRegularExpression digits(QStringLiteral(R"((\d+)\.\w+$)"));
    if (const auto m = digits.match(group.name); m.hasMatch() && group.layout == WeightsLayout::OneFile && !isFolder) {
        const QString metaPath = dir.filePath(QStringLiteral("meta_%1.json").arg(m.captured(1)));
        if (const std::optional<QJsonObject> meta = QFileInfo(metaPath).isFile() ? readSmallJsonObject(metaPath) : std::nullopt) {
            c.stepFromSidecar = stepFromJson(meta->value(QLatin1String("step")), QFileInfo(metaPath).fileName(), c.stepProblems);
            if (c.stepFromSidecar)
                c.stepSidecar = metaPath;
            if (meta->value(QLatin1String("model_config")).isObject()) {
                c.sidecarConfig = meta->value(QLatin1String("model_config")).toObject().toVariantMap();
                c.configPath = metaPath;
            }
        }
    }
    return c;
}

// A Trainer's trainer_state.json: the step of the checkpoint folder it is in, or of the final model
// saved at the top of its output_dir.
void RunReading::applyTrainerState(CheckpointFile &checkpoint, const QDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("trainer_state.json"));
    if (!QFileInfo(path).isFile())
        return;
    const std::optional<QJsonObject> state = readSmallJsonObject(path);
    if (!state)
        return;
    checkpoint.stepFromSidecar = stepFromJson(state->value(QLatin1String("global_step")), relative(path), checkpoint.stepProblems);
    if (checkpoint.stepFromSidecar)
        checkpoint.stepSidecar = path;
}

void RunReading::add(CheckpointFile checkpoint)
{
    // A link to weights already listed (last.pt -> ckpt_001000.pt) is the same checkpoint.
    if (!checkpoint.files.isEmpty()) {
        const QString canonical = QFileInfo(checkpoint.files.first()).canonicalFilePath();
        if (const auto taken = m_takenFiles.constFind(canonical); taken != m_takenFiles.constEnd()) {
            reclassify(checkpoint.path, FileRole::Link, QStringLiteral("the same weights as %1, read once").arg(relative(*taken)));
            return;
        }
        m_takenFiles.insert(canonical, checkpoint.path);
    }
    m_listing.checkpoints.append(std::move(checkpoint));
}

void RunReading::addCheckpointFolder(const QString &folder, const FolderWeights &weights)
{
    QString error;
    const WeightsGroup *group = weights.checkpoint(&error);
    classify({folder, FileRole::CheckpointFolder,
              group ? QStringLiteral("one checkpoint, read from %1").arg(group->name) : QStringLiteral("one checkpoint that cannot be read: %1").arg(error)});
    for (const ClassifiedFile &file : weights.files)
        classify(file);
    for (const WeightsGroup &other : weights.groups)
        if (&other != group && group)
            for (const QString &path : other.files)
                reclassify(path, FileRole::Other, QStringLiteral("more weights in a checkpoint folder, not read: its checkpoint is %1").arg(group->name));
    WeightsGroup unreadable;
    if (!group) {
        unreadable.name = QFileInfo(folder).fileName();
        unreadable.error = error;
        for (const WeightsGroup &g : weights.groups)
            unreadable.files << g.files;
    }
    CheckpointFile c = checkpointOf(group ? *group : unreadable, QDir(folder), folder, true);
    applyTrainerState(c, QDir(folder));
    add(std::move(c));
}

// A subfolder is one checkpoint (named by a step, or beside other checkpoints), a run of its own
// (weights named by steps, or checkpoint folders inside), a set of runs, or nothing.
void RunReading::readSubfolder(const QString &folder, QList<QPair<QString, FolderWeights>> &unnamedModels)
{
    const QFileInfo info(folder);
    if (info.fileName().startsWith(QLatin1Char('.'))) {
        classify({folder, FileRole::Folder, QStringLiteral("a hidden folder: not searched")});
        return;
    }
    const QString canonical = info.canonicalFilePath();
    if (m_visited.contains(canonical)) {
        classify({folder, FileRole::Link, QStringLiteral("a link to %1, which is read already: followed once").arg(QDir::toNativeSeparators(canonical))});
        return;
    }
    m_visited.insert(canonical);
    if (HubCacheLayout::isRepository(folder)) {
        classify({folder, FileRole::RunFolder, QStringLiteral("a Hugging Face cache of %1: a run of its own").arg(HubCacheLayout::repositoryId(folder))});
        m_listing.runs << info.absoluteFilePath();
        return;
    }
    // A trainer's save whose weights lie in a folder of their own.
    for (const SaveFolderLayout &layout : kSaveFolderLayouts)
        if (const std::optional<FolderWeights> saved = layout.checkpointIn ? layout.checkpointIn(folder) : std::nullopt) {
            addCheckpointFolder(folder, *saved);
            return;
        }
    const FolderWeights weights = FolderWeights::read(folder);
    if (!weights.listingError.isEmpty()) {
        classify({folder, FileRole::Folder, weights.listingError, true});
        return;
    }
    if (!weights.groups.isEmpty()) {
        // A trainer's step folder is a checkpoint whatever it is called: Megatron-LM's iter_0000100/
        // and release/, a DeepSpeed tag.
        const bool trainerCheckpoint = std::any_of(weights.groups.begin(), weights.groups.end(), [](const WeightsGroup &g) {
            return g.layout == WeightsLayout::MegatronShards || g.layout == WeightsLayout::DeepSpeedTag || g.layout == WeightsLayout::NanotronParameters ||
                   Nemo2SaveFolder::isNemo2Checkpoint(g);
        });
        const bool weightsNamedByStep = std::any_of(weights.groups.begin(), weights.groups.end(),
                                                    [&](const WeightsGroup &g) { return nameCarriesStep(g); });
        // torchtune's epoch_N/ holds one model, its shards named without a step.
        const bool epochFolder = TorchtuneOutputFolder::epochOfFolder(info.fileName()).has_value() && !weightsNamedByStep;
        const bool namedByStep = CheckpointDiscovery::stepFromName(info.fileName()).has_value() || trainerCheckpoint || epochFolder;
        if (namedByStep || !weightsNamedByStep) {
            // model.safetensors in final/ beside checkpoint-N/ is a checkpoint; alone in seed0/, a run.
            if (namedByStep)
                addCheckpointFolder(folder, weights);
            else
                unnamedModels.append({folder, weights});
            return;
        }
    }
    if (m_depth + 1 > kMaxRunDepth) {
        classify({folder, FileRole::Folder, QStringLiteral("not searched: more than %1 levels below the opened folder").arg(kMaxRunDepth)});
        return;
    }
    const CheckpointListing inner = RunReading(folder, m_visited, m_depth + 1).read(weights);
    if (!inner.checkpoints.isEmpty()) {
        classify({folder, FileRole::RunFolder, QStringLiteral("a run of its own (%1 checkpoints)").arg(inner.checkpoints.size())});
        m_listing.runs << info.absoluteFilePath();
    } else if (!inner.runs.isEmpty()) {
        QStringList names;
        for (const QString &run : inner.runs)
            names << QFileInfo(run).fileName();
        classify({folder, FileRole::RunFolder, QStringLiteral("holds %1 runs of its own (%2)").arg(QString::number(inner.runs.size()), briefList(names))});
        m_listing.runs << info.absoluteFilePath();
    } else {
        classify({folder, FileRole::Folder, QStringLiteral("holds no checkpoints")});
    }
}

// A Megatron-LM save folder: its iterations are one run, and latest_checkpointed_iteration.txt,
// written after every rank's files, says which is complete; a newer one is still being written
// (checkpointing.py saves, then writes the tracker), so it is named and left for a later look.
void RunReading::applyMegatronTracker()
{
    const auto isMegatron = [](const CheckpointFile &c) { return c.layout == WeightsLayout::MegatronShards; };
    if (std::none_of(m_listing.checkpoints.begin(), m_listing.checkpoints.end(), isMegatron))
        return;
    const MegatronTracker tracker = MegatronLayout::readTracker(m_root.absolutePath());
    QList<QPair<QString, QString>> pending; // folder, why
    m_listing.checkpoints.removeIf([&](const CheckpointFile &c) {
        const std::optional<qint64> step = CheckpointSteps::stepOf(c, nullptr).first;
        if (!isMegatron(c) || !tracker.iteration || !step || *step <= *tracker.iteration)
            return false;
        pending.append({c.path, QStringLiteral("iteration %1 is newer than %2 (%3): still being written, not analysed")
                                    .arg(*step).arg(MegatronLayout::trackerName()).arg(*tracker.iteration)});
        return true;
    });
    for (const auto &[path, why] : pending) {
        reclassify(path, FileRole::CheckpointFolder, why);
        m_listing.skipped.append({path, why});
    }
    const auto iterations = std::count_if(m_listing.checkpoints.begin(), m_listing.checkpoints.end(), isMegatron);
    const auto first = std::find_if(m_listing.checkpoints.begin(), m_listing.checkpoints.end(), isMegatron);
    const QString sharding = first == m_listing.checkpoints.end() ? QString() : QStringLiteral(", %1, shards merged").arg(MegatronLayout::parallelismOf(first->files));
    QString trackerText = QStringLiteral("no %1").arg(MegatronLayout::trackerName());
    if (tracker.present)
        trackerText = tracker.problem.isEmpty() ? QStringLiteral("%1: %2").arg(MegatronLayout::trackerName(), tracker.text)
                                                : QStringLiteral("%1 %2").arg(MegatronLayout::trackerName(), tracker.problem);
    m_listing.takenFor << QStringLiteral("a Megatron-LM save folder: %1 iteration(s)%2 (%3)").arg(iterations).arg(sharding, trackerText);
}

CheckpointListing RunReading::read(const FolderWeights &weights)
{
    // torchtune ≤ 0.4 saves an epoch's shards flat beside the other epochs': one checkpoint each.
    FolderWeights top = weights;
    TorchtuneOutputFolder::regroupFlatFiles(top);
    if (!top.listingError.isEmpty())
        classify({m_root.absolutePath(), FileRole::Folder, top.listingError, true});
    for (const ClassifiedFile &file : top.files)
        classify(file);

    // The folder's own weights: each file a checkpoint; a shard set or .npy arrays the folder's own.
    QList<WeightsGroup> groups = top.groups;
    linksLast(groups, [](const WeightsGroup &g) { return g.files.value(0); });
    const auto multiFile = std::count_if(groups.begin(), groups.end(), [](const WeightsGroup &g) { return g.layout != WeightsLayout::OneFile; });
    for (const WeightsGroup &group : groups) {
        const bool isFolder = group.layout != WeightsLayout::OneFile && multiFile == 1;
        CheckpointFile c = checkpointOf(group, m_root, isFolder ? m_root.absolutePath() : group.files.first(), isFolder);
        if (!nameCarriesStep(group))
            applyTrainerState(c, m_root);
        add(std::move(c));
    }

    QStringList subfolders = top.subfolders;
    linksLast(subfolders, [](const QString &path) { return path; });
    QList<QPair<QString, FolderWeights>> unnamedModels;
    for (const QString &folder : subfolders)
        readSubfolder(folder, unnamedModels);
    // A folder holding one model and nothing named by a step is a checkpoint beside others (final/
    // beside checkpoint-N/), or, where the folder has no checkpoints of its own, a run of one model.
    const bool hasOwnCheckpoints = !m_listing.checkpoints.isEmpty();
    for (const auto &[folder, weights] : unnamedModels) {
        if (hasOwnCheckpoints) {
            addCheckpointFolder(folder, weights);
        } else {
            classify({folder, FileRole::RunFolder, QStringLiteral("a run of its own (one model)")});
            m_listing.runs << QFileInfo(folder).absoluteFilePath();
        }
    }

    applyMegatronTracker();
    for (const SaveFolderLayout &layout : kSaveFolderLayouts)
        layout.describe(m_root.absolutePath(), m_listing);
    if (const auto steps = std::count_if(m_listing.checkpoints.begin(), m_listing.checkpoints.end(),
                                         [](const CheckpointFile &c) { return c.layout == WeightsLayout::NanotronParameters; });
        steps > 0) {
        const std::optional<qint64> latest = NanotronLayout::latestStep(m_root.absolutePath());
        m_listing.takenFor << QStringLiteral("a nanotron checkpoints folder: %1 step folder(s), tensor-parallel shards joined by their recorded slices%2")
                                  .arg(steps).arg(latest ? QStringLiteral(" (latest.txt: %1)").arg(*latest) : QString());
    }

    QCollator collator;
    collator.setNumericMode(true);
    auto knownStep = [](const CheckpointFile &c) { return CheckpointSteps::stepOf(c, nullptr).first; };
    std::stable_sort(m_listing.checkpoints.begin(), m_listing.checkpoints.end(), [&](const CheckpointFile &a, const CheckpointFile &b) {
        const auto sa = knownStep(a), sb = knownStep(b);
        if (sa && sb && *sa != *sb)
            return *sa < *sb;
        return collator.compare(a.path, b.path) < 0;
    });
    return m_listing;
}

} // namespace

std::unique_ptr<CheckpointReader> CheckpointFile::open(QString *problem) const
{
    if (!error.isEmpty()) {
        *problem = error;
        return nullptr;
    }
    return openCheckpointFiles(layout, files, problem);
}


ClassifiedFile *CheckpointListing::fileAt(const QString &path)
{
    const QString wanted = cleanAbsolutePath(path);
    for (ClassifiedFile &file : files)
        if (cleanAbsolutePath(file.path) == wanted)
            return &file;
    return nullptr;
}

void CheckpointListing::setRole(const QString &path, FileRole role, const QString &reason, bool problem)
{
    const QString target = cleanAbsolutePath(path);
    skipped.removeIf([&](const SkippedFile &s) { return cleanAbsolutePath(s.path) == target; });
    if (ClassifiedFile *file = fileAt(path))
        *file = {file->path, role, reason, problem};
    if (problem)
        skipped.append({path, reason, false, true});
}

std::optional<qint64> CheckpointDiscovery::stepFromName(const QString &fileName, QString *problem)
{
    static const QRegularExpression pattern(
        QStringLiteral(R"((?:checkpoint|global_step|step|ckpt|model|iter)[-_=]?(\d+))"),
        QRegularExpression::CaseInsensitiveOption);
    // Composer names its checkpoints ep{epoch}-ba{batch}-rank{rank}.pt: the step is the batch.
    static const QRegularExpression composer(QStringLiteral(R"((?:^|[^a-z])ep\d+-ba(\d+)(?:-rank\d+)?)"), QRegularExpression::CaseInsensitiveOption);
    QRegularExpressionMatch last = composer.match(fileName);
    if (!last.hasMatch())
        for (auto it = pattern.globalMatch(fileName); it.hasNext();)
            last = it.next();
    if (!last.hasMatch())
        return std::nullopt;
    bool ok = false;
    const qint64 step = last.captured(1).toLongLong(&ok);
    if (!ok) {
        if (problem)
            *problem = QStringLiteral("the step %1 in the name %2 does not fit in 64 bits").arg(last.captured(1), fileName);
        return std::nullopt;
    }
    return step;
}

namespace {

// What the DCP folders among the checkpoints were taken for, by writer: "Megatron torch_dist
// folders: .metadata and .distcp chunks stitched by their offsets, 3 checkpoint(s)".
QStringList distributedCheckpointsTakenFor(const CheckpointListing &listing)
{
    QMap<QString, QStringList> byWriter;
    for (const CheckpointFile &c : listing.checkpoints)
        if (c.layout == WeightsLayout::DistributedCheckpoint)
            byWriter[c.format] << QFileInfo(c.path).fileName();
    QStringList out;
    static const QRegularExpression torchtitan(QStringLiteral(R"(^step-\d+$)"));
    for (auto it = byWriter.begin(); it != byWriter.end(); ++it) {
        const bool steps = std::all_of(it->begin(), it->end(), [](const QString &name) { return torchtitan.match(name).hasMatch(); });
        out << QStringLiteral("%1 folders%2: .metadata and .distcp chunks stitched by their offsets, %3 checkpoint(s)")
                   .arg(it.key(), steps && it.key() == QLatin1String("torch.distributed.checkpoint") ? QStringLiteral(" (torchtitan step-N/)") : QString())
                   .arg(it->size());
    }
    return out;
}

// "Meta Llama model-parallel checkpoints: 2, MP 2 (consolidated.NN.pth beside params.json), …".
QString metaLlamaTakenFor(const CheckpointListing &listing)
{
    QStringList sizes;
    qsizetype count = 0;
    for (const CheckpointFile &c : listing.checkpoints) {
        if (c.layout != WeightsLayout::MetaModelParallel)
            continue;
        ++count;
        // The size the files' names give (the last rank's, + 1), whether or not all of them are here.
        int ranks = 0;
        for (const QString &file : c.files)
            ranks = std::max(ranks, MetaLlamaLayout::shardNumber(QFileInfo(file).fileName()).value_or(-1) + 1);
        if (const QString size = QStringLiteral("MP %1").arg(ranks); !sizes.contains(size))
            sizes << size;
    }
    if (count == 0)
        return {};
    return QStringLiteral("Meta Llama model-parallel checkpoints: %1, %2 (consolidated.NN.pth beside params.json), each matrix joined from its files "
                          "as llama/model.py's parallel layers split it")
        .arg(count)
        .arg(briefList(sizes));
}

// Where base_model_name_or_path is on this machine, as from_pretrained would look for it: a folder
// (relative to the working folder), else a model in the local Hugging Face cache. Nothing is fetched.
QString baseModelWhereabouts(const QString &base)
{
    const QString shown = printableText(base.left(200));
    const QString open = QStringLiteral("rankscope analyze RUN --base %1 (or File \u25b8 Add base model in the window) adds the merged "
                                        "weights W\u2080 + \u0394W and the base's own");
    if (QFileInfo(base).isDir())
        return QStringLiteral("%1 (a local folder: %2)").arg(shown, open.arg(shown));
    if (const QString cached = HubCacheLayout::cachedModel(base); !cached.isEmpty())
        return QStringLiteral("%1 (in the local Hugging Face cache, %2: %3)").arg(shown, printableText(cached), open.arg(printableText(cached)));
    return QStringLiteral("%1 (not on this machine: neither a folder nor in the Hugging Face cache at %2)")
        .arg(shown, printableText(HubCacheLayout::cacheFolder()));
}

// "a PEFT LoRA adapter run: r = 8, 7 target modules, 3 checkpoints; base model meta-llama/…": said
// from the adapter_config.json of its newest checkpoint.
QString adapterRunTakenFor(const CheckpointListing &listing)
{
    const auto last = std::find_if(listing.checkpoints.rbegin(), listing.checkpoints.rend(),
                                   [](const CheckpointFile &c) { return !c.adapterConfigPath.isEmpty(); });
    if (last == listing.checkpoints.rend())
        return {};
    const AdapterConfig config = AdapterConfig::fromJson(last->adapterConfig, last->adapterConfigPath);
    const qsizetype count = std::count_if(listing.checkpoints.begin(), listing.checkpoints.end(),
                                          [](const CheckpointFile &c) { return !c.adapterConfigPath.isEmpty(); });
    QStringList what;
    if (config.rank())
        what << QStringLiteral("r = %1").arg(*config.rank());
    if (!config.targetModules().isEmpty())
        what << (config.targetModules().size() == 1 ? QStringLiteral("target modules %1").arg(config.targetModules().first())
                                                    : QStringLiteral("%1 target modules").arg(config.targetModules().size()));
    what << QStringLiteral("%1 checkpoint%2").arg(count).arg(count == 1 ? "" : "s");
    QString text = QStringLiteral("a PEFT %1 adapter run: %2; its updates ΔW = s·B·A are analysed as the matrices they change")
                       .arg(config.peftType().isEmpty() ? QStringLiteral("LoRA") : config.peftType(), what.join(QLatin1String(", ")));
    if (config.usesDora())
        text += QStringLiteral(" (DoRA: the magnitude vector is not part of the update)");
    if (!config.modulesToSave().isEmpty())
        text += QStringLiteral("; modules_to_save %1: trained whole, analysed as the model's own matrices")
                    .arg(printableText(briefList(config.modulesToSave())));
    if (!config.baseModel().isEmpty())
        text += QStringLiteral("; base model %1").arg(baseModelWhereabouts(config.baseModel()));
    return text;
}

} // namespace

CheckpointListing CheckpointDiscovery::scan(const QString &folder)
{
    if (HubCacheLayout::isRepository(folder))
        return HubCacheLayout::read(folder);
    QSet<QString> visited{QFileInfo(folder).canonicalFilePath()};
    // An Accelerate FSDP save opened on its own is the one checkpoint of its folder.
    const std::optional<FolderWeights> save = AccelerateSaveFolder::checkpointIn(folder);
    CheckpointListing listing = RunReading(folder, visited, 0).read(save ? *save : FolderWeights::read(folder));
    // A checkpoint folder inside the opened one is the checkpoint's alone; the opened folder is only
    // when it holds one checkpoint and no run of its own.
    const QString root = cleanAbsolutePath(folder);
    for (CheckpointFile &c : listing.checkpoints)
        c.ownsSubtree = c.isFolder && (c.path != root || (listing.checkpoints.size() == 1 && listing.runs.isEmpty()));
    listing.takenFor << distributedCheckpointsTakenFor(listing);
    if (const QString meta = metaLlamaTakenFor(listing); !meta.isEmpty())
        listing.takenFor << meta;
    if (const QString adapters = adapterRunTakenFor(listing); !adapters.isEmpty())
        listing.takenFor << adapters;
    return listing;
}

} // namespace rankscope
