// rankscope: the GUI when given nothing or paths, the headless tool when given a subcommand.
#include "CommandLine.h"
#include "DemoRun.h"
#include "MainWindow.h"
#include "RankScopeVersion.h"
#include "analysis/results/ResultsFile.h"
#include "spectral/BlasKernelChoice.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>

int main(int argc, char **argv)
{
    // First of all, for the GUI and every subcommand alike: OpenBLAS fixed its kernels when it
    // loaded, so a CPU it misdetected is fixed by re-executing once with OPENBLAS_CORETYPE set.
    rankscope::chooseBlasKernelBeforeStart(argv);
    if (rankscope::isHeadlessInvocation(argc, argv))
        return rankscope::runHeadless(argc, argv);

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("RankScope"));
    QApplication::setOrganizationName(QStringLiteral("RankScope"));
    QApplication::setApplicationVersion(QStringLiteral(RANKSCOPE_VERSION));
    // The desktop file's name lets Wayland compositors and docks match the window to the launcher
    // entry and its icon; the window icon itself comes from the same SVG, built into the binary.
    QGuiApplication::setDesktopFileName(QStringLiteral(RANKSCOPE_APP_ID));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/" RANKSCOPE_APP_ID ".svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Opens checkpoint folders or results files in the RankScope window."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("paths"), QStringLiteral("Checkpoint folders or results files to open; more than one are compared (default: the bundled demo run)."), QStringLiteral("[paths…]"));
    const QCommandLineOption base(QStringLiteral("base"), QStringLiteral("The first path is a LoRA adapter run: also show its merged weights and the base model's own, read from PATH."), QStringLiteral("PATH"));
    parser.addOption(base);
    parser.process(app);

    QStringList paths = parser.positionalArguments();
    if (paths.isEmpty())
        paths << rankscope::demoRunFolder();
    // The launcher entry offers RankScope for HDF5 files, which may be results files or Keras
    // checkpoints: a checkpoint file stands for its run's folder, as when it is dropped on the window.
    for (QString &path : paths)
        if (QFileInfo(path).isFile() && !rankscope::ResultsFile::isResultsFile(path))
            path = QFileInfo(path).absolutePath();

    rankscope::MainWindow window;
    window.show();
    window.activateWindow(); // the keys work at once, before any click (a window manager may still decide)
    window.openPath(paths.first());
    for (const QString &other : paths.mid(1))
        window.addComparedRun(other);
    if (parser.isSet(base))
        window.addBaseModelOnceOpen(parser.value(base));
    return app.exec();
}
