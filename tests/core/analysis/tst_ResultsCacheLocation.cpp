// Where a folder's cached results lie: one file per folder in the user's cache, whatever the
// folder's spelling, and never under a relative XDG_CACHE_HOME.
#include "analysis/results/ResultsCacheLocation.h"
#include "TestSuite.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace tst_resultscachelocation {

using namespace rankscope;

class TestResultsCacheLocation : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("RankScope"));
        QCoreApplication::setApplicationName(QStringLiteral("RankScope"));
    }

    void cleanup() { qunsetenv("XDG_CACHE_HOME"); }

    // One file per folder, named by the SHA-1 of its clean absolute path.
    void oneFilePerFolder()
    {
        qputenv("XDG_CACHE_HOME", "/tmp/rankscope-cache-test");
        const QString a = ResultsCacheLocation::forFolder("/data/run-a"), b = ResultsCacheLocation::forFolder("/data/run-b");
        QVERIFY(a != b);
        const QString hash = QString::fromLatin1(QCryptographicHash::hash("/data/run-a", QCryptographicHash::Sha1).toHex().left(20));
        QCOMPARE(a, QStringLiteral("/tmp/rankscope-cache-test/RankScope/RankScope/runs/") + hash + QStringLiteral(".h5"));
        QCOMPARE(ResultsCacheLocation::forFolder("/data/run-a/"), a);
        QCOMPARE(ResultsCacheLocation::forFolder("/data/./other/../run-a"), a);
    }

    // A folder named relative to the working folder is the same folder named absolutely.
    void relativeFolderIsTheAbsoluteOne()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir("run"));
        const QString previous = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.path()));
        const QString relative = ResultsCacheLocation::forFolder("run");
        QVERIFY(QDir::setCurrent(previous));
        QCOMPARE(relative, ResultsCacheLocation::forFolder(QDir(dir.path()).filePath("run")));
    }

    // The XDG spec makes a relative XDG_CACHE_HOME invalid: the cache stays under ~/.cache, not
    // under whatever folder the command was started in.
    void relativeXdgCacheHomeIsIgnored()
    {
        qputenv("XDG_CACHE_HOME", "relative-cache");
        const QString path = ResultsCacheLocation::forFolder("/data/run-a");
        QVERIFY2(path.startsWith(QDir::homePath() + QStringLiteral("/.cache/")), qPrintable(path));
        QVERIFY2(path.endsWith(QStringLiteral("/RankScope/RankScope/runs/") + QFileInfo(path).fileName()), qPrintable(path));
        QVERIFY(!path.contains(QStringLiteral("relative-cache")));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestResultsCacheLocation)
} // namespace tst_resultscachelocation

#include "tst_ResultsCacheLocation.moc"
