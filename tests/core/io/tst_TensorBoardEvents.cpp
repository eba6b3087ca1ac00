// TensorBoard event files, written byte for byte as TensorBoard's writer writes them
// (TensorBoardEventWriter.h), read back: both scalar forms, merges, and damaged, cut or hostile records.
#include "TensorBoardEventWriter.h"
#include "io/logs/ScalarLog.h"
#include "io/logs/TensorBoardEvents.h"
#include "TestSuite.h"

#include <QBuffer>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tst_tensorboardevents {

using namespace rankscope;
using namespace rankscope::test;

namespace {

QList<ScalarPoint> pointsOf(const ScalarLog &log, const QString &tag)
{
    const ScalarSeries *s = log.find(tag);
    return s ? s->points : QList<ScalarPoint>();
}
QList<qint64> stepsOf(const ScalarLog &log, const QString &tag)
{
    QList<qint64> steps;
    for (const ScalarPoint &p : pointsOf(log, tag))
        steps << p.step;
    return steps;
}
QString problemsOf(const ScalarLog &log)
{
    QStringList all;
    for (const ScalarLogProblem &p : log.problems())
        all << p.text;
    return all.join('\n');
}

} // namespace

class TestTensorBoardEvents : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    static constexpr const char *kName = "events.out.tfevents.1700000000.host.4242.0";

    QString write(const QByteArray &bytes, const QString &name = QString::fromLatin1(kName))
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(bytes);
        return path;
    }
    ScalarLog readBytes(const QByteArray &bytes)
    {
        ScalarLog log;
        TensorBoardEvents::read(write(bytes), log);
        return log;
    }

private slots:
    void crc32cKnownVector()
    {
        QCOMPARE(TensorBoardEvents::crc32c("123456789"), 0xE3069283u);
        QCOMPARE(crc32cReference("123456789"), 0xE3069283u);
        QCOMPARE(TensorBoardEvents::crc32c(""), 0u);
        const QByteArray bytes = lossAndRate({1, 2, 3}).bytes;
        QCOMPARE(TensorBoardEvents::crc32c(bytes), crc32cReference(bytes));
        QCOMPARE(TensorBoardEvents::maskedCrc32c(bytes), masked(bytes));
        // Continuing a checksum over two pieces is the checksum of both.
        QCOMPARE(TensorBoardEvents::crc32c("56789", TensorBoardEvents::crc32c("1234")), 0xE3069283u);
        // Eight bytes at a time: every length and every start (unaligned), against the definition.
        for (qsizetype start = 0; start < 9; ++start)
            for (qsizetype length = 0; length < 40; ++length) {
                const QByteArray piece = bytes.mid(start, length);
                QVERIFY2(TensorBoardEvents::crc32c(QByteArrayView(bytes.constData() + start, length)) == crc32cReference(piece),
                         qPrintable(QStringLiteral("%1 bytes from %2").arg(length).arg(start)));
            }
    }

    void eventFileNames()
    {
        QVERIFY(TensorBoardEvents::isEventFile(QString::fromLatin1(kName)));
        QVERIFY(TensorBoardEvents::isEventFile("runs/May04_22-14-54_box/events.out.tfevents.1700000000.box.77.3"));
        QVERIFY(TensorBoardEvents::isEventFile("events.out.tfevents.1700000000.box.v2")); // TensorFlow 2's suffix
        QVERIFY(!TensorBoardEvents::isEventFile("events.out.tfevents."));
        QVERIFY(!TensorBoardEvents::isEventFile("events.out.tfevents"));
        QVERIFY(!TensorBoardEvents::isEventFile("model.safetensors"));
        QVERIFY(!TensorBoardEvents::isEventFile("my.events.out.tfevents.1"));
    }

    void simpleValuesOfSeveralTags()
    {
        const ScalarLog log = readBytes(lossAndRate({0, 10, 20}).bytes);
        QCOMPARE(problemsOf(log), QString());
        QCOMPARE(log.series().size(), 2);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{0, 10, 20}));
        QCOMPARE(pointsOf(log, "loss")[1].value, double(float(4.0 - 0.1)));
        QCOMPARE(pointsOf(log, "learning_rate")[2].value, double(float(1e-4)));
        QCOMPARE(log.find("loss")->sources, QStringList{m_dir.filePath(kName)});
    }

    // new_style=True, float and double; TensorFlow 2's form (tensor_content, data_class SCALAR,
    // no plugin name); metadata only on a tag's first value (the writer drops it after that).
    void tensorScalars()
    {
        LogFile f;
        f.add(1, summary({tensorValue("train/loss", 2.5f), doubleTensorValue("lr", 3e-4)}));
        f.add(2, summary({tensorValue("train/loss", 2.25f, false)}));
        const Proto tf2 = Proto()
                              .message(ValueTag, QByteArray("eval_loss"))
                              .message(ValueTensor, Proto().uint(1, DT_FLOAT).message(2, QByteArray()).message(4, Proto::le<quint32>(std::bit_cast<quint32>(1.75f))))
                              .message(ValueMetadata, Proto().uint(4, 1));
        f.add(3, summary({tf2}));
        const Proto half = Proto().message(ValueTag, QByteArray("grad_norm")).message(ValueTensor, Proto().uint(1, DT_HALF).message(13, Proto().varint(0x3E00).bytes)).message(ValueMetadata, scalarsMetadata());
        const Proto bf16 = Proto().message(ValueTag, QByteArray("bf")).message(ValueTensor, Proto().uint(1, DT_BFLOAT16).uint(13, 0xC040)).message(ValueMetadata, scalarsMetadata());
        f.add(4, summary({half, bf16}));
        const ScalarLog log = readBytes(f.bytes);
        QCOMPARE(problemsOf(log), QString());
        QCOMPARE(stepsOf(log, "train/loss"), (QList<qint64>{1, 2}));
        QCOMPARE(pointsOf(log, "train/loss")[0].value, 2.5);
        QCOMPARE(pointsOf(log, "train/loss")[1].value, 2.25);
        QCOMPARE(pointsOf(log, "lr")[0].value, 3e-4); // a double, not rounded to float
        QCOMPARE(pointsOf(log, "eval_loss")[0].value, 1.75);
        QCOMPARE(pointsOf(log, "grad_norm")[0].value, 1.5); // half 0x3E00
        QCOMPARE(pointsOf(log, "bf")[0].value, -3.0);       // bfloat16 0xC040
    }

    // A run restarted from a checkpoint writes a second file that logs its steps again: merged in
    // file-name order, the later file's value wins.
    void twoFilesOfOneRun()
    {
        ScalarLog log;
        const QString first = write(lossAndRate({1, 2, 3}).bytes, "events.out.tfevents.1700000000.host.1.0");
        const QString second = write(lossAndRate({3, 4}, 9.0).bytes, "events.out.tfevents.1700000500.host.2.0");
        TensorBoardEvents::read(first, log);
        TensorBoardEvents::read(second, log);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{1, 2, 3, 4}));
        QCOMPARE(pointsOf(log, "loss")[2].value, double(float(9.0 - 0.03)));
        QCOMPARE(pointsOf(log, "loss")[1].value, double(float(4.0 - 0.02)));
        QCOMPARE(log.find("loss")->sources, (QStringList{first, second}));
    }

    void sameStepTwiceInOneFileLaterWins()
    {
        LogFile f;
        f.add(5, summary({simpleValue("loss", 1.0f)})).add(5, summary({simpleValue("loss", 2.0f), simpleValue("loss", 3.0f)}));
        const ScalarLog log = readBytes(f.bytes);
        QCOMPARE(pointsOf(log, "loss").size(), 1);
        QCOMPARE(pointsOf(log, "loss")[0].value, 3.0);
    }

    void truncatedLastRecord_data()
    {
        QTest::addColumn<int>("cut"); // bytes of the last record left
        QTest::newRow("in its header") << 7;
        QTest::newRow("in its data") << 20;
        QTest::newRow("without its checksum") << -4;
    }
    void truncatedLastRecord()
    {
        QFETCH(int, cut);
        const LogFile f = lossAndRate({1, 2, 3});
        const qint64 last = f.offsets.last();
        const QByteArray bytes = f.bytes.left(cut > 0 ? last + cut : f.bytes.size() + cut);
        const ScalarLog log = readBytes(bytes);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{1, 2}));
        QCOMPARE(log.problems().size(), 1);
        QCOMPARE(log.problems()[0].path, m_dir.filePath(kName));
        QVERIFY2(problemsOf(log).startsWith(QStringLiteral("truncated record at byte %1 of %2").arg(last).arg(QLatin1String(kName))), qPrintable(problemsOf(log)));
    }

    void flippedByte_data()
    {
        QTest::addColumn<int>("fromEnd"); // which byte of the second scalar record, from its end
        QTest::newRow("in the data's checksum") << 2;
        QTest::newRow("in the data") << 9;
    }
    void flippedByte()
    {
        QFETCH(int, fromEnd);
        const LogFile f = lossAndRate({1, 2, 3});
        QByteArray bytes = f.bytes;
        bytes[f.offsets[2] - fromEnd] = char(bytes[f.offsets[2] - fromEnd] ^ 0x10);
        const ScalarLog log = readBytes(bytes);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{1})); // what came before kept, nothing after read
        QCOMPARE(problemsOf(log), QStringLiteral("damaged record (CRC mismatch) at byte %1 of %2").arg(f.offsets[1]).arg(QLatin1String(kName)));
    }

    // A length whose own checksum fails is never used, even when the data after it would read.
    void lengthWithBadChecksumIsNeverTrusted()
    {
        const LogFile f = lossAndRate({1, 2, 3});
        QByteArray bytes = f.bytes;
        bytes[f.offsets[1] + 9] = char(bytes[f.offsets[1] + 9] ^ 0x01); // the length's CRC, length intact
        const ScalarLog log = readBytes(bytes);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{1}));
        QVERIFY2(problemsOf(log).startsWith(QStringLiteral("damaged record (CRC mismatch in its length) at byte %1 of %2").arg(f.offsets[1]).arg(QLatin1String(kName))),
                 qPrintable(problemsOf(log)));

        bytes = f.bytes; // a length rewritten to 2⁶², its checksum left as it was
        qToLittleEndian<quint64>(quint64(1) << 62, bytes.data() + f.offsets[1]);
        const ScalarLog huge = readBytes(bytes);
        QCOMPARE(stepsOf(huge, "loss"), (QList<qint64>{1}));
        QVERIFY2(problemsOf(huge).contains("CRC mismatch in its length"), qPrintable(problemsOf(huge)));
    }

    // A claimed length with a valid checksum, beyond the cap or beyond the file: refused before
    // anything that large is allocated.
    void hugeClaimedLength_data()
    {
        QTest::addColumn<quint64>("length");
        QTest::addColumn<QString>("said");
        QTest::newRow("2^62") << (quint64(1) << 62) << "claims 4611686018427387904 bytes, more than the 256 MB one event may take";
        QTest::newRow("2^64-1") << ~quint64(0) << "claims 18446744073709551615 bytes";
        QTest::newRow("200 MB") << (quint64(200) << 20) << "truncated record";
    }
    void hugeClaimedLength()
    {
        QFETCH(quint64, length);
        QFETCH(QString, said);
        LogFile f = lossAndRate({1});
        const QByteArray header = Proto::le<quint64>(length);
        f.bytes += header + Proto::le<quint32>(masked(header)) + QByteArray(64, 'x');
        const ScalarLog log = readBytes(f.bytes);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{1}));
        QVERIFY2(problemsOf(log).contains(said), qPrintable(problemsOf(log)));
        QVERIFY2(problemsOf(log).contains(QStringLiteral("at byte %1 of %2").arg(f.bytes.size() - 76).arg(QLatin1String(kName))), qPrintable(problemsOf(log)));
    }

    // Images, histograms, text, hparams and tensors of other plugins are not scalars: skipped
    // silently, and so are scalar-plugin tensors that hold more than one value or integers.
    void nonScalarSummariesSkipped()
    {
        LogFile f;
        const Proto image = Proto().message(ValueTag, QByteArray("samples/image")).message(ValueImage, Proto().uint(1, 2).uint(2, 2).uint(3, 3).message(4, QByteArray("\x89PNG")));
        const Proto histo = Proto().message(ValueTag, QByteArray("weights")).message(ValueHisto, Proto().real(1, -1).real(2, 1).real(3, 10));
        const Proto textTensor = Proto().uint(1, DT_STRING).message(2, Proto().message(2, Proto().uint(1, 1))).message(8, QByteArray("hello"));
        const Proto noMeta = Proto().message(ValueTag, QByteArray("notes/text_summary")).message(ValueTensor, textTensor);
        Proto text = noMeta;
        text.message(ValueMetadata, Proto().message(1, Proto().message(1, QByteArray("text"))));
        const Proto hparams = Proto().message(ValueTag, QByteArray("_hparams_/experiment")).message(ValueMetadata, Proto().message(1, Proto().message(1, QByteArray("hparams")).message(2, QByteArray("\x12\x00", 2))));
        const Proto vector = Proto()
                                 .message(ValueTag, QByteArray("vector"))
                                 .message(ValueTensor, Proto().uint(1, DT_FLOAT).message(2, Proto().message(2, Proto().uint(1, 2))).message(5, QByteArray(8, '\0')))
                                 .message(ValueMetadata, scalarsMetadata());
        const Proto integer = Proto().message(ValueTag, QByteArray("count")).message(ValueTensor, Proto().uint(1, DT_INT32).message(7, Proto().varint(5).bytes)).message(ValueMetadata, scalarsMetadata());
        const Proto untagged = Proto().message(ValueTensor, Proto().uint(1, DT_FLOAT).message(5, QByteArray(4, '\0')));
        f.add(1, summary({image, histo, text, hparams, vector, integer, untagged, simpleValue("loss", 1.0f)}));
        f.add(2, summary({text})); // a text tag with its metadata dropped: still not a scalar
        f.add(3, summary({noMeta}));
        const ScalarLog log = readBytes(f.bytes);
        QCOMPARE(problemsOf(log), QString());
        QCOMPARE(log.series().size(), 1);
        QCOMPARE(log.series()[0].tag, QStringLiteral("loss"));
    }

    void nanAndInfinityKept()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
        LogFile f;
        f.add(1, summary({simpleValue("loss", float(nan))})).add(2, summary({simpleValue("loss", float(inf))})).add(3, summary({simpleValue("loss", -float(inf))}));
        f.add(4, summary({doubleTensorValue("loss", nan)}));
        const ScalarLog log = readBytes(f.bytes);
        const QList<ScalarPoint> points = pointsOf(log, "loss");
        QCOMPARE(points.size(), 4);
        QVERIFY(std::isnan(points[0].value));
        QCOMPARE(points[1].value, inf);
        QCOMPARE(points[2].value, -inf);
        QVERIFY(std::isnan(points[3].value));
    }

    // Framing intact, data not an Event (a TFRecord of something else): said, points before kept.
    void recordThatIsNotAnEvent()
    {
        LogFile f = lossAndRate({1});
        const qint64 at = f.bytes.size();
        f.bytes += record(QByteArray("\x0a\xff\xff\xff\xff\x0f", 6)); // a length past its message
        f.bytes += record(eventBytes(2, summary({simpleValue("loss", 0.5f)})));
        const ScalarLog log = readBytes(f.bytes);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{1}));
        QVERIFY2(problemsOf(log).startsWith(QStringLiteral("record at byte %1 of %2 is not a TensorBoard event").arg(at).arg(QLatin1String(kName))), qPrintable(problemsOf(log)));
    }

    void negativeStepAndEmptyFile()
    {
        LogFile f;
        f.add(-3, summary({simpleValue("loss", 1.0f)}));
        QCOMPARE(stepsOf(readBytes(f.bytes), "loss"), QList<qint64>{-3});
        const ScalarLog empty = readBytes(QByteArray());
        QVERIFY(empty.isEmpty());
        QVERIFY(empty.problems().isEmpty());
    }

    void notARegularFile()
    {
        ScalarLog log;
        TensorBoardEvents::read(m_dir.filePath("events.out.tfevents.missing"), log);
        QCOMPARE(log.problems().size(), 1);
        TensorBoardEvents::read(m_dir.path(), log); // a folder
        QCOMPARE(log.problems().size(), 2);
        QVERIFY(log.isEmpty());
    }

    // The device form reads from where the device stands (a watcher following a growing log).
    void fromADevice()
    {
        QByteArray bytes = lossAndRate({1, 2}).bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::ReadOnly);
        ScalarLog log;
        TensorBoardEvents::read(buffer, QStringLiteral("memory/events.out.tfevents.1"), log);
        QCOMPARE(stepsOf(log, "loss"), (QList<qint64>{1, 2}));
        QCOMPARE(log.find("loss")->sources, QStringList{"memory/events.out.tfevents.1"});
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTensorBoardEvents)
} // namespace tst_tensorboardevents

#include "tst_TensorBoardEvents.moc"
