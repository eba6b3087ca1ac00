// The members of a tar archive (a NeMo .nemo), read from their 512-byte headers without extracting
// anything: each regular file's name and where its bytes lie, so that a member can be read in
// place. Headers as Python's tarfile writes them (PAX by default: ustar headers, 'x' extended
// headers for long names) and as GNU tar does (././@LongLink 'L' members, base-256 sizes); ustar's
// name prefix is joined. Every header's checksum is checked, every member must lie inside the
// file, and a name leading outside the archive ('..', an absolute path) is refused.
#pragma once

#include <QFile>
#include <QList>
#include <QSet>
#include <QString>

namespace rankscope {

struct TarMember {
    QString name;     // as stored, without a leading "./" ("mp_rank_00/model_weights.ckpt")
    qint64 offset = 0; // of its first byte in the archive
    qint64 size = 0;
    bool folder = false;
};

class TarDirectory {
public:
    // False and why when the archive is not a tar archive or is damaged.
    bool read(QFile &file, QString *error);

    const QList<TarMember> &members() const { return m_members; }
    const TarMember *find(const QString &name) const;

private:
    // One file or folder member of read(), checked: inside the archive, within the limits, named once.
    bool addMember(QString name, char type, qint64 data, qint64 size, QSet<QString> &files, QString *error);
    QList<TarMember> m_members;
};

} // namespace rankscope
