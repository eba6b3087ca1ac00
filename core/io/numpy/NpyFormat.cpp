#include "io/numpy/NpyFormat.h"

#include "io/ElementDecoder.h"

#include <QHash>
#include <QRegularExpression>
#include <QSysInfo>
#include <QtEndian>
#include <limits>

namespace rankscope {

bool NpyFormat::hasMagic(const QByteArray &head) { return head.startsWith("\x93NUMPY"); }

std::optional<NpyHeader> NpyFormat::parseHeader(const QByteArray &head, QString *error)
{
    if (!hasMagic(head) || head.size() < 10) {
        *error = QStringLiteral("not a .npy array (no \\x93NUMPY magic)");
        return std::nullopt;
    }
    const int major = quint8(head[6]);
    qint64 headerLength = 0, headerStart = 0;
    if (major == 1) {
        headerLength = qFromLittleEndian<quint16>(head.constData() + 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (head.size() < 12) {
            *error = QStringLiteral(".npy header is truncated");
            return std::nullopt;
        }
        headerLength = qFromLittleEndian<quint32>(head.constData() + 8);
        headerStart = 12;
    } else {
        *error = QStringLiteral(".npy format version %1 is not known").arg(major);
        return std::nullopt;
    }
    if (headerLength > kMaxHeaderBytes || headerStart + headerLength > head.size()) {
        *error = QStringLiteral(".npy header of %1 bytes is truncated or too large").arg(headerLength);
        return std::nullopt;
    }
    const QString dict = QString::fromLatin1(head.mid(headerStart, headerLength));
    static const QRegularExpression descrPattern(QStringLiteral(R"('descr'\s*:\s*'([^']*)')"));
    static const QRegularExpression fortranPattern(QStringLiteral(R"('fortran_order'\s*:\s*(True|False))"));
    static const QRegularExpression shapePattern(QStringLiteral(R"('shape'\s*:\s*\(([^)]*)\))"));
    const auto descr = descrPattern.match(dict);
    const auto fortran = fortranPattern.match(dict);
    const auto shape = shapePattern.match(dict);
    if (!descr.hasMatch() || !fortran.hasMatch() || !shape.hasMatch()) {
        *error = dict.contains(QLatin1String("'descr': [")) ? QStringLiteral(".npy structured dtypes are not supported")
                                                           : QStringLiteral(".npy header is malformed");
        return std::nullopt;
    }
    NpyHeader h;
    h.dataOffset = headerStart + headerLength;
    h.fortranOrder = fortran.captured(1) == QLatin1String("True");
    for (const QString &dim : shape.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qint64 d = dim.trimmed().toLongLong(&ok);
        if (!ok || d < 0) {
            *error = QStringLiteral(".npy shape (%1) is malformed").arg(shape.captured(1));
            return std::nullopt;
        }
        h.shape.append(d);
    }
    const QString code = descr.captured(1);
    if (code.contains(QLatin1Char('O'))) {
        *error = QStringLiteral("object arrays (dtype %1) are refused: loading them would run pickled code").arg(code);
        return std::nullopt;
    }
    // numpy reads descr with numpy.dtype(descr): the byte-order character is optional ('=' and none
    // mean the writer's native order) and the type may be a code ('f4', 'e') or a name ('float32').
    QString kind = code;
    if (!kind.isEmpty() && QStringLiteral("<>=|").contains(kind.front())) {
        h.bigEndian = kind.front() == QLatin1Char('>');
        kind.remove(0, 1);
    } else {
        h.bigEndian = QSysInfo::ByteOrder == QSysInfo::BigEndian;
    }
    static const QHash<QString, QString> floatNames = {
        {"f2", "float16"}, {"e", "float16"}, {"float16", "float16"}, {"half", "float16"},
        {"f4", "float32"}, {"f", "float32"}, {"float32", "float32"}, {"single", "float32"},
        {"f8", "float64"}, {"d", "float64"}, {"float64", "float64"}, {"double", "float64"}, {"float", "float64"}};
    h.dtype = floatNames.value(kind, code);
    h.supported = floatNames.contains(kind);
    // The element size comes from the recognised dtype; for others only to size the data (a '<i8'
    // array is 8 bytes an element), never to decode it.
    static const QRegularExpression sizedCode(QStringLiteral(R"(^[a-zA-Z](\d{1,2})$)"));
    const QRegularExpressionMatch sized = sizedCode.match(kind);
    h.elementSize = h.supported ? elementSize(h.dtype) : sized.hasMatch() ? sized.captured(1).toLongLong() : 0;
    return h;
}

qint64 NpyFormat::dataBytes(const NpyHeader &header)
{
    qint64 elements = 1;
    for (qint64 d : header.shape) {
        if (d > 0 && elements > (qint64(1) << 50) / d)
            return -1;
        elements *= d;
    }
    return elements * header.elementSize;
}

StoredRead NpyFormat::decodeMatrix(const NpyHeader &header, const QByteArray &data, qint64 rows, qint64 cols, qint64 slice)
{
    if (!header.supported)
        return {{}, QStringLiteral("unsupported dtype %1").arg(header.dtype)};
    if (rows <= 0 || cols <= 0 || rows > std::numeric_limits<qint32>::max() / cols)
        return {{}, QStringLiteral("a %1×%2 matrix is beyond what RankScope reads").arg(rows).arg(cols)};
    const qint64 matrix = rows * cols;
    const qint64 slices = slice >= 0 ? header.shape.value(0) : 1;
    const qint64 needed = (slice >= 0 ? slices * matrix : matrix) * header.elementSize;
    if (data.size() < needed)
        return {{}, QStringLiteral("data is truncated (%1 of %2 bytes)").arg(data.size()).arg(needed)};
    if (!header.fortranOrder) {
        const qint64 start = std::max<qint64>(slice, 0) * matrix * header.elementSize;
        // Only this matrix's bytes are kept (the whole array when it is the matrix: no copy).
        QByteArray bytes = start == 0 && data.size() == matrix * header.elementSize ? data : data.mid(start, matrix * header.elementSize);
        return {StoredMatrix(std::move(bytes), header.dtype, header.bigEndian, rows, cols), {}};
    }
    // Column-major: element (s, r, c) is at s + slices·(r + rows·c).
    return {StoredMatrix(data, header.dtype, header.bigEndian, rows, cols, std::max<qint64>(slice, 0), slices, slices * rows), {}};
}

} // namespace rankscope
