#include "CommandLine.h"

#include "AnalyzeCommand.h"
#include "DemoRun.h"
#include "ExportCommand.h"
#include "FigureCatalog.h"
#include "HeadlessMessages.h"
#include "InfoCommand.h"
#include "MpiTeam.h"
#include "PlanCommand.h"
#include "RankScopeVersion.h"
#include "spectral/BlasKernelChoice.h"
#include "spectral/CudaGramDevice.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QTextStream>
#include <cstring>
#include <memory>

namespace rankscope {

namespace {

struct Subcommand {
    const char *name;
    QString summary;
    int (*run)(const QStringList &arguments);
    bool drawsFigures = false; // needs the widgets, rendered offscreen
};

const QList<Subcommand> &subcommands()
{
    static const QList<Subcommand> list = {
        {"analyze", "analyse a folder of checkpoints; write the metrics as CSV or JSON", runAnalyzeCommand},
        {"info", "list how a folder's files were classified, its checkpoints, and how one's tensors are typed", runInfoCommand},
        {"export", QStringLiteral("render a figure (%1) to PNG, SVG, PDF or its numbers to CSV").arg(figureNames()), runExportCommand, true},
        {"plan", "choose a rank per matrix for a parameter budget, an energy or an error; write it as JSON (PEFT rank_pattern) or CSV", runPlanCommand},
    };
    return list;
}

void printUsage(QTextStream &out)
{
    out << "Usage: rankscope [paths…]            open checkpoint folders in the window\n"
           "       rankscope <command> [options]  run headless\n\n"
           "Spectral analysis of transformer weight matrices across training checkpoints.\n\n"
           "Commands:\n";
    for (const Subcommand &command : subcommands())
        out << "  " << QString::fromLatin1(command.name).leftJustified(10) << command.summary << '\n';
    out << "\nOptions:\n"
           "  -h, --help     show this help (rankscope <command> --help for a command's options)\n"
           "  -v, --version  show the version\n"
           // Says where the installed demo run is, to try `analyze` on it (and shows which one is found).
           "\nWith no paths the window opens the bundled demo run:\n  "
        << demoRunFolder() << '\n';
}

} // namespace

bool isHeadlessInvocation(int argc, char **argv)
{
    if (argc < 2)
        return false;
    const char *first = argv[1];
    for (const char *flag : {"-h", "--help", "-v", "--version"})
        if (std::strcmp(first, flag) == 0)
            return true;
    for (const Subcommand &command : subcommands())
        if (std::strcmp(first, command.name) == 0)
            return true;
    // A word that is neither a command nor an existing path is a mistyped command, answered
    // without a window; anything written as a path (runs/seed0, ./x, ~/ckpt, model.h5) opens the
    // window, which says what is wrong with it.
    const QString word = QString::fromLocal8Bit(first);
    const bool looksLikePath = word.contains(QLatin1Char('/')) || word.contains(QLatin1Char('.'));
    return first[0] != '-' && !looksLikePath && !QFileInfo::exists(word);
}

int runHeadless(int argc, char **argv)
{
    const Subcommand *command = nullptr;
    for (const Subcommand &c : subcommands())
        if (std::strcmp(argv[1], c.name) == 0)
            command = &c;
    // Figures are drawn by the GUI's own views on Qt's offscreen platform: no display needed.
    if (command && command->drawsFigures)
        qputenv("QT_QPA_PLATFORM", "offscreen");
    filterHeadlessMessages(); // standard error carries only what the user needs
    std::unique_ptr<QCoreApplication> app(command && command->drawsFigures ? new QApplication(argc, argv)
                                                                            : new QCoreApplication(argc, argv));
    QCoreApplication::setApplicationName(QStringLiteral("RankScope"));
    QCoreApplication::setOrganizationName(QStringLiteral("RankScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RANKSCOPE_VERSION));
    const QStringList arguments = QCoreApplication::arguments();
    QTextStream out(stdout);
    const QString first = arguments.value(1);
    if (first == QLatin1String("-v") || first == QLatin1String("--version")) {
        out << "rankscope " << RANKSCOPE_VERSION << '\n';
        out << "BLAS: " << QString::fromStdString(describeBlasKernel()) << '\n';
        const QString mpi = MpiTeam::libraryVersion();
        out << "CUDA: " << describeCuda() << '\n';
        out << "MPI: " << (mpi.isEmpty() ? QStringLiteral("not built in (rankscope analyze runs in one process)") : mpi + QStringLiteral(" (mpirun -n N rankscope analyze)")) << '\n';
        return 0;
    }
    if (first == QLatin1String("-h") || first == QLatin1String("--help")) {
        printUsage(out);
        return 0;
    }
    if (command)
        return command->run(arguments.mid(1));
    QTextStream err(stderr);
    err << "rankscope: '" << first << "' is neither a command nor an existing path\n\n";
    printUsage(err);
    return 1;
}

} // namespace rankscope
