#include "io/CheckpointReader.h"

#include "io/MemoryBudget.h"
#include "base/PrintableText.h"

#include <limits>
#include <new>

namespace rankscope {

MatrixRead CheckpointReader::readMatrix(const QString &name, qint64 slice)
{
    const StoredRead stored = readStoredMatrix(name, slice);
    if (!stored.ok())
        return {{}, stored.error};
    // Widening allocates the float64 copy the limit was checked against; it can still fail.
    try {
        return {stored.matrix.widened(), {}};
    } catch (const std::bad_alloc &) {
        return {{}, QStringLiteral("there was not enough memory to read it (%1×%2, %3 as float64)")
                        .arg(stored.matrix.rows()).arg(stored.matrix.cols())
                        .arg(MemoryBudget::bytesText(stored.matrix.rows() * stored.matrix.cols() * qint64(sizeof(double))))};
    }
}

std::optional<TensorInfo> CheckpointReader::find(const QString &name)
{
    if (m_lookup.isEmpty()) {
        const QList<TensorInfo> list = tensors();
        for (qsizetype i = 0; i < list.size(); ++i)
            m_lookup.insert(list[i].name, i);
    }
    const auto it = m_lookup.constFind(name);
    if (it == m_lookup.constEnd())
        return std::nullopt;
    return tensors().at(*it);
}

StoredRead CheckpointReader::readStoredMatrix(const QString &name, qint64 slice)
{
    const std::optional<TensorInfo> found = find(name);
    if (!found)
        return {{}, QStringLiteral("no such tensor")};
    const TensorInfo &tensor = *found;
    const qsizetype rank = tensor.shape.size();
    if (rank != 2 && rank != 3)
        return {{}, QStringLiteral("has %1 dimensions, not 2").arg(rank)};
    if ((rank == 2) != (slice < 0) || (rank == 3 && slice >= tensor.shape[0]))
        return {{}, rank == 2 ? QStringLiteral("is 2-D: it has no slice %1").arg(slice)
                              : QStringLiteral("has no slice %1 along its first dimension of %2").arg(slice).arg(tensor.shape[0])};
    const qint64 rows = tensor.shape[rank - 2], cols = tensor.shape[rank - 1];
    if (rows <= 0 || cols <= 0 || (rank == 3 && tensor.shape[0] <= 0))
        return {{}, QStringLiteral("is empty (shape %1×%2)").arg(rows).arg(cols)};
    if (elementSize(tensor.dtype) == 0)
        return {{}, QStringLiteral("unsupported dtype %1").arg(tensor.dtype)};
    if (rows > std::numeric_limits<qint32>::max() / cols)
        return {{}, QStringLiteral("a %1×%2 matrix is beyond what RankScope reads").arg(rows).arg(cols)};
    if (const QString problem = MemoryBudget::matrixProblem(rows, cols); !problem.isEmpty())
        return {{}, problem};
    // What memory is available changes while RankScope runs: an allocation can still fail, and it
    // fails this tensor only.
    try {
        StoredRead read = readElements(tensor, slice, rows, cols);
        if (read.ok() && !read.matrix.elementsInside())
            return {{}, QStringLiteral("its %1 elements do not lie inside the %2 bytes stored for it")
                            .arg(read.matrix.dtype()).arg(read.matrix.storedBytes())};
        return read;
    } catch (const std::bad_alloc &) {
        return {{}, QStringLiteral("there was not enough memory to read it (%1×%2, %3 as float64)")
                        .arg(rows).arg(cols).arg(MemoryBudget::bytesText(rows * cols * qint64(sizeof(double))))};
    }
}

PackedRead CheckpointReader::readPackedSlice(const QString &name, qint64 slice)
{
    const std::optional<TensorInfo> found = find(name);
    if (!found)
        return {{}, QStringLiteral("no such tensor")};
    if (!readsPackedSlices())
        return {{}, QStringLiteral("packed tensors are not read from %1 files").arg(formatName())};
    const QList<qint64> &shape = found->shape;
    if (shape.size() < 3 || slice < 0 || slice >= shape[0])
        return {{}, QStringLiteral("has no slice %1 of 3 or more dimensions (shape %2)").arg(slice).arg(shape.size())};
    const int size = storedElementBytes(found->dtype);
    qint64 cols = 1;
    for (qsizetype i = 2; i < shape.size(); ++i) {
        if (shape[i] <= 0 || cols > std::numeric_limits<qint32>::max() / shape[i])
            return {{}, QStringLiteral("has a slice too large to read")};
        cols *= shape[i];
    }
    const qint64 rows = shape[1];
    if (size <= 0 || rows <= 0 || rows > std::numeric_limits<qint32>::max() / cols)
        return {{}, QStringLiteral("has a slice of unknown size (dtype %1)").arg(found->dtype)};
    if (const QString problem = MemoryBudget::matrixProblem(rows, cols); !problem.isEmpty())
        return {{}, problem};
    try {
        PackedRead read = readPackedElements({name, {shape[0], rows, cols}, found->dtype}, slice, rows, cols);
        if (read.ok() && read.bytes.size() != rows * cols * size)
            return {{}, QStringLiteral("read %1 bytes for a slice of %2").arg(read.bytes.size()).arg(rows * cols * size)};
        return read;
    } catch (const std::bad_alloc &) {
        return {{}, QStringLiteral("there was not enough memory to read it (%1 bytes)").arg(rows * cols * size)};
    }
}

PackedRead CheckpointReader::readPackedElements(const TensorInfo &, qint64, qint64, qint64)
{
    return {{}, QStringLiteral("packed tensors are not read from %1 files").arg(formatName())};
}

void CheckpointReader::refuseTensor(const QString &name, const QString &why)
{
    m_warnings << QStringLiteral("tensor %1 %2: not read").arg(printableText(name.left(200)), why);
}

int storedElementBytes(const QString &dtype)
{
    if (const int size = elementSize(dtype))
        return size;
    static const QHash<QString, int> others = {{"int64", 8}, {"uint64", 8}, {"int32", 4}, {"uint32", 4}, {"int16", 2},
                                               {"uint16", 2}, {"int8", 1}, {"uint8", 1}, {"bool", 1},
                                               {"complex64", 8}, {"complex128", 16}};
    return others.value(dtype, 0);
}

QString declaredSizeProblem(const TensorInfo &tensor, qint64 storedBytes)
{
    const int size = storedElementBytes(tensor.dtype);
    if (size == 0)
        return {};
    // In 128 bits with a cap: a shape of 10⁸ × 10⁸ × 10⁸ must not wrap into something small.
    unsigned __int128 declared = size;
    QStringList dims;
    for (const qint64 d : tensor.shape) {
        dims << QString::number(d);
        declared *= (unsigned __int128)(std::max<qint64>(d, 0));
        declared = std::min(declared, (unsigned __int128)(1) << 100);
    }
    if (declared <= (unsigned __int128)(std::max<qint64>(storedBytes, 0)))
        return {};
    const qint64 shown = declared > (unsigned __int128)(std::numeric_limits<qint64>::max()) ? std::numeric_limits<qint64>::max() : qint64(declared);
    return QStringLiteral("declares [%1] %2 (%3) but the file stores %4 for it")
        .arg(dims.join(QLatin1String(", ")), tensor.dtype, MemoryBudget::bytesText(shown), MemoryBudget::bytesText(storedBytes));
}

} // namespace rankscope
