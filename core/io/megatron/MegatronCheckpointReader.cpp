#include "io/megatron/MegatronCheckpointReader.h"

#include "base/PrintableText.h"
#include "io/megatron/MegatronConfig.h"
#include "io/megatron/MegatronLayout.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace rankscope {

namespace {

using Kind = PickleValue::Kind;

// generate_state_dict: 'model', or f'model{i}' for each chunk of a virtual pipeline.
QList<PickleRef> modelChunks(PickleRef root)
{
    if (const PickleRef model = root->value(QStringLiteral("model")); model && model->kind == Kind::Dict)
        return {model};
    QList<PickleRef> chunks;
    for (int i = 0;; ++i) {
        const PickleRef chunk = root->value(QStringLiteral("model%1").arg(i));
        if (!chunk || chunk->kind != Kind::Dict)
            return chunks;
        chunks << chunk;
    }
}

} // namespace

std::unique_ptr<MegatronCheckpointReader> MegatronCheckpointReader::open(const QStringList &files, QString *error)
{
    std::unique_ptr<MegatronCheckpointReader> reader(new MegatronCheckpointReader);
    if (!reader->load(files, error))
        return nullptr;
    return reader;
}

bool MegatronCheckpointReader::load(const QStringList &files, QString *error)
{
    QList<MegatronShardPart> parts;
    QStringList unsafe;
    for (const QString &file : files) {
        const QString where = QFileInfo(file).dir().dirName() + QLatin1Char('/') + QFileInfo(file).fileName();
        const std::optional<MegatronRank> rank = MegatronLayout::rankOfFile(file);
        if (!rank) {
            *error = QStringLiteral("%1 is not in an mp_rank_* folder").arg(where);
            return false;
        }
        QString why;
        std::unique_ptr<TorchCheckpointReader> shard = TorchCheckpointReader::open(file, &why);
        const PickleRef root = shard ? shard->root() : nullptr;
        if (!root || root->kind != Kind::Dict) {
            *error = QStringLiteral("%1: %2").arg(where, shard ? QStringLiteral("the pickled object is not a dict") : why);
            return false;
        }
        const QList<PickleRef> chunks = modelChunks(root);
        if (chunks.isEmpty()) {
            *error = QStringLiteral("%1 holds no 'model' (nor 'model0')").arg(where);
            return false;
        }
        if (m_ranks.empty()) {
            m_config = MegatronConfig::fromArgs(root->value(QStringLiteral("args")));
            if (const PickleRef iteration = root->value(QStringLiteral("iteration")); iteration && iteration->kind == Kind::Int)
                m_step = iteration->integer;
            if (const PickleRef version = root->value(QStringLiteral("checkpoint_version")); version && version->kind == Kind::Float)
                m_config.insert(QStringLiteral("checkpoint_version"), version->real);
        }
        // Megatron saves its args as an argparse.Namespace (generate_state_dict), which torch.load
        // refuses under weights_only but Megatron loads without: read here as data, as is every
        // class. Any other global is said.
        for (const QString &global : shard->unsafeGlobals())
            if (global != QLatin1String("argparse.Namespace") && !unsafe.contains(global))
                unsafe << global;
        for (qsizetype c = 0; c < chunks.size(); ++c)
            parts.append({rank->tensor, rank->numbers >= 2 ? rank->pipeline : 0, int(c), where, shard.get(), MegatronShardMerge::flatten(chunks[c])});
        m_ranks.push_back(std::move(shard));
    }
    const std::optional<MegatronParallelism> sizes = parallelism(parts, error);
    if (!sizes || !m_merge.build(parts, *sizes, error))
        return false;
    m_sharding = QStringLiteral("TP %1 × PP %2, %3").arg(sizes->tensor).arg(sizes->pipeline).arg(m_merge.layerSummary());
    if (!unsafe.isEmpty())
        m_warnings << QStringLiteral("unsafe pickle: its ranks' files reference %1, which torch.load(weights_only=True) refuses and "
                                     "weights_only=False would import and call; nothing was executed, and its tensors were read")
                          .arg(unsafe.mid(0, 8).join(QLatin1String(", ")) + (unsafe.size() > 8 ? QStringLiteral(", …") : QString()));
    // Before checkpoint_version 2.0 the fused QKV rows were in other orders (fix_query_key_value_ordering
    // in megatron/legacy/model): they are not split as the per-group order would be.
    const double version = m_config.value(QStringLiteral("checkpoint_version"), 3.0).toDouble();
    static const QRegularExpression fusedQkv(QStringLiteral(R"((?:^|\.)query_key_value\.(?:weight|bias)$)"));
    m_merge.collect([this](const TensorInfo &t) { m_tensors.append(t); }, [this](const QString &name, const QString &why) { refuseTensor(name, why); },
                    [version](const TensorInfo &t) {
                        return version < 2.0 && fusedQkv.match(t.name).hasMatch()
                                   ? QStringLiteral("is in the QKV order of checkpoint_version %1, older than Megatron's per-group one").arg(version)
                                   : QString();
                    });
    return true;
}

std::optional<MegatronParallelism> MegatronCheckpointReader::parallelism(const QList<MegatronShardPart> &parts, QString *error) const
{
    MegatronParallelism sizes;
    int chunks = 1;
    for (const MegatronShardPart &part : parts) {
        sizes.tensor = std::max(sizes.tensor, part.tensorRank + 1);
        sizes.pipeline = std::max(sizes.pipeline, part.pipelineRank + 1);
        chunks = std::max(chunks, part.virtualChunk + 1);
    }
    sizes.virtualChunks = chunks;
    applyConfig(m_config, sizes);
    if (const qint64 ep = positiveField(m_config, "expert_model_parallel_size"); ep > 1) {
        *error = QStringLiteral("expert-parallel shards (EP %1) are not merged yet: only TP × PP saves are read").arg(ep);
        return std::nullopt;
    }
    return sizes;
}

StoredRead MegatronCheckpointReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    return m_merge.read(tensor.name, slice, rows, cols);
}

} // namespace rankscope
