#include "io/torch/ZipDirectory.h"
#include "TestSuite.h"
#include "TorchCheckpointWriter.h"

#include <QTemporaryDir>
#include <QtEndian>
#include <limits>
#include <zlib.h>

namespace tst_zipdirectory {

using namespace rankscope;
using test::rawDeflate;

namespace {

constexpr quint32 k32 = 0xFFFFFFFFu;

void put16(QByteArray &b, quint16 v) { char c[2]; qToLittleEndian(v, c); b.append(c, 2); }
void put32(QByteArray &b, quint32 v) { char c[4]; qToLittleEndian(v, c); b.append(c, 4); }
void put64(QByteArray &b, quint64 v) { char c[8]; qToLittleEndian(v, c); b.append(c, 8); }
void set16(QByteArray &b, qsizetype at, quint16 v) { qToLittleEndian(v, b.data() + at); }
void set32(QByteArray &b, qsizetype at, quint32 v) { qToLittleEndian(v, b.data() + at); }
void set64(QByteArray &b, qsizetype at, quint64 v) { qToLittleEndian(v, b.data() + at); }

// Bytes that do not repeat, so that a slice read from the wrong place never matches by chance.
QByteArray counting(qsizetype n)
{
    QByteArray out(n, Qt::Uninitialized);
    quint32 x = 12345;
    for (char &c : out) {
        x = x * 1103515245u + 12345u;
        c = char(x >> 24);
    }
    return out;
}

struct TestEntry {
    TestEntry(const QString &name, const QByteArray &data, bool deflate = false) : name(name), data(data), deflate(deflate) {}
    TestEntry &withLocalExtra(const QByteArray &extra) { localExtra = extra; return *this; }
    TestEntry &withCentralExtra(const QByteArray &extra) { centralExtra = extra; return *this; }
    TestEntry &withComment(const QByteArray &text) { comment = text; return *this; }
    TestEntry &asZip64() { zip64 = true; return *this; }

    QString name;
    QByteArray data;
    bool deflate = false;
    QByteArray localExtra;   // extra field of the local header only
    QByteArray centralExtra; // extra field of the directory entry, before any ZIP64 field
    QByteArray comment;
    bool zip64 = false;      // sizes and offset as 0xFFFFFFFF, the real ones in a ZIP64 extra field
};

// A zip archive written field by field, with where each part landed, so that a test can damage
// exactly one field. Like torch.save, the local headers carry no sizes.
struct Archive {
    QByteArray bytes;
    QList<qsizetype> local;   // each entry's local header
    QList<qsizetype> central; // each entry's directory entry
    qsizetype directory = 0;
    qsizetype zip64End = -1;
    qsizetype locator = -1;
    qsizetype end = 0;        // the end-of-directory record
};

Archive buildArchive(const QList<TestEntry> &entries, bool zip64End = false, const QByteArray &archiveComment = {},
                     const QByteArray &prefix = {})
{
    Archive a;
    a.bytes = prefix;
    QByteArray directory;
    QList<qsizetype> centralInDirectory;
    for (const TestEntry &e : entries) {
        const QByteArray stored = e.deflate ? rawDeflate(e.data) : e.data;
        const QByteArray name = e.name.toUtf8();
        const quint16 method = e.deflate ? 8 : 0;
        const qsizetype offset = a.bytes.size();
        a.local << offset;
        put32(a.bytes, 0x04034b50); put16(a.bytes, 20); put16(a.bytes, 0); put16(a.bytes, method);
        put16(a.bytes, 0); put16(a.bytes, 0); put32(a.bytes, 0); put32(a.bytes, 0); put32(a.bytes, 0);
        put16(a.bytes, quint16(name.size())); put16(a.bytes, quint16(e.localExtra.size()));
        a.bytes.append(name).append(e.localExtra).append(stored);

        QByteArray extra = e.centralExtra;
        if (e.zip64) {
            put16(extra, 0x0001); put16(extra, 24);
            put64(extra, quint64(e.data.size())); put64(extra, quint64(stored.size())); put64(extra, quint64(offset));
        }
        centralInDirectory << directory.size();
        put32(directory, 0x02014b50); put16(directory, 45); put16(directory, 45); put16(directory, 0); put16(directory, method);
        put16(directory, 0); put16(directory, 0);
        put32(directory, quint32(crc32(0, reinterpret_cast<const Bytef *>(e.data.constData()), uInt(e.data.size()))));
        put32(directory, e.zip64 ? k32 : quint32(stored.size())); put32(directory, e.zip64 ? k32 : quint32(e.data.size()));
        put16(directory, quint16(name.size())); put16(directory, quint16(extra.size())); put16(directory, quint16(e.comment.size()));
        put16(directory, 0); put16(directory, 0); put32(directory, 0); put32(directory, e.zip64 ? k32 : quint32(offset));
        directory.append(name).append(extra).append(e.comment);
    }
    a.directory = a.bytes.size();
    for (const qsizetype at : centralInDirectory)
        a.central << a.directory + at;
    a.bytes.append(directory);
    if (zip64End) {
        a.zip64End = a.bytes.size();
        put32(a.bytes, 0x06064b50); put64(a.bytes, 44); put16(a.bytes, 45); put16(a.bytes, 45); put32(a.bytes, 0); put32(a.bytes, 0);
        put64(a.bytes, quint64(entries.size())); put64(a.bytes, quint64(entries.size()));
        put64(a.bytes, quint64(directory.size())); put64(a.bytes, quint64(a.directory));
        a.locator = a.bytes.size();
        put32(a.bytes, 0x07064b50); put32(a.bytes, 0); put64(a.bytes, quint64(a.zip64End)); put32(a.bytes, 1);
    }
    a.end = a.bytes.size();
    put32(a.bytes, 0x06054b50); put16(a.bytes, 0); put16(a.bytes, 0);
    put16(a.bytes, zip64End ? 0xFFFF : quint16(entries.size())); put16(a.bytes, zip64End ? 0xFFFF : quint16(entries.size()));
    put32(a.bytes, zip64End ? k32 : quint32(directory.size())); put32(a.bytes, zip64End ? k32 : quint32(a.directory));
    put16(a.bytes, quint16(archiveComment.size()));
    a.bytes.append(archiveComment);
    return a;
}

} // namespace

class TestZipDirectory : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;
    std::unique_ptr<QFile> m_file;

    // The bytes as an open file, as the readers hand the directory one.
    QFile &open(const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(QStringLiteral("archive%1.zip").arg(++m_files));
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
        out.close();
        m_file = std::make_unique<QFile>(path);
        if (!m_file->open(QIODevice::ReadOnly))
            qFatal("cannot open %s", qPrintable(path));
        return *m_file;
    }

    // The directory of bytes, which must be refused with a message containing `expected`.
    void expectRefused(const QByteArray &bytes, const QString &expected)
    {
        QString error;
        const auto zip = ZipDirectory::read(open(bytes), &error);
        QVERIFY2(!zip, qPrintable(QStringLiteral("accepted; expected \"%1\"").arg(expected)));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Names, sizes, methods and offsets as the directory gives them, in its order; find() by name.
    void readsTheDirectory()
    {
        const QByteArray weights = counting(300), pickle = counting(17);
        const Archive a = buildArchive({{"archive/data/0", weights}, {"archive/data.pkl", pickle, true}, {"archive/version", "3\n"}});
        QString error;
        const auto zip = ZipDirectory::read(open(a.bytes), &error);
        QVERIFY2(zip, qPrintable(error));
        QCOMPARE(zip->entries().size(), 3);
        const ZipEntry &first = zip->entries()[0];
        QCOMPARE(first.name, QStringLiteral("archive/data/0"));
        QCOMPARE(first.size, quint64(300));
        QCOMPARE(first.compressedSize, quint64(300));
        QCOMPARE(first.method, quint16(0));
        QCOMPARE(first.localHeaderOffset, quint64(a.local[0]));
        const ZipEntry *second = zip->find(QStringLiteral("archive/data.pkl"));
        QVERIFY(second);
        QCOMPARE(second, &zip->entries()[1]);
        QCOMPARE(second->method, quint16(8));
        QCOMPARE(second->size, quint64(17));
        QCOMPARE(second->compressedSize, quint64(rawDeflate(pickle).size()));
        QCOMPARE(zip->entries()[2].localHeaderOffset, quint64(a.local[2]));
        QVERIFY(!zip->find(QStringLiteral("archive/data")));
        QVERIFY(!zip->find(QStringLiteral("ARCHIVE/VERSION")));
    }

    // An empty archive is an end record alone: 22 bytes, no entries.
    void readsAnEmptyArchive()
    {
        const Archive a = buildArchive({});
        QCOMPARE(a.bytes.size(), 22);
        QString error;
        const auto zip = ZipDirectory::read(open(a.bytes), &error);
        QVERIFY2(zip, qPrintable(error));
        QVERIFY(zip->entries().isEmpty());
    }

    // The end record is found behind the longest comment allowed; bytes before the archive (a
    // launcher stub) are stepped over by the absolute offsets.
    void findsTheEndRecordBehindComments()
    {
        for (const qsizetype length : {qsizetype(1), qsizetype(1000), qsizetype(65535)}) {
            QByteArray comment = counting(length).replace('P', 'Q'); // no stray 'PK' signature
            const Archive a = buildArchive({{"w", counting(10)}}, false, comment, QByteArray(100, 'x'));
            QString error;
            const auto zip = ZipDirectory::read(open(a.bytes), &error);
            QVERIFY2(zip, qPrintable(QStringLiteral("comment of %1 bytes: %2").arg(length).arg(error)));
            QCOMPARE(zip->entries().size(), 1);
            QCOMPARE(zip->entries()[0].localHeaderOffset, quint64(100));
        }
    }

    // One byte more comment than an end record can declare: the record lies beyond the 64 KiB
    // searched, and the archive is refused rather than read from a record found elsewhere.
    void refusesAnEndRecordTooFarFromTheEnd()
    {
        QByteArray bytes = buildArchive({{"w", counting(10)}}, false, QByteArray(65535, 'c')).bytes;
        bytes.append('c');
        expectRefused(bytes, QStringLiteral("no zip end-of-directory record"));
    }

    // Entry names, extra fields and comments of the directory are stepped over exactly: a field
    // other than ZIP64 is skipped, and the local header's own extra field (longer than the
    // directory's, as zip tools write them) places the data.
    void stepsOverExtraFieldsAndComments()
    {
        QByteArray timestamp;
        put16(timestamp, 0x5455); put16(timestamp, 5); timestamp.append("\x01\x02\x03\x04\x05", 5);
        const QByteArray data = counting(64);
        const Archive a = buildArchive({TestEntry("a", counting(3)).withCentralExtra(timestamp).withComment("first entry's comment"),
                                        TestEntry("b", data).withLocalExtra(QByteArray(37, '\0')).withCentralExtra(timestamp),
                                        TestEntry("c", counting(5)).withComment("c")});
        QString error;
        QFile &file = open(a.bytes);
        const auto zip = ZipDirectory::read(file, &error);
        QVERIFY2(zip, qPrintable(error));
        QCOMPARE(zip->entries().size(), 3);
        const ZipEntry *b = zip->find(QStringLiteral("b"));
        QVERIFY(b);
        QCOMPARE(b->size, quint64(64));
        const auto start = zip->dataOffset(file, *b, &error);
        QVERIFY2(start, qPrintable(error));
        QCOMPARE(*start, quint64(a.local[1] + 30 + 1 + 37));
        const auto read = zip->readEntry(file, *b, 0, 64, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(*read, data);
        QCOMPARE(zip->find(QStringLiteral("c"))->size, quint64(5));
    }

    // ZIP64: the end record's 0xFFFF/0xFFFFFFFF give way to the ZIP64 end record, and an entry's
    // 0xFFFFFFFF size, compressed size and offset to its ZIP64 extra field, stepping over a field
    // before it.
    void readsZip64Records()
    {
        QByteArray timestamp;
        put16(timestamp, 0x5455); put16(timestamp, 1); timestamp.append('\x01');
        const QByteArray data = counting(1000);
        const Archive a = buildArchive({TestEntry("small", counting(8)), TestEntry("big", data).withCentralExtra(timestamp).asZip64(),
                                        TestEntry("packed", data, true).asZip64()}, true);
        QString error;
        QFile &file = open(a.bytes);
        const auto zip = ZipDirectory::read(file, &error);
        QVERIFY2(zip, qPrintable(error));
        QCOMPARE(zip->entries().size(), 3);
        const ZipEntry *big = zip->find(QStringLiteral("big"));
        QVERIFY(big);
        QCOMPARE(big->size, quint64(1000));
        QCOMPARE(big->compressedSize, quint64(1000));
        QCOMPARE(big->localHeaderOffset, quint64(a.local[1]));
        const auto slice = zip->readEntry(file, *big, 990, 10, &error);
        QVERIFY2(slice, qPrintable(error));
        QCOMPARE(*slice, data.right(10));
        const ZipEntry *packed = zip->find(QStringLiteral("packed"));
        QCOMPARE(packed->compressedSize, quint64(rawDeflate(data).size()));
        const auto inflated = zip->readEntry(file, *packed, 0, 1000, &error);
        QVERIFY2(inflated, qPrintable(error));
        QCOMPARE(*inflated, data);
    }

    // Only the fields stored as 0xFFFFFFFF are in the ZIP64 field, in the order size, compressed
    // size, offset: an offset alone is the field's first value.
    void readsOnlyTheZip64FieldsThatOverflowed()
    {
        const Archive plain = buildArchive({{"w", counting(40)}}, false, {}, QByteArray(7, 'x'));
        QByteArray bytes = plain.bytes;
        const qsizetype central = plain.central[0];
        set32(bytes, central + 42, k32);
        QByteArray extra;
        put16(extra, 0x0001); put16(extra, 8); put64(extra, quint64(plain.local[0]));
        set16(bytes, central + 30, quint16(extra.size()));
        bytes.insert(central + 46 + 1, extra);
        set32(bytes, bytes.size() - 22 + 12, quint32(bytes.size() - 22 - plain.directory)); // directory size
        QString error;
        QFile &file = open(bytes);
        const auto zip = ZipDirectory::read(file, &error);
        QVERIFY2(zip, qPrintable(error));
        const ZipEntry &e = zip->entries()[0];
        QCOMPARE(e.size, quint64(40));
        QCOMPARE(e.compressedSize, quint64(40));
        QCOMPARE(e.localHeaderOffset, quint64(7));
        const auto read = zip->readEntry(file, e, 0, 40, &error);
        QVERIFY2(read, qPrintable(error));
    }

    // A ZIP64 field shorter than the values it should hold replaces what it holds and no more;
    // one running past its extra field is ignored. Either way the 0xFFFFFFFF left behind points
    // outside the file, and reading the entry says so instead of reading out of bounds.
    void shortZip64FieldsLeaveTheOverflowedValues()
    {
        const Archive a = buildArchive({TestEntry("w", counting(40)).asZip64()});
        {
            QByteArray bytes = a.bytes;
            set16(bytes, a.central[0] + 46 + 1 + 2, 8); // field length: the size only
            QString error;
            QFile &file = open(bytes);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY2(zip, qPrintable(error));
            QCOMPARE(zip->entries()[0].size, quint64(40));
            QCOMPARE(zip->entries()[0].compressedSize, quint64(k32));
            QCOMPARE(zip->entries()[0].localHeaderOffset, quint64(k32));
            QVERIFY(!zip->readEntry(file, zip->entries()[0], 0, 40, &error));
            QVERIFY2(error.contains(QStringLiteral("points outside the file")), qPrintable(error));
        }
        {
            QByteArray bytes = a.bytes;
            set16(bytes, a.central[0] + 46 + 1 + 2, 25); // one byte past the extra field
            QString error;
            QFile &file = open(bytes);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY2(zip, qPrintable(error));
            QCOMPARE(zip->entries()[0].size, quint64(k32));
            QVERIFY(!zip->dataOffset(file, zip->entries()[0], &error));
            QVERIFY2(error.contains(QStringLiteral("points outside the file")), qPrintable(error));
        }
    }

    void refusesWhatIsNoArchive()
    {
        expectRefused({}, QStringLiteral("too short to be a zip archive (0 bytes)"));
        expectRefused(QByteArray(21, '\0'), QStringLiteral("too short to be a zip archive (21 bytes)"));
        expectRefused(counting(4096).replace('P', 'Q'), QStringLiteral("no zip end-of-directory record"));
        // Cut anywhere inside the end record: its signature is gone or too near the end.
        const QByteArray whole = buildArchive({{"w", counting(100)}}).bytes;
        for (qsizetype cut = 1; cut <= 22; ++cut)
            expectRefused(whole.chopped(cut), QStringLiteral("no zip end-of-directory record"));
    }

    // A directory that does not fit in the file, however its offset and size add up: an archive
    // whose start was cut, and 64-bit values that would wrap around if added.
    void refusesADirectoryOutsideTheFile()
    {
        const Archive a = buildArchive({{"w", counting(100)}});
        expectRefused(a.bytes.mid(50), QStringLiteral("zip directory lies outside the file"));
        QByteArray grown = a.bytes;
        set32(grown, a.end + 12, quint32(grown.size())); // directory size
        expectRefused(grown, QStringLiteral("zip directory lies outside the file"));

        const Archive z = buildArchive({{"w", counting(100)}}, true);
        QByteArray past = z.bytes;
        set64(past, z.zip64End + 48, std::numeric_limits<quint64>::max() - 10); // offset
        expectRefused(past, QStringLiteral("zip directory lies outside the file"));
        QByteArray huge = z.bytes;
        set64(huge, z.zip64End + 40, std::numeric_limits<quint64>::max()); // size
        expectRefused(huge, QStringLiteral("zip directory lies outside the file"));
    }

    // A ZIP64 locator must lead to a ZIP64 end record inside the file.
    void refusesADamagedZip64EndRecord()
    {
        const Archive z = buildArchive({{"w", counting(100)}}, true);
        QByteArray signature = z.bytes;
        signature[z.zip64End] = 'X';
        expectRefused(signature, QStringLiteral("ZIP64 end-of-directory record is missing or damaged"));
        for (const quint64 offset : {quint64(z.bytes.size() - 40), quint64(1) << 40, std::numeric_limits<quint64>::max()}) {
            QByteArray bytes = z.bytes;
            set64(bytes, z.locator + 8, offset);
            expectRefused(bytes, QStringLiteral("ZIP64 end-of-directory record is missing or damaged"));
        }
    }

    // Every entry takes at least 46 bytes, so a count the directory cannot hold is refused before
    // anything is allocated for it.
    void refusesAnEntryCountTheDirectoryCannotHold()
    {
        const Archive a = buildArchive({{"w", counting(10)}});
        QByteArray bytes = a.bytes;
        set16(bytes, a.end + 10, 1000);
        expectRefused(bytes, QStringLiteral("zip directory claims 1000 entries in 47 bytes"));

        const Archive z = buildArchive({{"w", counting(10)}}, true);
        QByteArray huge = z.bytes;
        set64(huge, z.zip64End + 32, quint64(1) << 60);
        expectRefused(huge, QStringLiteral("zip directory claims 1152921504606846976 entries"));
    }

    void refusesDamagedDirectoryEntries()
    {
        const Archive a = buildArchive({{"a", counting(10)}, {"b", counting(10)}});
        QByteArray signature = a.bytes;
        signature[a.central[1]] = 'X';
        expectRefused(signature, QStringLiteral("zip directory entry 1 is damaged"));

        // Two entries that claim more than the directory holds: the second one finds no room.
        QByteArray count = a.bytes;
        set16(count, a.central[0] + 32, 40); // a comment that swallows most of the second entry
        expectRefused(count, QStringLiteral("zip directory entry 1 is damaged"));

        for (const qsizetype field : {28, 30, 32}) { // name, extra field, comment
            QByteArray bytes = a.bytes;
            set16(bytes, a.central[1] + field, 0xFFFF);
            expectRefused(bytes, QStringLiteral("zip directory entry 1 runs past the directory"));
        }
    }

    // Two entries under one name: which is meant is ambiguous, and the name in the message cannot
    // drive the terminal.
    void refusesTwoEntriesOfOneName()
    {
        expectRefused(buildArchive({{"data.pkl", counting(3)}, {"x", {}}, {"data.pkl", counting(4)}}).bytes,
                      QStringLiteral("two entries named data.pkl"));
        QString error;
        QVERIFY(!ZipDirectory::read(open(buildArchive({{"a\x1b]0;owned\x07", {}}, {"a\x1b]0;owned\x07", {}}}).bytes), &error));
        QVERIFY2(error.contains(QStringLiteral("a\\x1b]0;owned\\x07")), qPrintable(error));
        QVERIFY(!error.contains(QChar(0x1b)));
    }

    // Any slice of a stored entry, and nothing past its end: offset and length that would wrap
    // around when added are refused too.
    void readsSlicesOfAStoredEntry()
    {
        const QByteArray data = counting(1000);
        const Archive a = buildArchive({{"w", data}});
        QString error;
        QFile &file = open(a.bytes);
        const auto zip = ZipDirectory::read(file, &error);
        QVERIFY2(zip, qPrintable(error));
        const ZipEntry &e = zip->entries()[0];
        QCOMPARE(zip->readEntry(file, e, 0, 1000, &error).value_or("<refused>"), data);
        QCOMPARE(zip->readEntry(file, e, 123, 456, &error).value_or("<refused>"), data.mid(123, 456));
        QCOMPARE(zip->readEntry(file, e, 1000, 0, &error).value_or("<refused>"), QByteArray());
        QCOMPARE(zip->dataOffset(file, e, &error).value_or(0), quint64(a.local[0] + 30 + 1));

        QVERIFY(!zip->readEntry(file, e, 999, 2, &error));
        QVERIFY2(error.contains(QStringLiteral("holds 1000 bytes, not the 1001 needed")), qPrintable(error));
        QVERIFY(!zip->readEntry(file, e, 1001, 0, &error));
        QVERIFY(!zip->readEntry(file, e, 1, std::numeric_limits<quint64>::max(), &error));
        QVERIFY(!zip->readEntry(file, e, std::numeric_limits<quint64>::max(), 2, &error));
    }

    // A stored entry declaring more than the file holds, a header offset that points elsewhere,
    // and a local header whose name and extra lengths run past the file.
    void refusesStoredEntriesOutsideTheFile()
    {
        const Archive a = buildArchive({{"w", counting(100)}});
        {
            QByteArray bytes = a.bytes;
            set32(bytes, a.central[0] + 24, 100000); // size
            QString error;
            QFile &file = open(bytes);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY2(zip, qPrintable(error));
            QVERIFY(!zip->dataOffset(file, zip->entries()[0], &error));
            QVERIFY2(error.contains(QStringLiteral("zip entry w (100000 bytes) runs past the end of the file")), qPrintable(error));
            QVERIFY(!zip->readEntry(file, zip->entries()[0], 99000, 10, &error));
            QVERIFY2(error.contains(QStringLiteral("runs past the end of the file")), qPrintable(error));
        }
        for (const quint32 offset : {quint32(1), quint32(a.directory), quint32(a.bytes.size() - 10), k32}) {
            QByteArray bytes = a.bytes;
            set32(bytes, a.central[0] + 42, offset);
            QString error;
            QFile &file = open(bytes);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY2(zip, qPrintable(error));
            QVERIFY(!zip->dataOffset(file, zip->entries()[0], &error));
            QVERIFY2(error.contains(QStringLiteral("zip entry w points outside the file or at a damaged header")), qPrintable(error));
        }
        {
            QByteArray bytes = a.bytes;
            set16(bytes, a.local[0] + 28, 0xFFFF); // local extra field length
            QString error;
            QFile &file = open(bytes);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY(!zip->dataOffset(file, zip->entries()[0], &error));
            QVERIFY2(error.contains(QStringLiteral("runs past the end of the file")), qPrintable(error));
        }
    }

    // Deflated entries, whole and in slices that begin past several of the 64 KiB blocks that
    // are inflated and dropped.
    void inflatesSlicesOfADeflatedEntry()
    {
        QByteArray data;
        for (int i = 0; i < 50000; ++i)
            data.append(QByteArray::number(i * 7919 % 100003)).append(',');
        QVERIFY(data.size() > 3 * 64 * 1024);
        const Archive a = buildArchive({{"arr_0.npy", data, true}});
        QString error;
        QFile &file = open(a.bytes);
        const auto zip = ZipDirectory::read(file, &error);
        QVERIFY2(zip, qPrintable(error));
        const ZipEntry &e = zip->entries()[0];
        const quint64 size = quint64(data.size());
        QCOMPARE(zip->readEntry(file, e, 0, size, &error).value_or("<refused>"), data);
        QCOMPARE(zip->readEntry(file, e, 0, 10, &error).value_or("<refused>"), data.left(10));
        QCOMPARE(zip->readEntry(file, e, 200000, 5000, &error).value_or("<refused>"), data.mid(200000, 5000));
        QCOMPARE(zip->readEntry(file, e, size - 3, 3, &error).value_or("<refused>"), data.right(3));
        QCOMPARE(zip->readEntry(file, e, size, 0, &error).value_or("<refused>"), QByteArray());

        QVERIFY(!zip->dataOffset(file, e, &error));
        QVERIFY2(error.contains(QStringLiteral("zip entry arr_0.npy is compressed (method 8)")), qPrintable(error));
    }

    // What a deflated entry declares is held to: more than its compressed bytes can inflate to is
    // a bomb, refused up front; a stream longer or shorter than declared is refused on reading.
    void holdsADeflatedEntryToItsDeclaredSize()
    {
        const QByteArray zeros(1000, '\0');
        const Archive a = buildArchive({{"z", zeros, true}});
        const quint32 compressed = quint32(rawDeflate(zeros).size());
        auto declared = [&](quint32 size, quint64 offset, quint64 length) {
            QByteArray bytes = a.bytes;
            set32(bytes, a.central[0] + 24, size);
            QString error;
            QFile &file = open(bytes);
            const auto zip = ZipDirectory::read(file, &error);
            if (!zip)
                return error;
            const auto read = zip->readEntry(file, zip->entries()[0], offset, length, &error);
            return read ? QStringLiteral("read %1 bytes").arg(read->size()) : error;
        };
        QCOMPARE(declared(1000, 0, 1000), QStringLiteral("read 1000 bytes"));
        const quint32 most = compressed * 1032 + 1024;
        QVERIFY(declared(most + 1, 0, 10).contains(QStringLiteral("claims %1 bytes from %2 compressed (a decompression bomb?)").arg(most + 1).arg(compressed)));
        QVERIFY(declared(k32, 0, 10).contains(QStringLiteral("a decompression bomb")));
        QVERIFY(!declared(most, 0, 10).contains(QStringLiteral("bomb")));
        const QString longer = declared(999, 0, 999);
        QVERIFY2(longer.contains(QStringLiteral("zip entry z inflates past its declared 999 bytes")), qPrintable(longer));
        const QString shorter = declared(1001, 0, 1001);
        QVERIFY2(shorter.contains(QStringLiteral("zip entry z inflates to fewer bytes than it declares")), qPrintable(shorter));
        QCOMPARE(declared(2000, 0, 1000), QStringLiteral("read 1000 bytes")); // the bytes asked for are there
    }

    void refusesWhatCannotBeInflated()
    {
        const QByteArray data = counting(500);
        const Archive a = buildArchive({{"d", data, true}});
        QByteArray garbage = a.bytes;
        const qsizetype start = a.local[0] + 30 + 1;
        for (qsizetype i = 0; i < 8; ++i)
            garbage[start + i] = '\xFF'; // a reserved block type
        QString error;
        {
            QFile &file = open(garbage);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY(!zip->readEntry(file, zip->entries()[0], 0, 500, &error));
            QVERIFY2(error.contains(QStringLiteral("zip entry d is not valid deflate data")), qPrintable(error));
        }
        {
            QByteArray cut = a.bytes;
            set32(cut, a.central[0] + 20, 20); // compressed size: the stream stops early
            QFile &file = open(cut);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY(!zip->readEntry(file, zip->entries()[0], 0, 500, &error));
            QVERIFY2(error.contains(QStringLiteral("inflates to fewer bytes than it declares")), qPrintable(error));
        }
        {
            QByteArray bzip2 = a.bytes;
            set16(bzip2, a.central[0] + 10, 12);
            QFile &file = open(bzip2);
            const auto zip = ZipDirectory::read(file, &error);
            QVERIFY(!zip->readEntry(file, zip->entries()[0], 0, 1, &error));
            QVERIFY2(error.contains(QStringLiteral("zip entry d uses compression method 12")), qPrintable(error));
            QVERIFY(!zip->dataOffset(file, zip->entries()[0], &error));
            QVERIFY2(error.contains(QStringLiteral("is compressed (method 12)")), qPrintable(error));
        }
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestZipDirectory)
} // namespace tst_zipdirectory

#include "tst_ZipDirectory.moc"
