#include "analysis/discovery/ContentFingerprint.h"

#include "io/RegularFile.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

namespace rankscope {

namespace {

constexpr qint64 kEndBytes = 64 * 1024;
constexpr qint64 kSampleBytes = 4 * 1024;
constexpr int kSamples = 16;

// One file's name, size and sampled blocks. Only a regular file is opened (and so never a FIFO);
// anything else is hashed as what it is.
void addFile(QCryptographicHash &hash, const QString &path, const QString &name)
{
    hash.addData(name.toUtf8());
    hash.addData(QByteArrayView("\0", 1));
    QFile file;
    QString error;
    if (!RegularFile::open(file, path, &error)) {
        hash.addData(QByteArrayView("unreadable"));
        return;
    }
    const qint64 size = file.size();
    hash.addData(QByteArray::number(size));
    auto addBlock = [&](qint64 offset, qint64 length) {
        if (file.seek(offset))
            hash.addData(file.read(std::max<qint64>(0, std::min(length, size - offset))));
    };
    addBlock(0, kEndBytes);
    if (size > 2 * kEndBytes) {
        const qint64 span = size - 2 * kEndBytes - kSampleBytes;
        for (int i = 0; i < kSamples && span > 0; ++i)
            addBlock(kEndBytes + span * i / (kSamples - 1), kSampleBytes);
        addBlock(size - kEndBytes, kEndBytes);
    } else if (size > kEndBytes) {
        addBlock(kEndBytes, size - kEndBytes);
    }
}

} // namespace

QString ContentFingerprint::of(const CheckpointFile &checkpoint)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const QDir folder(checkpoint.path);
    if (QFileInfo(checkpoint.path).isDir()) {
        // Its own files, or its whole subtree (rank folders, weights/ and context/), each named by its
        // path inside the checkpoint; links to folders are not followed (a loop, or another run).
        QStringList names;
        if (checkpoint.ownsSubtree) {
            for (QDirIterator it(checkpoint.path, QDir::Files | QDir::System | QDir::Hidden, QDirIterator::Subdirectories); it.hasNext();)
                names << folder.relativeFilePath(it.next());
            names.sort();
        } else {
            names = folder.entryList(QDir::Files, QDir::Name);
        }
        for (const QString &name : names)
            addFile(hash, folder.filePath(name), name);
    } else {
        addFile(hash, checkpoint.path, QFileInfo(checkpoint.path).fileName());
    }
    for (const QString &sidecar : {checkpoint.stepSidecar, checkpoint.configPath, checkpoint.adapterConfigPath})
        if (!sidecar.isEmpty())
            addFile(hash, sidecar, QFileInfo(sidecar).fileName());
    return QString::fromLatin1(hash.result().toHex());
}

} // namespace rankscope
