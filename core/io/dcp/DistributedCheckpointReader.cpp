#include "io/dcp/DistributedCheckpointReader.h"

#include "base/PrintableText.h"
#include "io/megatron/MegatronConfig.h"
#include "io/nemo/NemoContext.h"
#include "io/RegularFile.h"
#include "io/torch/PickleReader.h"
#include "io/torch/TorchCheckpointReader.h"
#include "io/torch/ZipDirectory.h"

#include <QFileInfo>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <tuple>
#include <limits>
#include <vector>

namespace rankscope {

namespace {

using Kind = PickleValue::Kind;

constexpr qint64 kMaxMetadataBytes = qint64(256) << 20;
constexpr qint64 kMaxCommonStateBytes = qint64(64) << 20;
// Cells of the grid cut by every chunk's boundaries, checked one by one for the tiling: a grid of
// layers × tensor-parallel shards × FSDP ranks is far smaller.
constexpr qint64 kMaxTilingCells = qint64(1) << 22;
// More layers than any model has: a stack declaring more is not listed layer by layer.
constexpr qint64 kMaxStackedLayers = qint64(1) << 16;

QString at(const QList<qint64> &offsets)
{
    QStringList parts;
    for (const qint64 d : offsets)
        parts << QString::number(d);
    return QStringLiteral("[%1]").arg(parts.join(QLatin1String(", ")));
}

// A chunk file's name as storage_data gives it must name a file of this folder, nothing else.
bool isPlainFileName(const QString &name)
{
    return !name.isEmpty() && name != QLatin1String(".") && name != QLatin1String("..") && !name.contains(QLatin1Char('/')) &&
           !name.contains(QLatin1Char('\\')) && !name.contains(QChar(0));
}

// The chunks must tile the global tensor exactly, as the save planner checks before writing
// (_validate_global_plan): every axis is cut at every chunk's boundaries, and each cell of that
// grid must belong to exactly one chunk.
class ChunkGrid {
public:
    explicit ChunkGrid(const DcpTensor &t) : m_tensor(t), m_rank(t.size.size()) {}

    QString tilingProblem()
    {
        if (std::find(m_tensor.size.begin(), m_tensor.size.end(), 0) != m_tensor.size.end())
            return {};
        if (!cut())
            return QStringLiteral("has %1 chunks cut too irregularly to check that they tile it").arg(m_tensor.chunks.size());
        for (qsizetype i = 0; i < m_tensor.chunks.size(); ++i)
            if (const QString overlap = mark(i); !overlap.isEmpty())
                return overlap;
        const auto gap = std::find(m_owner.begin(), m_owner.end(), -1);
        return gap == m_owner.end() ? QString() : QStringLiteral("has a gap: no chunk holds its elements at %1").arg(at(cellStart(gap - m_owner.begin())));
    }

private:
    qint64 cellsAlong(qsizetype d) const { return qint64(m_cuts[size_t(d)].size()) - 1; }

    bool cut()
    {
        m_cuts.resize(size_t(m_rank));
        qint64 cells = 1;
        for (qsizetype d = 0; d < m_rank; ++d) {
            std::vector<qint64> &axis = m_cuts[size_t(d)];
            axis = {0, m_tensor.size[d]};
            for (const DcpChunk &c : m_tensor.chunks)
                axis.insert(axis.end(), {c.offsets[d], c.offsets[d] + c.sizes[d]});
            std::sort(axis.begin(), axis.end());
            axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
            cells *= cellsAlong(d);
            if (cells > kMaxTilingCells)
                return false;
        }
        m_owner.assign(size_t(cells), -1);
        return true;
    }

    // Claims the cells chunk i covers, walking its box of cells like an odometer.
    QString mark(qsizetype i)
    {
        const DcpChunk &c = m_tensor.chunks[i];
        if (std::find(c.sizes.begin(), c.sizes.end(), 0) != c.sizes.end())
            return {};
        std::vector<qint64> first(size_t(m_rank), 0), end(size_t(m_rank), 0);
        for (qsizetype d = 0; d < m_rank; ++d) {
            const std::vector<qint64> &axis = m_cuts[size_t(d)];
            first[size_t(d)] = std::lower_bound(axis.begin(), axis.end(), c.offsets[d]) - axis.begin();
            end[size_t(d)] = std::lower_bound(axis.begin(), axis.end(), c.offsets[d] + c.sizes[d]) - axis.begin();
        }
        std::vector<qint64> index = first;
        for (qsizetype d = 0; d >= 0;) {
            qint64 cell = 0;
            for (qsizetype k = 0; k < m_rank; ++k)
                cell = cell * cellsAlong(k) + index[size_t(k)];
            if (const qint32 owner = m_owner[size_t(cell)]; owner >= 0)
                return QStringLiteral("has overlapping chunks: the one at %1 and the one at %2").arg(at(m_tensor.chunks[owner].offsets), at(c.offsets));
            m_owner[size_t(cell)] = qint32(i);
            for (d = m_rank - 1; d >= 0 && ++index[size_t(d)] == end[size_t(d)]; --d)
                index[size_t(d)] = first[size_t(d)];
        }
        return {};
    }

    QList<qint64> cellStart(qint64 cell) const
    {
        QList<qint64> where;
        for (qsizetype d = m_rank - 1; d >= 0; --d) {
            where.prepend(m_cuts[size_t(d)][size_t(cell % cellsAlong(d))]);
            cell /= cellsAlong(d);
        }
        return where;
    }

    const DcpTensor &m_tensor;
    qsizetype m_rank;
    std::vector<std::vector<qint64>> m_cuts;
    std::vector<qint32> m_owner;
};

// The unpickled object of a torch.save archive at [base, base + size) of a file (common.pt, a
// BYTE_IO item): read as data, never run, whatever globals it names (args is an argparse.Namespace).
PickleResult archivePickle(const QString &path, qint64 base, qint64 size)
{
    QFile file;
    QString error;
    if (!RegularFile::open(file, path, &error))
        return {};
    const std::optional<ZipDirectory> zip = ZipDirectory::read(file, &error, base, size);
    if (!zip)
        return {};
    for (const ZipEntry &entry : zip->entries()) {
        const QStringList parts = entry.name.split(QLatin1Char('/'));
        if (parts.size() != 2 || parts[1] != QLatin1String("data.pkl") || entry.size > quint64(kMaxCommonStateBytes))
            continue;
        if (const std::optional<QByteArray> bytes = zip->readEntry(file, entry, 0, entry.size, &error))
            return readPickle(*bytes);
    }
    return {};
}

// Whether the bytes at `offset` of a file begin a zip archive, as torch.save's do.
bool startsLikeZip(const QString &path, qint64 offset)
{
    QFile file;
    QString error;
    return RegularFile::open(file, path, &error) && file.seek(offset) && file.read(4) == QByteArrayLiteral("PK\x03\x04");
}

} // namespace

bool DistributedCheckpointReader::isCheckpointFolder(const QString &folder)
{
    return RegularFile::isRegular(QDir(folder).filePath(QStringLiteral(".metadata")));
}

QString DistributedCheckpointReader::writerOf(const QString &folder)
{
    const QDir dir(folder);
    const std::optional<QJsonObject> config = readSmallJsonObject(dir.filePath(QStringLiteral("metadata.json")));
    if (!config || config->value(QLatin1String("sharded_backend")).toString() != QLatin1String("torch_dist"))
        return QStringLiteral("torch.distributed.checkpoint");
    // NeMo 2 saves Megatron's torch_dist into <checkpoint>/weights beside <checkpoint>/context.
    if (dir.dirName() == QLatin1String("weights") && QFileInfo(dir.filePath(QStringLiteral("../context"))).isDir())
        return QStringLiteral("NeMo 2 torch_dist");
    return QStringLiteral("Megatron torch_dist");
}

bool DistributedCheckpointReader::isTrainingState(const QString &fqn)
{
    static const QStringList heads = {"optimizer", "optim", "optimizers", "train_state", "dataloader", "lr_scheduler", "lr_schedulers",
                                      "scheduler", "rng_state", "rng", "rng_states", "common_state", "rerun_state_machine"};
    const QString head = fqn.section(QLatin1Char('.'), 0, 0).section(QLatin1Char('/'), 0, 0);
    return heads.contains(head) || fqn.contains(QLatin1String("_extra_state"));
}

std::unique_ptr<DistributedCheckpointReader> DistributedCheckpointReader::open(const QString &folder, QString *error)
{
    std::unique_ptr<DistributedCheckpointReader> reader(new DistributedCheckpointReader);
    if (!reader->load(folder, error))
        return nullptr;
    return reader;
}

std::unique_ptr<DistributedCheckpointReader> DistributedCheckpointReader::openInTar(const QString &tarPath, const QList<TarMember> &members,
                                                                                     const QString &prefix, QString *error)
{
    std::unique_ptr<DistributedCheckpointReader> reader(new DistributedCheckpointReader);
    reader->m_tarPath = tarPath;
    for (const TarMember &member : members)
        if (member.name.startsWith(prefix) && member.name.size() > prefix.size())
            reader->m_members.insert(member.name.mid(prefix.size()), member);
    if (!reader->load(prefix, error))
        return nullptr;
    return reader;
}

DistributedCheckpointReader::Place DistributedCheckpointReader::placeOf(const QString &name) const
{
    if (!m_tarPath.isEmpty()) {
        const auto member = m_members.constFind(name);
        if (member == m_members.constEnd())
            return {{}, 0, 0, QStringLiteral("missing")};
        if (member->folder)
            return {{}, 0, 0, QStringLiteral("a folder")};
        return {m_tarPath, member->offset, member->size, {}};
    }
    const QString path = m_folder.filePath(name);
    if (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink())
        return {path, 0, 0, QStringLiteral("missing")};
    if (const QString irregular = notRegularFileReason(path); !irregular.isEmpty())
        return {path, 0, 0, irregular};
    return {path, 0, QFileInfo(path).size(), {}};
}

std::optional<QByteArray> DistributedCheckpointReader::readSmallFile(const QString &name, qint64 maxBytes, QString *why) const
{
    if (m_tarPath.isEmpty())
        return readSmallRegularFile(m_folder.filePath(name), maxBytes, why);
    const Place place = placeOf(name);
    if (!place.problem.isEmpty()) {
        *why = QStringLiteral("the member is %1").arg(place.problem);
        return std::nullopt;
    }
    if (place.size > maxBytes) {
        *why = QStringLiteral("the member holds %1 bytes, more than %2").arg(place.size).arg(maxBytes);
        return std::nullopt;
    }
    QFile file;
    if (!RegularFile::open(file, place.path, why) || !file.seek(place.base))
        return std::nullopt;
    QByteArray bytes = file.read(place.size);
    if (bytes.size() != place.size) {
        *why = QStringLiteral("the archive ends inside the member");
        return std::nullopt;
    }
    return bytes;
}

// Inside a .nemo, metadata.json names the backend as it does in a folder.
QString DistributedCheckpointReader::writerInTar() const
{
    QString why;
    const std::optional<QByteArray> json = readSmallFile(QStringLiteral("metadata.json"), kMaxSidecarBytes, &why);
    const QJsonObject config = json ? parsePythonJsonObject(*json).value_or(QJsonObject()) : QJsonObject();
    return config.value(QLatin1String("sharded_backend")).toString() == QLatin1String("torch_dist") ? QStringLiteral("NeMo 1 .nemo torch_dist")
                                                                                                       : QStringLiteral("NeMo 1 .nemo torch.distributed.checkpoint");
}

bool DistributedCheckpointReader::load(const QString &folder, QString *error)
{
    if (m_tarPath.isEmpty())
        m_folder = QDir(folder);
    QString why;
    const std::optional<QByteArray> pickle = readSmallFile(QStringLiteral(".metadata"), kMaxMetadataBytes, &why);
    if (!pickle) {
        *error = QStringLiteral(".metadata: %1").arg(why);
        return false;
    }
    std::optional<DcpMetadata> metadata = DcpMetadata::parse(*pickle, &why);
    if (!metadata) {
        *error = QStringLiteral(".metadata %1").arg(why);
        return false;
    }
    m_metadata = std::move(*metadata);
    const QString writer = m_tarPath.isEmpty() ? writerOf(folder) : writerInTar();
    const bool megatron = writer.endsWith(QLatin1String("torch_dist")) || m_metadata.metadataClass.endsWith(QLatin1String(".MCoreMetadata"));
    qsizetype state = 0;
    const QHash<QString, QString> sharing = sharedBytes(m_metadata);
    for (qsizetype i = 0; i < m_metadata.tensors.size(); ++i) {
        const DcpTensor &tensor = m_metadata.tensors[i];
        if (isTrainingState(tensor.fqn)) {
            ++state;
            continue;
        }
        if (const QString shared = sharing.value(tensor.fqn); !shared.isEmpty())
            refuseTensor(tensor.fqn, shared);
        else if (const QString problem = tensorProblem(tensor); !problem.isEmpty())
            refuseTensor(tensor.fqn, problem);
        else
            list(tensor, i, megatron);
    }
    if (megatron)
        readMegatronCommonState();
    if (writer.startsWith(QLatin1String("NeMo 2")))
        readNemoContext();
    m_format = writer;
    if (state > 0 || !m_metadata.objects.isEmpty())
        m_format += QStringLiteral(" (model only; not read: %1 optimizer/training-state tensor(s), %2 pickled object(s))").arg(state).arg(m_metadata.objects.size());
    return true;
}

// DCP writes every chunk as its own record of a .distcp file, so no two chunks (of one tensor or of
// two) share a byte. Chunks that name the same bytes would let a small folder stand for a large
// matrix (one 16 KB record as 65,536 stacked layers): each tensor holding such a chunk is refused.
QHash<QString, QString> DistributedCheckpointReader::sharedBytes(const DcpMetadata &metadata)
{
    struct Range {
        QString file;
        qint64 begin, end;
        qsizetype tensor;
        const DcpChunk *chunk;
    };
    std::vector<Range> ranges;
    for (qsizetype t = 0; t < metadata.tensors.size(); ++t)
        for (const DcpChunk &chunk : metadata.tensors[t].chunks)
            if (chunk.storage && chunk.storage->offset >= 0 && chunk.storage->length > 0 &&
                chunk.storage->offset <= std::numeric_limits<qint64>::max() - chunk.storage->length)
                ranges.push_back({chunk.storage->relativePath, chunk.storage->offset, chunk.storage->offset + chunk.storage->length, t, &chunk});
    std::stable_sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return std::tie(a.file, a.begin) < std::tie(b.file, b.begin); });
    QHash<QString, QString> problems;
    const Range *reach = nullptr; // of the ranges so far in this file, the one reaching furthest
    for (const Range &r : ranges) {
        if (reach && reach->file == r.file && r.begin < reach->end) {
            const QString text = QStringLiteral("has its chunk at %1 in bytes [%2, %3) of %4, which also hold %5's chunk at %6: "
                                                "two chunks cannot share bytes")
                                     .arg(at(r.chunk->offsets)).arg(r.begin).arg(r.end).arg(printableText(r.file.left(200)))
                                     .arg(printableText(metadata.tensors[reach->tensor].fqn.left(200)), at(reach->chunk->offsets));
            problems.insert(metadata.tensors[r.tensor].fqn, text);
            if (!problems.contains(metadata.tensors[reach->tensor].fqn))
                problems.insert(metadata.tensors[reach->tensor].fqn, text);
        }
        if (!reach || reach->file != r.file || r.end > reach->end)
            reach = &r;
    }
    return problems;
}

QString DistributedCheckpointReader::tensorProblem(const DcpTensor &tensor)
{
    if (tensor.chunks.isEmpty())
        return QStringLiteral("has no chunks in .metadata");
    for (const DcpChunk &chunk : tensor.chunks)
        for (qsizetype d = 0; d < tensor.size.size(); ++d)
            if (chunk.offsets[d] > tensor.size[d] - chunk.sizes[d])
                return QStringLiteral("has a chunk at %1 of %2 reaching past its global size %3").arg(at(chunk.offsets), at(chunk.sizes), at(tensor.size));
    for (const DcpChunk &chunk : tensor.chunks)
        if (const QString problem = storageProblem(tensor, chunk); !problem.isEmpty())
            return problem;
    return ChunkGrid(tensor).tilingProblem();
}

QString DistributedCheckpointReader::storageProblem(const DcpTensor &tensor, const DcpChunk &chunk)
{
    const QString where = at(chunk.offsets);
    if (!chunk.storage)
        return QStringLiteral("has a chunk at %1 that .metadata gives no storage for").arg(where);
    const DcpStorage &s = *chunk.storage;
    if (!s.transforms.isEmpty())
        return QStringLiteral("has its chunk at %1 stored through stream transforms (%2), which are not supported")
            .arg(where, printableText(s.transforms.join(QLatin1String(", ")).left(200)));
    if (!isPlainFileName(s.relativePath))
        return QStringLiteral("has its chunk at %1 in '%2', which is not a file name of this folder").arg(where, printableText(s.relativePath.left(200)));
    auto size = m_fileSizes.constFind(s.relativePath);
    if (size == m_fileSizes.constEnd()) {
        const Place place = placeOf(s.relativePath);
        if (!place.problem.isEmpty())
            return QStringLiteral("has its chunk at %1 in %2, which is %3").arg(where, printableText(s.relativePath), place.problem);
        size = m_fileSizes.insert(s.relativePath, place.size);
    }
    if (s.offset < 0 || s.length <= 0 || s.offset > *size - s.length)
        return QStringLiteral("has its chunk at %1 at bytes [%2, %3) of %4, which holds %5 bytes")
            .arg(where).arg(s.offset).arg(s.offset + std::max<qint64>(s.length, 0)).arg(printableText(s.relativePath)).arg(*size);
    if (const QString declared = declaredSizeProblem({tensor.fqn, chunk.sizes, tensor.dtype}, s.length); !declared.isEmpty())
        return QStringLiteral("has a chunk at %1 that %2").arg(where, declared);
    return {};
}

void DistributedCheckpointReader::list(const DcpTensor &tensor, qsizetype index, bool stacked)
{
    // Megatron-Core's TransformerBlock saves homogeneous layers under 'decoder.layers.' with the
    // layer as a leading axis (sharded_pp_offset): decoder.layers.self_attention.linear_qkv.weight
    // is [layers, out, in]. Each layer is listed as Megatron names it in memory.
    static const QRegularExpression stackedName(QStringLiteral(R"(^((?:.+\.)?layers)\.([^.0-9][^.]*(?:\..+)?)$)"));
    const QRegularExpressionMatch m = stackedName.match(tensor.fqn);
    const bool empty = std::find(tensor.size.begin(), tensor.size.end(), 0) != tensor.size.end();
    auto add = [&](const QString &name, const QList<qint64> &shape, const QList<qint64> &fixed) {
        if (m_where.contains(name)) {
            refuseTensor(name, QStringLiteral("is listed twice (a layer of a stack and a tensor of its own)"));
            return;
        }
        m_where.insert(name, {index, fixed});
        m_listed.append({name, shape, tensor.dtype});
    };
    if (!stacked || !m.hasMatch() || tensor.size.size() < 2 || empty) {
        add(tensor.fqn, tensor.size, {});
        return;
    }
    if (tensor.size[0] > kMaxStackedLayers) {
        refuseTensor(tensor.fqn, QStringLiteral("stacks %1 layers, more than any model has").arg(tensor.size[0]));
        return;
    }
    for (qint64 layer = 0; layer < tensor.size[0]; ++layer)
        add(QStringLiteral("%1.%2.%3").arg(m.captured(1)).arg(layer).arg(m.captured(2)), tensor.size.mid(1), {layer});
}

void DistributedCheckpointReader::readMegatronCommonState()
{
    // common.pt (rank 0's torch.save of the non-sharded state), or since Megatron-Core deprecated it
    // (40b1fd37c1, 2026-07) the BYTE_IO item common_state/…, a torch.save of [state].
    PickleResult common;
    const Place commonPlace = placeOf(QStringLiteral("common.pt"));
    if (commonPlace.problem.isEmpty() && commonPlace.size <= kMaxCommonStateBytes) {
        common = archivePickle(commonPlace.path, commonPlace.base, commonPlace.size);
    } else {
        for (const QString &object : m_metadata.objects)
            if (const DcpStorage s = m_metadata.objectStorage.value(object); object.startsWith(QLatin1String("common_state")) && isPlainFileName(s.relativePath))
                if (const Place p = placeOf(s.relativePath);
                    p.problem.isEmpty() && s.offset >= 0 && s.length > 0 && s.length <= kMaxCommonStateBytes && s.offset <= p.size - s.length) {
                    common = archivePickle(p.path, p.base + s.offset, s.length);
                    break;
                }
    }
    PickleRef state = common.root;
    if (state && state->kind == Kind::List && !state->items.isEmpty())
        state = state->items.first();
    if (!state || state->kind != Kind::Dict)
        return;
    if (const PickleRef iteration = state->value(QStringLiteral("iteration")); iteration && iteration->kind == Kind::Int && iteration->integer >= 0)
        m_step = iteration->integer;
    // NeMo 2 saves Lightning's checkpoint dict (dump_checkpoint: epoch, global_step, loops…), no iteration.
    else if (const PickleRef step = state->value(QStringLiteral("global_step")); step && step->kind == Kind::Int && step->integer >= 0)
        m_step = step->integer;
    m_modelConfig = MegatronConfig::fromArgs(state->value(QStringLiteral("args")));
}

// NeMo 2 keeps the model's config in context/ beside weights/ (its common state holds no args):
// without it, the fused QKV's query groups cannot be told from its shape.
void DistributedCheckpointReader::readNemoContext()
{
    const NemoContextConfig context = NemoContext::read(m_folder.filePath(QStringLiteral("../context")));
    if (!context.fields.isEmpty())
        m_modelConfig = context.fields;
    else
        m_warnings << QStringLiteral("NeMo 2 context: %1; the fused linear_qkv is reported, not split (its query groups are not known)").arg(context.problem);
}

StoredRead DistributedCheckpointReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const Listed where = m_where.value(tensor.name);
    const DcpTensor &t = m_metadata.tensors[where.tensor];
    QList<qint64> fixed = where.fixed;
    if (slice >= 0)
        fixed << slice;
    if (fixed.size() != t.size.size() - 2)
        return {{}, QStringLiteral("is not a matrix of its %1-D global tensor").arg(t.size.size())};
    // Stitched as stored and widened later a block at a time, as every other reader's matrices
    // are: a float32 layer is never held in float64 (bench_sharded_read).
    Stitch values{QByteArray(), cols, elementSize(t.dtype), {}};
    if (values.elementSize <= 0)
        return {{}, QStringLiteral("holds %1 elements, which are not supported").arg(printableText(t.dtype))};
    values.bytes = QByteArray(qsizetype(rows * cols * values.elementSize), '\0');
    for (const DcpChunk &chunk : t.chunks) {
        bool overlaps = true;
        for (qsizetype d = 0; d < fixed.size(); ++d)
            overlaps = overlaps && chunk.offsets[d] <= fixed[d] && fixed[d] < chunk.offsets[d] + chunk.sizes[d];
        if (!overlaps)
            continue;
        if (const QString problem = copyChunk(t, chunk, fixed, values); !problem.isEmpty())
            return {{}, QStringLiteral("chunk at %1 (%2, bytes %3+%4): %5")
                            .arg(at(chunk.offsets), printableText(chunk.storage->relativePath)).arg(chunk.storage->offset).arg(chunk.storage->length).arg(problem)};
    }
    return {StoredMatrix(std::move(values.bytes), t.dtype, values.bigEndian.value_or(false), rows, cols), {}};
}

QString DistributedCheckpointReader::copyChunk(const DcpTensor &tensor, const DcpChunk &chunk, const QList<qint64> &fixed, Stitch &out)
{
    const qsizetype rank = tensor.size.size();
    const qint64 rows = chunk.sizes[rank - 2], cols = chunk.sizes[rank - 1];
    if (rows == 0 || cols == 0)
        return {};
    const Place place = placeOf(chunk.storage->relativePath);
    QString error;
    std::unique_ptr<TorchCheckpointReader> archive =
        TorchCheckpointReader::openArchive(place.path, place.base + chunk.storage->offset, chunk.storage->length, &error);
    if (!archive) {
        return startsLikeZip(place.path, place.base + chunk.storage->offset) ? error : QStringLiteral("not a torch.save archive (DCP's safetensors serialization?), which is not supported");
    }
    const PickleRef root = archive->root();
    if (!root || root->kind != Kind::Tensor)
        return QStringLiteral("its archive holds no tensor");
    const TensorRecord &r = root->tensor;
    if (r.shape != chunk.sizes)
        return QStringLiteral("holds a %1 tensor, not the %2 chunk .metadata declares").arg(at(r.shape), at(chunk.sizes));
    if (r.dtype != tensor.dtype)
        return QStringLiteral("holds %1 elements, not the %2 .metadata declares").arg(r.dtype, tensor.dtype);
    if (r.stride.size() != rank || std::any_of(r.stride.begin(), r.stride.end(), [](qint64 s) { return s < 0; }))
        return QStringLiteral("has strides %1 for %2 dimensions").arg(at(r.stride)).arg(rank);
    // The chunk's elements of this matrix, as its own strides place them (a chunk saved from a
    // non-contiguous view keeps them): one read of the span they lie in.
    __int128 first = 0;
    for (qsizetype d = 0; d < fixed.size(); ++d)
        first += __int128(fixed[d] - chunk.offsets[d]) * r.stride[d];
    const __int128 last = first + __int128(rows - 1) * r.stride[rank - 2] + __int128(cols - 1) * r.stride[rank - 1];
    if (__int128(r.offset) + last >= __int128(std::numeric_limits<qint64>::max()))
        return QStringLiteral("its strides %1 place elements beyond any storage").arg(at(r.stride));
    TensorRecord span = r;
    span.offset = r.offset + qint64(first);
    span.shape = {qint64(last - first) + 1};
    span.stride = {1};
    const StoredRead read = archive->readRecord(span, 0, span.shape[0]);
    if (!read.ok())
        return read.error;
    if (out.bigEndian && *out.bigEndian != read.matrix.bigEndian())
        return QStringLiteral("its byte order differs from the other chunks'");
    out.bigEndian = read.matrix.bigEndian();
    const qint64 rowStride = r.stride[rank - 2], colStride = r.stride[rank - 1];
    const qint64 top = chunk.offsets[rank - 2], left = chunk.offsets[rank - 1];
    for (qint64 row = 0; row < rows; ++row) {
        char *dst = out.bytes.data() + ((top + row) * out.cols + left) * out.elementSize;
        if (colStride == 1) {
            read.matrix.copyRow(0, row * rowStride, cols, dst);
            continue;
        }
        for (qint64 col = 0; col < cols; ++col)
            read.matrix.copyRow(0, row * rowStride + col * colStride, 1, dst + col * out.elementSize);
    }
    return {};
}

} // namespace rankscope
