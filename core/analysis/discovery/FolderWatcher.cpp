#include "analysis/discovery/FolderWatcher.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

namespace rankscope {

namespace {
// Names, sizes and times of everything below the folder (two levels: checkpoint subfolders).
QString listing(const QString &folder)
{
    QStringList entries;
    QDirIterator it(folder, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo info(it.next());
        if (QDir(folder).relativeFilePath(info.filePath()).count(QLatin1Char('/')) > 1)
            continue;
        entries << QStringLiteral("%1|%2|%3").arg(info.filePath()).arg(info.size()).arg(info.lastModified().toMSecsSinceEpoch());
    }
    entries.sort();
    return entries.join(QLatin1Char('\n'));
}
} // namespace

FolderWatcher::FolderWatcher(const QString &folder, QObject *parent) : QObject(parent), m_folder(folder)
{
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(500);
    connect(&m_debounce, &QTimer::timeout, this, &FolderWatcher::changed);
    connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, &FolderWatcher::poke);
    connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, &FolderWatcher::poke);
    m_rescan.setInterval(5000);
    connect(&m_rescan, &QTimer::timeout, this, [this] {
        const QString now = listing(m_folder);
        if (now != m_lastListing)
            poke();
    });
    m_rescan.start();
    watchTree();
    m_lastListing = listing(m_folder);
}

void FolderWatcher::setRescanInterval(double seconds) { m_rescan.setInterval(int(seconds * 1000)); }

void FolderWatcher::setDebounce(double seconds) { m_debounce.setInterval(int(seconds * 1000)); }

void FolderWatcher::recheckAfter(double seconds)
{
    QTimer::singleShot(int(seconds * 1000), this, &FolderWatcher::poke);
}

void FolderWatcher::watchTree()
{
    QStringList folders{m_folder};
    for (const QFileInfo &sub : QDir(m_folder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot))
        folders << sub.filePath();
    const QStringList watched = m_watcher.directories();
    for (const QString &f : folders)
        if (!watched.contains(f))
            m_watcher.addPath(f);
}

void FolderWatcher::poke()
{
    watchTree(); // a new checkpoint subfolder is watched too
    m_lastListing = listing(m_folder);
    m_debounce.start();
}

} // namespace rankscope
