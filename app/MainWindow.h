// The RankScope main window: one run open at a time, its checkpoints and what was found in them.
#pragma once

#include <QMainWindow>

class QLabel;
class QListWidget;

namespace rankscope {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    void openRun(const QString &path);

private:
    QLabel *m_runLabel;
    QListWidget *m_checkpointList;
};

} // namespace rankscope
