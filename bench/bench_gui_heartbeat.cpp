// How long the UI thread stalls while the window analyses a run (target: never over 100 ms).
// A 5 ms timer on the UI thread records the longest gap between its ticks from opening the
// folder until the analysis finishes, with the views filling in as checkpoints arrive.
//   QT_QPA_PLATFORM=offscreen bench_gui_heartbeat FOLDER
// The cache is kept in a temporary location, so every run analyses the folder from scratch.
#include "MainWindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_gui_heartbeat FOLDER\n");
        return 1;
    }
    QTemporaryDir cache;
    qputenv("XDG_CACHE_HOME", cache.path().toLocal8Bit());
    QApplication app(argc, argv);
    rankscope::MainWindow window;
    window.resize(1500, 920);
    window.show();

    QElapsedTimer sinceTick, total;
    qint64 worstGapMs = 0;
    int ticks = 0, arrivals = 0;
    QTimer heartbeat;
    heartbeat.setInterval(5);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        worstGapMs = std::max(worstGapMs, sinceTick.elapsed());
        sinceTick.restart();
        ++ticks;
    });
    QObject::connect(window.controller(), &rankscope::AnalysisController::checkpointArrived, [&] { ++arrivals; });
    QObject::connect(window.controller(), &rankscope::AnalysisController::finished, [&] {
        // Let the final rebuild happen under the heartbeat too.
        QTimer::singleShot(200, [&] {
            std::printf("%d checkpoints arrived in %.2f s; %d heartbeats; longest UI stall %lld ms\n", arrivals,
                        total.elapsed() / 1000.0, ticks, worstGapMs);
            app.quit();
        });
    });
    QTimer::singleShot(0, [&] {
        total.start();
        sinceTick.start();
        heartbeat.start();
        window.openPath(QString::fromLocal8Bit(argv[1]));
    });
    return app.exec();
}
