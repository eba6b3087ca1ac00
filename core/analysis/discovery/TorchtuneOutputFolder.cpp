#include "analysis/discovery/TorchtuneOutputFolder.h"

#include "base/PrintableText.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QFileInfo>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>

namespace rankscope {

namespace {

// What a flat file of torchtune ≤ 0.4 is, by its name (_checkpointer.py at v0.4.0).
struct FlatName {
    enum class Kind { None, HfShard, Model, Adapter, PeftAdapter } kind = Kind::None;
    qint64 epoch = -1;
    int shard = 0;
    int total = 0; // shards the name claims (model-0KKKK-of-0MMMM_N.safetensors); 0: not said
};

FlatName parseFlat(const QString &fileName)
{
    // FullModelHFCheckpointer: f"hf_model_{cpt_idx}_{epoch}.pt", cpt_idx f"{i + 1:04}"; with
    // safe_serialization f"model-0{cpt_idx}-of-0{last cpt_idx}_{epoch}.safetensors".
    static const QRegularExpression hf(QStringLiteral(R"(^hf_model_(\d{4})_(\d+)\.pt$)"));
    static const QRegularExpression safetensors(QStringLiteral(R"(^model-(\d{5})-of-(\d{5})_(\d+)\.safetensors$)"));
    // FullModelMetaCheckpointer, FullModelTorchTuneCheckpointer: f"meta_model_{epoch}.pt", f"torchtune_model_{epoch}.pt".
    static const QRegularExpression model(QStringLiteral(R"(^(?:meta|torchtune)_model_(\d+)\.pt$)"));
    static const QRegularExpression adapter(QStringLiteral(R"(^adapter_(\d+)\.pt$)"));
    FlatName name;
    bool ok = true;
    if (const auto m = hf.match(fileName); m.hasMatch()) {
        name = {FlatName::Kind::HfShard, m.captured(2).toLongLong(&ok), m.captured(1).toInt(), 0};
    } else if (const auto s = safetensors.match(fileName); s.hasMatch()) {
        name = {FlatName::Kind::HfShard, s.captured(3).toLongLong(&ok), s.captured(1).toInt(), s.captured(2).toInt()};
    } else if (const auto o = model.match(fileName); o.hasMatch()) {
        name = {FlatName::Kind::Model, o.captured(1).toLongLong(&ok)};
    } else if (const auto a = adapter.match(fileName); a.hasMatch()) {
        name = {FlatName::Kind::Adapter, a.captured(1).toLongLong(&ok)};
    } else if (fileName == QLatin1String("adapter_model.bin")) {
        name.kind = FlatName::Kind::PeftAdapter;
    }
    return ok ? name : FlatName{}; // an epoch too large for 64 bits is no torchtune name
}

void setReason(QList<ClassifiedFile> &files, const QString &path, FileRole role, const QString &reason)
{
    for (ClassifiedFile &file : files)
        if (file.path == path)
            file = {file.path, role, reason, false};
}

bool readsAdapter(const CheckpointFile &c)
{
    return !c.files.isEmpty() && QFileInfo(c.files.first()).fileName().startsWith(QLatin1String("adapter_"));
}

// The epoch a checkpoint of the run was saved at, and the name that says it. An adapter_N.pt alone
// is torchtune's only beside its other files (`flatRun`): another trainer may number adapters by step.
std::optional<QPair<qint64, QString>> epochOf(const CheckpointFile &c, bool flatRun)
{
    const QString folderName = QFileInfo(c.path).fileName();
    if (c.isFolder)
        if (const std::optional<qint64> epoch = TorchtuneOutputFolder::epochOfFolder(folderName))
            return QPair<qint64, QString>{*epoch, folderName};
    if (c.files.isEmpty())
        return std::nullopt;
    const QString fileName = QFileInfo(c.files.first()).fileName();
    const FlatName flat = parseFlat(fileName);
    if (flat.kind == FlatName::Kind::None || flat.kind == FlatName::Kind::PeftAdapter || (flat.kind == FlatName::Kind::Adapter && !flatRun))
        return std::nullopt;
    return QPair<qint64, QString>{flat.epoch, fileName};
}

} // namespace

std::optional<qint64> TorchtuneOutputFolder::epochOfFolder(const QString &folderName)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^epoch_(\d+)$)"));
    const QRegularExpressionMatch m = pattern.match(folderName);
    bool ok = false;
    const qint64 epoch = m.hasMatch() ? m.captured(1).toLongLong(&ok) : 0;
    return ok ? std::optional<qint64>(epoch) : std::nullopt;
}

namespace {

// One of an epoch's flat shard files (hf_model_KKKK_N.pt, model-0KKKK-of-0MMMM_N.safetensors).
struct Shard {
    int shard;
    int total;
    WeightsGroup group;
};

// An epoch's shards as one checkpoint, its files named as its shards; shards missing of the
// `expected` every epoch has make it an error.
WeightsGroup mergedEpoch(QList<Shard> shards, qint64 epoch, int expected, QList<ClassifiedFile> &files)
{
    std::sort(shards.begin(), shards.end(), [](const Shard &a, const Shard &b) { return a.shard < b.shard; });
    WeightsGroup merged;
    merged.layout = WeightsLayout::NamedShards;
    merged.format = shards.first().group.format;
    QSet<int> present;
    QStringList names;
    for (const Shard &s : std::as_const(shards)) {
        merged.files << s.group.files;
        present.insert(s.shard);
        names << s.group.name;
        if (merged.error.isEmpty() && !s.group.error.isEmpty())
            merged.error = QStringLiteral("%1: %2").arg(s.group.name, s.group.error);
        for (ClassifiedFile &file : files)
            if (file.path == s.group.files.first())
                file = {file.path, file.role == FileRole::DamagedWeights ? file.role : FileRole::Shard,
                        QStringLiteral("%1; shard %2 of epoch %3 (torchtune's flat files)").arg(file.reason).arg(s.shard).arg(epoch)};
    }
    merged.name = shards.size() == 1 ? names.first() : QStringLiteral("%1 … %2").arg(names.first(), names.last());
    QStringList missing;
    for (int k = 1; k <= expected && missing.size() < kBriefListItems; ++k)
        if (!present.contains(k))
            missing << QString::number(k);
    const qint64 absent = expected - std::count_if(present.begin(), present.end(), [&](int k) { return k >= 1 && k <= expected; });
    if (absent > 0)
        merged.error = QStringLiteral("shard(s) %1 of %2 of epoch %3 are missing (every epoch is saved in %2 shards)")
                           .arg(briefList(missing, absent)).arg(expected).arg(epoch);
    return merged;
}

} // namespace

void TorchtuneOutputFolder::regroupFlatFiles(FolderWeights &weights)
{
    QMap<qint64, QList<Shard>> shardsByEpoch;
    QSet<qint64> modelEpochs;
    QList<QPair<qint64, WeightsGroup>> adapters;
    QList<WeightsGroup> peftAdapters, kept;
    for (const WeightsGroup &group : std::as_const(weights.groups)) {
        const FlatName name = group.layout == WeightsLayout::OneFile ? parseFlat(group.name) : FlatName{};
        switch (name.kind) {
        case FlatName::Kind::HfShard: shardsByEpoch[name.epoch].append({name.shard, name.total, group}); modelEpochs.insert(name.epoch); break;
        case FlatName::Kind::Model: modelEpochs.insert(name.epoch); kept.append(group); break;
        case FlatName::Kind::Adapter: adapters.append({name.epoch, group}); break;
        case FlatName::Kind::PeftAdapter: peftAdapters.append(group); break;
        case FlatName::Kind::None: kept.append(group); break;
        }
    }
    // adapter_N.pt and adapter_model.bin alone are torchtune's only beside its recipe state (an
    // adapter_only run): another trainer may number its adapters by step.
    const bool recipeState = std::any_of(weights.files.begin(), weights.files.end(),
                                         [](const ClassifiedFile &f) { return QFileInfo(f.path).fileName() == QLatin1String("recipe_state.pt"); });
    if (shardsByEpoch.isEmpty() && modelEpochs.isEmpty() && !recipeState)
        return;

    // Every epoch is saved in as many shards (one weight map): the most any epoch has, or the count
    // a safetensors name claims.
    int expected = 0;
    for (const QList<Shard> &shards : std::as_const(shardsByEpoch))
        for (const Shard &s : shards)
            expected = std::max({expected, s.shard, s.total});
    for (auto it = shardsByEpoch.begin(); it != shardsByEpoch.end(); ++it) {
        kept.append(mergedEpoch(it.value(), it.key(), expected, weights.files));
    }
    // LoRA: beside an epoch's merged model its adapter is named; alone (adapter_only) it is the checkpoint.
    for (const auto &[epoch, group] : std::as_const(adapters)) {
        if (!modelEpochs.contains(epoch)) {
            kept.append(group);
            continue;
        }
        setReason(weights.files, group.files.first(), FileRole::Other,
                  QStringLiteral("torchtune's LoRA adapter of epoch %1, saved beside its merged model: not read (the model is)").arg(epoch));
    }
    for (const WeightsGroup &group : std::as_const(peftAdapters)) {
        if (modelEpochs.isEmpty() && adapters.isEmpty()) {
            kept.append(group);
            continue;
        }
        setReason(weights.files, group.files.first(), FileRole::Other,
                  QStringLiteral("torchtune's PEFT copy of its newest LoRA adapter (saved over each epoch): not read"));
    }
    weights.groups = kept;
}

void TorchtuneOutputFolder::describe(const QString &root, CheckpointListing &listing)
{
    const QDir dir(root);
    int epochs = 0, folders = 0;
    bool recipeState = QFileInfo(dir.filePath(QStringLiteral("recipe_state/recipe_state.pt"))).isFile() ||
                       QFileInfo(dir.filePath(QStringLiteral("recipe_state.pt"))).isFile();
    bool flat = false;
    // torchtune ≤ 0.4's own model files, or its recipe state, beside the flat files.
    const bool flatRun = QFileInfo(dir.filePath(QStringLiteral("recipe_state.pt"))).isFile() ||
                         std::any_of(listing.checkpoints.begin(), listing.checkpoints.end(), [](const CheckpointFile &c) {
                             const FlatName::Kind kind = c.files.isEmpty() ? FlatName::Kind::None : parseFlat(QFileInfo(c.files.first()).fileName()).kind;
                             return kind == FlatName::Kind::HfShard || kind == FlatName::Kind::Model;
                         });
    QStringList weights;
    for (CheckpointFile &c : listing.checkpoints) {
        const std::optional<QPair<qint64, QString>> epoch = epochOf(c, flatRun);
        if (!epoch)
            continue;
        ++epochs;
        const bool folder = c.isFolder && epochOfFolder(QFileInfo(c.path).fileName());
        folders += folder ? 1 : 0;
        flat |= !folder;
        recipeState |= folder && QFileInfo(QDir(c.path).filePath(QStringLiteral("recipe_state.pt"))).isFile();
        if (c.error.isEmpty() && !c.files.isEmpty()) {
            const QString first = QFileInfo(c.files.first()).fileName();
            const QString read = folder                                     ? first
                                 : first.startsWith(QLatin1String("hf_model_")) ? QStringLiteral("hf_model_KKKK_N.pt")
                                 : parseFlat(first).kind == FlatName::Kind::HfShard ? QStringLiteral("model-0KKKK-of-0MMMM_N.safetensors")
                                                                                     : first;
            if (!weights.contains(read))
                weights << read;
        }
        if (!c.stepFromSidecar) {
            c.stepFromSidecar = epoch->first;
            c.stepSourceText = QStringLiteral("the epoch in the name %1 (torchtune saves once per epoch)").arg(printableText(epoch->second));
            c.stepNote = QStringLiteral("the steps of this run are epochs, not training steps: torchtune saves once per epoch "
                                        "(epoch_N/, or files named …_N.pt), and N is the step");
        }
        // The merged model read, not the LoRA adapter saved beside it: the adapter's config is not its.
        if (!c.adapterConfigPath.isEmpty() && !readsAdapter(c)) {
            c.adapterConfig.clear();
            c.adapterConfigPath.clear();
        }
        if (folder && !readsAdapter(c))
            for (const ClassifiedFile &file : std::as_const(listing.files))
                if (file.role == FileRole::Other && QFileInfo(file.path).fileName().startsWith(QLatin1String("adapter_")) &&
                    cleanAbsolutePath(QFileInfo(file.path).absolutePath()) == cleanAbsolutePath(c.path))
                    listing.setRole(file.path, FileRole::Other,
                            QStringLiteral("torchtune's LoRA adapter of this epoch, saved beside its merged model: not read (the model is)"));
    }
    if (epochs == 0)
        return;
    const QString recipeFolder = dir.filePath(QStringLiteral("recipe_state"));
    if (QFileInfo(recipeFolder).isDir())
        listing.setRole(recipeFolder, FileRole::TrainingSidecar,
                QStringLiteral("torchtune's recipe state of its latest intermediate save (optimizer, epochs_run, seed): not weights"));
    QString layout = folders > 0 ? QStringLiteral("one epoch_N/ folder each") : QString();
    if (flat)
        layout += (layout.isEmpty() ? QString() : QStringLiteral(" and ")) +
                  QStringLiteral("flat files named by epoch (torchtune ≤ 0.4; an epoch's hf_model shards read as one checkpoint)");
    listing.takenFor << QStringLiteral("%1: %2 epoch(s), %3, weights read from %4; steps are epochs (one save per epoch), not training steps")
                            .arg(recipeState || flat ? QStringLiteral("a torchtune output_dir") : QStringLiteral("epoch_N/ folders, as torchtune's output_dir"))
                            .arg(epochs)
                            .arg(layout, weights.isEmpty() ? QStringLiteral("none readable") : briefList(weights));
}

} // namespace rankscope
