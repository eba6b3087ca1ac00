#include "analysis/discovery/RunWatch.h"

namespace rankscope {

RunWatch::RunWatch(const QString &folder, double settleSeconds, std::function<void()> startPass, QObject *parent)
    : QObject(parent), m_watcher(folder), m_settleSeconds(settleSeconds), m_startPass(std::move(startPass))
{
    connect(&m_watcher, &FolderWatcher::changed, this, &RunWatch::folderChanged);
}

void RunWatch::folderChanged()
{
    if (m_passRunning) {
        m_rerunWanted = true; // once the pass under way ends
        return;
    }
    m_rerunWanted = false;
    m_passRunning = true;
    m_startPass();
}

void RunWatch::passFinished(const RunAnalysis &run)
{
    m_passRunning = false;
    if (!run.pending.isEmpty())
        m_watcher.recheckAfter(m_settleSeconds);
    if (m_rerunWanted)
        folderChanged();
}

} // namespace rankscope
