#include "io/nemo/NemoCheckpointReader.h"

#include "base/PrintableText.h"
#include "io/megatron/MegatronConfig.h"
#include "io/nemo/TarDirectory.h"
#include "io/RegularFile.h"

#include <QFile>
#include <QRegularExpression>

namespace rankscope {

namespace {

// model_config.yaml is a model's cfg, a few kilobytes.
constexpr qint64 kMaxYamlBytes = qint64(1) << 20;

QVariant yamlScalar(QString value)
{
    if (value.size() >= 2 && (value.front() == QLatin1Char('\'') || value.front() == QLatin1Char('"')) && value.back() == value.front())
        return value.mid(1, value.size() - 2);
    if (const qsizetype comment = value.indexOf(QLatin1String(" #")); comment >= 0)
        value = value.left(comment).trimmed();
    if (value == QLatin1String("null") || value == QLatin1String("~") || value.isEmpty())
        return {};
    if (value == QLatin1String("true") || value == QLatin1String("True"))
        return true;
    if (value == QLatin1String("false") || value == QLatin1String("False"))
        return false;
    bool ok = false;
    if (const qint64 integer = value.toLongLong(&ok); ok)
        return integer;
    if (const double real = value.toDouble(&ok); ok)
        return real;
    return value;
}

// Which member holds the weights of which rank: model_weights.ckpt, mp_rank_TT/…, tp_rank_TT_pp_rank_PPP/….
bool weightsRank(const QString &name, int *tp, int *pp)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^(?:mp_rank_(\d{2,4})/|tp_rank_(\d{2,4})_pp_rank_(\d{3,4})/)?model_weights\.ckpt$)"));
    const QRegularExpressionMatch m = pattern.match(name);
    if (!m.hasMatch())
        return false;
    *tp = m.hasCaptured(1) ? m.captured(1).toInt() : m.captured(2).toInt();
    *pp = m.hasCaptured(3) ? m.captured(3).toInt() : 0;
    return true;
}

} // namespace

QVariantMap NemoCheckpointReader::configFromYaml(const QByteArray &yaml)
{
    static const QStringList keys = {"num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "num_query_groups",
                                     "kv_channels", "activation", "normalization", "mcore_gpt", "position_embedding_type",
                                     "tensor_model_parallel_size", "pipeline_model_parallel_size", "virtual_pipeline_model_parallel_size",
                                     "expert_model_parallel_size", "num_moe_experts"};
    static const QRegularExpression line(QStringLiteral(R"(^([A-Za-z_][A-Za-z0-9_]*):[ \t]*(.*?)[ \t]*$)"));
    QVariantMap fields;
    for (const QByteArray &raw : yaml.split('\n')) {
        const QRegularExpressionMatch m = line.match(QString::fromUtf8(raw).remove(QLatin1Char('\r')));
        if (!m.hasMatch() || !keys.contains(m.captured(1)) || fields.contains(m.captured(1)))
            continue;
        if (const QVariant value = yamlScalar(m.captured(2)); value.isValid())
            fields.insert(m.captured(1), value);
    }
    return fields;
}

QVariant NemoCheckpointReader::yamlValue(const QString &value)
{
    return yamlScalar(value);
}

std::unique_ptr<NemoCheckpointReader> NemoCheckpointReader::open(const QString &path, QString *error)
{
    std::unique_ptr<NemoCheckpointReader> reader(new NemoCheckpointReader);
    if (!reader->load(path, error))
        return nullptr;
    return reader;
}

bool NemoCheckpointReader::load(const QString &path, QString *error)
{
    QFile file;
    if (!RegularFile::open(file, path, error))
        return false;
    // Before NeMo 1.7 a .nemo was "w:gz": a gzip stream has no way to reach a member but from its start.
    if (file.peek(2) == QByteArray("\x1f\x8b", 2)) {
        *error = QStringLiteral("a gzip-compressed .nemo (NeMo before 1.7): its members cannot be read in place; "
                                "decompress it first (gunzip -c model.nemo.gz > model.nemo, or rename to .tar.gz and gunzip)");
        return false;
    }
    TarDirectory tar;
    if (!tar.read(file, error))
        return false;
    if (const TarMember *yaml = tar.find(QStringLiteral("model_config.yaml"))) {
        if (yaml->size > kMaxYamlBytes) {
            *error = QStringLiteral("model_config.yaml holds %1 bytes, more than a model's config").arg(yaml->size);
            return false;
        }
        file.seek(yaml->offset);
        m_config = MegatronConfig::resolved(configFromYaml(file.read(yaml->size)));
    }
    QList<MegatronShardPart> parts;
    QStringList unsafe;
    if (!openRanks(path, tar, parts, unsafe, error))
        return false;
    if (m_distributed) {
        m_tensors = m_distributed->tensors();
        m_warnings << m_distributed->warnings();
        if (m_config.isEmpty())
            m_config = m_distributed->modelConfig();
        return true;
    }
    if (parts.isEmpty() && tar.find(QStringLiteral("model_weights"))) {
        *error = QStringLiteral("its ./model_weights/ folder (a torch_dist checkpoint) holds no .metadata: incomplete, not read");
        return false;
    }
    if (parts.isEmpty()) {
        *error = QStringLiteral("a .nemo archive without model_weights.ckpt");
        return false;
    }
    MegatronParallelism sizes;
    for (const MegatronShardPart &part : parts) {
        sizes.tensor = std::max(sizes.tensor, part.tensorRank + 1);
        sizes.pipeline = std::max(sizes.pipeline, part.pipelineRank + 1);
    }
    if (sizes.tensor > 1 && !m_config.contains(QStringLiteral("num_attention_heads"))) {
        *error = QStringLiteral("model-parallel weights without a readable model_config.yaml: how their shards join cannot be told");
        return false;
    }
    applyConfig(m_config, sizes);
    if (!m_merge.build(parts, sizes, error))
        return false;
    m_merge.collect([this](const TensorInfo &t) { m_tensors.append(t); }, [this](const QString &name, const QString &why) { refuseTensor(name, why); });
    if (!unsafe.isEmpty())
        m_warnings << QStringLiteral("unsafe pickle: its weights reference %1, which torch.load(weights_only=True) refuses; nothing was executed, "
                                     "and its tensors were read").arg(unsafe.mid(0, 8).join(QLatin1String(", ")));
    return true;
}

// Every rank's model_weights.ckpt, opened where it lies in the archive.
bool NemoCheckpointReader::openRanks(const QString &path, const TarDirectory &tar, QList<MegatronShardPart> &parts, QStringList &unsafe,
                                     QString *error)
{
    for (const TarMember &member : tar.members()) {
        if (member.name == QLatin1String("model_weights/.metadata"))
            return openDistributed(path, tar, error);
        int tp = 0, pp = 0;
        if (member.folder || !weightsRank(member.name, &tp, &pp))
            continue;
        QString why;
        std::unique_ptr<TorchCheckpointReader> rank = TorchCheckpointReader::openArchive(path, member.offset, member.size, &why);
        if (!rank || !rank->root() || rank->root()->kind != PickleValue::Kind::Dict) {
            *error = QStringLiteral("%1: %2").arg(member.name, rank ? QStringLiteral("the pickled object is not a dict") : why);
            return false;
        }
        for (const QString &global : rank->unsafeGlobals())
            if (!unsafe.contains(global))
                unsafe << global;
        parts.append({tp, pp, 0, member.name, rank.get(), MegatronShardMerge::flatten(rank->root())});
        m_ranks.push_back(std::move(rank));
    }
    return true;
}

// With dist_ckpt, NLPSaveRestoreConnector.save_to saves into ckpt_to_dir(model_weights.ckpt), the
// folder ./model_weights/: a Megatron-Core torch_dist checkpoint whose tensors hold the whole model
// (its chunks already joined by their offsets), read where it lies in the tar.
bool NemoCheckpointReader::openDistributed(const QString &path, const TarDirectory &tar, QString *error)
{
    QString why;
    m_distributed = DistributedCheckpointReader::openInTar(path, tar.members(), QStringLiteral("model_weights/"), &why);
    if (!m_distributed)
        *error = QStringLiteral("model_weights/ (its torch_dist weights): %1").arg(why);
    return m_distributed != nullptr;
}

std::optional<qint64> NemoCheckpointReader::step() const
{
    return m_distributed ? m_distributed->step() : std::nullopt;
}

QString NemoCheckpointReader::formatName() const
{
    return m_distributed ? QStringLiteral("nemo (%1)").arg(m_distributed->formatName()) : QStringLiteral("nemo");
}

StoredRead NemoCheckpointReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    if (m_distributed)
        return m_distributed->readStoredMatrix(tensor.name, slice);
    return m_merge.read(tensor.name, slice, rows, cols);
}

} // namespace rankscope
