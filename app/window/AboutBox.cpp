#include "AboutBox.h"

#include "RankScopeVersion.h"
#include "spectral/CudaGramDevice.h"

#include <Eigen/Core>
#include <QCoreApplication>
#include <QFileInfo>
#include <QMessageBox>
#include <QtGlobal>
#include <cblas.h>
#include <dlfcn.h>
#include <hdf5.h>
#include <qcustomplot.h>

namespace rankscope {

namespace {

// Which shared library a symbol was bound to. Debian switches BLAS and LAPACK implementations with
// update-alternatives, so the file actually loaded is what answers "which LAPACK is this?".
QString libraryDefining(const char *symbol)
{
    void *address = dlsym(RTLD_DEFAULT, symbol);
    Dl_info info{};
    if (!address || !dladdr(address, &info) || !info.dli_fname)
        return QStringLiteral("not found");
    // The loader reports the alternatives symlink (/lib/…/libopenblas.so.0): name its target.
    const QString loaded = QString::fromLocal8Bit(info.dli_fname);
    const QString target = QFileInfo(loaded).canonicalFilePath();
    return target.isEmpty() ? loaded : target;
}

QString openBlasDescription()
{
    // openblas_get_config() names the version and build options; the core name is the CPU kernel
    // set OpenBLAS picked on this machine at run time (DYNAMIC_ARCH builds choose per CPU).
    const QString config = QString::fromLatin1(openblas_get_config()).trimmed();
    const QString core = QString::fromLatin1(openblas_get_corename()).trimmed();
    QString threading;
    switch (openblas_get_parallel()) {
    case 0: threading = QStringLiteral("sequential"); break;
    case 1: threading = QStringLiteral("pthreads"); break;
    case 2: threading = QStringLiteral("OpenMP"); break;
    default: threading = QStringLiteral("unknown threading"); break;
    }
    return QStringLiteral("%1\n%2 kernels, %3\n%4").arg(config, core, threading, libraryDefining("cblas_dsyrk"));
}

QString hdf5Version()
{
    unsigned major = 0, minor = 0, release = 0;
    if (H5get_libversion(&major, &minor, &release) < 0)
        return QStringLiteral(H5_VERSION);
    return QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(release);
}

} // namespace

QList<LibraryInUse> librariesInUse()
{
    const QString qtRuntime = QString::fromLatin1(qVersion());
    const QString qtBuilt = QStringLiteral(QT_VERSION_STR);
    return {
        {QStringLiteral("Qt"), qtRuntime == qtBuilt ? qtRuntime : QStringLiteral("%1 (built with %2)").arg(qtRuntime, qtBuilt)},
        {QStringLiteral("QCustomPlot"), QStringLiteral(QCUSTOMPLOT_VERSION_STR)},
        {QStringLiteral("Eigen"), QStringLiteral("%1.%2.%3").arg(EIGEN_WORLD_VERSION).arg(EIGEN_MAJOR_VERSION).arg(EIGEN_MINOR_VERSION)},
        {QStringLiteral("HDF5"), hdf5Version()},
        {QStringLiteral("BLAS"), openBlasDescription()},
        {QStringLiteral("LAPACK"), libraryDefining("dsyevd_")},
        {QStringLiteral("CUDA"), describeCuda()},
    };
}

QString aboutRankScopeHtml()
{
    QString libraries;
    for (const LibraryInUse &library : librariesInUse())
        libraries += QStringLiteral("<tr><td><b>%1</b>&nbsp;</td><td>%2</td></tr>")
                         .arg(library.name.toHtmlEscaped(), library.version.toHtmlEscaped().replace('\n', QStringLiteral("<br>")));
    return QCoreApplication::translate("AboutBox",
               "<h3>RankScope %1</h3>"
               "<p>Spectral analysis of transformer weight matrices across training checkpoints.</p>"
               "<p>Licensed under the GNU General Public License, version 3 or later (GPL-3.0-or-later). "
               "It comes with ABSOLUTELY NO WARRANTY.</p>"
               "<p>Running with:</p><table>%2</table>")
        .arg(QStringLiteral(RANKSCOPE_VERSION), libraries);
}

void showAboutRankScope(QWidget *parent)
{
    // QMessageBox::about takes the parent window's icon, which is the application icon.
    QMessageBox::about(parent, QCoreApplication::translate("AboutBox", "About RankScope"), aboutRankScopeHtml());
}

} // namespace rankscope
