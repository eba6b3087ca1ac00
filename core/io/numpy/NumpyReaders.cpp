#include "io/numpy/NumpyReaders.h"

#include "io/MemoryBudget.h"
#include "io/RegularFile.h"

#include <QDir>
#include <QFileInfo>

namespace rankscope {

namespace {
constexpr quint64 kMaxArrayBytes = quint64(2) << 30; // one tensor: 2 GiB

// A stack of matrices (3-D: experts) whose header declares more data than the `fileBytes` after
// its header hold: refused when the archive or folder is opened, before anything is planned for
// each of its matrices. A single matrix short of bytes is said when it is read.
QString declaredMatrixProblem(const TensorInfo &tensor, const NpyHeader &header, qint64 fileBytes)
{
    if (tensor.shape.size() != 3)
        return {};
    return declaredSizeProblem(tensor, std::max<qint64>(fileBytes - header.dataOffset, 0));
}
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
        QFile f;
        QString problem;
        std::optional<NpyHeader> header;
        if (RegularFile::open(f, file.filePath(), &problem))
            header = NpyFormat::parseHeader(f.read(NpyFormat::kMaxHeaderBytes + 16), &problem);
        const QString name = file.completeBaseName();
        if (!header) {
            problems << QStringLiteral("%1: %2").arg(file.fileName(), problem);
            continue;
        }
        if (const QString lie = declaredMatrixProblem({name, header->shape, header->dtype}, *header, f.size()); !lie.isEmpty()) {
            reader->refuseTensor(name, lie);
            continue;
        }
        reader->m_tensors.append({name, header->shape, header->dtype});
        reader->m_paths.insert(name, file.filePath());
        reader->m_headers.insert(name, *header);
    }
    if (reader->m_tensors.isEmpty()) {
        problems << reader->m_warnings;
        *error = problems.isEmpty() ? QStringLiteral("no .npy arrays in the folder") : problems.join(QLatin1String("; "));
        return nullptr;
    }
    // An array that cannot be read beside others that can is said with the checkpoint.
    reader->m_warnings << problems;
    return reader;
}

StoredRead NpyFolderReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const NpyHeader header = m_headers.value(tensor.name);
    const qint64 needed = NpyFormat::dataBytes(header);
    QFile f;
    QString error;
    if (!RegularFile::open(f, m_paths.value(tensor.name), &error))
        return {{}, error};
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
    if (!RegularFile::open(reader->m_file, path, error))
        return nullptr;
    auto zip = ZipDirectory::read(reader->m_file, error);
    if (!zip)
        return nullptr;
    reader->m_zip = std::move(*zip);
    for (const ZipEntry &entry : reader->m_zip.entries()) {
        if (!entry.name.endsWith(QLatin1String(".npy")))
            continue;
        // Only the header is needed to list the tensor.
        QString problem;
        const std::optional<QByteArray> head =
            reader->m_zip.readEntry(reader->m_file, entry, 0, std::min<quint64>(entry.size, NpyFormat::kMaxHeaderBytes + 16), &problem);
        if (!head) {
            *error = problem; // it names the entry
            return nullptr;
        }
        const std::optional<NpyHeader> header = NpyFormat::parseHeader(*head, &problem);
        if (!header) {
            *error = QStringLiteral("%1: %2").arg(entry.name, problem);
            return nullptr;
        }
        const QString name = entry.name.chopped(4);
        if (const QString lie = declaredMatrixProblem({name, header->shape, header->dtype}, *header, qint64(std::min<quint64>(entry.size, quint64(1) << 62)));
            !lie.isEmpty()) {
            reader->refuseTensor(name, lie);
            continue;
        }
        reader->m_tensors.append({name, header->shape, header->dtype});
        reader->m_entries.insert(name, entry.name);
        reader->m_headers.insert(name, *header);
    }
    if (reader->m_tensors.isEmpty()) {
        *error = reader->m_warnings.isEmpty() ? QStringLiteral("no .npy arrays in the archive") : reader->m_warnings.join(QLatin1String("; "));
        return nullptr;
    }
    return reader;
}

StoredRead NpzReader::readElements(const TensorInfo &tensor, qint64 slice, qint64 rows, qint64 cols)
{
    const ZipEntry *entry = m_zip.find(m_entries.value(tensor.name));
    if (!entry)
        return {{}, QStringLiteral("its archive entry is missing")};
    const NpyHeader header = m_headers.value(tensor.name);
    const qint64 needed = NpyFormat::dataBytes(header);
    if (needed < 0 || quint64(needed) > entry->size - std::min<quint64>(entry->size, quint64(header.dataOffset)))
        return {{}, QStringLiteral("its entry holds %1 bytes, fewer than its header and the %2 data bytes it claims").arg(entry->size).arg(needed)};
    QString error;
    if (!header.fortranOrder) {
        // Row-major: the matrix is one run of bytes, and only those are inflated and kept.
        const qint64 matrixBytes = rows * cols * header.elementSize;
        const auto bytes = m_zip.readEntry(m_file, *entry, quint64(header.dataOffset + std::max<qint64>(slice, 0) * matrixBytes),
                                           quint64(matrixBytes), &error);
        return bytes ? NpyFormat::decodeMatrix(header, *bytes, rows, cols) : StoredRead{{}, error};
    }
    // Column-major: one matrix's elements are spread over the whole array, which is read whole.
    if (needed > MemoryBudget::maxMatrixBytes())
        return {{}, QStringLiteral("a column-major array is read whole, and its %1 are more than the %2 one matrix may use")
                        .arg(MemoryBudget::bytesText(needed), MemoryBudget::bytesText(MemoryBudget::maxMatrixBytes()))};
    const auto bytes = m_zip.readEntry(m_file, *entry, quint64(header.dataOffset), quint64(needed), &error);
    return bytes ? NpyFormat::decodeMatrix(header, *bytes, rows, cols, slice) : StoredRead{{}, error};
}

} // namespace rankscope
