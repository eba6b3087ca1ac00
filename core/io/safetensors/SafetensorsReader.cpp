#include "io/safetensors/SafetensorsReader.h"

#include "io/ElementDecoder.h"
#include "base/PrintableText.h"
#include "io/RegularFile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QtEndian>
#include <algorithm>
#include <cmath>

namespace rankscope {

namespace {
constexpr quint64 kMaxHeaderBytes = 100'000'000; // the reference implementation's limit

int storedElementSize(const QString &code)
{
    static const QHash<QString, int> sizes = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1},
                                              {"F8_E5M2", 1}, {"I64", 8}, {"U64", 8}, {"I32", 4}, {"U32", 4},
                                              {"I16", 2}, {"U16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}};
    return sizes.value(code, 0);
}
// A number from the header as it was written: an integer as one, anything else (1e300, 0.5) as
// the double it is, never wrapped through a 64-bit integer.
QString headerNumberText(double value)
{
    return value == std::floor(value) && std::abs(value) < 9e15 ? QString::number(qint64(value)) : QString::number(value, 'g', 17);
}

// The first top-level key the header's JSON text names twice, or empty. QJsonDocument keeps one
// of them silently, so a tensor named twice would be read as whichever it kept, and its other
// bytes reported as a gap.
QString keyNamedTwice(const QByteArray &json)
{
    QSet<QString> keys;
    int depth = 0;
    bool expectKey = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (c == '"') {
            const qsizetype start = i;
            for (++i; i < json.size() && json[i] != '"'; ++i)
                if (json[i] == '\\')
                    ++i;
            if (depth == 1 && expectKey) {
                const QByteArray token = json.mid(start, i - start + 1);
                const QString key = token.contains('\\') ? QJsonDocument::fromJson("[" + token + "]").array().at(0).toString()
                                                          : QString::fromUtf8(token.mid(1, token.size() - 2));
                if (keys.contains(key))
                    return key;
                keys.insert(key);
                expectKey = false;
            }
        } else if (c == '{' || c == '[') {
            ++depth;
            expectKey = depth == 1 && c == '{';
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == ',' && depth == 1) {
            expectKey = true;
        }
    }
    return {};
}
} // namespace

QString safetensorsDtypeName(const QString &code)
{
    static const QHash<QString, QString> names = {
        {"F64", "float64"}, {"F32", "float32"}, {"F16", "float16"}, {"BF16", "bfloat16"},
        {"F8_E4M3", "float8_e4m3fn"}, {"F8_E5M2", "float8_e5m2"}, {"I64", "int64"}, {"U64", "uint64"},
        {"I32", "int32"}, {"U32", "uint32"}, {"I16", "int16"}, {"U16", "uint16"}, {"I8", "int8"},
        {"U8", "uint8"}, {"BOOL", "bool"}};
    return names.value(code);
}

bool SafetensorsReader::looksLikeSafetensors(QFile &file)
{
    // A plausible header length followed by '{' (after optional spaces).
    const QByteArray head = file.peek(16);
    if (head.size() < 9)
        return false;
    const quint64 length = qFromLittleEndian<quint64>(head.constData());
    if (length < 2 || length > kMaxHeaderBytes || length > quint64(file.size()) - 8)
        return false;
    const qsizetype brace = head.indexOf('{', 8);
    return brace >= 8 && head.mid(8, brace - 8).trimmed().isEmpty();
}

std::unique_ptr<SafetensorsReader> SafetensorsReader::open(const QString &path, QString *error)
{
    std::unique_ptr<SafetensorsReader> reader(new SafetensorsReader);
    if (!reader->load(path, error))
        return nullptr;
    return reader;
}

// The JSON header after its 8-byte length, or none and why.
std::optional<QByteArray> SafetensorsReader::readHeader(QFile &file, QString *error)
{
    const quint64 fileSize = quint64(file.size());
    const QByteArray lengthBytes = file.read(8);
    if (lengthBytes.size() != 8) {
        *error = QStringLiteral("safetensors file shorter than its 8-byte header length");
        return std::nullopt;
    }
    const quint64 headerLength = qFromLittleEndian<quint64>(lengthBytes.constData());
    if (headerLength > kMaxHeaderBytes) {
        *error = QStringLiteral("safetensors header claims %1 bytes (the limit is 100 MB)").arg(headerLength);
        return std::nullopt;
    }
    if (headerLength > fileSize - 8) {
        *error = QStringLiteral("safetensors header length %1 runs past the end of the file (truncated?)").arg(headerLength);
        return std::nullopt;
    }
    return file.read(qint64(headerLength));
}

// One tensor's header entry: its info and where its bytes lie among the dataSize data bytes,
// checked against its shape and dtype; none and why when they do not agree.
std::optional<SafetensorsReader::Range> SafetensorsReader::readEntry(const QString &key, const QJsonObject &t, quint64 dataSize,
                                                                     TensorInfo &info, QString *error)
{
    const QString code = t.value("dtype").toString();
    const QJsonArray shape = t.value("shape").toArray();
    const QJsonArray offsets = t.value("data_offsets").toArray();
    const int size = storedElementSize(code);
    if (size == 0) {
        *error = QStringLiteral("tensor %1 has unknown dtype '%2'").arg(key, code);
        return std::nullopt;
    }
    if (offsets.size() != 2 || !t.value("shape").isArray()) {
        *error = QStringLiteral("tensor %1 lacks shape or data_offsets").arg(key);
        return std::nullopt;
    }
    info = {key, {}, safetensorsDtypeName(code)};
    quint64 elements = 1;
    for (const QJsonValue &dim : shape) {
        const double d = dim.toDouble(-1);
        if (d < 0 || d > 1e15 || d != std::floor(d)) {
            *error = QStringLiteral("tensor %1 has an invalid shape").arg(key);
            return std::nullopt;
        }
        if (d > 0 && elements > quint64(1e15) / quint64(d)) {
            *error = QStringLiteral("tensor %1 claims more elements than any file holds").arg(key);
            return std::nullopt;
        }
        elements *= quint64(d);
        info.shape.append(qint64(d));
    }
    const double begin = offsets[0].toDouble(-1), end = offsets[1].toDouble(-1);
    if (begin < 0 || end < begin || end > double(dataSize)) {
        *error = QStringLiteral("tensor %1's data_offsets [%2, %3] lie outside the %4 data bytes (truncated?)")
                     .arg(key, headerNumberText(begin), headerNumberText(end)).arg(dataSize);
        return std::nullopt;
    }
    const SafetensorsReader::Range range{quint64(begin), quint64(end)};
    if (range.end - range.begin != elements * quint64(size)) {
        *error = QStringLiteral("tensor %1 holds %2 bytes but its shape and dtype need %3")
                     .arg(key).arg(range.end - range.begin).arg(elements * quint64(size));
        return std::nullopt;
    }
    return range;
}

// Offsets must tile the data exactly: contiguous from 0, no overlap, no gap, no trailing bytes.
QString SafetensorsReader::tilingProblem(QList<Entry> byOffset, quint64 dataSize)
{
    std::sort(byOffset.begin(), byOffset.end(), [](const Entry &a, const Entry &b) {
        return a.range.begin < b.range.begin || (a.range.begin == b.range.begin && a.range.end < b.range.end);
    });
    quint64 expected = 0;
    for (const Entry &e : byOffset) {
        if (e.range.begin != expected) {
            return e.range.begin < expected ? QStringLiteral("tensor %1 overlaps the tensor before it").arg(e.name)
                                            : QStringLiteral("gap before tensor %1's data").arg(e.name);
        }
        expected = e.range.end;
    }
    if (expected != dataSize) {
        return expected < dataSize ? QStringLiteral("%1 bytes after the last tensor (trailing data)").arg(dataSize - expected)
                                   : QStringLiteral("data is truncated");
    }
    return {};
}

bool SafetensorsReader::load(const QString &path, QString *error)
{
    if (!RegularFile::open(m_file, path, error))
        return false;
    const quint64 fileSize = quint64(m_file.size());
    const std::optional<QByteArray> header = readHeader(m_file, error);
    if (!header)
        return false;
    const quint64 headerLength = quint64(header->size());
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(*header, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error = QStringLiteral("safetensors header is not valid UTF-8 JSON: %1 at byte %2")
                     .arg(parseError.errorString()).arg(parseError.offset);
        return false;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("safetensors header is a JSON array, not the object of tensors it must be");
        return false;
    }
    if (const QString twice = keyNamedTwice(*header); !twice.isEmpty()) {
        *error = QStringLiteral("safetensors header names tensor %1 twice").arg(printableText(twice.left(200)));
        return false;
    }
    m_dataStart = 8 + headerLength;
    const quint64 dataSize = fileSize - m_dataStart;

    QList<Entry> byOffset;
    const QJsonObject object = doc.object();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key() == QLatin1String("__metadata__")) {
            // The format's metadata is a map of strings; anything else in it is not kept.
            const QJsonObject notes = it.value().toObject();
            for (auto note = notes.begin(); note != notes.end(); ++note)
                if (note.value().isString())
                    m_metadata.insert(note.key(), note.value().toString());
            continue;
        }
        TensorInfo info;
        const std::optional<Range> range = readEntry(it.key(), it.value().toObject(), dataSize, info, error);
        if (!range)
            return false;
        byOffset.append({it.key(), *range});
        m_index.insert(it.key(), m_tensors.size());
        m_tensors.append(info);
        m_ranges.insert(it.key(), *range);
    }
    if (const QString gap = tilingProblem(byOffset, dataSize); !gap.isEmpty()) {
        *error = gap;
        return false;
    }
    return true;
}

StoredRead SafetensorsReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    PackedRead read = readPackedElements(tensor, slice, rows, cols);
    if (!read.ok())
        return {{}, read.error};
    return {StoredMatrix(std::move(read.bytes), tensor.dtype, false, rows, cols), {}};
}

PackedRead SafetensorsReader::readPackedElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    // The header's checks proved the range holds exactly shape × dtype bytes, so one slice's
    // bytes lie inside it (the header's data is contiguous, so a slice of any rank is a range too).
    const Range range = m_ranges.value(tensor.name);
    const qint64 bytesPerMatrix = rows * cols * storedElementBytes(tensor.dtype);
    const qint64 start = qint64(m_dataStart + range.begin) + std::max<qint64>(slice, 0) * bytesPerMatrix;
    if (const QString hole = RegularFile::holeProblem(m_file, start, bytesPerMatrix); !hole.isEmpty())
        return {{}, hole};
    if (!m_file.seek(start))
        return {{}, QStringLiteral("cannot seek to its data")};
    QByteArray bytes = m_file.read(bytesPerMatrix);
    if (bytes.size() != bytesPerMatrix)
        return {{}, QStringLiteral("data is truncated")};
    return {std::move(bytes), {}};
}

} // namespace rankscope
