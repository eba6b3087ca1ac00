#include "io/OutputFile.h"
#include "TestSuite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tst_outputfile {

using namespace rankscope;

namespace {

QByteArray contents(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

void write(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
}

QStringList entries(const QString &folder)
{
    return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

struct stat statOf(const QString &path)
{
    struct stat st {};
    ::lstat(QFile::encodeName(path).constData(), &st);
    return st;
}

// A process id no process has: above every kernel's pid_max.
constexpr qint64 kDeadPid = 2147483646;

} // namespace

class TestOutputFile : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    QString path(const QString &name) const { return m_dir->filePath(name); }

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    // A new file holds exactly the bytes, with what the umask leaves of 0666, and nothing else
    // is left in its folder.
    void createsAFile()
    {
        const mode_t old = ::umask(027);
        QString error;
        const bool ok = replaceFile(path(QStringLiteral("metrics.csv")), "a,b\n1,2\n", &error);
        ::umask(old);
        QVERIFY2(ok, qPrintable(error));
        QCOMPARE(contents(path(QStringLiteral("metrics.csv"))), QByteArray("a,b\n1,2\n"));
        QCOMPARE(statOf(path(QStringLiteral("metrics.csv"))).st_mode & 07777, mode_t(0640));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("metrics.csv")});
        QVERIFY(replaceFile(path(QStringLiteral("empty")), {}, &error));
        QCOMPARE(QFileInfo(path(QStringLiteral("empty"))).size(), 0);
    }

    // The old file is replaced, not rewritten: a reader that opened it before still reads the
    // old bytes whole, the name leads to a new file with the new bytes, and the old permissions
    // are kept.
    void replacesTheFileWhole()
    {
        const QString target = path(QStringLiteral("results.json"));
        write(target, "old contents");
        QVERIFY(QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther));
        const ino_t before = statOf(target).st_ino;
        QFile reader(target);
        QVERIFY(reader.open(QIODevice::ReadOnly));
        QString error;
        QVERIFY2(replaceFile(target, "new", &error), qPrintable(error));
        QCOMPARE(reader.readAll(), QByteArray("old contents"));
        QCOMPARE(contents(target), QByteArray("new"));
        QVERIFY(statOf(target).st_ino != before);
        QCOMPARE(statOf(target).st_mode & 07777, mode_t(0604));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("results.json")});
    }

    // A link stays a link, through a chain of them, and the file it leads to is replaced; a
    // dangling link gets the file it names.
    void replacesWhatALinkLeadsTo()
    {
        QVERIFY(QDir(m_dir->path()).mkdir(QStringLiteral("real")));
        const QString target = path(QStringLiteral("real/data.csv"));
        write(target, "old");
        QVERIFY(QFile::link(target, path(QStringLiteral("first"))));
        QVERIFY(QFile::link(path(QStringLiteral("first")), path(QStringLiteral("second"))));
        QString error;
        QVERIFY2(replaceFile(path(QStringLiteral("second")), "through two links", &error), qPrintable(error));
        QVERIFY(QFileInfo(path(QStringLiteral("second"))).isSymLink());
        QVERIFY(QFileInfo(path(QStringLiteral("first"))).isSymLink());
        QCOMPARE(contents(target), QByteArray("through two links"));
        QCOMPARE(entries(path(QStringLiteral("real"))), QStringList{QStringLiteral("data.csv")});

        QVERIFY(QFile::link(path(QStringLiteral("real/later.csv")), path(QStringLiteral("dangling"))));
        QVERIFY2(replaceFile(path(QStringLiteral("dangling")), "made", &error), qPrintable(error));
        QVERIFY(QFileInfo(path(QStringLiteral("dangling"))).isSymLink());
        QCOMPARE(contents(path(QStringLiteral("real/later.csv"))), QByteArray("made"));
    }

    // The leftovers of writes whose process died are removed (the name of today and of earlier
    // versions); a live process's, another file's, a folder so named and a name of another shape
    // are left alone.
    void removesOnlyDeadProcessesTemporaries()
    {
        const QString dead = QStringLiteral("out.csv.tmp-%1-Ab3dE9").arg(kDeadPid);
        const QString deadOld = QStringLiteral("out.csv.tmp-%1").arg(kDeadPid);
        const QString live = QStringLiteral("out.csv.tmp-%1-Ab3dE9").arg(qint64(::getppid()));
        const QString mine = QStringLiteral("out.csv.tmp-%1-zzzzzz").arg(qint64(::getpid()));
        const QString otherFile = QStringLiteral("other.csv.tmp-%1-Ab3dE9").arg(kDeadPid);
        const QString sevenLetters = QStringLiteral("out.csv.tmp-%1-Ab3dE9x").arg(kDeadPid);
        const QString folder = QStringLiteral("out.csv.tmp-%1-folder").arg(kDeadPid);
        for (const QString &name : {dead, deadOld, live, mine, otherFile, sevenLetters})
            write(path(name), "partial");
        QVERIFY(QDir(m_dir->path()).mkdir(folder));
        QString error;
        QVERIFY2(replaceFile(path(QStringLiteral("out.csv")), "whole", &error), qPrintable(error));
        QStringList expected{QStringLiteral("out.csv"), live, mine, otherFile, sevenLetters, folder};
        expected.sort();
        QCOMPARE(entries(m_dir->path()), expected);
    }

    // Every name the folder allows can be replaced, the longest included: the temporary's name is
    // cut to fit, at the start of a UTF-8 character. One byte longer is refused by name.
    void replacesTheLongestNames()
    {
        const QString ascii(255, QLatin1Char('n'));
        QString error;
        QVERIFY2(replaceFile(path(ascii), "ascii", &error), qPrintable(error));
        QCOMPARE(contents(path(ascii)), QByteArray("ascii"));
        QVERIFY2(replaceFile(path(ascii), "again", &error), qPrintable(error));
        QCOMPARE(contents(path(ascii)), QByteArray("again"));

        // 127 two-byte characters and one more byte: a cut 233 bytes in falls inside a character.
        const QString accented = QString(127, QChar(0x00E9)) + QLatin1Char('x');
        QCOMPARE(QFile::encodeName(accented).size(), 255);
        QVERIFY2(replaceFile(path(accented), "utf-8", &error), qPrintable(error));
        QCOMPARE(contents(path(accented)), QByteArray("utf-8"));
        QCOMPARE(entries(m_dir->path()).size(), 2);

        const QString tooLong(256, QLatin1Char('n'));
        QVERIFY(!replaceFile(path(tooLong), "x", &error));
        QCOMPARE(error, QStringLiteral("%1: the file name is too long (256 bytes; its folder allows at most 255)").arg(path(tooLong)));
        QCOMPARE(outputFileProblem(path(tooLong)), error);
        QCOMPARE(entries(m_dir->path()).size(), 2);
    }

    // A failure says which path and why in the system's words, and leaves nothing behind.
    void refusesWithTheSystemsReason()
    {
        QString error;
        const QString missing = path(QStringLiteral("no/such/folder/out.csv"));
        QVERIFY(!replaceFile(missing, "x", &error));
        QCOMPARE(error, QStringLiteral("%1: cannot create a file in its folder: No such file or directory").arg(missing));

        // A folder where the file should be: written beside it, and the rename refuses.
        QVERIFY(QDir(m_dir->path()).mkdir(QStringLiteral("figure.png")));
        write(path(QStringLiteral("figure.png/inside")), "kept");
        QVERIFY(!replaceFile(path(QStringLiteral("figure.png")), "x", &error));
        QVERIFY2(error.startsWith(QStringLiteral("%1: cannot be replaced: ").arg(path(QStringLiteral("figure.png")))), qPrintable(error));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("figure.png")});
        QCOMPARE(contents(path(QStringLiteral("figure.png/inside"))), QByteArray("kept"));
    }

    // Devices and FIFOs are written directly, since they cannot be replaced; a device that fills
    // up says so.
    void writesDevicesAndFifosDirectly()
    {
        QString error;
        if (QFileInfo::exists(QStringLiteral("/dev/full"))) {
            QVERIFY(!writeOutputFile(QStringLiteral("/dev/full"), "x", &error));
            QCOMPARE(error, QStringLiteral("/dev/full: cannot be written: No space left on device"));
        }
        QVERIFY2(writeOutputFile(QStringLiteral("/dev/null"), QByteArray(100000, 'z'), &error), qPrintable(error));
        QVERIFY(!QFileInfo(QStringLiteral("/dev/null")).isFile());

        const QString fifo = path(QStringLiteral("pipe"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const int reader = ::open(QFile::encodeName(fifo).constData(), O_RDONLY | O_NONBLOCK);
        QVERIFY(reader >= 0);
        QVERIFY2(writeOutputFile(fifo, "through the pipe", &error), qPrintable(error));
        char buffer[64] = {};
        const ssize_t n = ::read(reader, buffer, sizeof buffer);
        ::close(reader);
        QCOMPARE(QByteArray(buffer, int(n)), QByteArray("through the pipe"));
        QVERIFY(S_ISFIFO(statOf(fifo).st_mode));
        QCOMPARE(entries(m_dir->path()), QStringList{QStringLiteral("pipe")});
        QCOMPARE(outputFileProblem(fifo), QString());
    }

    // "-" is standard output, after whatever stdio holds.
    void writesStandardOutput()
    {
        const QString capture = path(QStringLiteral("stdout"));
        const int saved = ::dup(STDOUT_FILENO);
        const int file = ::open(QFile::encodeName(capture).constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        QVERIFY(saved >= 0 && file >= 0);
        std::fflush(stdout);
        ::dup2(file, STDOUT_FILENO);
        std::fputs("printed first|", stdout);
        QString error;
        const bool ok = writeOutputFile(QStringLiteral("-"), "then the bytes", &error);
        std::fflush(stdout);
        ::dup2(saved, STDOUT_FILENO);
        ::close(saved);
        ::close(file);
        QVERIFY2(ok, qPrintable(error));
        QCOMPARE(contents(capture), QByteArray("printed first|then the bytes"));
    }

    // What is known before any work: the reasons, each naming the path.
    void saysWhyAPathCannotBeWritten()
    {
        QCOMPARE(outputFileProblem(QStringLiteral("-")), QString());
        QCOMPARE(outputFileProblem(QString()), QStringLiteral("no file name given"));
        QCOMPARE(outputFileProblem(m_dir->path()), QStringLiteral("%1: is a folder").arg(m_dir->path()));
        const QString missing = path(QStringLiteral("missing/out.csv"));
        QCOMPARE(outputFileProblem(missing),
                 QStringLiteral("%1: its folder %2 does not exist").arg(missing, QDir::toNativeSeparators(path(QStringLiteral("missing")))));
        QCOMPARE(outputFileProblem(path(QStringLiteral("new.csv"))), QString());
        write(path(QStringLiteral("old.csv")), "x");
        QCOMPARE(outputFileProblem(path(QStringLiteral("old.csv"))), QString());
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("new.csv")))); // asking writes nothing
    }

    // A file or folder the user may not write is said before the work, and refused after it.
    void refusesWhatIsNotWritable()
    {
        write(path(QStringLiteral("old.csv")), "x");
        if (::geteuid() == 0)
            QSKIP("root may write anything: the read-only cases cannot be seen");
        QVERIFY(QFile::setPermissions(path(QStringLiteral("old.csv")), QFileDevice::ReadOwner));
        QCOMPARE(outputFileProblem(path(QStringLiteral("old.csv"))), QStringLiteral("%1: is not writable").arg(path(QStringLiteral("old.csv"))));
        QVERIFY(QDir(m_dir->path()).mkdir(QStringLiteral("locked")));
        QVERIFY(QFile::setPermissions(path(QStringLiteral("locked")), QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        const QString locked = path(QStringLiteral("locked/out.csv"));
        QCOMPARE(outputFileProblem(locked), QStringLiteral("%1: its folder %2 is not writable").arg(locked, path(QStringLiteral("locked"))));
        QString error;
        QVERIFY(!replaceFile(locked, "x", &error));
        QCOMPARE(error, QStringLiteral("%1: cannot create a file in its folder: Permission denied").arg(locked));
        QVERIFY(QFile::setPermissions(path(QStringLiteral("locked")), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestOutputFile)
} // namespace tst_outputfile

#include "tst_OutputFile.moc"
