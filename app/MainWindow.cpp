#include "MainWindow.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QStatusBar>
#include <QVBoxLayout>

namespace rankscope {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_runLabel(new QLabel(this)), m_checkpointList(new QListWidget(this))
{
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->addWidget(m_runLabel);
    layout->addWidget(m_checkpointList, 1);
    setCentralWidget(central);
    resize(1200, 800);
}

void MainWindow::openRun(const QString &path)
{
    const QFileInfo info(path);
    setWindowTitle(QStringLiteral("%1 — RankScope").arg(info.fileName()));
    m_runLabel->setText(QStringLiteral("Run: %1").arg(QDir::toNativeSeparators(info.absoluteFilePath())));
    m_checkpointList->clear();
    const QFileInfoList files = QDir(path).entryInfoList(QDir::Files, QDir::Name);
    for (const QFileInfo &file : files)
        m_checkpointList->addItem(file.fileName());
    statusBar()->showMessage(QStringLiteral("%1 files").arg(files.size()));
}

} // namespace rankscope
