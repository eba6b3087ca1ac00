#include "io/logs/TensorBoardEvents.h"

#include "io/RegularFile.h"

#include <QFileInfo>
#include <QHash>
#include <QtEndian>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>

namespace rankscope {

namespace {

// ---- CRC-32C ------------------------------------------------------------------------------------

constexpr std::array<quint32, 256> makeCrc32cTable()
{
    std::array<quint32, 256> table{};
    for (quint32 i = 0; i < 256; ++i) {
        quint32 c = i;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1; // Castagnoli, reflected
        table[i] = c;
    }
    return table;
}
constexpr std::array<quint32, 256> kCrc32cTable = makeCrc32cTable();

// Slicing-by-8 (Intel's, as zlib's crc32 does it for its polynomial): table k gives a byte's CRC
// k bytes further on, so eight bytes cost eight lookups and no dependency from one to the next.
// The checksum is most of an event file's reading time (a 1 GB file: 82 % one byte at a time).
constexpr std::array<std::array<quint32, 256>, 8> makeSlicedTables()
{
    std::array<std::array<quint32, 256>, 8> tables{};
    tables[0] = makeCrc32cTable();
    for (int k = 1; k < 8; ++k)
        for (int i = 0; i < 256; ++i)
            tables[k][i] = (tables[k - 1][i] >> 8) ^ tables[0][tables[k - 1][i] & 0xff];
    return tables;
}
constexpr std::array<std::array<quint32, 256>, 8> kSlicedCrc32c = makeSlicedTables();

// ---- Protobuf wire format ----------------------------------------------------------------------

// Wire types of the protobuf encoding. Groups (3, 4) are deprecated and none of the messages read
// here has one: they are refused, so skipping an unknown field never recurses and nesting stays
// bounded by the fixed depth of Event > Summary > Value > TensorProto > TensorShapeProto > Dim.
enum Wire { Varint = 0, Fixed64 = 1, LengthDelimited = 2, Fixed32 = 5 };

// Reads fields from one message's bytes. Every length is checked against the bytes left; after the
// first error every read returns zero/empty and next() returns false.
class ProtoReader {
public:
    explicit ProtoReader(QByteArrayView bytes)
        : m_p(reinterpret_cast<const quint8 *>(bytes.data())), m_end(m_p + bytes.size()) {}

    bool next(quint32 *field, int *wire)
    {
        if (m_error || m_p == m_end)
            return false;
        const quint64 key = varint();
        if (m_error)
            return false;
        *field = quint32(key >> 3);
        *wire = int(key & 7);
        if (*field == 0 || (key >> 32) != 0) // field numbers are 1 … 2²⁹ − 1
            return fail("a field number out of range");
        return true;
    }
    quint64 varint()
    {
        quint64 value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p == m_end)
                return fail("a varint runs past the end"), 0;
            const quint8 b = *m_p++;
            value |= quint64(b & 0x7f) << shift;
            if (!(b & 0x80))
                return value;
        }
        return fail("a varint longer than 10 bytes"), 0;
    }
    quint32 fixed32() { return take(4) ? qFromLittleEndian<quint32>(m_p - 4) : 0; }
    quint64 fixed64() { return take(8) ? qFromLittleEndian<quint64>(m_p - 8) : 0; }
    QByteArrayView bytes()
    {
        const quint64 length = varint();
        if (m_error || length > quint64(m_end - m_p))
            return fail("a length runs past the end of its message"), QByteArrayView();
        const QByteArrayView view(reinterpret_cast<const char *>(m_p), qsizetype(length));
        m_p += length;
        return view;
    }
    void skip(int wire)
    {
        switch (wire) {
        case Varint: varint(); break;
        case Fixed64: take(8); break;
        case LengthDelimited: bytes(); break;
        case Fixed32: take(4); break;
        default: fail("a group or unknown wire type"); break;
        }
    }
    bool atEnd() const { return m_p == m_end; }
    const char *error() const { return m_error; }

private:
    bool take(qsizetype n)
    {
        if (m_error || m_end - m_p < n)
            return fail("a fixed-size value runs past the end");
        m_p += n;
        return true;
    }
    bool fail(const char *why)
    {
        if (!m_error)
            m_error = why;
        m_p = m_end;
        return false;
    }
    const quint8 *m_p;
    const quint8 *m_end;
    const char *m_error = nullptr;
};

// ---- TensorProto -------------------------------------------------------------------------------

// DataType (types.proto): the floating types a scalar summary may hold.
enum DataType { DT_FLOAT = 1, DT_DOUBLE = 2, DT_BFLOAT16 = 14, DT_HALF = 19 };

double halfToDouble(quint16 h)
{
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v;
    if (exponent == 0)
        v = std::ldexp(double(mantissa), -24); // zero, subnormal
    else if (exponent == 31)
        v = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    else
        v = std::ldexp(double(mantissa + 1024), exponent - 25);
    return (h & 0x8000) ? -v : v;
}
double bfloat16ToDouble(quint16 h) { return double(std::bit_cast<float>(quint32(h) << 16)); }
double floatBits(quint32 bits) { return double(std::bit_cast<float>(bits)); }

// TensorShapeProto: dim = 2 (Dim: size = 1), unknown_rank = 3. Whether it holds one element
// (rank 0, or every dimension 1).
bool singleElementShape(QByteArrayView shape)
{
    ProtoReader r(shape);
    quint32 field;
    int wire;
    bool single = true;
    while (r.next(&field, &wire)) {
        if (field == 2 && wire == LengthDelimited) {
            ProtoReader dim(r.bytes());
            quint64 size = 0; // an absent size is 0: an empty dimension
            while (dim.next(&field, &wire))
                field == 1 && wire == Varint ? void(size = dim.varint()) : dim.skip(wire);
            single = single && size == 1 && !dim.error();
        } else if (field == 3 && wire == Varint) {
            single = single && r.varint() == 0;
        } else {
            r.skip(wire);
        }
    }
    return single && !r.error();
}

// The values one repeated field holds: how many, and the first (a scalar has exactly one).
struct Repeated {
    qint64 count = 0;
    quint64 first = 0;
    void add(quint64 v) { first = count++ ? first : v; }
};

// A repeated scalar field, packed (one length-delimited run) or not (one value per key).
void readRepeated(ProtoReader &r, int wire, int fixedWire, Repeated &out)
{
    if (wire == fixedWire || (fixedWire == Varint && wire == Varint)) {
        out.add(fixedWire == Fixed32 ? r.fixed32() : fixedWire == Fixed64 ? r.fixed64() : r.varint());
        return;
    }
    if (wire != LengthDelimited)
        return r.skip(wire);
    ProtoReader packed(r.bytes());
    while (!packed.atEnd() && !packed.error())
        out.add(fixedWire == Fixed32 ? packed.fixed32() : fixedWire == Fixed64 ? packed.fixed64() : packed.varint());
}

// TensorProto: dtype = 1, tensor_shape = 2, tensor_content = 4 (raw little-endian), float_val = 5,
// double_val = 6, half_val = 13 (DT_HALF and DT_BFLOAT16, the 16 bits in an int32). Its one value
// when it is a single-element float, double, half or bfloat16 tensor; nullopt otherwise.
std::optional<double> tensorScalar(QByteArrayView tensor)
{
    ProtoReader r(tensor);
    quint32 field;
    int wire;
    quint64 dtype = 0;
    bool single = true; // no tensor_shape: rank 0
    QByteArrayView content;
    Repeated floats, doubles, halves;
    while (r.next(&field, &wire)) {
        if (field == 1 && wire == Varint)
            dtype = r.varint();
        else if (field == 2 && wire == LengthDelimited)
            single = singleElementShape(r.bytes());
        else if (field == 4 && wire == LengthDelimited)
            content = r.bytes();
        else if (field == 5)
            readRepeated(r, wire, Fixed32, floats);
        else if (field == 6)
            readRepeated(r, wire, Fixed64, doubles);
        else if (field == 13)
            readRepeated(r, wire, Varint, halves);
        else
            r.skip(wire);
    }
    if (r.error() || !single)
        return std::nullopt;
    const auto *raw = content.data();
    switch (dtype) {
    case DT_FLOAT:
        if (floats.count == 1) return floatBits(quint32(floats.first));
        if (content.size() == 4) return floatBits(qFromLittleEndian<quint32>(raw));
        break;
    case DT_DOUBLE:
        if (doubles.count == 1) return std::bit_cast<double>(doubles.first);
        if (content.size() == 8) return std::bit_cast<double>(qFromLittleEndian<quint64>(raw));
        break;
    case DT_HALF:
    case DT_BFLOAT16: {
        const auto convert = dtype == DT_HALF ? halfToDouble : bfloat16ToDouble;
        if (halves.count == 1) return convert(quint16(halves.first));
        if (content.size() == 2) return convert(qFromLittleEndian<quint16>(raw));
        break;
    }
    default: break;
    }
    return std::nullopt;
}

// ---- Summary -----------------------------------------------------------------------------------

// SummaryMetadata: plugin_data = 1 (PluginData: plugin_name = 1, content = 2), display_name = 2,
// summary_description = 3, data_class = 4 (DATA_CLASS_SCALAR = 1). Whether it declares a scalar.
bool metadataSaysScalar(QByteArrayView metadata)
{
    ProtoReader r(metadata);
    quint32 field;
    int wire;
    bool scalar = false;
    while (r.next(&field, &wire)) {
        if (field == 1 && wire == LengthDelimited) {
            ProtoReader plugin(r.bytes());
            while (plugin.next(&field, &wire))
                if (field == 1 && wire == LengthDelimited)
                    scalar = scalar || plugin.bytes() == QByteArrayView("scalars");
                else
                    plugin.skip(wire);
        } else if (field == 4 && wire == Varint) {
            scalar = scalar || r.varint() == 1;
        } else {
            r.skip(wire);
        }
    }
    return scalar;
}

// Summary.Value: tag = 1, metadata = 9, and the oneof value: simple_value = 2 (float),
// obsolete_old_style_histogram = 3, image = 4, histo = 5, audio = 6, tensor = 8. The last member
// of a oneof on the wire is the one set. Appends the value when it is a scalar.
bool readValue(QByteArrayView bytes, QSet<QString> &scalarTags, QList<TensorBoardEvents::Scalar> &out, QString *error)
{
    ProtoReader r(bytes);
    quint32 field;
    int wire;
    QByteArrayView tag, tensor, metadata;
    bool hasMetadata = false;
    int member = 0; // the oneof member set: 0 none, else its field number
    quint32 simple = 0;
    while (r.next(&field, &wire)) {
        if (field == 1 && wire == LengthDelimited)
            tag = r.bytes();
        else if (field == 9 && wire == LengthDelimited)
            metadata = r.bytes(), hasMetadata = true;
        else if (field == 2 && wire == Fixed32)
            simple = r.fixed32(), member = 2;
        else if (field == 8 && wire == LengthDelimited)
            tensor = r.bytes(), member = 8;
        else if (field >= 3 && field <= 6)
            r.skip(wire), member = int(field);
        else
            r.skip(wire);
    }
    if (r.error()) {
        *error = QStringLiteral("a summary value has %1").arg(QLatin1String(r.error()));
        return false;
    }
    const QString name = QString::fromUtf8(tag);
    if (name.isEmpty())
        return true; // nothing to file it under
    std::optional<double> value;
    if (member == 2)
        value = floatBits(simple);
    else if (member == 8 && (hasMetadata ? metadataSaysScalar(metadata) : scalarTags.contains(name)))
        value = tensorScalar(tensor);
    if (value) {
        scalarTags.insert(name);
        out.append({name, *value});
    }
    return true;
}

} // namespace

quint32 TensorBoardEvents::crc32c(QByteArrayView bytes, quint32 crc)
{
    crc = ~crc;
    const auto *p = reinterpret_cast<const uchar *>(bytes.data());
    qsizetype n = bytes.size();
    const auto &t = kSlicedCrc32c;
    for (; n >= 8; p += 8, n -= 8) {
        const quint32 low = crc ^ qFromLittleEndian<quint32>(p), high = qFromLittleEndian<quint32>(p + 4);
        crc = t[7][low & 0xff] ^ t[6][(low >> 8) & 0xff] ^ t[5][(low >> 16) & 0xff] ^ t[4][low >> 24] ^ t[3][high & 0xff] ^
              t[2][(high >> 8) & 0xff] ^ t[1][(high >> 16) & 0xff] ^ t[0][high >> 24];
    }
    for (; n > 0; ++p, --n)
        crc = kCrc32cTable[(crc ^ *p) & 0xff] ^ (crc >> 8);
    return ~crc;
}

quint32 TensorBoardEvents::maskedCrc32c(QByteArrayView bytes)
{
    const quint32 crc = crc32c(bytes);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

bool TensorBoardEvents::isEventFile(const QString &fileName)
{
    static const QString prefix = QStringLiteral("events.out.tfevents.");
    const QString name = QFileInfo(fileName).fileName();
    return name.size() > prefix.size() && name.startsWith(prefix);
}

// Event: wall_time = 1 (double), step = 2 (int64), file_version = 3, graph_def = 4, summary = 5,
// log_message = 6, session_log = 7, tagged_run_metadata = 8, meta_graph_def = 9,
// source_metadata = 10. Summary: repeated Value value = 1.
bool TensorBoardEvents::parseEvent(QByteArrayView record, QSet<QString> &scalarTags, Event *event, QString *error)
{
    QString ignored;
    QString &why = error ? *error : ignored;
    ProtoReader r(record);
    quint32 field;
    int wire;
    QList<QByteArrayView> summaries; // read after the loop: step may follow the summary on the wire
    while (r.next(&field, &wire)) {
        if (field == 2 && wire == Varint)
            event->step = qint64(r.varint()); // two's complement, as protobuf writes a negative int64
        else if (field == 5 && wire == LengthDelimited)
            summaries.append(r.bytes());
        else
            r.skip(wire);
    }
    if (r.error()) {
        why = QStringLiteral("the event has %1").arg(QLatin1String(r.error()));
        return false;
    }
    for (const QByteArrayView summary : std::as_const(summaries)) {
        ProtoReader s(summary);
        while (s.next(&field, &wire)) {
            if (field == 1 && wire == LengthDelimited) {
                if (!readValue(s.bytes(), scalarTags, event->scalars, &why))
                    return false;
            } else {
                s.skip(wire);
            }
        }
        if (s.error()) {
            why = QStringLiteral("its summary has %1").arg(QLatin1String(s.error()));
            return false;
        }
    }
    return true;
}

namespace {

enum class Record { Read, End, Problem };

// One TFRecord from the device's position: uint64 length, uint32 masked CRC-32C of those 8 bytes,
// the data, uint32 masked CRC-32C of the data, all little-endian (record_writer.py). A length whose
// CRC fails is never used; nothing larger than the bytes left (or kMaxRecordBytes) is allocated.
Record readRecord(QIODevice &device, const QString &fileName, QByteArray &data, QString *problem)
{
    const qint64 at = device.pos();
    const QString where = QStringLiteral("at byte %1 of %2").arg(QString::number(at), fileName);
    char header[12];
    const qint64 got = device.read(header, sizeof header);
    if (got == 0)
        return Record::End;
    if (got < 0)
        return *problem = QStringLiteral("cannot be read %1: %2").arg(where, device.errorString()), Record::Problem;
    if (got < qint64(sizeof header))
        return *problem = QStringLiteral("truncated record %1 (%2 of its 12 header bytes)").arg(where, QString::number(got)), Record::Problem;
    if (TensorBoardEvents::maskedCrc32c(QByteArrayView(header, 8)) != qFromLittleEndian<quint32>(header + 8))
        return *problem = QStringLiteral("damaged record (CRC mismatch in its length) %1: its length is not trusted, nothing after it is read").arg(where),
               Record::Problem;
    const quint64 length = qFromLittleEndian<quint64>(header);
    if (length > quint64(TensorBoardEvents::kMaxRecordBytes))
        return *problem = QStringLiteral("record %1 claims %2 bytes, more than the %3 MB one event may take: not read")
                              .arg(where, QString::number(length), QString::number(TensorBoardEvents::kMaxRecordBytes >> 20)),
               Record::Problem;
    const qint64 left = device.isSequential() ? std::numeric_limits<qint64>::max() : device.size() - device.pos();
    if (qint64(length) + 4 > left)
        return *problem = QStringLiteral("truncated record %1 (it claims %2 bytes and its checksum, %3 bytes are left)").arg(where, QString::number(length), QString::number(left)),
               Record::Problem;
    if (data.capacity() > (qint64(16) << 20) && length < (quint64(1) << 20))
        data = QByteArray(); // give back the buffer of an earlier image-sized record
    data.resize(qsizetype(length));
    char footer[4];
    if (device.read(data.data(), qint64(length)) != qint64(length) || device.read(footer, 4) != 4)
        return *problem = QStringLiteral("truncated record %1").arg(where), Record::Problem;
    if (TensorBoardEvents::maskedCrc32c(data) != qFromLittleEndian<quint32>(footer))
        return *problem = QStringLiteral("damaged record (CRC mismatch) %1").arg(where), Record::Problem;
    return Record::Read;
}

} // namespace

void TensorBoardEvents::read(QIODevice &device, const QString &path, ScalarLog &log)
{
    const QString name = QFileInfo(path).fileName();
    QStringList tags; // in the order first seen
    QHash<QString, QList<ScalarPoint>> points; // per tag, in file order: ScalarLog::add lets the later win
    QSet<QString> scalarTags;
    QByteArray data;
    for (;;) {
        const qint64 at = device.pos();
        QString problem;
        const Record record = readRecord(device, name, data, &problem);
        if (record == Record::End)
            break;
        if (record == Record::Problem) {
            log.addProblem(path, problem);
            break;
        }
        Event event;
        QString error;
        if (!parseEvent(data, scalarTags, &event, &error)) {
            log.addProblem(path, QStringLiteral("record at byte %1 of %2 is not a TensorBoard event: %3").arg(QString::number(at), name, error));
            break;
        }
        for (const Scalar &s : std::as_const(event.scalars)) {
            auto it = points.find(s.tag);
            if (it == points.end())
                tags << s.tag, it = points.insert(s.tag, {});
            it->append({event.step, s.value});
        }
    }
    for (const QString &tag : std::as_const(tags))
        log.add(tag, path, points.value(tag));
}

void TensorBoardEvents::read(const QString &path, ScalarLog &log)
{
    QFile file;
    QString error;
    if (!RegularFile::open(file, path, &error)) {
        log.addProblem(path, error);
        return;
    }
    read(file, path, log);
}

} // namespace rankscope
