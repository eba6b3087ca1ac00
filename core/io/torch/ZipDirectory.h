// The central directory of a zip archive (as torch.save writes them): entry names, sizes and
// where each stored entry's bytes begin. Sizes come from the central directory, since
// torch.save's local headers hold zeros; ZIP64 records are understood.
#pragma once

#include <QFile>
#include <QHash>
#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

struct ZipEntry {
    QString name;
    quint64 size = 0;         // uncompressed
    quint64 compressedSize = 0;
    quint64 localHeaderOffset = 0;
    quint16 method = 0;       // 0 = stored; RankScope reads only stored entries
};

class ZipDirectory {
public:
    // Reads the directory of an open file; on failure returns nullopt and sets error. The archive
    // may be bytes [base, base + size) of a larger file (a torch.save archive inside a DCP .distcp
    // file or a tar): its offsets are then relative to base, and nothing outside is ever read.
    // size < 0: to the end of the file.
    static std::optional<ZipDirectory> read(QFile &file, QString *error, qint64 base = 0, qint64 size = -1);

    const QList<ZipEntry> &entries() const { return m_entries; }
    const ZipEntry *find(const QString &name) const;

    // Bytes [offset, offset + length) of an entry, inflated if deflate-compressed (as
    // np.savez_compressed writes) while holding only those: what comes before offset is inflated
    // and dropped. An entry declaring more than its compressed bytes can inflate to (a
    // decompression bomb) is refused before anything is allocated, and a stream that inflates past
    // its declared size is stopped.
    std::optional<QByteArray> readEntry(QFile &file, const ZipEntry &entry, quint64 offset, quint64 length, QString *error) const;

    // Where a stored entry's bytes start in the file (absolute, base included), checked to lie
    // inside the archive.
    std::optional<quint64> dataOffset(QFile &file, const ZipEntry &entry, QString *error) const;

private:
    std::optional<quint64> localDataStart(QFile &file, const ZipEntry &entry, quint64 storedBytes, QString *error) const;

    QList<ZipEntry> m_entries;
    quint64 m_base = 0; // where the archive starts in its file
    quint64 m_size = 0; // its bytes
    QHash<QString, qsizetype> m_index;
};

} // namespace rankscope
