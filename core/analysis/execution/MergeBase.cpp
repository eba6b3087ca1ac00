#include "analysis/execution/MergeBase.h"

#include "analysis/discovery/ContentFingerprint.h"
#include "base/PrintableText.h"

#include <QFileInfo>

namespace rankscope {

namespace {

QString shapeWords(qint64 rows, qint64 cols) { return QStringLiteral("%1\u00d7%2").arg(rows).arg(cols); }

// The one checkpoint of a base model folder, or why there is none to merge with.
const CheckpointFile *onlyCheckpoint(const CheckpointListing &listing, const QString &path, QString *problem)
{
    const QString where = printableText(path);
    if (listing.checkpoints.isEmpty()) {
        *problem = QStringLiteral("--base %1: holds no model weights to merge with").arg(where);
        return nullptr;
    }
    if (listing.checkpoints.size() > 1) {
        QStringList names;
        for (const CheckpointFile &c : listing.checkpoints)
            names << QFileInfo(c.path).fileName();
        *problem = QStringLiteral("--base %1: holds %2 checkpoints (%3); name the one the adapter was trained on")
                       .arg(where)
                       .arg(listing.checkpoints.size())
                       .arg(printableText(briefList(names)));
        return nullptr;
    }
    return &listing.checkpoints.first();
}

} // namespace

std::unique_ptr<MergeBase> MergeBase::open(const QString &path, const TensorNameRules &rules, QString *problem)
{
    if (!QFileInfo(path).isDir()) {
        *problem = QStringLiteral("--base %1: not a folder").arg(printableText(path));
        return nullptr;
    }
    std::unique_ptr<MergeBase> base(new MergeBase);
    base->m_path = QFileInfo(path).absoluteFilePath();
    base->m_listing = CheckpointDiscovery::scan(path);
    const CheckpointFile *file = onlyCheckpoint(base->m_listing, path, problem);
    if (!file)
        return nullptr;
    QString error;
    base->m_reader = file->open(&error);
    if (!base->m_reader) {
        *problem = QStringLiteral("--base %1: %2").arg(printableText(path), error);
        return nullptr;
    }
    base->m_plan = CheckpointPlan::make(*file, *base->m_reader, rules);
    base->m_blockSize = PlannedTensorRead::blockSizeOf(base->m_plan.config);
    const QList<PlannedTensor> &typed = base->m_plan.layout.typed;
    for (qsizetype t = 0; t < typed.size(); ++t)
        if (!typed[t].parts.isEmpty())
            base->m_byFirstPart.insert(typed[t].parts.first().id, t);
    return base;
}

QString MergeBase::identity(const QString &path)
{
    const CheckpointListing listing = CheckpointDiscovery::scan(path);
    QString ignored;
    const CheckpointFile *file = QFileInfo(path).isDir() ? onlyCheckpoint(listing, path, &ignored) : nullptr;
    return file ? ContentFingerprint::of(*file) : QStringLiteral("none");
}

QString MergeBase::refusal(const QVariantMap &adapterConfig)
{
    if (adapterConfig.value(QStringLiteral("use_dora")).toBool())
        return QStringLiteral("a DoRA adapter (use_dora) rescales W\u2080's columns by its magnitude vector: W\u2080 + \u0394W is not "
                              "the fine-tuned weight, so only its updates are analysed");
    // peft LoraConfig.init_lora_weights: "pissa", "pissa_niter_K", "olora" and "corda" subtract
    // the initial B₀A₀ from W₀ (tuners/lora/layer.py pissa_init, olora_init, corda_init).
    const QString init = adapterConfig.value(QStringLiteral("init_lora_weights")).toString().toLower();
    for (const char *changes : {"pissa", "olora", "corda"})
        if (init.startsWith(QLatin1String(changes)))
            return QStringLiteral("its init_lora_weights = %1 changed W\u2080 at initialisation (the run trained beside W\u2080 \u2212 B\u2080A\u2080): "
                                  "W\u2080 + \u0394W from the base is not the fine-tuned weight, so only its updates are analysed")
                .arg(printableText(init.left(40)));
    return {};
}

const PlannedTensor *MergeBase::baseOf(const PlannedTensor &update, QString *problem) const
{
    if (update.parts.isEmpty() || update.shape.size() != 2) {
        *problem = QStringLiteral("is not a matrix to merge");
        return nullptr;
    }
    const auto at = m_byFirstPart.constFind(update.parts.first().id);
    if (at == m_byFirstPart.constEnd()) {
        *problem = QStringLiteral("the base model %1 has no %2 to merge it into").arg(printableText(m_path), update.parts.first().id.text());
        return nullptr;
    }
    const PlannedTensor &base = m_plan.layout.typed[*at];
    if (base.shape != update.shape) {
        *problem = QStringLiteral("the base model holds it as %1 (%2), the update is %3: not merged")
                       .arg(shapeWords(base.shape.value(0), base.shape.value(1)), base.tensor, shapeWords(update.shape[0], update.shape[1]));
        return nullptr;
    }
    return &base;
}

PlannedTensorRead MergeBase::merged(const PlannedTensor &update, const PlannedTensorRead &factors)
{
    PlannedTensorRead result;
    const auto refuse = [&](const QString &why) {
        result.error = why;
        return result;
    };
    if (!factors.update)
        return refuse(QStringLiteral("has no LoRA factors to merge"));
    if (!update.update || !update.update->scale)
        return refuse(QStringLiteral("its scale s = lora_alpha / r is not known (no adapter_config.json): W\u2080 + s\u00b7B\u00b7A cannot be formed"));
    QString problem;
    const PlannedTensor *found = baseOf(update, &problem);
    if (!found)
        return refuse(problem);
    const PlannedTensor &base = *found;
    PlannedTensorRead w0;
    {
        QMutexLocker lock(&m_mutex);
        w0 = PlannedTensorRead::read(*m_reader, base, -1, m_blockSize);
    }
    if (!w0.ok())
        return refuse(QStringLiteral("its base weight %1 cannot be read: %2").arg(base.tensor, w0.error));
    if (!w0.tensor || w0.scales)
        return refuse(QStringLiteral("its base weight %1 is block-scaled FP8: not merged").arg(base.tensor));
    // W₀ + s·left·rightᵀ in float64, the update oriented as W₀ is stored (PlannedTensorRead).
    const LowRankFactors &delta = *factors.update;
    RowMajorMatrix sum = w0.tensor->widened();
    if (sum.rows() != delta.left.rows() || sum.cols() != delta.right.rows())
        return refuse(QStringLiteral("its base weight %1 is %2, its factors make %3: not merged")
                          .arg(base.tensor, shapeWords(sum.rows(), sum.cols()), shapeWords(delta.left.rows(), delta.right.rows())));
    sum.noalias() += delta.scale * (delta.left * delta.right.transpose());
    result.tensor = std::make_shared<const StoredMatrix>(StoredMatrix::fromDouble(sum));
    return result;
}

} // namespace rankscope
