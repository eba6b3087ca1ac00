#include "DemoRun.h"

#include "RankScopeVersion.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace rankscope {

QString demoRunFolder()
{
    const QString besideBinary =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/rankscope/demo/nanogpt-d4");
    if (QFileInfo(besideBinary).isDir())
        return QDir::cleanPath(besideBinary);
    return QStringLiteral(RANKSCOPE_SOURCE_DEMO_RUN);
}

} // namespace rankscope
