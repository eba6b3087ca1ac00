#include "io/megatron/MegatronDeepSpeedReader.h"

#include "io/deepspeed/DeepSpeedCheckpointReader.h"
#include "io/megatron/MegatronConfig.h"

#include <QFileInfo>
#include <QMap>
#include <algorithm>

namespace rankscope {

namespace {

using Kind = PickleValue::Kind;
using Name = DeepSpeedFileName;

// The tag's mp_rank_TT_model_states.pt files by TP rank; empty when ZeRO-3 placeholders are among them.
QMap<int, QString> modelStatesByRank(const QStringList &files)
{
    QMap<int, QString> ranks;
    for (const QString &path : files) {
        const Name name = Name::parse(QFileInfo(path).fileName());
        if (name.kind == Name::Kind::RankModelStates)
            return {};
        if (name.kind == Name::Kind::ModelStates)
            ranks.insert(name.mpRank, path);
    }
    return ranks;
}

} // namespace

bool MegatronDeepSpeedReader::isModelParallel(const QStringList &files)
{
    return modelStatesByRank(files).size() > 1;
}

std::unique_ptr<MegatronDeepSpeedReader> MegatronDeepSpeedReader::open(const QStringList &files, QString *error)
{
    std::unique_ptr<MegatronDeepSpeedReader> reader(new MegatronDeepSpeedReader);
    if (!reader->load(files, error))
        return nullptr;
    return reader;
}

// One rank's model states: its `module` flattened, and from rank 0 the args and the step.
bool MegatronDeepSpeedReader::openRank(int rank, const QString &path, QList<MegatronShardPart> &parts, QStringList &unsafe, QString *error)
{
    const QString where = QFileInfo(path).fileName();
    QString why;
    std::unique_ptr<TorchCheckpointReader> states = TorchCheckpointReader::openAnyObject(path, &why);
    const PickleRef root = states ? states->root() : nullptr;
    if (!root || root->kind != Kind::Dict) {
        *error = QStringLiteral("%1: %2").arg(where, states ? QStringLiteral("the pickled object is not a dict") : why);
        return false;
    }
    const PickleRef module = root->value(QStringLiteral("module"));
    if (!module || module->kind != Kind::Dict) {
        *error = QStringLiteral("%1 holds no weights under module (a pipeline's layer_*-model_*-model_states.pt files are not read)").arg(where);
        return false;
    }
    if (parts.isEmpty()) {
        m_config = MegatronConfig::fromArgs(root->value(QStringLiteral("args")));
        for (const char *key : {"iteration", "global_steps"})
            if (const PickleRef step = root->value(QLatin1String(key)); !m_step && step && step->kind == Kind::Int && step->integer >= 0)
                m_step = step->integer;
    }
    for (const QString &global : states->unsafeGlobals())
        if (global != QLatin1String("argparse.Namespace") && !DeepSpeedTagFolder::isOwnClass(global) && !unsafe.contains(global))
            unsafe << global;
    parts.append({rank, 0, 0, where, states.get(), MegatronShardMerge::flatten(module)});
    m_ranks.push_back(std::move(states));
    return true;
}

bool MegatronDeepSpeedReader::load(const QStringList &files, QString *error)
{
    const QMap<int, QString> ranks = modelStatesByRank(files);
    QList<MegatronShardPart> parts;
    QStringList unsafe;
    for (auto it = ranks.begin(); it != ranks.end(); ++it)
        if (!openRank(it.key(), it.value(), parts, unsafe, error))
            return false;
    if (!m_config.contains(QStringLiteral("num_attention_heads"))) {
        *error = QStringLiteral("%1 DeepSpeed model-parallel ranks (mp_rank_00 … mp_rank_%2): merging them is not done, because their model "
                                "states carry no Megatron args (num_attention_heads) and how each tensor is split across them is the model's "
                                "own code, not in the checkpoint")
                     .arg(ranks.size()).arg(ranks.lastKey(), 2, 10, QLatin1Char('0'));
        return false;
    }
    MegatronParallelism sizes;
    applyConfig(m_config, sizes);
    sizes.tensor = int(std::min<qint64>(std::max<qint64>(sizes.tensor, ranks.lastKey() + 1), 1 << 20));
    if (positiveField(m_config, "pipeline_model_parallel_size") > 1) {
        *error = QStringLiteral("Megatron-DeepSpeed with pipeline parallelism (args.pipeline_model_parallel_size %1) saves its layers in "
                                "layer_*-model_*-model_states.pt, which are not read").arg(positiveField(m_config, "pipeline_model_parallel_size"));
        return false;
    }
    if (!m_merge.build(parts, sizes, error))
        return false;
    m_merge.collect([this](const TensorInfo &t) { m_tensors.append(t); }, [this](const QString &name, const QString &why) { refuseTensor(name, why); });
    if (!unsafe.isEmpty())
        m_warnings << QStringLiteral("unsafe pickle: its model states reference %1, which torch.load(weights_only=True) refuses; nothing was "
                                     "executed, and its tensors were read").arg(unsafe.mid(0, 8).join(QLatin1String(", ")));
    m_format = QStringLiteral("deepspeed (Megatron-DeepSpeed, TP %1 shards merged)").arg(sizes.tensor);
    return true;
}

StoredRead MegatronDeepSpeedReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    return m_merge.read(tensor.name, slice, rows, cols);
}

} // namespace rankscope
