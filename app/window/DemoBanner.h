// The strip above the figures while the bundled demo run is shown: it says that this is the demo
// (a small nanoGPT's training run, read once and not watched) and offers what a new user wants
// next: their own folder, a results file, or a run opened before.
#pragma once

#include <QFrame>

class QMenu;
class QToolButton;

namespace rankscope {

class DemoBanner : public QFrame {
    Q_OBJECT
public:
    // `recent`: the window's Open recent menu, offered as it is (disabled when empty).
    DemoBanner(QMenu *recent, QWidget *parent = nullptr);
    QString text() const;
    // Recent runs are offered when the menu has some.
    void syncRecent();

signals:
    void openFolderRequested();
    void openResultsRequested();

private:
    QMenu *m_recentMenu;
    QToolButton *m_recent;
};

} // namespace rankscope
