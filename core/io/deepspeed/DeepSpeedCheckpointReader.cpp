#include "io/deepspeed/DeepSpeedCheckpointReader.h"

#include "base/PrintableText.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QtEndian>
#include <algorithm>
#include <tuple>
#include <vector>

namespace rankscope {

namespace {

using Kind = PickleValue::Kind;

// Elements widened at a time when a rebuilt matrix is filled from its pieces.
constexpr qint64 kWidenBlock = 65536;
// More elements than any parameter holds (2^48): a declared shape beyond it is refused unread.
constexpr __int128 kMaxParamElements = __int128(1) << 48;

QString fileNameOf(const QString &path) { return QFileInfo(path).fileName(); }

// The elements of a torch.Size (a tuple once read), or none when it is not one or is absurd.
std::optional<qint64> numelOf(const PickleRef &size, QList<qint64> *shape)
{
    if (!size || (size->kind != Kind::Tuple && size->kind != Kind::List))
        return std::nullopt;
    __int128 numel = 1;
    shape->clear();
    for (const PickleRef &dim : size->items) {
        if (!dim || dim->kind != Kind::Int || dim->integer < 0)
            return std::nullopt;
        numel *= dim->integer;
        if (numel > kMaxParamElements)
            return std::nullopt;
        shape->append(dim->integer);
    }
    return qint64(numel);
}

// An int, or the int a pickled IntEnum member (ZeroStageEnum: REDUCE of its class and (value,)) holds.
std::optional<qint64> intOf(const PickleRef &v)
{
    if (v && (v->kind == Kind::Int || v->kind == Kind::Bool))
        return v->integer;
    if (v && v->kind == Kind::Opaque && v->items.size() == 1 && v->items[0] && v->items[0]->kind == Kind::Int)
        return v->items[0]->integer;
    return std::nullopt;
}

// partition_count: an int, or one per group (ZeRO-2 with expert groups); zero_to_fp32 takes the max.
std::optional<qint64> worldOf(const PickleRef &v)
{
    if (const auto one = intOf(v))
        return one;
    if (!v || v->kind != Kind::List || v->items.isEmpty())
        return std::nullopt;
    qint64 most = 0;
    for (const PickleRef &item : v->items) {
        const auto n = intOf(item);
        if (!n)
            return std::nullopt;
        most = std::max(most, *n);
    }
    return most;
}

QStringList foreignGlobals(const QStringList &globals)
{
    QStringList foreign;
    for (const QString &g : globals)
        if (!DeepSpeedTagFolder::isOwnClass(g))
            foreign << g;
    return foreign;
}

} // namespace

DeepSpeedFileName DeepSpeedFileName::parse(const QString &fileName)
{
    static const QRegularExpression model(QStringLiteral(R"(^mp_rank_(\d+)_model_states\.pt$)"));
    static const QRegularExpression rankModel(QStringLiteral(R"(^zero_pp_rank_(\d+)_mp_rank_(\d+)_model_states\.pt$)"));
    // engine.py's load_checkpoint still reads the old "…_mp_rank_00optim_states.pt" spelling.
    static const QRegularExpression optim(QStringLiteral(R"(^(bf16_)?zero_pp_rank_(\d+)_mp_rank_(\d+)_?optim_states\.pt$)"));
    static const QRegularExpression expert(
        QStringLiteral(R"(^((layer_\d+_)?expert_\d+_mp_rank_\d+_model_states|expp_rank_\d+_mp_rank_\d+_optim_states)\.pt$)"));
    DeepSpeedFileName name;
    if (const auto m = model.match(fileName); m.hasMatch()) {
        name.kind = Kind::ModelStates;
        name.mpRank = m.captured(1).toInt();
    } else if (const auto r = rankModel.match(fileName); r.hasMatch()) {
        name.kind = Kind::RankModelStates;
        name.dpRank = r.captured(1).toInt();
        name.mpRank = r.captured(2).toInt();
    } else if (const auto o = optim.match(fileName); o.hasMatch()) {
        name.kind = Kind::OptimStates;
        name.bf16 = o.hasCaptured(1) && !o.captured(1).isEmpty();
        name.dpRank = o.captured(2).toInt();
        name.mpRank = o.captured(3).toInt();
    } else if (expert.match(fileName).hasMatch()) {
        name.kind = Kind::Expert;
    }
    return name;
}

std::unique_ptr<DeepSpeedCheckpointReader> DeepSpeedCheckpointReader::open(const QStringList &files, QString *error)
{
    std::unique_ptr<DeepSpeedCheckpointReader> reader(new DeepSpeedCheckpointReader);
    if (!reader->load(files, error))
        return nullptr;
    return reader;
}

// Opens each file's pickle, sorted by role and rank as zero_to_fp32 sorts them (natural order).
bool DeepSpeedCheckpointReader::openFiles(const QStringList &files, QString *error)
{
    QMap<int, QString> rankModels, optims;
    QString modelStates;
    QSet<int> mpRanks;
    for (const QString &path : files) {
        const DeepSpeedFileName name = DeepSpeedFileName::parse(fileNameOf(path));
        if (name.mpRank >= 0)
            mpRanks.insert(name.mpRank);
        if (name.mpRank > 0)
            continue;
        if (name.kind == DeepSpeedFileName::Kind::ModelStates)
            modelStates = path;
        else if (name.kind == DeepSpeedFileName::Kind::RankModelStates)
            rankModels.insert(name.dpRank, path);
        else if (name.kind == DeepSpeedFileName::Kind::OptimStates)
            optims.insert(name.dpRank, path);
    }
    if (mpRanks.size() > 1) {
        *error = QStringLiteral("%1 DeepSpeed model-parallel ranks (mp_rank_00 … mp_rank_%2): merging them is not done, because how "
                                "each tensor is split across them is the model's own code, not in the checkpoint")
                     .arg(mpRanks.size()).arg(*std::max_element(mpRanks.begin(), mpRanks.end()), 2, 10, QLatin1Char('0'));
        return false;
    }
    auto add = [&](const QString &path) -> int {
        QString why;
        auto reader = TorchCheckpointReader::openAnyObject(path, &why);
        if (!reader) {
            *error = QStringLiteral("%1: %2").arg(fileNameOf(path), why);
            return -1;
        }
        m_readers.push_back(std::move(reader));
        m_paths << path;
        return int(m_readers.size()) - 1;
    };
    if (modelStates.isEmpty() && !rankModels.isEmpty())
        modelStates = rankModels.value(0);
    if (modelStates.isEmpty()) {
        *error = QStringLiteral("no model states file (mp_rank_00_model_states.pt or zero_pp_rank_0_mp_rank_00_model_states.pt)");
        return false;
    }
    if ((m_modelStates = add(modelStates)) < 0)
        return false;
    for (auto it = rankModels.begin(); it != rankModels.end(); ++it) {
        const int index = it.value() == modelStates ? m_modelStates : add(it.value());
        if (index < 0)
            return false;
        m_rankModelStates << index;
    }
    for (const QString &path : optims) {
        const int index = add(path);
        if (index < 0)
            return false;
        m_optim << index;
    }
    return true;
}

bool DeepSpeedCheckpointReader::load(const QStringList &files, QString *error)
{
    if (!openFiles(files, error))
        return false;
    const PickleRef states = m_readers[size_t(m_modelStates)]->root();
    if (!states || states->kind != Kind::Dict) {
        *error = QStringLiteral("%1: not a dict of model states").arg(fileNameOf(m_paths[m_modelStates]));
        return false;
    }
    if (const auto steps = intOf(states->value(QStringLiteral("global_steps"))))
        m_step = *steps;
    // One model-parallel rank's share is not the model: the others' files are missing.
    if (const auto world = intOf(states->value(QStringLiteral("mp_world_size"))); world && *world > 1) {
        *error = QStringLiteral("%1 is one of %2 model-parallel ranks (mp_world_size), and the others' model states are missing: not read short")
                     .arg(fileNameOf(m_paths[m_modelStates])).arg(*world);
        return false;
    }
    const bool moduleHoldsWeights = !m_readers[size_t(m_modelStates)]->tensors().isEmpty() && m_rankModelStates.isEmpty();
    if (m_optim.isEmpty() || moduleHoldsWeights) {
        if (!m_rankModelStates.isEmpty()) {
            *error = QStringLiteral("ZeRO-3 keeps the weights only in the ranks' *_optim_states.pt fp32 partitions, and none are here");
            return false;
        }
        if (!moduleHoldsWeights) {
            *error = QStringLiteral("%1 holds no weights under module, and no *_optim_states.pt partitions are here to rebuild them from")
                         .arg(fileNameOf(m_paths[m_modelStates]));
            return false;
        }
        listModuleTensors(false);
        collectWarnings();
        return true;
    }
    if (!readOptimizerStates(error))
        return false;
    listModuleTensors(true);
    if (m_zeroStage == 3 ? !(addFrozenZero3(error) && rebuildZero3(error)) : !rebuildZero2(error))
        return false;
    addSharedParams();
    collectWarnings();
    return true;
}

// What zero_to_fp32's parse_optim_states checks: the stage and world size from rank 0, and one
// partition file per rank.
bool DeepSpeedCheckpointReader::readOptimizerStates(QString *error)
{
    for (const int index : std::as_const(m_optim)) {
        const PickleRef root = m_readers[size_t(index)]->root();
        const PickleRef sd = root && root->kind == Kind::Dict ? root->value(QStringLiteral("optimizer_state_dict")) : nullptr;
        if (!sd || sd->kind != Kind::Dict) {
            *error = QStringLiteral("%1: no optimizer_state_dict").arg(fileNameOf(m_paths[index]));
            return false;
        }
        m_optimStates << sd;
    }
    const QString first = fileNameOf(m_paths[m_optim.first()]);
    const auto stage = intOf(m_optimStates.first()->value(QStringLiteral("zero_stage")));
    const auto world = worldOf(m_optimStates.first()->value(QStringLiteral("partition_count")));
    if (!stage || *stage < 1 || *stage > 3) {
        *error = QStringLiteral("%1: not a ZeRO checkpoint (its zero_stage is missing or not 1, 2 or 3)").arg(first);
        return false;
    }
    if (!world || *world < 1 || *world > (1 << 20)) {
        *error = QStringLiteral("%1: partition_count is missing or not a number of ranks").arg(first);
        return false;
    }
    m_zeroStage = int(*stage);
    m_worldSize = int(*world);
    // partition_count is the file's claim (up to 2²⁰): the ranks missing are counted from the
    // partitions here, and only the first few are named, found in at most (files + kBriefListItems) steps.
    QSet<int> present;
    for (const QString &p : std::as_const(m_paths))
        if (const DeepSpeedFileName n = DeepSpeedFileName::parse(fileNameOf(p)); n.kind == DeepSpeedFileName::Kind::OptimStates && n.dpRank >= 0 &&
                                                                                 n.dpRank < m_worldSize)
            present.insert(n.dpRank);
    const qint64 missing = qint64(m_worldSize) - present.size();
    QStringList named;
    for (int rank = 0; rank < m_worldSize && named.size() < kBriefListItems && missing > 0; ++rank)
        if (!present.contains(rank))
            named << QString::number(rank);
    if (missing > 0 || m_optim.size() != m_worldSize) {
        *error = QStringLiteral("partition_count says %1 ranks, and %2 *_optim_states.pt are here%3: a rank's partition is missing "
                                "(an overwritten checkpoint, or one a rank did not save)")
                     .arg(m_worldSize).arg(m_optim.size())
                     .arg(named.isEmpty() ? QString() : QStringLiteral(" (rank %1 missing)").arg(briefList(named, missing)));
        return false;
    }
    if (m_zeroStage == 3 && m_rankModelStates.size() != m_worldSize) {
        *error = QStringLiteral("ZeRO-3 over %1 ranks, but %2 zero_pp_rank_*_model_states.pt are here").arg(m_worldSize).arg(m_rankModelStates.size());
        return false;
    }
    return true;
}

// A list of 1-D float32 tensors laid end to end, each checked to lie whole in its file (its last
// element read) before anything is planned from it.
std::optional<DeepSpeedCheckpointReader::Flat> DeepSpeedCheckpointReader::flatOf(int file, const PickleRef &tensors, const QString &what,
                                                                                 QString *error)
{
    const QString name = fileNameOf(m_paths[file]);
    if (!tensors || tensors->kind != Kind::List) {
        *error = QStringLiteral("%1: %2 is not a list of tensors").arg(name, what);
        return std::nullopt;
    }
    Flat flat;
    // DeepSpeed saves each partition as its own tensor: partitions sharing elements (one 1 KB storage
    // listed 65,536 times) would make a small file stand for a large model.
    struct Taken {
        QString storage;
        qint64 first, end;
    };
    std::vector<Taken> taken;
    for (const PickleRef &t : tensors->items) {
        if (!t || t->kind != Kind::Tensor || t->tensor.shape.size() != 1 || t->tensor.dtype != QLatin1String("float32")) {
            *error = QStringLiteral("%1: %2 holds something other than 1-D float32 tensors").arg(name, what);
            return std::nullopt;
        }
        const qint64 numel = t->tensor.shape[0];
        if (numel > 1 && t->tensor.stride.value(0, 1) != 1) {
            *error = QStringLiteral("%1: a partition of %2 is not contiguous (stride %3)").arg(name, what).arg(t->tensor.stride.value(0));
            return std::nullopt;
        }
        if (numel > 0)
            taken.push_back({t->tensor.storageKey, t->tensor.offset, t->tensor.offset + numel});
        if (numel > 0) {
            if (const StoredRead last = m_readers[size_t(file)]->readRecord(t->tensor, numel - 1, 1); !last.ok()) {
                *error = QStringLiteral("%1: a partition of %2 %3").arg(name, what, last.error);
                return std::nullopt;
            }
        }
        flat.segments.append({file, t->tensor, 0, numel});
        flat.numel += numel;
    }
    std::sort(taken.begin(), taken.end(), [](const Taken &a, const Taken &b) { return std::tie(a.storage, a.first) < std::tie(b.storage, b.first); });
    for (size_t i = 1; i < taken.size(); ++i)
        if (taken[i].storage == taken[i - 1].storage && taken[i].first < taken[i - 1].end) {
            *error = QStringLiteral("%1: two partitions of %2 share elements from %3 of storage %4: partitions cannot share bytes")
                         .arg(name, what).arg(taken[i].first).arg(printableText(taken[i].storage.left(100)));
            return std::nullopt;
        }
    return flat;
}

void DeepSpeedCheckpointReader::appendRange(const Flat &flat, qint64 start, qint64 count, QList<Piece> &out)
{
    qint64 at = 0;
    for (const Piece &segment : flat.segments) {
        if (count <= 0)
            return;
        if (start < at + segment.count) {
            const qint64 from = std::max<qint64>(start, at) - at;
            const qint64 take = std::min(count, segment.count - from);
            out.append({segment.file, segment.record, from, take});
            start += take;
            count -= take;
        }
        at += segment.count;
    }
}

bool DeepSpeedCheckpointReader::addRebuilt(const QString &name, const QList<qint64> &shape, Rebuilt rebuilt)
{
    if (m_rebuiltIndex.contains(name) || m_fromModule.contains(name))
        return false;
    m_rebuiltIndex.insert(name, qsizetype(m_params.size()));
    m_params.push_back(std::move(rebuilt));
    m_tensors.append({name, shape, QStringLiteral("float32")});
    return true;
}

// _zero3_merge_trainable_params: every rank holds ceil(numel / world) elements of each parameter at
// the same offset of its groups laid end to end (a slice may straddle two groups); the parameter is
// those slices over the ranks, truncated to its numel.
bool DeepSpeedCheckpointReader::rebuildZero3(QString *error)
{
    QList<Flat> ranks;
    for (int r = 0; r < m_worldSize; ++r) {
        auto flat = flatOf(m_optim[r], m_optimStates[r]->value(QStringLiteral("fp32_flat_groups")), QStringLiteral("fp32_flat_groups"), error);
        if (!flat)
            return false;
        if (r > 0 && flat->numel != ranks.first().numel) {
            *error = QStringLiteral("%1 holds %2 fp32 elements, rank 0 holds %3: the partitions do not match")
                         .arg(fileNameOf(m_paths[m_optim[r]])).arg(flat->numel).arg(ranks.first().numel);
            return false;
        }
        ranks.append(*flat);
    }
    const PickleRef groups = m_readers[size_t(m_modelStates)]->root()->value(QStringLiteral("param_shapes"));
    if (!groups || groups->kind != Kind::List) {
        *error = QStringLiteral("%1: no param_shapes").arg(fileNameOf(m_paths[m_modelStates]));
        return false;
    }
    // {k: v for d in param_shapes for k, v in d.items()}: the first place of a name, its last shape.
    QList<QString> order;
    QHash<QString, PickleRef> shapes;
    for (const PickleRef &group : groups->items)
        for (const auto &[key, value] : group && group->kind == Kind::Dict ? group->entries : decltype(group->entries){})
            if (key && key->isString()) {
                if (!shapes.contains(key->text))
                    order << key->text;
                shapes.insert(key->text, value);
            }
    const qint64 available = ranks.first().numel;
    qint64 offset = 0;
    for (const QString &name : order) {
        QList<qint64> shape;
        const auto numel = numelOf(shapes.value(name), &shape);
        if (!numel) {
            *error = QStringLiteral("param_shapes gives %1 a shape that is not one (or more than 2^48 elements)").arg(printableText(name.left(200)));
            return false;
        }
        const qint64 partitioned = (*numel + m_worldSize - 1) / m_worldSize;
        if (partitioned > available - offset) {
            *error = QStringLiteral("param_shapes needs more than the %1 fp32 elements each rank holds (at %2, %3 elements): the partitions "
                                    "are too short for it")
                         .arg(available).arg(printableText(name.left(200))).arg(*numel);
            return false;
        }
        Rebuilt rebuilt;
        for (qint64 r = 0, left = *numel; r < m_worldSize && left > 0; ++r, left -= partitioned)
            appendRange(ranks[r], offset, std::min(partitioned, left), rebuilt.pieces);
        addRebuilt(name, shape, std::move(rebuilt));
        offset += partitioned;
    }
    if (offset != available) {
        *error = QStringLiteral("consumed %1 numels out of %2 - param_shapes and the fp32 partitions do not match (zero_to_fp32's check)")
                     .arg(offset * m_worldSize).arg(available * m_worldSize);
        return false;
    }
    return true;
}

// _zero2_merge_trainable_params: per group, the ranks' partitions laid end to end, the parameters
// in param_shapes order with no padding between them; the group's end aligned to 2·world.
bool DeepSpeedCheckpointReader::rebuildZero2(QString *error)
{
    const PickleRef groups = m_readers[size_t(m_modelStates)]->root()->value(QStringLiteral("param_shapes"));
    if (!groups || groups->kind != Kind::List) {
        *error = QStringLiteral("%1: no param_shapes, and no weights under module").arg(fileNameOf(m_paths[m_modelStates]));
        return false;
    }
    QList<Flat> merged;
    for (int r = 0; r < m_worldSize; ++r) {
        const PickleRef partitions = m_optimStates[r]->value(QStringLiteral("single_partition_of_fp32_groups"));
        const auto flat = flatOf(m_optim[r], partitions, QStringLiteral("single_partition_of_fp32_groups"), error);
        if (!flat)
            return false;
        if (flat->segments.size() != groups->items.size()) {
            *error = QStringLiteral("%1 holds %2 groups, param_shapes %3").arg(fileNameOf(m_paths[m_optim[r]])).arg(flat->segments.size()).arg(groups->items.size());
            return false;
        }
        for (qsizetype g = 0; g < flat->segments.size(); ++g) {
            if (merged.size() <= g)
                merged.append(Flat{});
            merged[g].segments.append(flat->segments[g]);
            merged[g].numel += flat->segments[g].count;
        }
    }
    const qint64 align = 2 * qint64(m_worldSize);
    auto aligned = [&](qint64 x) { return (x + align - 1) / align * align; };
    for (qsizetype g = 0; g < merged.size(); ++g) {
        qint64 offset = 0;
        const PickleRef group = groups->items[g];
        for (const auto &[key, value] : group && group->kind == Kind::Dict ? group->entries : decltype(group->entries){}) {
            QList<qint64> shape;
            const auto numel = numelOf(value, &shape);
            const QString name = key && key->isString() ? key->text : QString();
            if (!numel || name.isEmpty() || *numel > merged[g].numel - offset) {
                *error = QStringLiteral("param_shapes group %1 gives %2 a shape its %3 fp32 elements cannot hold").arg(g).arg(printableText(name.left(200))).arg(merged[g].numel);
                return false;
            }
            Rebuilt rebuilt;
            appendRange(merged[g], offset, *numel, rebuilt.pieces);
            addRebuilt(name, shape, std::move(rebuilt));
            offset += *numel;
        }
        if (aligned(offset) != aligned(merged[g].numel)) {
            *error = QStringLiteral("consumed %1 numels out of %2 in group %3 - param_shapes and the fp32 partitions do not match (zero_to_fp32's check)")
                         .arg(aligned(offset)).arg(aligned(merged[g].numel)).arg(g);
            return false;
        }
    }
    const PickleRef frozen = m_readers[size_t(m_modelStates)]->root()->value(QStringLiteral("frozen_param_shapes"));
    if (frozen && frozen->kind == Kind::Dict && !frozen->entries.isEmpty())
        m_warnings << QStringLiteral("%1 frozen parameter(s) (frozen_param_shapes) are not read: ZeRO-1/2 without module keeps them whole, "
                                     "which this reader does not take from frozen_param_fragments").arg(frozen->entries.size());
    return true;
}

// _zero3_merge_frozen_params: each rank's 1-D fragment of a frozen parameter, concatenated over the
// ranks and truncated to its numel.
bool DeepSpeedCheckpointReader::addFrozenZero3(QString *error)
{
    const PickleRef shapes = m_readers[size_t(m_modelStates)]->root()->value(QStringLiteral("frozen_param_shapes"));
    if (!shapes || shapes->kind != Kind::Dict)
        return true;
    for (const auto &[key, value] : shapes->entries) {
        QList<qint64> shape;
        const auto numel = numelOf(value, &shape);
        if (!key || !key->isString() || !numel) {
            *error = QStringLiteral("frozen_param_shapes holds an entry that is not a name and a shape");
            return false;
        }
        Rebuilt rebuilt;
        qint64 have = 0;
        for (const int file : std::as_const(m_rankModelStates)) {
            const PickleRef fragments = m_readers[size_t(file)]->root()->value(QStringLiteral("frozen_param_fragments"));
            const PickleRef fragment = fragments && fragments->kind == Kind::Dict ? fragments->value(key->text) : nullptr;
            PickleValue list;
            list.kind = Kind::List;
            list.items = {fragment};
            const auto flat = flatOf(file, &list, QStringLiteral("frozen_param_fragments[%1]").arg(printableText(key->text.left(200))), error);
            if (!flat)
                return false;
            appendRange(*flat, 0, std::min(flat->numel, *numel - have), rebuilt.pieces);
            have += std::min(flat->numel, *numel - have);
        }
        if (have != *numel) {
            *error = QStringLiteral("the frozen parameter %1 needs %2 elements, its fragments hold %3").arg(printableText(key->text.left(200))).arg(*numel).arg(have);
            return false;
        }
        addRebuilt(key->text, shape, std::move(rebuilt));
    }
    return true;
}

// `module` as stored: all of it up to ZeRO-2, or (rebuilding) only the buffers named in
// buffer_names, which zero_to_fp32 takes from rank 0's module.
void DeepSpeedCheckpointReader::listModuleTensors(bool buffersOnly)
{
    TorchCheckpointReader &module = *m_readers[size_t(m_modelStates)];
    QSet<QString> buffers;
    if (const PickleRef names = module.root()->value(QStringLiteral("buffer_names")); names && names->kind == Kind::List)
        for (const PickleRef &n : names->items)
            if (n && n->isString())
                buffers.insert(n->text);
    for (const TensorInfo &t : module.tensors()) {
        if (buffersOnly && !buffers.contains(t.name))
            continue;
        m_fromModule.insert(t.name);
        m_tensors.append(t);
    }
    m_warnings << module.warnings().filter(QStringLiteral("tensor "));
}

// shared_params: a tied parameter (lm_head.weight → the embedding) is the tensor it names.
void DeepSpeedCheckpointReader::addSharedParams()
{
    const PickleRef shared = m_readers[size_t(m_modelStates)]->root()->value(QStringLiteral("shared_params"));
    if (!shared || shared->kind != Kind::Dict)
        return;
    for (const auto &[alias, target] : shared->entries) {
        if (!alias || !alias->isString() || !target || !target->isString() || !m_rebuiltIndex.contains(target->text))
            continue;
        const qsizetype at = m_rebuiltIndex.value(target->text);
        const QString &name = target->text; // a structured binding cannot be captured before C++20's P1091 in clang 14
        const auto info = std::find_if(m_tensors.begin(), m_tensors.end(), [&name](const TensorInfo &t) { return t.name == name; });
        Rebuilt copy = m_params[size_t(at)];
        addRebuilt(alias->text, info->shape, std::move(copy));
    }
}

// DeepSpeed pickles its own objects (its config, ZeroStageEnum, its loss scaler): nothing here runs
// them, and a tag holding only those is not said to be damaged. Any other class is said, by file.
void DeepSpeedCheckpointReader::collectWarnings()
{
    for (size_t i = 0; i < m_readers.size(); ++i) {
        const QStringList foreign = foreignGlobals(m_readers[i]->unsafeGlobals());
        if (!foreign.isEmpty())
            m_warnings << QStringLiteral("%1: unsafe pickle: beside DeepSpeed's own classes it references %2, which "
                                         "torch.load(weights_only=True) refuses and weights_only=False would import and call; nothing was executed")
                              .arg(fileNameOf(m_paths[qsizetype(i)]), printableText(foreign.mid(0, 8).join(QLatin1String(", ")).left(600)));
    }
}

StoredRead DeepSpeedCheckpointReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    if (m_fromModule.contains(tensor.name))
        return m_readers[size_t(m_modelStates)]->readStoredMatrix(tensor.name, slice);
    const Rebuilt &param = m_params[size_t(m_rebuiltIndex.value(tensor.name))];
    const qint64 count = rows * cols;
    qint64 skip = std::max<qint64>(slice, 0) * count;
    // The pieces lie inside tensors whose bytes were checked when the tag was opened, so the
    // matrix exists in the files before it is allocated.
    QByteArray bytes(qsizetype(count * 4), Qt::Uninitialized);
    char *out = bytes.data();
    qint64 filled = 0;
    std::vector<double> block;
    for (const Piece &piece : param.pieces) {
        if (filled == count)
            break;
        if (skip >= piece.count) {
            skip -= piece.count;
            continue;
        }
        const qint64 take = std::min(piece.count - skip, count - filled);
        const StoredRead read = m_readers[size_t(piece.file)]->readRecord(piece.record, piece.first + skip, take);
        if (!read.ok())
            return {{}, QStringLiteral("%1: its fp32 partition %2").arg(fileNameOf(m_paths[piece.file]), read.error)};
        block.resize(size_t(std::min(take, kWidenBlock)));
        for (qint64 at = 0; at < take; at += kWidenBlock) {
            const qint64 n = std::min(kWidenBlock, take - at);
            read.matrix.widenRow(0, at, n, block.data());
            for (qint64 k = 0; k < n; ++k)
                qToLittleEndian(float(block[size_t(k)]), out + (filled + at + k) * 4);
        }
        filled += take;
        skip = 0;
    }
    if (filled != count)
        return {{}, QStringLiteral("its fp32 partitions hold %1 of its %2 elements").arg(filled).arg(count)};
    return {StoredMatrix(std::move(bytes), QStringLiteral("float32"), false, rows, cols), {}};
}

} // namespace rankscope
