// Help ▸ About RankScope names the version, the licence, and the libraries and BLAS actually loaded.
#include "AboutBox.h"
#include "RankScopeVersion.h"
#include "TestSuite.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace tst_aboutbox {

using namespace rankscope;

class TestAboutBox : public QObject {
    Q_OBJECT
private slots:
    void listsTheLibrariesAsLoaded()
    {
        const QList<LibraryInUse> libraries = librariesInUse();
        QStringList names;
        for (const LibraryInUse &library : libraries)
            names << library.name;
        QCOMPARE(names, (QStringList{"Qt", "QCustomPlot", "Eigen", "HDF5", "BLAS", "LAPACK", "CUDA"}));
        QVERIFY(libraries[0].version.startsWith(QString::fromLatin1(qVersion())));
        const QRegularExpression dottedVersion(QStringLiteral("^\\d+\\.\\d+\\.\\d+$"));
        QVERIFY2(dottedVersion.match(libraries[1].version).hasMatch(), qPrintable(libraries[1].version));
        QVERIFY2(dottedVersion.match(libraries[2].version).hasMatch(), qPrintable(libraries[2].version));
        QVERIFY2(dottedVersion.match(libraries[3].version).hasMatch(), qPrintable(libraries[3].version));
        // OpenBLAS describes itself, the CPU kernels it chose, and the library file that was loaded.
        const QStringList blas = libraries[4].version.split('\n');
        QCOMPARE(blas.size(), 3);
        QVERIFY2(blas[0].startsWith("OpenBLAS "), qPrintable(blas[0]));
        QVERIFY2(blas[1].contains(" kernels, "), qPrintable(blas[1]));
        QVERIFY2(QFileInfo(blas[2]).isFile(), qPrintable(blas[2]));
        QVERIFY2(QFileInfo(libraries[5].version).isFile(), qPrintable(libraries[5].version));
        // CUDA: the runtime, driver and device, or why there is none (never empty).
        QVERIFY2(libraries[6].version.contains(QLatin1String("CUDA")) || libraries[6].version.startsWith(QLatin1String("not built in")),
                 qPrintable(libraries[6].version));
    }

    void namesVersionAndLicence()
    {
        const QString html = aboutRankScopeHtml();
        QVERIFY(html.contains(QStringLiteral("RankScope " RANKSCOPE_VERSION)));
        QVERIFY(html.contains(QStringLiteral("GPL-3.0-or-later")));
        QVERIFY(html.contains(QStringLiteral("OpenBLAS")));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestAboutBox)
} // namespace tst_aboutbox

#include "tst_AboutBox.moc"
