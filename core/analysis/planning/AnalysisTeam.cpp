#include "analysis/planning/AnalysisTeam.h"

#include <QDataStream>
#include <QIODevice>
#include <algorithm>
#include <numeric>
#include <type_traits>

namespace rankscope {

namespace {

// Every member runs the same build, so the metrics travel as their bytes: the leader keeps exactly
// the numbers the member computed (no refit, no rounding).
static_assert(std::is_trivially_copyable_v<SpectralMetrics>);
constexpr quint32 kShareMagic = 0x52534333; // "RSC3": with heads and their R (--heads)

// A result's head, key/value head and R (--heads), never more values than the bytes left hold.
bool readHead(QDataStream &in, qint64 size, MatrixResult &r)
{
    qint32 head = -1, kvHead = -1;
    qint64 rows = 0, cols = 0;
    in >> head >> kvHead >> rows >> cols;
    if (in.status() != QDataStream::Ok || rows < 0 || cols < 0 || (cols > 0 && rows > (size - in.device()->pos()) / qint64(sizeof(double)) / cols))
        return false;
    r.head = head;
    r.kvHead = kvHead;
    r.headFactor.resize(rows, cols);
    const int bytes = int(r.headFactor.size() * sizeof(double));
    return in.readRawData(reinterpret_cast<char *>(r.headFactor.data()), bytes) == bytes;
}

} // namespace

QByteArray CheckpointShare::serialized() const
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << kShareMagic << qint32(matricesDone) << costSeconds << timings.readSeconds << timings.spectraSeconds
        << timings.metricsSeconds << qint32(timings.matricesOnDevice) << qint32(timings.matricesOnCpu) << qint32(issues.size());
    for (const AnalysisIssue &issue : issues)
        out << issue.path << issue.tensor << issue.message << issue.wholeFile;
    out << qint32(results.size());
    for (const MatrixResult &r : results) {
        out << r.step << r.unnumbered << r.block << qint32(r.layer) << qint32(r.type) << r.expert << r.tensor << r.checkpointPath
            << r.dtype << r.rows << r.cols << r.contentHash << qint64(r.singularValues.size());
        out.writeRawData(reinterpret_cast<const char *>(r.singularValues.data()), int(r.singularValues.size() * sizeof(double)));
        out << qint64(r.deltaSingularValues.size());
        out.writeRawData(reinterpret_cast<const char *>(r.deltaSingularValues.data()), int(r.deltaSingularValues.size() * sizeof(double)));
        out << qint64(r.topVectors.rows()) << qint64(r.topVectors.cols());
        out.writeRawData(reinterpret_cast<const char *>(r.topVectors.data()), int(r.topVectors.size() * sizeof(float)));
        out.writeRawData(reinterpret_cast<const char *>(&r.metrics), int(sizeof(SpectralMetrics)));
        // --heads: the leader pairs each query head's R with its key/value head's for the circuits.
        out << qint32(r.head) << qint32(r.kvHead) << qint64(r.headFactor.rows()) << qint64(r.headFactor.cols());
        out.writeRawData(reinterpret_cast<const char *>(r.headFactor.data()), int(r.headFactor.size() * sizeof(double)));
    }
    return bytes;
}

std::optional<CheckpointShare> CheckpointShare::fromBytes(const QByteArray &bytes)
{
    QDataStream in(bytes);
    in.setVersion(QDataStream::Qt_6_4);
    CheckpointShare share;
    quint32 magic = 0;
    qint32 done = 0, issueCount = 0, resultCount = 0;
    qint32 onDevice = 0, onCpu = 0;
    in >> magic >> done >> share.costSeconds >> share.timings.readSeconds >> share.timings.spectraSeconds >> share.timings.metricsSeconds
       >> onDevice >> onCpu >> issueCount;
    share.timings.matricesOnDevice = onDevice;
    share.timings.matricesOnCpu = onCpu;
    if (magic != kShareMagic || issueCount < 0)
        return std::nullopt;
    share.matricesDone = done;
    for (qint32 i = 0; i < issueCount && in.status() == QDataStream::Ok; ++i) {
        AnalysisIssue issue;
        in >> issue.path >> issue.tensor >> issue.message >> issue.wholeFile;
        share.issues << issue;
    }
    in >> resultCount;
    for (qint32 i = 0; i < resultCount && in.status() == QDataStream::Ok; ++i) {
        MatrixResult r;
        qint32 layer = 0, type = 0;
        qint64 count = 0;
        in >> r.step >> r.unnumbered >> r.block >> layer >> type >> r.expert >> r.tensor >> r.checkpointPath >> r.dtype >> r.rows >> r.cols >> r.contentHash >> count;
        // Never more values than the bytes left hold.
        if (in.status() != QDataStream::Ok || count < 0 || count > (bytes.size() - in.device()->pos()) / qint64(sizeof(double)))
            return std::nullopt;
        if (type < 0 || type >= kMatrixTypeCount)
            return std::nullopt;
        r.layer = layer;
        r.type = MatrixType(type);
        r.singularValues.resize(count);
        if (in.readRawData(reinterpret_cast<char *>(r.singularValues.data()), int(count * sizeof(double))) != int(count * sizeof(double)))
            return std::nullopt;
        qint64 deltaCount = 0;
        in >> deltaCount;
        if (in.status() != QDataStream::Ok || deltaCount < 0 || deltaCount > (bytes.size() - in.device()->pos()) / qint64(sizeof(double)))
            return std::nullopt;
        r.deltaSingularValues.resize(deltaCount);
        if (in.readRawData(reinterpret_cast<char *>(r.deltaSingularValues.data()), int(deltaCount * sizeof(double))) != int(deltaCount * sizeof(double)))
            return std::nullopt;
        qint64 vectorRows = 0, vectorCols = 0;
        in >> vectorRows >> vectorCols;
        if (in.status() != QDataStream::Ok || vectorRows < 0 || vectorCols < 0 ||
            (vectorCols > 0 && vectorRows > (bytes.size() - in.device()->pos()) / qint64(sizeof(float)) / vectorCols))
            return std::nullopt;
        r.topVectors.resize(vectorRows, vectorCols);
        if (in.readRawData(reinterpret_cast<char *>(r.topVectors.data()), int(r.topVectors.size() * sizeof(float))) != int(r.topVectors.size() * sizeof(float)) ||
            in.readRawData(reinterpret_cast<char *>(&r.metrics), int(sizeof(SpectralMetrics))) != int(sizeof(SpectralMetrics)))
            return std::nullopt;
        if (!readHead(in, bytes.size(), r))
            return std::nullopt;
        share.results << std::move(r);
    }
    if (in.status() != QDataStream::Ok || !in.atEnd())
        return std::nullopt;
    return share;
}

QList<int> AnalysisTeam::assignByCost(const QList<double> &costs, QList<double> &load)
{
    if (load.isEmpty())
        load.resize(1, 0.0);
    QList<int> order(costs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return costs[a] > costs[b]; });
    QList<int> owner(costs.size(), 0);
    for (const int item : order) {
        int least = int(load.size()) - 1;
        for (int member = least - 1; member >= 0; --member)
            if (load[member] < load[least])
                least = member;
        owner[item] = least;
        load[least] += costs[item];
    }
    return owner;
}

} // namespace rankscope
