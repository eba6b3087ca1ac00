#include "io/metallama/MetaLlamaLayout.h"

#include "base/PrintableText.h"
#include "io/FolderWeights.h"
#include "io/RegularFile.h"
#include "io/torch/TorchCheckpointReader.h"

#include <QDir>
#include <QFileInfo>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <functional>

namespace rankscope {

namespace {

using Split = MegatronShardMerge::Split;

QString fileCount(qint64 files)
{
    return files == 1 ? QStringLiteral("1 model-parallel file") : QStringLiteral("%1 model-parallel files").arg(files);
}

// Why a tensor of the first file is not what params.json gives it over `files` files; when it is a
// block of the whole along `axis` as a set of more files would hold it, how many that set has.
QString mismatch(const QString &where, const QString &name, const QList<qint64> &shape, const QList<qint64> &perFile, int axis, qint64 files,
                 const MetaLlamaParams &params)
{
    QString text = QStringLiteral("%1 is %2 in %3, but params.json (%4) over %5 makes it %6")
                       .arg(printableText(name.left(200)), shapeText(shape), where, params.summary(), fileCount(files), shapeText(perFile));
    if (axis < 0 || shape.size() != perFile.size() || axis >= shape.size() || shape[axis] <= 0)
        return text;
    for (qsizetype d = 0; d < shape.size(); ++d)
        if (d != axis && shape[d] != perFile[d])
            return text;
    const qint64 whole = perFile[axis] * files;
    if (whole % shape[axis] == 0 && whole / shape[axis] > files)
        text += QStringLiteral(": it is the share of one of %1 model-parallel files, and %2 here").arg(whole / shape[axis]).arg(files == 1 ? QStringLiteral("1 is") : QStringLiteral("%1 are").arg(files));
    return text;
}

// Meta's name for a model-parallel rank's file: consolidated.00.pth.
QString fileName(int rank) { return QStringLiteral("consolidated.%1.pth").arg(rank, 2, 10, QLatin1Char('0')); }

} // namespace

MetaLlamaParams MetaLlamaParams::read(const QString &path)
{
    QString error;
    const std::optional<QJsonObject> json = readSmallJsonObject(path, kMaxSidecarBytes, &error);
    if (!json) {
        MetaLlamaParams params;
        params.problem = error;
        return params;
    }
    return fromJson(*json);
}

MetaLlamaParams MetaLlamaParams::fromJson(const QJsonObject &json)
{
    MetaLlamaParams p;
    const QJsonObject args = json.value(QLatin1String("model")).isObject() ? json.value(QLatin1String("model")).toObject() : json;
    p.values = args.toVariantMap();
    for (auto it = p.values.begin(); it != p.values.end();)
        it = it->isNull() ? p.values.erase(it) : std::next(it);
    // Each a whole, positive JSON number (dim 4096), or 0: jsonWholeNumber's nullopt and its 0 alike.
    p.dim = jsonWholeNumber(args.value(QLatin1String("dim"))).value_or(0);
    p.layers = jsonWholeNumber(args.value(QLatin1String("n_layers"))).value_or(0);
    p.heads = jsonWholeNumber(args.value(QLatin1String("n_heads"))).value_or(0);
    const QJsonValue kv = args.value(QLatin1String("n_kv_heads"));
    p.kvHeads = kv.isNull() || kv.isUndefined() ? p.heads : jsonWholeNumber(kv).value_or(0);
    p.vocab = jsonWholeNumber(args.value(QLatin1String("vocab_size"))).value_or(0);
    // Mistral's reference code writes the same files with an explicit head_dim; Meta's ModelArgs has
    // none and takes dim / n_heads.
    const qint64 headDim = jsonWholeNumber(args.value(QLatin1String("head_dim"))).value_or(0);
    QStringList missing;
    if (!p.dim)
        missing << QStringLiteral("dim");
    if (!p.layers)
        missing << QStringLiteral("n_layers");
    if (!p.heads)
        missing << QStringLiteral("n_heads");
    if (!missing.isEmpty()) {
        p.problem = QStringLiteral("not Llama's model parameters: no positive whole %1").arg(missing.join(QLatin1String(", ")));
    } else if (!p.kvHeads) {
        p.problem = QStringLiteral("n_kv_heads is not a positive whole number");
    } else if (p.heads % p.kvHeads != 0) {
        p.problem = QStringLiteral("n_heads %1 is not a multiple of n_kv_heads %2, as Llama's attention needs").arg(p.heads).arg(p.kvHeads);
    } else if (!headDim && p.dim % p.heads != 0) {
        p.problem = QStringLiteral("dim %1 is not a multiple of n_heads %2, as Llama's attention needs (head_dim = dim / n_heads)").arg(p.dim).arg(p.heads);
    }
    if (headDim)
        p.values.insert(QStringLiteral("head_dim"), headDim);
    return p;
}

QVariantMap MetaLlamaParams::modelConfig() const
{
    if (!ok())
        return {};
    QVariantMap config = values;
    config.insert(QStringLiteral("hidden_size"), dim);
    config.insert(QStringLiteral("num_hidden_layers"), layers);
    config.insert(QStringLiteral("num_attention_heads"), heads);
    config.insert(QStringLiteral("num_key_value_heads"), kvHeads);
    if (!config.contains(QStringLiteral("head_dim")))
        config.insert(QStringLiteral("head_dim"), dim / heads);
    return config;
}

QString MetaLlamaParams::summary() const
{
    QString text = QStringLiteral("dim %1, n_heads %2, n_kv_heads %3").arg(dim).arg(heads).arg(kvHeads);
    if (values.contains(QStringLiteral("head_dim")))
        text += QStringLiteral(", head_dim %1").arg(values.value(QStringLiteral("head_dim")).toLongLong());
    return text;
}

const QString &MetaLlamaLayout::paramsName()
{
    static const QString name = QStringLiteral("params.json");
    return name;
}

std::optional<int> MetaLlamaLayout::shardNumber(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^consolidated\.(\d{2,7})\.pth$)"));
    const QRegularExpressionMatch m = pattern.match(name);
    if (!m.hasMatch())
        return std::nullopt;
    const int rank = m.captured(1).toInt();
    // Only as Meta spells it: consolidated.001.pth would be a second name for rank 1.
    return fileName(rank) == name ? std::optional(rank) : std::nullopt;
}

namespace {

// One file set's plan (MetaLlamaLayout::plan), tensor by tensor: each of Meta's names checked
// against the share of it params.json gives each file, and how the files join it.
class MetaPlanning {
public:
    MetaPlanning(const QList<QPair<QString, QList<qint64>>> &shapes, const MetaLlamaParams &p, int files, const QString &where)
        : m_shapes(shapes), m_p(p), m_n(files), m_where(where)
    {
        m_headDim = p.values.contains(QStringLiteral("head_dim")) ? p.values.value(QStringLiteral("head_dim")).toLongLong() : p.headDim();
        // wk and wv are ColumnParallelLinear(dim, n_kv_heads · head_dim): each file holds n_kv_heads ·
        // head_dim / MP rows, whole heads or not (fairscale divides the rows, not the heads). With more
        // files than key/value heads, llama/model.py's n_kv_heads // MP leaves its forward none, and a
        // writer may have stored each file a copy of a head instead (llama-models' reshard_mp repeats wk
        // and wv): rows that are not the plain split are then named and not merged, never guessed.
        m_kvEven = p.kvHeads % m_n == 0;
        m_kvRows = p.kvHeads * m_headDim;
        for (const auto &[name, shape] : shapes)
            m_byName.insert(name, shape);
    }

    MetaShardPlan build()
    {
        if (m_p.heads % m_n != 0) {
            m_plan.error = QStringLiteral("params.json's n_heads %1 do not divide over %2: Meta's model gives each file n_heads / %3 query heads")
                               .arg(m_p.heads).arg(fileCount(m_n)).arg(m_n);
            return m_plan;
        }
        static const QRegularExpression attention(QStringLiteral(R"(^layers\.(\d+)\.attention\.(wq|wk|wv|wo)\.weight$)"));
        static const QRegularExpression mlp(QStringLiteral(R"(^layers\.(\d+)\.feed_forward\.(w1|w2|w3)\.weight$)"));
        static const QRegularExpression whole(QStringLiteral(R"(^(?:layers\.\d+\.(?:attention_norm|ffn_norm)\.weight|norm\.weight|rope\.freqs)$)"));
        static const QRegularExpression layerName(QStringLiteral(R"(^layers\.(\d{1,9})\.)"));
        QSet<qint64> layers;
        qint64 lastLayer = -1;
        for (const auto &[name, shape] : m_shapes) {
            if (const QRegularExpressionMatch m = layerName.match(name); m.hasMatch()) {
                layers.insert(m.captured(1).toLongLong());
                lastLayer = std::max(lastLayer, m.captured(1).toLongLong());
            }
            bool fits = true;
            if (const QRegularExpressionMatch m = attention.match(name); m.hasMatch())
                fits = planAttention(name, shape, m.captured(2));
            else if (const QRegularExpressionMatch m = mlp.match(name); m.hasMatch())
                fits = planMlp(name, shape, m.captured(1), m.captured(2));
            else if (name == QLatin1String("output.weight"))
                fits = planOutput(name, shape);
            else if (name == QLatin1String("tok_embeddings.weight"))
                fits = planEmbedding(name, shape);
            else if (whole.match(name).hasMatch())
                m_plan.splits.insert(name, Split::Replicated);
            // Anything else has no split known: the merge refuses it by name.
            if (!fits)
                return m_plan;
        }
        // Every layer of params.json, and no other, in the file (a file with no layers.N names is not
        // Llama's and is not checked).
        if (!layers.isEmpty() && (layers.size() != m_p.layers || lastLayer != m_p.layers - 1))
            m_plan.error = QStringLiteral("%1 holds %2 layer(s), numbered up to %3, but params.json's n_layers is %4")
                               .arg(m_where).arg(layers.size()).arg(lastLayer).arg(m_p.layers);
        return m_plan;
    }

private:
    bool expect(const QString &name, const QList<qint64> &shape, const QList<qint64> &perFile, int axis, Split split)
    {
        if (shape != perFile) {
            m_plan.error = mismatch(m_where, name, shape, perFile, axis, m_n, m_p);
            return false;
        }
        m_plan.splits.insert(name, split);
        return true;
    }

    bool planAttention(const QString &name, const QList<qint64> &shape, const QString &w)
    {
        if (w == QLatin1String("wq"))
            return expect(name, shape, {m_p.heads * m_headDim / m_n, m_p.dim}, 0, Split::Rows);
        if (w == QLatin1String("wo"))
            return expect(name, shape, {m_p.dim, m_p.heads * m_headDim / m_n}, 1, Split::Columns);
        if (const QList<qint64> perFile{m_kvRows / m_n, m_p.dim}; m_kvEven || (m_kvRows % m_n == 0 && shape == perFile))
            return expect(name, shape, perFile, 0, Split::Rows);
        m_plan.splits.insert(name, Split::Rows);
        m_plan.refused.insert(name, QStringLiteral("is %1 in each of %2, not the %3 rows each that params.json's n_kv_heads %4 × head_dim %5 "
                                                 "split over them gives: more files than key/value heads, shared in a way the files do not "
                                                 "record: not merged")
                                      .arg(shapeText(shape), fileCount(m_n))
                                      .arg(m_kvRows % m_n == 0 ? QString::number(m_kvRows / m_n) : QStringLiteral("%1 / %2").arg(m_kvRows).arg(m_n))
                                      .arg(m_p.kvHeads)
                                      .arg(m_headDim));
        return true;
    }

    bool planMlp(const QString &name, const QList<qint64> &shape, const QString &layer, const QString &w)
    {
        // params.json sizes the hidden layer only through multiple_of and ffn_dim_multiplier: the
        // layer's w1 says it, and w3 and w2 must agree with it.
        const QList<qint64> w1 = m_byName.value(QStringLiteral("layers.%1.feed_forward.w1.weight").arg(layer), shape);
        const qint64 hidden = w1.size() == 2 ? w1[0] : (shape.size() == 2 ? shape[w == QLatin1String("w2") ? 1 : 0] : 0);
        return w == QLatin1String("w2") ? expect(name, shape, {m_p.dim, hidden}, 1, Split::Columns)
                                        : expect(name, shape, {hidden, m_p.dim}, 0, Split::Rows);
    }

    bool planOutput(const QString &name, const QList<qint64> &shape)
    {
        if (m_p.vocab && m_p.vocab % m_n != 0) {
            m_plan.error = QStringLiteral("params.json's vocab_size %1 does not divide over %2, as output.weight's rows must").arg(m_p.vocab).arg(fileCount(m_n));
            return false;
        }
        return expect(name, shape, {m_p.vocab ? m_p.vocab / m_n : shape.value(0), m_p.dim}, 0, Split::Rows);
    }

    bool planEmbedding(const QString &name, const QList<qint64> &shape)
    {
        // ParallelEmbedding (Llama 1, 2): [vocab, dim / MP]; VocabParallelEmbedding (Llama 3): [vocab / MP, dim].
        const bool byVocab = m_n > 1 && shape.size() == 2 && shape[1] == m_p.dim;
        if ((byVocab ? m_p.vocab : m_p.dim) % m_n != 0) {
            m_plan.error = QStringLiteral("params.json's %1 %2 does not divide over %3, as tok_embeddings.weight's %4 must")
                             .arg(byVocab ? QStringLiteral("vocab_size") : QStringLiteral("dim"))
                             .arg(byVocab ? m_p.vocab : m_p.dim)
                             .arg(fileCount(m_n), byVocab ? QStringLiteral("rows") : QStringLiteral("columns"));
            return false;
        }
        const QList<qint64> perFile = byVocab ? QList<qint64>{m_p.vocab ? m_p.vocab / m_n : shape[0], m_p.dim}
                                              : QList<qint64>{m_p.vocab ? m_p.vocab : shape.value(0), m_p.dim / m_n};
        if (!expect(name, shape, perFile, byVocab ? 0 : 1, byVocab ? Split::Rows : Split::Columns))
            return false;
        m_plan.embedding = m_n == 1 ? QString()
                         : byVocab ? QStringLiteral("tok_embeddings joined on rows (VocabParallelEmbedding, Llama 3)")
                                   : QStringLiteral("tok_embeddings joined on columns (ParallelEmbedding, Llama 1 and 2)");
        return true;
    }

    const QList<QPair<QString, QList<qint64>>> &m_shapes;
    const MetaLlamaParams &m_p;
    const qint64 m_n;
    const QString m_where;
    qint64 m_headDim = 0;
    bool m_kvEven = false;
    qint64 m_kvRows = 0;
    QHash<QString, QList<qint64>> m_byName;
    MetaShardPlan m_plan;
};

} // namespace

MetaShardPlan MetaLlamaLayout::plan(const QList<QPair<QString, QList<qint64>>> &shapes, const MetaLlamaParams &p, int files, const QString &where)
{
    return MetaPlanning(shapes, p, files, where).build();
}

namespace {

// consolidated.00.pth alone with params.json: whether its shapes are the whole model's (MP 1); a
// share of a larger set is refused.
void checkWholeModel(WeightsGroup &group, const MetaLlamaParams &params)
{
    if (!params.ok() || !group.error.isEmpty())
        return;
    QString error;
    const std::unique_ptr<TorchCheckpointReader> reader = TorchCheckpointReader::open(group.files.first(), &error);
    if (!reader)
        return; // said when it is opened
    QList<QPair<QString, QList<qint64>>> shapes;
    for (const TensorInfo &t : reader->tensors())
        shapes.append({t.name, t.shape});
    if (const MetaShardPlan plan = MetaLlamaLayout::plan(shapes, params, 1, fileName(0)); !plan.error.isEmpty())
        group.error = plan.error;
}

// The first few of the set's files that are missing; one there that holds no weights (a FIFO, a
// pickle of no matrices) says what it is.
QStringList missingFiles(const QDir &dir, const FolderWeights &weights, const QMap<int, qsizetype> &ranks, int count)
{
    QStringList named;
    for (int rank = 0; rank < count && named.size() < kBriefListItems; ++rank) {
        if (ranks.contains(rank))
            continue;
        const QString name = fileName(rank);
        const QString path = dir.filePath(name);
        const auto there = std::find_if(weights.files.begin(), weights.files.end(), [&](const ClassifiedFile &f) { return f.path == path; });
        named << (there == weights.files.end() ? name : QStringLiteral("%1 (%2)").arg(name, there->reason));
    }
    return named;
}

} // namespace

void MetaLlamaLayout::recognise(const QString &folder, FolderWeights &weights)
{
    QMap<int, qsizetype> ranks; // rank → index in weights.groups
    for (qsizetype i = 0; i < weights.groups.size(); ++i) {
        const WeightsGroup &g = weights.groups[i];
        if (g.layout == WeightsLayout::OneFile && g.files.size() == 1)
            if (const std::optional<int> rank = shardNumber(QFileInfo(g.files.first()).fileName()))
                ranks.insert(*rank, i);
    }
    if (ranks.isEmpty())
        return;
    // Every file so named, whatever it holds: consolidated.01.pth that is a FIFO still makes a set.
    int lastNamed = 0;
    for (const ClassifiedFile &file : weights.files)
        if (const std::optional<int> rank = shardNumber(QFileInfo(file.path).fileName()))
            lastNamed = std::max(lastNamed, *rank);
    const QDir dir(folder);
    const QString paramsPath = dir.filePath(paramsName());
    const bool hasParams = QFileInfo(paramsPath).isFile();
    const MetaLlamaParams params = hasParams ? MetaLlamaParams::read(paramsPath) : MetaLlamaParams();
    if (hasParams)
        weights.classifyAs(paramsPath, FileRole::TrainingSidecar,
                   params.ok() ? QStringLiteral("Meta's Llama model parameters (%1, n_layers %2): the shapes of the consolidated files are checked against them")
                                     .arg(params.summary()).arg(params.layers)
                               : QStringLiteral("a params.json beside consolidated files that is not Llama's model parameters: %1").arg(params.problem));

    // consolidated.00.pth alone is the whole model (MP 1), read as the file it is; with params.json,
    // its shapes say whether it is: a share of a larger set is refused.
    if (lastNamed == 0) {
        checkWholeModel(weights.groups[ranks.first()], params);
        return;
    }

    WeightsGroup group;
    group.layout = WeightsLayout::MetaModelParallel;
    group.format = QStringLiteral("meta-llama");
    const int count = std::max(ranks.lastKey(), lastNamed) + 1; // a name's claim: counted, never walked
    group.name = QStringLiteral("%1 … %2").arg(fileName(0), fileName(count - 1));
    QStringList damaged;
    for (auto it = ranks.begin(); it != ranks.end(); ++it) {
        const WeightsGroup &file = weights.groups[*it];
        group.files << file.files.first();
        const bool broken = !file.error.isEmpty();
        if (broken && damaged.isEmpty())
            damaged << QStringLiteral("%1: %2").arg(fileName(it.key()), file.error);
        weights.classifyAs(file.files.first(), broken ? FileRole::DamagedWeights : FileRole::Shard,
                   broken ? file.error
                          : QStringLiteral("Meta Llama model-parallel file %1 of %2 (torch.save): merged with the others").arg(it.key()).arg(count));
    }
    if (hasParams)
        group.files << paramsPath;
    if (const qint64 missing = qint64(count) - ranks.size(); missing > 0) {
        group.error = QStringLiteral("%1 missing of the %2 model-parallel files %3 … %4: they are merged only all together")
                          .arg(briefList(missingFiles(dir, weights, ranks, count), missing)).arg(count).arg(fileName(0), fileName(count - 1));
    } else if (!damaged.isEmpty()) {
        group.error = damaged.first();
    } else if (!hasParams) {
        group.error = QStringLiteral("no %1 beside the %2 model-parallel files: Meta's shards are merged by its dim and head counts").arg(paramsName()).arg(count);
    } else if (!params.ok()) {
        group.error = QStringLiteral("%1: %2").arg(paramsName(), params.problem);
    }
    QList<qsizetype> taken = ranks.values();
    std::sort(taken.begin(), taken.end(), std::greater<>());
    for (qsizetype i : taken)
        weights.groups.removeAt(i);
    weights.groups.append(group);
}

} // namespace rankscope
