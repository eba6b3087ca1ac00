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

StoredRead CheckpointReader::readStoredMatrix(const QString &name, qint64 slice)
{
    if (m_lookup.isEmpty()) {
        const QList<TensorInfo> list = tensors();
        for (qsizetype i = 0; i < list.size(); ++i)
            m_lookup.insert(list[i].name, i);
    }
    const auto it = m_lookup.constFind(name);
    if (it == m_lookup.constEnd())
        return {{}, QStringLiteral("no such tensor")};
    const TensorInfo tensor = tensors().at(*it);
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
