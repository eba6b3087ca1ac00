#include "io/metallama/MetaLlamaReader.h"

#include "base/PrintableText.h"

#include <QDir>
#include <QFileInfo>

namespace rankscope {

std::unique_ptr<MetaLlamaReader> MetaLlamaReader::open(const QStringList &files, QString *error)
{
    std::unique_ptr<MetaLlamaReader> reader(new MetaLlamaReader);
    if (!reader->load(files, error))
        return nullptr;
    return reader;
}

bool MetaLlamaReader::load(const QStringList &files, QString *error)
{
    QStringList shards;
    QString paramsPath;
    for (const QString &file : files) {
        if (QFileInfo(file).fileName() == MetaLlamaLayout::paramsName())
            paramsPath = file;
        else
            shards << file;
    }
    if (shards.isEmpty()) {
        *error = QStringLiteral("no consolidated.NN.pth files");
        return false;
    }
    if (paramsPath.isEmpty())
        paramsPath = QFileInfo(shards.first()).dir().filePath(MetaLlamaLayout::paramsName());
    if (!QFileInfo(paramsPath).isFile()) {
        *error = QStringLiteral("no %1 beside the %2 model-parallel files: Meta's shards are merged by its dim and head counts")
                     .arg(MetaLlamaLayout::paramsName()).arg(shards.size());
        return false;
    }
    m_params = MetaLlamaParams::read(paramsPath);
    if (!m_params.ok()) {
        *error = QStringLiteral("%1: %2").arg(MetaLlamaLayout::paramsName(), m_params.problem);
        return false;
    }

    QList<MegatronShardPart> parts;
    QStringList unsafe;
    for (qsizetype i = 0; i < shards.size(); ++i) {
        const QString where = QFileInfo(shards[i]).fileName();
        if (const std::optional<int> rank = MetaLlamaLayout::shardNumber(where); !rank || *rank != i) {
            *error = QStringLiteral("%1 is not model-parallel file %2 of %3: the files are merged all together, in rank order")
                         .arg(printableText(where.left(200))).arg(i).arg(shards.size());
            return false;
        }
        QString why;
        std::unique_ptr<TorchCheckpointReader> file = TorchCheckpointReader::open(shards[i], &why);
        const PickleRef root = file ? file->root() : nullptr;
        if (!root || root->kind != PickleValue::Kind::Dict) {
            *error = QStringLiteral("%1: %2").arg(where, file ? QStringLiteral("the pickled object is not a dict") : why);
            return false;
        }
        for (const QString &global : file->unsafeGlobals())
            if (!unsafe.contains(global))
                unsafe << global;
        // llama/generation.py loads each file as the state dict itself (model.load_state_dict(checkpoint)).
        parts.append({int(i), 0, 0, where, file.get(), MegatronShardMerge::flatten(root)});
        m_files.push_back(std::move(file));
    }

    QList<QPair<QString, QList<qint64>>> shapes;
    for (const auto &[name, record] : parts.first().tensors)
        shapes.append({name, record.shape});
    const MetaShardPlan plan = MetaLlamaLayout::plan(shapes, m_params, int(shards.size()), parts.first().where);
    if (!plan.error.isEmpty()) {
        *error = plan.error;
        return false;
    }
    m_merge.setSplitRule({[splits = plan.splits](const QString &name) -> std::optional<MegatronShardMerge::Split> {
                              const auto it = splits.constFind(name);
                              return it == splits.constEnd() ? std::nullopt : std::optional(*it);
                          },
                          QStringLiteral("how Meta's Llama model splits it over %1 model-parallel files is not known: not merged")});
    MegatronParallelism sizes;
    sizes.tensor = int(shards.size());
    if (!m_merge.build(parts, sizes, error))
        return false;
    m_sharding = QStringLiteral("MP %1 (%2 … %3), %4").arg(shards.size()).arg(parts.first().where, parts.last().where, m_params.summary());
    if (!plan.embedding.isEmpty())
        m_sharding += QStringLiteral("; ") + plan.embedding;
    if (!unsafe.isEmpty())
        m_warnings << QStringLiteral("unsafe pickle: its files reference %1, which torch.load(weights_only=True) refuses and weights_only=False would "
                                     "import and call; nothing was executed, and its tensors were read")
                          .arg(briefList(unsafe));
    m_merge.collect([this](const TensorInfo &t) { m_tensors.append(t); }, [this](const QString &name, const QString &why) { refuseTensor(name, why); },
                    [&plan](const TensorInfo &t) { return plan.refused.value(t.name); });
    return true;
}

StoredRead MetaLlamaReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    return m_merge.read(tensor.name, slice, rows, cols);
}

} // namespace rankscope
