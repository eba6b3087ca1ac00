// Keeps a watched run's analysis up to date, for `rankscope analyze --watch` and the window alike:
// a pass whenever the folder changes, one at a time (a change during a pass asks for one more when
// it ends), and another look after the settle time while checkpoints are still being written.
// How a pass runs (on the command's thread, on a pool thread for the window) is the caller's: the
// watch calls startPass, and the caller answers with passFinished when it is done.
#pragma once

#include "analysis/discovery/FolderWatcher.h"
#include "analysis/results/RunAnalysis.h"

#include <QObject>
#include <functional>

namespace rankscope {

class RunWatch : public QObject {
    Q_OBJECT
public:
    RunWatch(const QString &folder, double settleSeconds, std::function<void()> startPass, QObject *parent = nullptr);

    // After every pass, the first included: looks again after the settle time if checkpoints were
    // still being written, and starts the pass a change asked for meanwhile.
    void passFinished(const RunAnalysis &run);
    // The quiet time before a change starts a pass (default 0.5 s).
    void setDebounce(double seconds) { m_watcher.setDebounce(seconds); }

private:
    void folderChanged();

    FolderWatcher m_watcher;
    double m_settleSeconds;
    std::function<void()> m_startPass;
    bool m_passRunning = false;
    bool m_rerunWanted = false;
};

} // namespace rankscope
