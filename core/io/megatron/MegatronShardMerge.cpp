#include "io/megatron/MegatronShardMerge.h"

#include "base/PrintableText.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <limits>

namespace rankscope {

namespace {

using Kind = PickleValue::Kind;

// How deep a legacy model's dicts nest: language_model.embedding.word_embeddings.weight is 4.
constexpr int kMaxNesting = 8;

void flattenInto(PickleRef dict, const QString &prefix, int depth, QList<QPair<QString, TensorRecord>> &out)
{
    for (const auto &[key, value] : dict->entries) {
        if (!key || key->kind != Kind::String || !value)
            continue;
        const QString name = prefix + key->text;
        if (value->kind == Kind::Tensor)
            out.append({name, value->tensor});
        else if (value->kind == Kind::Dict && depth < kMaxNesting)
            flattenInto(value, name + QLatin1Char('.'), depth + 1, out);
    }
}

// A layer inside a stage: "…encoder.layers." / "…decoder.layers.", its local number, the rest.
const QRegularExpression &layerName()
{
    static const QRegularExpression pattern(QStringLiteral(R"(^((?:.*\.)?(?:encoder|decoder)\.layers\.)(\d+)(\..+)$)"));
    return pattern;
}

// Elements of a tensor stored in row-major order, as torch.save stores a parameter: the only form
// whose TP shards can be joined byte for byte.
bool contiguous(const TensorRecord &t)
{
    if (t.stride.size() != t.shape.size())
        return false;
    qint64 expected = 1;
    for (qsizetype i = t.shape.size() - 1; i >= 0; --i) {
        if (t.shape[i] != 1 && t.stride[i] != expected)
            return false;
        expected *= t.shape[i];
    }
    return true;
}

// The elements of a shape, or −1 for one no file can hold (a negative size, more than 2⁶³ elements).
qint64 elementsOf(const QList<qint64> &shape)
{
    __int128 n = 1;
    for (qint64 d : shape) {
        n *= d;
        if (d < 0 || n > __int128(std::numeric_limits<qint64>::max()))
            return -1;
    }
    return qint64(n);
}

} // namespace

qint64 positiveField(const QVariantMap &config, const char *key)
{
    bool ok = false;
    const qint64 value = config.value(QLatin1String(key)).toLongLong(&ok);
    return ok && value > 0 ? value : 0;
}

void applyConfig(const QVariantMap &config, MegatronParallelism &sizes)
{
    if (const qint64 tp = positiveField(config, "tensor_model_parallel_size"))
        sizes.tensor = int(std::min<qint64>(tp, 1 << 20));
    if (const qint64 pp = positiveField(config, "pipeline_model_parallel_size"))
        sizes.pipeline = int(std::min<qint64>(pp, 1 << 20));
    if (const qint64 layers = positiveField(config, "num_layers"))
        sizes.numLayers = layers;
    sizes.gatedLinearUnit = config.value(QStringLiteral("gated_linear_unit")).toBool();
}

void MegatronShardMerge::collect(const std::function<void(const TensorInfo &)> &list, const std::function<void(const QString &, const QString &)> &refuse,
                                 const std::function<QString(const TensorInfo &)> &problem) const
{
    for (const auto &[name, why] : m_refused)
        refuse(name, why);
    for (const TensorInfo &t : m_tensors) {
        QString why = t.shape.size() >= 3 ? storageProblem(t.name) : QString();
        if (why.isEmpty() && problem)
            why = problem(t);
        if (why.isEmpty())
            list(t);
        else
            refuse(t.name, why);
    }
}

QList<QPair<QString, TensorRecord>> MegatronShardMerge::flatten(PickleRef dict)
{
    QList<QPair<QString, TensorRecord>> out;
    if (dict && dict->kind == Kind::Dict)
        flattenInto(dict, QString(), 0, out);
    return out;
}

std::optional<MegatronShardMerge::Split> MegatronShardMerge::splitOf(const QString &name, bool gated)
{
    // megatron/core/transformer/mlp.py (linear_fc1 of ffn_hidden_size·2 when gated) and
    // megatron/legacy/model/transformer.py (dense_h_to_4h): each rank's rows are [gate_t; up_t].
    static const QRegularExpression gatedFc1(QStringLiteral(R"((?:^|\.)(?:dense_h_to_4h|linear_fc1)\.(?:weight|bias)$)"));
    // ColumnParallelLinear and VocabParallelEmbedding: rows (outputs, vocabulary) split.
    static const QRegularExpression column(QStringLiteral(
        R"((?:^|\.)(?:query_key_value|linear_qkv|dense_h_to_4h|linear_fc1|word_embeddings|word_embeddings_for_head|output_layer)\.(?:weight|bias)$)"));
    // RowParallelLinear: inputs split; its bias is added after the all-reduce, whole on every rank.
    static const QRegularExpression row(QStringLiteral(R"((?:^|\.)(?:self_attention\.dense|linear_proj|dense_4h_to_h|linear_fc2)\.weight$)"));
    static const QRegularExpression replicated(QStringLiteral(
        R"(((?:^|\.)\w*norm\.(?:weight|bias)$)|(\.layer_norm_(?:weight|bias)$)|((?:^|\.)(?:position_embeddings\.weight|router\.weight|router\.expert_bias)$)|)"
        R"(((?:^|\.)(?:self_attention\.dense|linear_proj|dense_4h_to_h|linear_fc2)\.bias$))"));
    if (gated && gatedFc1.match(name).hasMatch())
        return Split::GatedRows;
    if (column.match(name).hasMatch())
        return Split::Rows;
    if (row.match(name).hasMatch())
        return Split::Columns;
    if (replicated.match(name).hasMatch())
        return Split::Replicated;
    return std::nullopt;
}

bool MegatronShardMerge::build(const QList<MegatronShardPart> &parts, const MegatronParallelism &parallelism, QString *error)
{
    // Every (chunk, stage, TP rank) exactly once.
    QMap<std::tuple<int, int, int>, const MegatronShardPart *> byRank;
    for (const MegatronShardPart &part : parts) {
        if (part.tensorRank < 0 || part.tensorRank >= parallelism.tensor || part.pipelineRank < 0 || part.pipelineRank >= parallelism.pipeline ||
            part.virtualChunk < 0 || part.virtualChunk >= parallelism.virtualChunks) {
            *error = QStringLiteral("%1 is tensor-parallel rank %2 of pipeline stage %3, outside TP %4 × PP %5")
                         .arg(part.where).arg(part.tensorRank).arg(part.pipelineRank).arg(parallelism.tensor).arg(parallelism.pipeline);
            return false;
        }
        const auto key = std::make_tuple(part.virtualChunk, part.pipelineRank, part.tensorRank);
        if (byRank.contains(key)) {
            *error = QStringLiteral("%1 and %2 are the same rank").arg(byRank[key]->where, part.where);
            return false;
        }
        byRank.insert(key, &part);
    }
    // The parts are distinct and inside the grid, so the grid's size less theirs is how many are
    // missing. The grid is a config's or a name's claim (TP and PP up to 2²⁰ each: 2⁴⁰ ranks) and is
    // never walked: only the first few missing are named, found in at most (parts + kBriefListItems)
    // steps. With none missing, the grid is the parts, and the loops below walk only what is here.
    const qint64 tensors = parallelism.tensor, stages = parallelism.pipeline;
    qint64 grid = 0; // TP and PP up to 2²⁰ each, times the model chunks: saturated, never wrapped
    if (__builtin_mul_overflow(tensors, stages, &grid) || __builtin_mul_overflow(grid, qint64(parallelism.virtualChunks), &grid))
        grid = std::numeric_limits<qint64>::max();
    if (const qint64 missing = grid - byRank.size(); missing > 0) {
        QStringList named;
        for (qint64 i = 0; i < grid && named.size() < kBriefListItems; ++i) {
            const int tp = int(i % tensors), stage = int(i / tensors % stages), chunk = int(i / (tensors * stages));
            if (!byRank.contains(std::make_tuple(chunk, stage, tp)))
                named << (parallelism.virtualChunks > 1 ? QStringLiteral("TP rank %1 of stage %2 (model%3)").arg(tp).arg(stage).arg(chunk)
                                                        : QStringLiteral("TP rank %1 of stage %2").arg(tp).arg(stage));
        }
        *error = QStringLiteral("shards missing: %1 (TP %2 × PP %3); not merged short").arg(briefList(named, missing)).arg(parallelism.tensor).arg(parallelism.pipeline);
        return false;
    }
    QHash<const MegatronShardPart *, QHash<QString, QString>> renamed;
    if (!renumberStages(parts, parallelism, renamed, error))
        return false;
    for (int chunk = 0; chunk < parallelism.virtualChunks; ++chunk)
        for (int stage = 0; stage < parallelism.pipeline; ++stage) {
            QList<const MegatronShardPart *> ranks;
            for (int tp = 0; tp < parallelism.tensor; ++tp)
                ranks << byRank[std::make_tuple(chunk, stage, tp)];
            if (!joinStage(ranks, renamed[ranks.first()], parallelism.gatedLinearUnit, error))
                return false;
        }
    return true;
}

// Megatron numbers each stage's layers from 0 (a ModuleList per stage); globally, a stage starts
// where the stages before it end, and under a virtual pipeline chunk c of every stage comes after
// chunk c − 1 of all stages (get_transformer_layer_offset).
bool MegatronShardMerge::renumberStages(const QList<MegatronShardPart> &parts, const MegatronParallelism &parallelism,
                                        QHash<const MegatronShardPart *, QHash<QString, QString>> &renamed, QString *error)
{
    QList<const MegatronShardPart *> order;
    for (const MegatronShardPart &part : parts)
        order << &part;
    std::sort(order.begin(), order.end(), [](const MegatronShardPart *a, const MegatronShardPart *b) {
        return std::tie(a->virtualChunk, a->pipelineRank, a->tensorRank) < std::tie(b->virtualChunk, b->pipelineRank, b->tensorRank);
    });
    QHash<QString, qint64> offset; // per container ("decoder.layers.")
    QStringList stages;
    for (qsizetype i = 0; i < order.size(); i += parallelism.tensor) {
        QHash<QString, qint64> local;
        for (const auto &[name, record] : order[i]->tensors)
            if (const QRegularExpressionMatch m = layerName().match(name); m.hasMatch())
                local[m.captured(1)] = std::max(local.value(m.captured(1)), m.captured(2).toLongLong() + 1);
        for (qsizetype r = i; r < i + parallelism.tensor; ++r)
            for (const auto &[name, record] : order[r]->tensors) {
                const QRegularExpressionMatch m = layerName().match(name);
                renamed[order[r]][name] = m.hasMatch() ? m.captured(1) + QString::number(m.captured(2).toLongLong() + offset.value(m.captured(1))) + m.captured(3) : name;
            }
        qint64 count = 0;
        for (auto it = local.begin(); it != local.end(); ++it) {
            offset[it.key()] += it.value();
            count = std::max(count, it.value());
        }
        stages << QString::number(count);
    }
    m_layerSummary = QStringLiteral("layers per stage %1").arg(stages.join(QLatin1String(" + ")));
    if (parallelism.numLayers)
        for (auto it = offset.begin(); it != offset.end(); ++it)
            if (it.value() != *parallelism.numLayers) {
                *error = QStringLiteral("the stages hold %1 layers under %2 (%3), but num_layers is %4")
                             .arg(it.value()).arg(printableText(it.key().left(200)), stages.join(QLatin1String(" + "))).arg(*parallelism.numLayers);
                return false;
            }
    return true;
}

bool MegatronShardMerge::joinStage(const QList<const MegatronShardPart *> &ranks, const QHash<QString, QString> &names, bool gated, QString *error)
{
    QList<QHash<QString, TensorRecord>> byName;
    for (const MegatronShardPart *rank : ranks) {
        QHash<QString, TensorRecord> records;
        for (const auto &[name, record] : rank->tensors)
            records.insert(name, record);
        byName << records;
    }
    const MegatronShardPart &first = *ranks.first();
    for (const auto &[name, record] : first.tensors) {
        const QString global = names.value(name, name);
        if (m_joined.contains(global) || std::any_of(m_refused.begin(), m_refused.end(), [&](const auto &r) { return r.first == global; })) {
            *error = QStringLiteral("%1 is held by two pipeline stages").arg(printableText(global.left(200)));
            return false;
        }
        Joined joined;
        const std::optional<Split> split = ranks.size() == 1 ? std::optional(Split::Replicated)
                                           : m_rule.splitOf ? m_rule.splitOf(name)
                                                            : splitOf(name, gated);
        QList<qint64> shape = record.shape;
        for (qsizetype r = 0; r < ranks.size(); ++r) {
            const auto it = byName[r].constFind(name);
            if (it == byName[r].constEnd()) {
                *error = QStringLiteral("%1 holds no %2, which %3 holds").arg(ranks[r]->where, printableText(name.left(200)), first.where);
                return false;
            }
            const QList<qint64> &s = it->shape;
            if (elementsOf(s) < 0) {
                *error = QStringLiteral("%1 in %2 declares the shape %3, which no file holds").arg(printableText(name.left(200)), ranks[r]->where, shapeText(s));
                return false;
            }
            const qsizetype axis = split == Split::Columns ? s.size() - 1 : (s.size() >= 2 ? s.size() - 2 : 0);
            bool agrees = s.size() == shape.size() && !s.isEmpty();
            for (qsizetype d = 0; agrees && d < s.size(); ++d)
                agrees = s[d] == record.shape[d]; // Megatron divides every split axis evenly (divide() asserts it)
            if (!agrees || (split == Split::GatedRows && s[axis] % 2 != 0)) {
                *error = QStringLiteral("%1 is %2 in %3 but %4 in %5: the shards do not join")
                             .arg(printableText(name.left(200)), shapeText(s), ranks[r]->where, shapeText(record.shape), first.where);
                return false;
            }
            if (r > 0 && split && *split != Split::Replicated)
                shape[axis] += s[axis];
            joined.pieces.append({ranks[r]->reader, *it, ranks[r]->where});
            if (split == Split::Replicated)
                break; // rank 0's copy: every rank holds the same
        }
        if (!split) {
            m_refused.append({global, m_rule.splitOf ? m_rule.unknown.arg(ranks.size())
                                                     : QStringLiteral("how Megatron splits it over %1 tensor-parallel ranks is not known: not merged").arg(ranks.size())});
            continue;
        }
        joined.split = *split;
        m_tensors.append({global, shape, record.dtype});
        m_joined.insert(global, joined);
    }
    for (qsizetype r = 1; r < ranks.size(); ++r)
        if (byName[r].size() != byName[0].size()) {
            *error = QStringLiteral("%1 holds %2 tensors, %3 holds %4").arg(ranks[r]->where).arg(byName[r].size()).arg(first.where).arg(byName[0].size());
            return false;
        }
    return true;
}

QString MegatronShardMerge::storageProblem(const QString &name) const
{
    for (const Piece &piece : m_joined.value(name).pieces) {
        const qint64 n = elementsOf(piece.record.shape);
        TensorRecord flat = piece.record;
        flat.shape = {n};
        flat.stride = {1};
        if (!contiguous(piece.record))
            return QStringLiteral("in %1 is not a row-major stack of matrices").arg(piece.where);
        if (const StoredRead last = piece.reader->readRecord(flat, n - 1, 1); !last.ok())
            return QStringLiteral("in %1 %2").arg(piece.where, last.error);
    }
    return {};
}

StoredRead MegatronShardMerge::read(const QString &name, qint64 slice, qint64 rows, qint64 cols) const
{
    const auto it = m_joined.constFind(name);
    if (it == m_joined.constEnd())
        return {{}, QStringLiteral("is not a merged tensor")};
    const Joined &joined = *it;
    QList<StoredMatrix> shares;
    QList<qint64> shareRows, shareCols;
    for (const Piece &piece : joined.pieces) {
        const TensorRecord &t = piece.record;
        if (t.shape.size() < 2 || !contiguous(t))
            return {{}, QStringLiteral("in %1 is not a row-major matrix, which RankScope joins").arg(piece.where)};
        const qint64 r = t.shape[t.shape.size() - 2], c = t.shape[t.shape.size() - 1];
        TensorRecord flat = t;
        flat.shape = {elementsOf(t.shape)};
        flat.stride = {1};
        StoredRead share = piece.reader->readRecord(flat, std::max<qint64>(slice, 0) * r * c, r * c);
        if (!share.ok())
            return {{}, QStringLiteral("in %1 %2").arg(piece.where, share.error)};
        if (!shares.isEmpty() && (share.matrix.dtype() != shares.first().dtype() || share.matrix.bigEndian() != shares.first().bigEndian()))
            return {{}, QStringLiteral("in %1 is %2, in %3 %4").arg(piece.where, share.matrix.dtype(), joined.pieces.first().where, shares.first().dtype())};
        shares << share.matrix;
        shareRows << r;
        shareCols << c;
    }
    const int size = storedElementBytes(shares.first().dtype());
    qint64 totalRows = 0, totalCols = 0;
    for (qsizetype i = 0; i < shares.size(); ++i) {
        totalRows += shareRows[i];
        totalCols += shareCols[i];
    }
    const qint64 outRows = joined.split == Split::Columns ? shareRows.first() : totalRows;
    const qint64 outCols = joined.split == Split::Columns ? totalCols : shareCols.first();
    if (outRows != rows || outCols != cols || size <= 0)
        return {{}, QStringLiteral("shards join to [%1, %2], not the [%3, %4] listed").arg(outRows).arg(outCols).arg(rows).arg(cols)};
    // Every share is in hand, each no larger than its bytes on disk: only now is the joined one built.
    QByteArray out;
    out.reserve(qsizetype(rows * cols * size));
    switch (joined.split) {
    case Split::Replicated:
    case Split::Rows:
        for (const StoredMatrix &share : shares)
            out.append(share.bytes());
        break;
    case Split::GatedRows:
        for (int half = 0; half < 2; ++half)
            for (const StoredMatrix &share : shares) {
                const qsizetype halfBytes = share.bytes().size() / 2;
                out.append(share.bytes().constData() + half * halfBytes, halfBytes);
            }
        break;
    case Split::Columns:
        for (qint64 r = 0; r < rows; ++r)
            for (qsizetype i = 0; i < shares.size(); ++i)
                out.append(shares[i].bytes().constData() + r * shareCols[i] * size, qsizetype(shareCols[i] * size));
        break;
    }
    return {StoredMatrix(std::move(out), shares.first().dtype(), shares.first().bigEndian(), rows, cols), {}};
}

} // namespace rankscope
