#include "analysis/ContentFingerprint.h"

#include "io/RegularFile.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>

namespace rankscope {

namespace {

constexpr qint64 kEndBytes = 64 * 1024;
constexpr qint64 kSampleBytes = 4 * 1024;
constexpr int kSamples = 16;

// One file's name, size and sampled blocks. Only a regular file is opened (and so never a FIFO);
// anything else is hashed as what it is.
void addFile(QCryptographicHash &hash, const QString &path)
{
    hash.addData(QFileInfo(path).fileName().toUtf8());
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
    if (QFileInfo(checkpoint.path).isDir()) {
        for (const QString &name : QDir(checkpoint.path).entryList(QDir::Files, QDir::Name))
            addFile(hash, QDir(checkpoint.path).filePath(name));
    } else {
        addFile(hash, checkpoint.path);
    }
    for (const QString &sidecar : {checkpoint.stepSidecar, checkpoint.configPath, checkpoint.adapterConfigPath})
        if (!sidecar.isEmpty())
            addFile(hash, sidecar);
    return QString::fromLatin1(hash.result().toHex());
}

} // namespace rankscope
