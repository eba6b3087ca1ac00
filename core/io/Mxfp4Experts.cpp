#include "io/Mxfp4Experts.h"

#include "base/PrintableText.h"

#include <QRegularExpression>
#include <QSet>
#include <QSysInfo>
#include <cmath>
#include <limits>

namespace rankscope {

namespace {

const QLatin1String kBlocks("_blocks"), kScales("_scales");

// transformers' integrations/mxfp4.py FP4_VALUES: e2m1, index = the nibble (sign bit 3).
constexpr float kFp4Values[16] = {+0.0f, +0.5f, +1.0f, +1.5f, +2.0f, +3.0f, +4.0f, +6.0f,
                                  -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};

QString shapeOf(const TensorInfo &t) { return shapeText(t.shape) + QLatin1Char(' ') + t.dtype; }

// The names transformers quantizes to MXFP4 (GPT-OSS's experts): a lone …_blocks of these is a
// broken pair, never some other model's tensor.
bool expertsName(const QString &stem)
{
    static const QRegularExpression experts(QStringLiteral(R"((?:^|\.)experts\.(?:gate_up|down)_proj$)"));
    return experts.match(stem).hasMatch();
}

} // namespace

void Mxfp4Experts::dequantize(const char *blocks, const char *scales, qint64 rows, qint64 groups, float *out)
{
    for (qint64 b = 0; b < rows * groups; ++b) {
        // convert_moe_packed_tensors: "scales = scales.to(torch.int32) - 127", "ldexp(out, exp)".
        const int exponent = int(quint8(scales[b])) - 127;
        const char *bytes = blocks + b * 16;
        float *dst = out + b * 32;
        for (int i = 0; i < 16; ++i) {
            const quint8 byte = quint8(bytes[i]);
            dst[2 * i] = std::ldexp(kFp4Values[byte & 0x0F], exponent); // "out[:, 0::2] = lut[idx_lo]"
            dst[2 * i + 1] = std::ldexp(kFp4Values[byte >> 4], exponent); // "out[:, 1::2] = lut[idx_hi]"
        }
    }
}

QString Mxfp4Experts::pairProblem(const TensorInfo &blocks, const TensorInfo *scales) const
{
    if (!scales)
        return QStringLiteral("has no …_scales beside it");
    if (blocks.dtype != QLatin1String("uint8") || scales->dtype != QLatin1String("uint8"))
        return QStringLiteral("is stored as %1 with scales %2, not uint8 (MXFP4 stores both as bytes)").arg(blocks.dtype, scales->dtype);
    if (blocks.shape.size() != 4 || blocks.shape[3] != 16)
        return QStringLiteral("is not [experts, rows, blocks, 16] (MXFP4: 16 bytes hold a block of 32 values)");
    if (scales->shape != blocks.shape.mid(0, 3))
        return QStringLiteral("has scales %1, not one per block (the blocks' shape without its last dimension)").arg(shapeOf(*scales));
    for (const qint64 d : blocks.shape)
        if (d <= 0)
            return QStringLiteral("is empty");
    if (blocks.shape[2] > std::numeric_limits<qint32>::max() / 32)
        return QStringLiteral("holds rows too long to read");
    if (!m_inner->readsPackedSlices())
        return QStringLiteral("cannot be read from %1 files (MXFP4 blocks are read from safetensors)").arg(m_inner->formatName());
    return {};
}

std::unique_ptr<CheckpointReader> Mxfp4Experts::decoding(std::unique_ptr<CheckpointReader> reader)
{
    if (!reader)
        return reader;
    const QList<TensorInfo> listed = reader->tensors();
    QHash<QString, const TensorInfo *> byName;
    bool packed = false;
    for (const TensorInfo &t : listed) {
        byName.insert(t.name, &t);
        packed |= t.name.endsWith(kBlocks);
    }
    if (!packed)
        return reader;
    std::unique_ptr<Mxfp4Experts> self(new Mxfp4Experts(std::move(reader)));
    QSet<QString> consumedScales;
    QList<TensorInfo> kept;
    for (const TensorInfo &t : listed) {
        const QString stem = t.name.chopped(t.name.endsWith(kBlocks) ? kBlocks.size() : 0);
        const TensorInfo *scales = byName.value(stem + kScales);
        if (!t.name.endsWith(kBlocks) || (!scales && !expertsName(stem))) {
            kept << t; // not MXFP4 (a scales tensor is dropped below once its pair is read)
            continue;
        }
        QString problem = self->pairProblem(t, scales);
        if (problem.isEmpty() && byName.contains(stem))
            problem = QStringLiteral("is stored beside %1 itself: which one the model uses cannot be told").arg(stem);
        if (!problem.isEmpty()) {
            self->refuseTensor(t.name, QStringLiteral("(MXFP4 blocks %1) %2").arg(shapeOf(t), problem));
            continue;
        }
        const qint64 experts = t.shape[0], rows = t.shape[1], groups = t.shape[2];
        kept << TensorInfo{stem, {experts, groups * 32, rows}, QStringLiteral("float32")};
        self->m_pairs.insert(stem, {t.name, scales->name, rows, groups});
        consumedScales.insert(scales->name);
    }
    for (const TensorInfo &t : kept)
        if (!consumedScales.contains(t.name))
            self->m_tensors << t;
    return self;
}

QString Mxfp4Experts::formatName() const
{
    if (m_pairs.isEmpty())
        return m_inner->formatName();
    return m_inner->formatName() + QStringLiteral(", experts dequantized from MXFP4");
}

StoredRead Mxfp4Experts::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const auto it = m_pairs.constFind(tensor.name);
    if (it == m_pairs.constEnd())
        return m_inner->readStoredMatrix(tensor.name, slice);
    const Pair &pair = *it;
    if (slice < 0 || rows != pair.groups * 32 || cols != pair.rows)
        return {{}, QStringLiteral("is not read as one expert of [%1, %2]").arg(pair.groups * 32).arg(pair.rows)};
    const PackedRead blocks = m_inner->readPackedSlice(pair.blocks, slice);
    if (!blocks.ok())
        return {{}, QStringLiteral("its MXFP4 blocks %1: %2").arg(pair.blocks, blocks.error)};
    const PackedRead scales = m_inner->readPackedSlice(pair.scales, slice);
    if (!scales.ok())
        return {{}, QStringLiteral("its MXFP4 scales %1: %2").arg(pair.scales, scales.error)};
    if (blocks.bytes.size() != pair.rows * pair.groups * 16 || scales.bytes.size() != pair.rows * pair.groups)
        return {{}, QStringLiteral("its MXFP4 blocks or scales do not hold one expert's %1 × %2 blocks").arg(pair.rows).arg(pair.groups)};
    // One expert as stored, [rows, groups·32] (nn.Linear's [out, in]) …
    QByteArray values(pair.rows * pair.groups * 32 * qsizetype(sizeof(float)), Qt::Uninitialized);
    dequantize(blocks.bytes.constData(), scales.bytes.constData(), pair.rows, pair.groups, reinterpret_cast<float *>(values.data()));
    // … presented transposed, [groups·32, rows], as the bf16 parameter holds it (x @ W).
    const bool bigEndian = QSysInfo::ByteOrder == QSysInfo::BigEndian;
    return {StoredMatrix(std::move(values), QStringLiteral("float32"), bigEndian, rows, cols, 0, 1, rows), {}};
}

} // namespace rankscope
