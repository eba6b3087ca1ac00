#include "io/NumpyReaders.h"

#include "io/RegularFile.h"

#include <QDir>
#include <QFileInfo>

namespace rankscope {

namespace {
constexpr quint64 kMaxArrayBytes = quint64(2) << 30; // one tensor: 2 GiB
}

std::unique_ptr<NpyFolderReader> NpyFolderReader::open(const QString &folder, QString *error)
{
    QStringList paths;
    for (const QFileInfo &file : QDir(folder).entryInfoList({QStringLiteral("*.npy")}, QDir::Files, QDir::Name))
        paths << file.filePath();
    return openFiles(paths, error);
}

std::unique_ptr<NpyFolderReader> NpyFolderReader::openFiles(const QStringList &paths, QString *error)
{
    std::unique_ptr<NpyFolderReader> reader(new NpyFolderReader);
    QStringList problems;
    for (const QString &path : paths) {
        const QFileInfo file(path);
        QString problem;
        std::optional<NpyHeader> header;
        if (const auto head = readRegularFileHead(file.filePath(), NpyFormat::kMaxHeaderBytes + 16, &problem))
            header = NpyFormat::parseHeader(*head, &problem);
        const QString name = file.completeBaseName();
        if (!header) {
            problems << QStringLiteral("%1: %2").arg(file.fileName(), problem);
            continue;
        }
        reader->m_tensors.append({name, header->shape, header->dtype});
        reader->m_paths.insert(name, file.filePath());
        reader->m_headers.insert(name, *header);
    }
    if (reader->m_tensors.isEmpty()) {
        *error = problems.isEmpty() ? QStringLiteral("no .npy arrays in the folder") : problems.join(QLatin1String("; "));
        return nullptr;
    }
    return reader;
}

StoredRead NpyFolderReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const NpyHeader header = m_headers.value(tensor.name);
    const qint64 needed = NpyFormat::dataBytes(header);
    QFile f(m_paths.value(tensor.name));
    if (!f.open(QIODevice::ReadOnly))
        return {{}, f.errorString()};
    if (needed < 0 || quint64(needed) > kMaxArrayBytes || f.size() - header.dataOffset < needed)
        return {{}, QStringLiteral("the file holds %1 data bytes, the header claims %2").arg(f.size() - header.dataOffset).arg(needed)};
    const qint64 matrixBytes = rows * cols * header.elementSize;
    if (slice >= 0 && !header.fortranOrder) {
        f.seek(header.dataOffset + slice * matrixBytes);
        return NpyFormat::decodeMatrix(header, f.read(matrixBytes), rows, cols);
    }
    f.seek(header.dataOffset);
    return NpyFormat::decodeMatrix(header, f.read(needed), rows, cols, slice);
}

std::unique_ptr<NpzReader> NpzReader::open(const QString &path, QString *error)
{
    std::unique_ptr<NpzReader> reader(new NpzReader);
    reader->m_file.setFileName(path);
    if (!reader->m_file.open(QIODevice::ReadOnly)) {
        *error = reader->m_file.errorString();
        return nullptr;
    }
    auto zip = ZipDirectory::read(reader->m_file, error);
    if (!zip)
        return nullptr;
    reader->m_zip = std::move(*zip);
    for (const ZipEntry &entry : reader->m_zip.entries()) {
        if (!entry.name.endsWith(QLatin1String(".npy")))
            continue;
        // Only the header is needed to list the tensor; read the whole (small) entry if compressed.
        QString problem;
        std::optional<QByteArray> head;
        if (entry.method == 0) {
            const auto start = reader->m_zip.dataOffset(reader->m_file, entry, &problem);
            if (start) {
                reader->m_file.seek(qint64(*start));
                head = reader->m_file.read(std::min<qint64>(qint64(entry.size), NpyFormat::kMaxHeaderBytes + 16));
            }
        } else {
            head = reader->m_zip.readEntry(reader->m_file, entry, kMaxArrayBytes, &problem);
        }
        std::optional<NpyHeader> header;
        if (head)
            header = NpyFormat::parseHeader(*head, &problem);
        if (!header) {
            *error = QStringLiteral("%1: %2").arg(entry.name, problem);
            return nullptr;
        }
        const QString name = entry.name.chopped(4);
        reader->m_tensors.append({name, header->shape, header->dtype});
        reader->m_entries.insert(name, entry.name);
    }
    if (reader->m_tensors.isEmpty()) {
        *error = QStringLiteral("no .npy arrays in the archive");
        return nullptr;
    }
    return reader;
}

StoredRead NpzReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const ZipEntry *entry = m_zip.find(m_entries.value(tensor.name));
    if (!entry)
        return {{}, QStringLiteral("its archive entry is missing")};
    QString error;
    const auto bytes = m_zip.readEntry(m_file, *entry, kMaxArrayBytes, &error);
    if (!bytes)
        return {{}, error};
    const auto header = NpyFormat::parseHeader(*bytes, &error);
    if (!header)
        return {{}, error};
    return NpyFormat::decodeMatrix(*header, bytes->mid(header->dataOffset), rows, cols, slice);
}

} // namespace rankscope
