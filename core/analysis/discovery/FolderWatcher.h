// Notices when a training run's folder changes: filesystem notifications where the system gives
// them, and a periodic rescan as a fallback (network filesystems send none). Emits changed() at
// most once per debounce interval; the consumer then runs an incremental analysis.
#pragma once

#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

namespace rankscope {

class FolderWatcher : public QObject {
    Q_OBJECT
public:
    explicit FolderWatcher(const QString &folder, QObject *parent = nullptr);

    QString folder() const { return m_folder; }
    // Seconds between fallback rescans (default 5), and the quiet time before changed() (default 0.5).
    void setRescanInterval(double seconds);
    void setDebounce(double seconds);
    // Ask for another look after a while, e.g. when checkpoints were still being written.
    void recheckAfter(double seconds);

signals:
    void changed();

private:
    void watchTree();
    void poke();

    QString m_folder;
    QFileSystemWatcher m_watcher;
    QTimer m_rescan;
    QTimer m_debounce;
    QString m_lastListing;
};

} // namespace rankscope
