#include "io/FileContent.h"
#include "base/PrintableText.h"

#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "io/numpy/NpyFormat.h"
#include "io/RegularFile.h"
#include "io/TrainingFileNames.h"

#include <QFileInfo>
#include <QStringList>

namespace rankscope {

namespace {

void probeNpy(const QString &path, FileContent &content)
{
    content.kind = FileContent::Kind::NpyArray;
    content.format = QStringLiteral("numpy-npy");
    QString error;
    const auto head = readRegularFileHead(path, NpyFormat::kMaxHeaderBytes + 16, &error);
    const std::optional<NpyHeader> header = head ? NpyFormat::parseHeader(*head, &error) : std::nullopt;
    if (!header) {
        content.unreadable = true;
        content.detail = QStringLiteral("a .npy array that cannot be read: %1").arg(error);
        return;
    }
    const qsizetype rank = header->shape.size();
    content.arrayRank = int(rank);
    const QString name = QFileInfo(path).completeBaseName();
    content.namedMatrix = rank >= 2 && looksLikeTensorName(name);
    if (rank < 2)
        content.detail = QStringLiteral("a %1-D %2 array of %3 values, not a matrix").arg(rank).arg(header->dtype).arg(rank == 1 ? header->shape[0] : 1);
    else if (!content.namedMatrix)
        content.detail = QStringLiteral("a %1 array %2 whose name does not read as a tensor name").arg(header->dtype, shapeText(header->shape));
    else
        content.detail = QStringLiteral("the tensor %1, %2 %3").arg(name, header->dtype, shapeText(header->shape));
}

} // namespace

bool looksLikeTensorName(const QString &name)
{
    return name.contains(QLatin1Char('.')) || name.contains(QLatin1Char('/')) ||
           name.endsWith(QLatin1String("weight"), Qt::CaseInsensitive) || name.endsWith(QLatin1String("kernel"), Qt::CaseInsensitive);
}

FileContent FileContent::probe(const QString &path)
{
    FileContent content;
    if (const QString irregular = notRegularFileReason(path); !irregular.isEmpty()) {
        content.kind = Kind::NotRegular;
        content.detail = irregular + QStringLiteral(": not read");
        return content;
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    // A file with a weights suffix that cannot be read is a damaged checkpoint, and says so. Not
    // .bin: it holds data just as often (nanoGPT's train.bin), so there only the bytes decide.
    const bool namedAsWeights = weightFileSuffixes().contains(suffix) && suffix != QLatin1String("bin");
    QString error;
    const std::optional<QByteArray> head = readRegularFileHead(path, 16, &error);
    if (!head) {
        content.kind = namedAsWeights ? Kind::DamagedWeights : Kind::NotAFormat;
        content.detail = error;
        return content;
    }
    if (head->isEmpty()) {
        content.kind = namedAsWeights ? Kind::DamagedWeights : Kind::NotAFormat;
        content.detail = QStringLiteral("empty file (0 bytes)");
        return content;
    }
    // A results file of RankScope's own: not weights, and left to the results file's reader.
    if (head->size() == 16 && QByteArray(kResultsFileSeal).startsWith(*head)) {
        content.detail = QStringLiteral("a RankScope results file");
        return content;
    }
    if (NpyFormat::hasMagic(*head)) {
        probeNpy(path, content);
        return content;
    }
    const std::unique_ptr<CheckpointReader> reader = openCheckpoint(path, &error);
    if (!reader) {
        // A checkpoint that cannot be read is one whose name says weights; checkpoint bytes under
        // another name (run.h5.tmp-123, model.pt.partial) are a file being written or left over.
        const bool claimsWeights = namedAsWeights || (suffix == QLatin1String("bin") && hasCheckpointSignature(*head));
        content.kind = claimsWeights ? Kind::DamagedWeights : Kind::NotAFormat;
        content.detail = error;
        return content;
    }
    content.format = reader->formatName();
    const bool npz = content.format == QLatin1String("numpy-npz");
    for (const TensorInfo &t : reader->tensors())
        if (t.shape.size() >= 2 && (!npz || looksLikeTensorName(t.name)))
            ++content.matrices;
    if (content.matrices == 0) {
        content.kind = Kind::NoMatrices;
        content.detail = QStringLiteral("a %1 file holding no matrices by name (%2 tensors)").arg(content.format).arg(reader->tensors().size());
        return content;
    }
    content.kind = Kind::Weights;
    content.stepInFile = reader->step();
    content.detail = QStringLiteral("%1, %2 matrices by name").arg(content.format).arg(content.matrices);
    return content;
}

} // namespace rankscope
