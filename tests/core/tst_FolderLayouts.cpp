// Real training folders as users leave them, FIFOs and device links included: nothing beside the
// checkpoints is opened in a way that blocks or reads without end.
#include "FormatWriters.h"
#include "io/CheckpointReader.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace rankscope;
using namespace rankscope::test;

class TestFolderLayouts : public QObject {
    Q_OBJECT
private slots:
    // A config.json linked to /dev/zero, a FIFO named config.json or like a checkpoint: refused
    // before anything reads them; a regular sidecar is read up to its limit.
    void sidecarsAreReadOnlyAsSmallRegularFiles()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::link("/dev/zero", dir.filePath("config.json")));
        QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath("trainer_state.json")).constData(), 0600), 0);
        QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath("ckpt_000100.pt")).constData(), 0600), 0);
        saveBytes(dir.filePath("big.json"), QByteArray(2048, ' '));
        QString error;
        QVERIFY(!readSmallRegularFile(dir.filePath("config.json"), 1024, &error));
        QVERIFY2(error.contains("character device"), qPrintable(error));
        QVERIFY(notRegularFileReason(dir.filePath("config.json")).contains("a link to /dev/zero, a character device"));
        QVERIFY(!readSmallJsonObject(dir.filePath("trainer_state.json"), 1024, &error));
        QVERIFY2(error.contains("FIFO"), qPrintable(error));
        QVERIFY(!readSmallRegularFile(dir.filePath("big.json"), 1024, &error));
        QVERIFY(readSmallRegularFile(dir.filePath("big.json"), 2048));
        QVERIFY(!openCheckpoint(dir.filePath("ckpt_000100.pt"), &error));
        QVERIFY2(error.contains("a FIFO (named pipe): not read"), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestFolderLayouts)
#include "tst_FolderLayouts.moc"
