#include "DemoRun.h"

#include "RankScopeVersion.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace rankscope {

QString demoRunFolder()
{
    // RANKSCOPE_DEMO_RUN_FROM_BINDIR is the demo's install path relative to the executable's
    // (bin/ → share/rankscope/demo/nanogpt-d4), so any --prefix or DESTDIR works.
    const QString binaryDir = QCoreApplication::applicationDirPath();
    const QString installed = QDir::cleanPath(binaryDir + QStringLiteral("/" RANKSCOPE_DEMO_RUN_FROM_BINDIR));
    if (QFileInfo(installed).isDir())
        return installed;
    // Only a binary in the build tree falls back to the source tree: an installed one that lost its
    // data must say so rather than quietly read a source tree that may be gone or newer.
    const bool inBuildTree = QFileInfo(binaryDir).canonicalFilePath() ==
                             QFileInfo(QStringLiteral(RANKSCOPE_BUILD_BINARY_DIR)).canonicalFilePath();
    if (inBuildTree)
        return QStringLiteral(RANKSCOPE_SOURCE_DEMO_RUN);
    return installed;
}

} // namespace rankscope
