// MXFP4 experts as transformers stores them (integrations/mxfp4.py; GPT-OSS on the Hub):
// "X_blocks" uint8 [E, rows, G, 16], two FP4 (e2m1) values a byte, low nibble first, and "X_scales"
// uint8 [E, rows, G], one E8M0 exponent (2^(s − 127)) per block of 32 values. A checkpoint is read
// through this decorator, which lists each valid pair as the one float tensor X of shape
// [E, G·32, rows]: what convert_moe_packed_tensors returns (its final transpose(1, 2)) and the bf16
// model's parameter holds (GptOssExperts.gate_up_proj [E, H, 2I], down_proj [E, I, H]), so the
// family rules type it as they type the bf16 checkpoint. One expert is decoded at a time.
#pragma once

#include "io/CheckpointReader.h"

#include <memory>

namespace rankscope {

class Mxfp4Experts final : public CheckpointReader {
public:
    // The reader itself when it holds no …_blocks tensor, else the decorator over it. A malformed
    // pair (a lone …_blocks, a dtype other than uint8, shapes that do not fit) is refused with the
    // reason (a warning of the file) and left out; the rest of the checkpoint is read.
    static std::unique_ptr<CheckpointReader> decoding(std::unique_ptr<CheckpointReader> reader);

    // Decodes `rows` rows of `groups` blocks (16 bytes and one scale each) into rows × groups·32
    // float32 values, row-major: transformers' convert_moe_packed_tensors before its transpose.
    static void dequantize(const char *blocks, const char *scales, qint64 rows, qint64 groups, float *out);

    QString formatName() const override;
    QList<TensorInfo> tensors() const override { return m_tensors; }
    std::optional<qint64> step() const override { return m_inner->step(); }
    QVariantMap modelConfig() const override { return m_inner->modelConfig(); }
    QStringList warnings() const override { return m_inner->warnings() + m_warnings; }

protected:
    StoredRead readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols) override;

private:
    struct Pair {
        QString blocks, scales;
        qint64 rows = 0, groups = 0; // of one expert as stored: [rows, groups, 16]
    };
    explicit Mxfp4Experts(std::unique_ptr<CheckpointReader> inner) : m_inner(std::move(inner)) {}
    QString pairProblem(const TensorInfo &blocks, const TensorInfo *scales) const;

    std::unique_ptr<CheckpointReader> m_inner;
    QList<TensorInfo> m_tensors;
    QHash<QString, Pair> m_pairs; // by the dequantized tensor's name
};

} // namespace rankscope
