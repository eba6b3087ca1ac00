// TensorBoard event files, written byte for byte as TensorBoard's writer writes them, by an
// encoder of the tests' own (independent of the reader under test): record_writer.py's framing
// (uint64 length, masked CRC-32C of it, the data, masked CRC-32C of the data, little-endian),
// event_file_writer.py's first record (an Event with wall_time and file_version "brain.Event:2"),
// then one Event per add_scalar call, its fields in field-number order as protobuf serialises
// them and proto3's defaults (step 0) left out. torch.utils.tensorboard's summary.scalar() writes
// Summary.Value{tag, simple_value} by default and, with new_style=True,
// Summary.Value{tag, tensor: TensorProto{dtype DT_FLOAT, float_val [v]} (DT_DOUBLE, double_val with
// double_precision), metadata: {plugin_data: {plugin_name "scalars"}}}.
#pragma once

#include <QByteArray>
#include <QList>
#include <QtEndian>
#include <bit>
#include <cstring>
#include <initializer_list>

namespace rankscope::test {

// Protobuf wire format, as the test writes it.
struct Proto {
    QByteArray bytes;
    Proto &varint(quint64 v)
    {
        do {
            const quint8 b = quint8(v & 0x7f);
            v >>= 7;
            bytes.append(char(v ? b | 0x80 : b));
        } while (v);
        return *this;
    }
    Proto &key(int field, int wire) { return varint(quint64(field) << 3 | quint64(wire)); }
    Proto &uint(int field, quint64 v) { return key(field, 0).varint(v); }
    Proto &fixed32(int field, quint32 v) { key(field, 5), bytes.append(le<quint32>(v)); return *this; }
    Proto &fixed64(int field, quint64 v) { key(field, 1), bytes.append(le<quint64>(v)); return *this; }
    Proto &real(int field, double v) { return fixed64(field, std::bit_cast<quint64>(v)); }
    Proto &single(int field, float v) { return fixed32(field, std::bit_cast<quint32>(v)); }
    Proto &message(int field, const QByteArray &m) { key(field, 2).varint(quint64(m.size())), bytes.append(m); return *this; }
    Proto &message(int field, const Proto &m) { return message(field, m.bytes); }

    template<typename T> static QByteArray le(T v)
    {
        QByteArray b(sizeof(T), '\0');
        qToLittleEndian(v, b.data());
        return b;
    }
};

// Field numbers from tensorboard/compat/proto/{event,summary,tensor,tensor_shape,types}.proto.
enum { EventWallTime = 1, EventStep = 2, EventFileVersion = 3, EventSummary = 5 };
enum { SummaryValue = 1 };
enum { ValueTag = 1, ValueSimple = 2, ValueImage = 4, ValueHisto = 5, ValueTensor = 8, ValueMetadata = 9 };
enum { DT_FLOAT = 1, DT_DOUBLE = 2, DT_INT32 = 3, DT_STRING = 7, DT_BFLOAT16 = 14, DT_HALF = 19 };

inline quint32 crc32cReference(const QByteArray &data) // bitwise, the definition itself
{
    quint32 crc = 0xffffffffu;
    for (const char c : data) {
        crc ^= quint8(c);
        for (int k = 0; k < 8; ++k)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
    }
    return ~crc;
}
inline quint32 masked(const QByteArray &data)
{
    const quint32 crc = crc32cReference(data);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

// record_writer.py: header + header_crc + data + footer_crc.
inline QByteArray record(const QByteArray &data)
{
    const QByteArray header = Proto::le<quint64>(quint64(data.size()));
    return header + Proto::le<quint32>(masked(header)) + data + Proto::le<quint32>(masked(data));
}

inline QByteArray eventBytes(qint64 step, const Proto &summary)
{
    Proto e;
    e.real(EventWallTime, 1.7e9 + double(step));
    if (step != 0)
        e.uint(EventStep, quint64(step));
    return e.message(EventSummary, summary).bytes;
}
inline QByteArray versionRecord() { return record(Proto().real(EventWallTime, 1.7e9).message(EventFileVersion, QByteArray("brain.Event:2")).bytes); }

inline Proto simpleValue(const QByteArray &tag, float v) { return Proto().message(ValueTag, tag).single(ValueSimple, v); }
inline Proto scalarsMetadata() { return Proto().message(1, Proto().message(1, QByteArray("scalars"))); }
// summary.scalar(new_style=True): float_val packed (proto3's repeated scalars are), metadata "scalars".
inline Proto tensorValue(const QByteArray &tag, float v, bool withMetadata = true)
{
    Proto t;
    t.uint(1, DT_FLOAT).message(5, Proto::le<quint32>(std::bit_cast<quint32>(v)));
    Proto value;
    value.message(ValueTag, tag).message(ValueTensor, t);
    return withMetadata ? value.message(ValueMetadata, scalarsMetadata()) : value;
}
// ... with double_precision=True.
inline Proto doubleTensorValue(const QByteArray &tag, double v)
{
    return Proto().message(ValueTag, tag).message(ValueTensor, Proto().uint(1, DT_DOUBLE).message(6, Proto::le<quint64>(std::bit_cast<quint64>(v)))).message(ValueMetadata, scalarsMetadata());
}
inline Proto summary(std::initializer_list<Proto> values)
{
    Proto s;
    for (const Proto &v : values)
        s.message(SummaryValue, v);
    return s;
}

// A run's log: the version record, then loss and learning_rate (simple_value) at each step.
struct LogFile {
    QByteArray bytes = versionRecord();
    QList<qint64> offsets; // where each scalar record starts
    LogFile &add(qint64 step, const Proto &s)
    {
        offsets << bytes.size();
        bytes += record(eventBytes(step, s));
        return *this;
    }
};
inline LogFile lossAndRate(QList<qint64> steps, double lossAt0 = 4.0)
{
    LogFile f;
    for (const qint64 step : steps)
        f.add(step, summary({simpleValue("loss", float(lossAt0 - 0.01 * double(step))), simpleValue("learning_rate", float(1e-4))}));
    return f;
}

} // namespace rankscope::test
