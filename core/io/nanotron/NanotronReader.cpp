#include "io/nanotron/NanotronReader.h"

#include "base/PrintableText.h"
#include "io/nanotron/NanotronLayout.h"
#include "io/safetensors/SafetensorsReader.h"

#include <QDir>
#include <QFileInfo>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <limits>

namespace rankscope {

namespace {

// Dimensions nanotron's parameters have (a stacked expert tensor has three); a block list longer
// than any layer writes (qkv_proj has three chunks, gate_up_proj two) is not a nanotron save.
constexpr qsizetype kMaxRank = 4;
constexpr qsizetype kMaxBlocksPerFile = 64;
constexpr qsizetype kMaxBlocksPerParameter = 4096;
constexpr qint64 kMaxDimension = qint64(1) << 40;

__int128 volume(const NanotronReader::Box &box)
{
    __int128 v = 1;
    for (qsizetype d = 0; d < box.start.size(); ++d)
        v *= box.stop[d] - box.start[d];
    return v;
}

bool overlap(const NanotronReader::Box &a, const NanotronReader::Box &b)
{
    for (qsizetype d = 0; d < a.start.size(); ++d)
        if (a.stop[d] <= b.start[d] || b.stop[d] <= a.start[d])
            return false;
    return true;
}

QString boxText(const NanotronReader::Box &box)
{
    QStringList dims;
    for (qsizetype d = 0; d < box.start.size(); ++d)
        dims << QStringLiteral("%1:%2").arg(box.start[d]).arg(box.stop[d]);
    return QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
}

// One of Python's slice(start, stop, step) as nanotron writes it ("0,256,None"), on a dimension of
// `size`: [start, stop) with step 1, the only step nanotron's splits use.
std::optional<std::pair<qint64, qint64>> parseSlice(const QString &text, qint64 size)
{
    const QStringList parts = text.split(QLatin1Char(','));
    if (parts.size() != 3)
        return std::nullopt;
    auto number = [](const QString &part, qint64 none) -> std::optional<qint64> {
        if (part.trimmed() == QLatin1String("None"))
            return none;
        bool ok = false;
        const qint64 value = part.trimmed().toLongLong(&ok);
        return ok && value >= 0 && value <= kMaxDimension ? std::optional(value) : std::nullopt;
    };
    const std::optional<qint64> start = number(parts[0], 0), stop = number(parts[1], size), step = number(parts[2], 1);
    if (!start || !stop || step != 1 || *start >= *stop || *stop > size)
        return std::nullopt;
    return std::pair(*start, *stop);
}

std::optional<NanotronReader::Box> parseBox(const QString &text, const QList<qint64> &shape)
{
    const QStringList dims = text.split(QLatin1Char('|'));
    if (dims.size() != shape.size())
        return std::nullopt;
    NanotronReader::Box box;
    for (qsizetype d = 0; d < dims.size(); ++d) {
        const auto range = parseSlice(dims[d], shape[d]);
        if (!range)
            return std::nullopt;
        box.start << range->first;
        box.stop << range->second;
    }
    return box;
}

} // namespace

std::optional<QList<qint64>> NanotronReader::parseShape(const QString &text)
{
    // str(tuple(unsharded_shape)); under numpy 2 a chunked dimension prints as np.int64(768).
    static const QRegularExpression element(QStringLiteral(R"(^\s*(?:np\.int(?:32|64)\((\d{1,15})\)|(\d{1,15}))\s*$)"));
    const QString inner = text.trimmed();
    if (!inner.startsWith(QLatin1Char('(')) || !inner.endsWith(QLatin1Char(')')) || inner.size() > 200)
        return std::nullopt;
    QStringList parts = inner.mid(1, inner.size() - 2).split(QLatin1Char(','));
    if (parts.size() > 1 && parts.last().trimmed().isEmpty())
        parts.removeLast(); // "(32,)"
    QList<qint64> shape;
    for (const QString &part : parts) {
        const QRegularExpressionMatch m = element.match(part);
        if (!m.hasMatch())
            return std::nullopt;
        const qint64 value = (m.hasCaptured(1) ? m.captured(1) : m.captured(2)).toLongLong();
        if (value <= 0 || value > kMaxDimension)
            return std::nullopt;
        shape << value;
    }
    return shape.isEmpty() || shape.size() > kMaxRank ? std::nullopt : std::optional(shape);
}

std::optional<QList<NanotronReader::Block>> NanotronReader::parseSlices(const QString &text, const QList<qint64> &local,
                                                                        const QList<qint64> &unsharded, QString *error)
{
    const QStringList pairs = text.split(QLatin1Char(';'));
    if (pairs.size() > kMaxBlocksPerFile) {
        *error = QStringLiteral("%1 slice pairs, more than any nanotron layer writes").arg(pairs.size());
        return std::nullopt;
    }
    QList<Block> blocks;
    for (const QString &pair : pairs) {
        const QStringList sides = pair.split(QLatin1Char('#'));
        const std::optional<Box> l = sides.size() == 2 ? parseBox(sides[0], local) : std::nullopt;
        const std::optional<Box> g = sides.size() == 2 ? parseBox(sides[1], unsharded) : std::nullopt;
        if (!l || !g) {
            *error = QStringLiteral("slice pair \"%1\" is not a step-1 block inside the %2 shard and the %3 tensor")
                         .arg(printableText(pair.left(120)), shapeText(local), shapeText(unsharded));
            return std::nullopt;
        }
        for (qsizetype d = 0; d < local.size(); ++d)
            if (l->stop[d] - l->start[d] != g->stop[d] - g->start[d]) {
                *error = QStringLiteral("slice pair \"%1\" copies a %2 block into a %3 one").arg(printableText(pair.left(120)), boxText(*l), boxText(*g));
                return std::nullopt;
            }
        for (const Block &other : std::as_const(blocks))
            if (overlap(other.local, *l)) {
                *error = QStringLiteral("its slices %1 and %2 name the same stored elements").arg(boxText(other.local), boxText(*l));
                return std::nullopt;
            }
        blocks.append({*l, *g});
    }
    return blocks;
}

std::unique_ptr<NanotronReader> NanotronReader::open(const QStringList &files, QString *error)
{
    std::unique_ptr<NanotronReader> reader(new NanotronReader);
    if (!reader->load(files, error))
        return nullptr;
    return reader;
}

bool NanotronReader::load(const QStringList &files, QString *error)
{
    if (files.isEmpty() || QFileInfo(files.first()).fileName() != NanotronLayout::metadataName()) {
        *error = QStringLiteral("a nanotron step folder is read from its %1").arg(NanotronLayout::metadataName());
        return false;
    }
    const QString stepFolder = QFileInfo(files.first()).absolutePath();
    const QString model = QDir(stepFolder).filePath(QStringLiteral("model"));
    m_config = NanotronLayout::modelConfig(stepFolder);
    QMap<QString, QStringList> byName;
    for (qsizetype i = 1; i < files.size(); ++i) {
        const QString name = NanotronLayout::parameterName(model, files[i]);
        if (name.isEmpty()) {
            *error = QStringLiteral("%1 is not a parameter file under model/").arg(printableText(files[i].left(300)));
            return false;
        }
        byName[name] << files[i];
    }
    if (byName.isEmpty()) {
        *error = QStringLiteral("model/ holds no parameter files");
        return false;
    }
    for (auto it = byName.cbegin(); it != byName.cend(); ++it) {
        Parameter parameter;
        if (const QString why = joinParameter(it.key(), it.value(), parameter); !why.isEmpty()) {
            refuseTensor(it.key(), why);
            continue;
        }
        m_tensors.append(parameter.info);
        m_parameters.insert(it.key(), parameter);
    }
    return true;
}

// A parameter is saved whole once, or as every (TP rank, expert rank) of one grid once: what is
// wrong with the files' names otherwise.
QString NanotronReader::shardGridProblem(const QStringList &paths, const QList<NanotronFileName> &names)
{
    const NanotronFileName &first = names.first();
    // A parameter is saved whole once, or as every (TP rank, expert rank) of one grid once.
    QSet<qint64> ranks;
    for (const NanotronFileName &n : names) {
        if (n.sharded != first.sharded || n.tensorSize != first.tensorSize || n.expertSize != first.expertSize || n.pipelineSize != first.pipelineSize)
            return QStringLiteral("its files disagree on how it is sharded (%1 …)").arg(briefList(paths.mid(0, 2)));
        ranks.insert(qint64(n.expertRank) * first.tensorSize + n.tensorRank);
    }
    const qint64 expected = first.sharded ? qint64(first.tensorSize) * first.expertSize : 1;
    if (!first.sharded && paths.size() > 1)
        return QStringLiteral("saved twice");
    if (ranks.size() != paths.size())
        return QStringLiteral("a tensor-parallel shard is saved twice");
    if (qint64(ranks.size()) != expected) {
        // The sizes in the names are a claim (tp-rank-0-of-999999): the missing are named from the
        // first few gaps, found in at most (files here + 3) steps.
        QStringList missing;
        for (qint64 i = 0; i < expected && i < ranks.size() + 3 && missing.size() < 3; ++i)
            if (!ranks.contains(i))
                missing << (first.expertSize > 1 ? QStringLiteral("tp-rank-%1 of exp-rank-%2").arg(i % first.tensorSize).arg(i / first.tensorSize)
                                                 : QStringLiteral("tp-rank-%1").arg(i));
        return QStringLiteral("%1 of its %2 tensor-parallel shards are here (%3 missing): not joined short")
            .arg(ranks.size()).arg(expected).arg(briefList(missing, expected - ranks.size()));
    }
    return {};
}

// The blocks must cover the unsharded tensor once: no element twice, none left unset.
QString NanotronReader::coverageProblem(const QList<Piece> &pieces, const QList<qint64> &unsharded)
{
    __int128 covered = 0;
    QList<const Box *> placed;
    for (const Piece &piece : pieces)
        for (const Block &block : piece.blocks) {
            for (const Box *other : std::as_const(placed))
                if (overlap(*other, block.global))
                    return QStringLiteral("two shards both fill %1 of the %2 tensor").arg(boxText(block.global), shapeText(unsharded));
            placed << &block.global;
            covered += volume(block.global);
        }
    if (covered != volume(Box{QList<qint64>(unsharded.size(), 0), unsharded}))
        return QStringLiteral("its shards fill only part of the %1 tensor their metadata declares").arg(shapeText(unsharded));
    return {};
}

QString NanotronReader::joinParameter(const QString &name, const QStringList &paths, Parameter &parameter)
{
    QList<NanotronFileName> names;
    for (const QString &path : paths)
        names << *NanotronLayout::parseFileName(QFileInfo(path).fileName());
    if (const QString problem = shardGridProblem(paths, names); !problem.isEmpty())
        return problem;
    const bool sharded = names.first().sharded;

    QList<qint64> unsharded;
    QList<Piece> pieces;
    qsizetype blocks = 0;
    for (const QString &path : paths) {
        const QString where = QFileInfo(path).fileName();
        QString why;
        const std::unique_ptr<SafetensorsReader> file = SafetensorsReader::open(path, &why);
        if (!file)
            return QStringLiteral("%1: %2").arg(where, why);
        const QList<TensorInfo> held = file->tensors();
        if (held.size() != 1 || held.first().name != QLatin1String("data"))
            return QStringLiteral("%1 holds %2 tensor(s), not the one \"data\" nanotron saves").arg(where).arg(held.size());
        const TensorInfo &data = held.first();
        if (data.shape.isEmpty() || data.shape.size() > kMaxRank)
            return QStringLiteral("%1 holds a %2-D tensor").arg(where).arg(data.shape.size());
        if (!parameter.info.dtype.isEmpty() && data.dtype != parameter.info.dtype)
            return QStringLiteral("%1 holds %2 elements, the other shards %3").arg(where, data.dtype, parameter.info.dtype);
        parameter.info.dtype = data.dtype;
        if (!sharded) {
            unsharded = data.shape;
            Box whole{QList<qint64>(data.shape.size(), 0), data.shape};
            pieces.append({path, {{whole, whole}}});
            break;
        }
        const std::optional<QList<qint64>> shape = parseShape(file->metadata().value(QStringLiteral("unsharded_shape")));
        if (!shape)
            return QStringLiteral("%1: its metadata has no unsharded_shape nanotron writes").arg(where);
        if (!unsharded.isEmpty() && *shape != unsharded)
            return QStringLiteral("%1 says the tensor is %2, another shard %3").arg(where, shapeText(*shape), shapeText(unsharded));
        if (shape->size() != data.shape.size())
            return QStringLiteral("%1 holds a %2 shard of a %3 tensor").arg(where, shapeText(data.shape), shapeText(*shape));
        unsharded = *shape;
        const std::optional<QList<Block>> placed = parseSlices(file->metadata().value(QStringLiteral("local_global_slices_pairs")), data.shape, unsharded, &why);
        if (!placed)
            return QStringLiteral("%1: %2").arg(where, why.isEmpty() ? QStringLiteral("its metadata has no local_global_slices_pairs") : why);
        blocks += placed->size();
        if (blocks > kMaxBlocksPerParameter)
            return QStringLiteral("more than %1 slice pairs over its shards").arg(kMaxBlocksPerParameter);
        pieces.append({path, *placed});
    }
    if (const QString problem = coverageProblem(pieces, unsharded); !problem.isEmpty())
        return problem;
    parameter.info.name = name;
    parameter.info.shape = unsharded;
    parameter.pieces = pieces;
    return {};
}

StoredRead NanotronReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const Parameter parameter = m_parameters.value(tensor.name);
    const qsizetype rank = tensor.shape.size();
    const int size = storedElementBytes(tensor.dtype);
    if (size <= 0 || rank < 2)
        return {{}, QStringLiteral("holds %1 elements, which are not supported").arg(printableText(tensor.dtype))};
    const qsizetype r = rank - 2, c = rank - 1;
    QByteArray joined(qsizetype(rows * cols * size), '\0');
    for (const Piece &piece : parameter.pieces) {
        std::unique_ptr<SafetensorsReader> file;
        StoredRead share; // the shard's matrix, read once for all its blocks (qkv_proj has three)
        qint64 shareIndex = std::numeric_limits<qint64>::min();
        for (const Block &block : piece.blocks) {
            // A 3-D tensor's matrix `slice` along its first dimension; this block may not hold it.
            bool holds = true;
            for (qsizetype d = 0; d < r; ++d)
                holds = holds && block.global.start[d] <= slice && slice < block.global.stop[d];
            if (!holds)
                continue;
            QString why;
            if (!file && !(file = SafetensorsReader::open(piece.path, &why)))
                return {{}, QStringLiteral("%1: %2").arg(QFileInfo(piece.path).fileName(), why)};
            const qint64 local = r == 0 ? -1 : slice - block.global.start[0] + block.local.start[0];
            if (local != shareIndex) {
                share = file->readStoredMatrix(QStringLiteral("data"), local);
                shareIndex = local;
            }
            if (!share.ok())
                return {{}, QStringLiteral("%1: %2").arg(QFileInfo(piece.path).fileName(), share.error)};
            const qint64 width = block.global.stop[c] - block.global.start[c];
            for (qint64 row = block.global.start[r]; row < block.global.stop[r]; ++row)
                share.matrix.copyRow(block.local.start[r] + row - block.global.start[r], block.local.start[c], width,
                                     joined.data() + (row * cols + block.global.start[c]) * size);
        }
    }
    return {StoredMatrix(std::move(joined), tensor.dtype, false, rows, cols), {}};
}

} // namespace rankscope
