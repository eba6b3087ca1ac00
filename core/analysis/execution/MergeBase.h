// --base: the model a LoRA run adapts, open for the whole analysis of the run's merged weights
// W₀ + ΔW (peft tuners/lora/layer.py Linear.merge: base_layer.weight + get_delta_weight, with
// ΔW = s·B·A oriented as W₀, transposed under fan_in_fan_out). W₀ is found in the base by what the
// naming rules make of it: the base tensor typed as the same matrices (block, layer, type, expert)
// as the update, of the same shape, so that a fused tensor (GPT-2's c_attn) merges whole and splits
// as its update does, whatever prefix each file gives the module.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/execution/PlannedTensorRead.h"
#include "analysis/planning/CheckpointPlan.h"

#include <QHash>
#include <QMutex>
#include <memory>

namespace rankscope {

class MergeBase {
public:
    // The base model folder's one checkpoint, opened and typed; null with `problem` set when it
    // cannot be (no weights, several checkpoints, unreadable).
    static std::unique_ptr<MergeBase> open(const QString &path, const TensorNameRules &rules, QString *problem);
    // What decides the merged spectra besides the run's own files: the base's weights, by content
    // (ContentFingerprint), so that a base replaced at the same path is merged again.
    static QString identity(const QString &path);
    // Why W₀ + ΔW is not the fine-tuned weight for this adapter (its adapter_config.json): DoRA
    // rescales W₀'s columns by its magnitude vector; PiSSA, OLoRA and CorDA change W₀ itself at
    // initialisation (W₀ − B₀A₀ is what the run trained beside its factors). Empty: it is.
    static QString refusal(const QVariantMap &adapterConfig);

    QString path() const { return m_path; }
    // The base tensor an update merges into: typed as the same matrices, of the same shape; null
    // with `problem` set when the base has none (what info --base lists, nothing read).
    const PlannedTensor *baseOf(const PlannedTensor &update, QString *problem) const;
    // W₀ + ΔW for a planned LoRA update whose factors were read (`factors.update`): a whole tensor
    // of the update's planned shape, read as the analysis reads any tensor. Not ok, with the
    // reason, when the base has no such tensor or its shape or scale does not allow the sum.
    PlannedTensorRead merged(const PlannedTensor &update, const PlannedTensorRead &factors);

private:
    MergeBase() = default;

    QString m_path;
    CheckpointListing m_listing; // holds the checkpoint file the reader reads
    std::unique_ptr<CheckpointReader> m_reader;
    CheckpointPlan m_plan;
    QList<qint64> m_blockSize;
    QHash<MatrixIdentity, qsizetype> m_byFirstPart; // typed tensor by the identity of its first part
    QMutex m_mutex; // one reader for the analysis' reading threads
};

} // namespace rankscope
