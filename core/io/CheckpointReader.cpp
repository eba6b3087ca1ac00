#include "io/CheckpointReader.h"

#include "io/TorchCheckpointReader.h"
#include "io/ZipDirectory.h"

#include <QFile>

namespace rankscope {

std::unique_ptr<CheckpointReader> openCheckpoint(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return nullptr;
    }
    if (file.size() == 0) {
        *error = QStringLiteral("empty file (0 bytes)");
        return nullptr;
    }
    const QByteArray head = file.peek(16);
    if (ZipDirectory::looksLikeZip(file)) {
        file.close();
        return TorchCheckpointReader::open(path, error);
    }
    // torch.save before 1.6 wrote a bare pickle stream starting with a magic number.
    if (head.startsWith("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8")) {
        *error = QStringLiteral("legacy PyTorch format (torch.save before 1.6) is not supported; "
                                "re-save it with a current torch.save");
        return nullptr;
    }
    *error = QStringLiteral("not a recognised checkpoint format");
    return nullptr;
}

} // namespace rankscope
