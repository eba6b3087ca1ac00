// A big TensorBoard event file read in bounded memory (#46): a training run that logs images and
// histograms beside its scalars leaves an events.out.tfevents.* file of a gigabyte or more, and
// `rankscope info` (TrainingLogs::read) must find its few scalar curves without holding the file.
// Two modes, so that the read is measured in a fresh process (the writer's own memory would hide
// the reader's peak otherwise):
//   build/bin/bench_event_log write DIR [--megabytes N] [--steps S] [--image-kb K]
//       writes DIR/runs/exp/events.out.tfevents.<time>.host.1.0 of about N MB (default 1024) as a
//       writer would: the version record, then at every step of S (default 100000) one event per
//       add_scalar call for loss, learning_rate (simple_value, torch.utils.tensorboard's default)
//       and grad_norm (a float tensor, the "scalars" metadata on its first value only, as
//       tf.summary writes it); every 50 steps a histogram (HistogramProto, add_histogram's) and
//       a TF2-style histogram tensor ([k, 3] doubles, "histograms" metadata on the first only);
//       and, spread evenly over the steps, images of about K KB (default 384) until the file
//       reaches N MB, alternately add_image's Summary.Image and a TF2-style string tensor.
//   build/bin/bench_event_log read DIR
//       reads DIR with TrainingLogs::read (what `rankscope info` calls) and prints the event files'
//       size, the scalar points found per tag, the wall and CPU time of the read, the resident
//       memory at start, after the read and its peak (getrusage ru_maxrss), and what the
//       ScalarLog itself holds (points × sizeof(ScalarPoint)).
//   build/bin/bench_event_log [--megabytes N] [--steps S] [--image-kb K]
//       both, in a QTemporaryDir that is removed afterwards; the read runs in a child process.
//       Linux carries ru_maxrss across fork and exec, so the child's peak starts at the writer's
//       (its "peak so far" at start says so): for the reader's own peak run `read` by itself.
// The framing and the masked CRC-32C are the test encoder's (tests/core/TensorBoardEventWriter.h);
// the histogram and image values are encoded here. The read is from a warm page cache when it
// follows the write: it measures the reader, not the disk. Run by hand, never as a test.
#include "TensorBoardEventWriter.h"
#include "io/logs/ScalarLog.h"
#include "io/logs/TensorBoardEvents.h"
#include "io/logs/TrainingLogs.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sys/resource.h>

using namespace rankscope;
using namespace rankscope::test;
using Clock = std::chrono::steady_clock;

namespace {

// ---- What a writer writes besides scalars --------------------------------------------------------

// SummaryMetadata{plugin_data{plugin_name}}.
Proto pluginMetadata(const QByteArray &plugin) { return Proto().message(1, Proto().message(1, plugin)); }

QByteArray packedDoubles(const QList<double> &values)
{
    QByteArray b;
    b.reserve(values.size() * 8);
    for (const double v : values)
        b += Proto::le<quint64>(std::bit_cast<quint64>(v));
    return b;
}

// torch.utils.tensorboard's add_histogram: Summary.Value{tag, histo: HistogramProto{min = 1, max = 2,
// num = 3, sum = 4, sum_squares = 5, bucket_limit = 6 (packed double), bucket = 7 (packed double)}}.
Proto histogramValue(const QByteArray &tag, qint64 step, int buckets)
{
    QList<double> limits, counts;
    const double spread = 0.02 + 1e-6 * double(step);
    for (int i = 0; i < buckets; ++i) {
        const double x = -4 * spread + 8 * spread * (i + 1) / buckets;
        limits << x;
        counts << std::round(1e5 * std::exp(-0.5 * (x / spread) * (x / spread)));
    }
    Proto h;
    h.real(1, -4 * spread).real(2, 4 * spread).real(3, 1e6).real(4, 0.5).real(5, 1e6 * spread * spread);
    h.message(6, packedDoubles(limits)).message(7, packedDoubles(counts));
    return Proto().message(ValueTag, tag).message(ValueHisto, h);
}

// tf.summary.histogram (TF2): a DT_DOUBLE tensor of shape [k, 3] (left edge, right edge, count) in
// tensor_content, the "histograms" metadata on the tag's first value only.
Proto histogramTensorValue(const QByteArray &tag, qint64 step, int buckets, bool first)
{
    QList<double> cells;
    for (int i = 0; i < buckets; ++i)
        cells << double(i) / buckets << double(i + 1) / buckets << double((i * 7 + step) % 1000);
    const Proto shape = Proto().message(2, Proto().uint(1, quint64(buckets))).message(2, Proto().uint(1, 3));
    const Proto tensor = Proto().uint(1, DT_DOUBLE).message(2, shape).message(4, packedDoubles(cells));
    Proto value = Proto().message(ValueTag, tag).message(ValueTensor, tensor);
    return first ? value.message(ValueMetadata, pluginMetadata("histograms")) : value;
}

// add_image: Summary.Value{tag, image: Summary.Image{height = 1, width = 2, colorspace = 3,
// encoded_image_string = 4}}; the PNG's bytes are incompressible noise of the size asked.
Proto imageValue(const QByteArray &tag, QByteArrayView png)
{
    const Proto image = Proto().uint(1, 256).uint(2, 256).uint(3, 3).message(4, png.toByteArray());
    return Proto().message(ValueTag, tag).message(ValueImage, image);
}

// tf.summary.image (TF2): a DT_STRING tensor of shape [3] holding width, height and the PNG
// (string_val = 8), the "images" metadata on the tag's first value only.
Proto imageTensorValue(const QByteArray &tag, QByteArrayView png, bool first)
{
    const Proto shape = Proto().message(2, Proto().uint(1, 3));
    const Proto tensor = Proto().uint(1, DT_STRING).message(2, shape).message(8, QByteArray("256")).message(8, QByteArray("256")).message(8, png.toByteArray());
    Proto value = Proto().message(ValueTag, tag).message(ValueTensor, tensor);
    return first ? value.message(ValueMetadata, pluginMetadata("images")) : value;
}

// ---- Memory and time -----------------------------------------------------------------------------

// The peak resident set of this process so far (Linux: KiB).
long peakRssKb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}
double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}
// The resident set now (VmRSS of /proc/self/status, KiB).
long currentRssKb()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLong();
    return -1;
}
double mib(double kib) { return kib / 1024.0; }

QString cpuModel()
{
    QFile f(QStringLiteral("/proc/cpuinfo"));
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("unknown CPU");
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith("model name"))
            return QString::fromUtf8(line.mid(line.indexOf(':') + 1).trimmed());
    return QStringLiteral("unknown CPU");
}

// ---- The two modes -------------------------------------------------------------------------------

struct WriteOptions {
    qint64 megabytes = 1024;
    qint64 steps = 100000;
    qint64 imageKb = 384;
};

const char *kSidecar = "bench_event_log.json"; // what was written, for the read to check against

int write(const QString &folder, const WriteOptions &o)
{
    const QString dir = QDir(folder).filePath(QStringLiteral("runs/exp"));
    if (!QDir().mkpath(dir)) {
        std::fprintf(stderr, "cannot create %s\n", qPrintable(dir));
        return 1;
    }
    const QString path = QDir(dir).filePath(QStringLiteral("events.out.tfevents.%1.host.1.0").arg(QDateTime::currentSecsSinceEpoch()));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        std::fprintf(stderr, "cannot write %s: %s\n", qPrintable(path), qPrintable(file.errorString()));
        return 1;
    }
    const qint64 target = o.megabytes << 20, imageBytes = o.imageKb << 10;
    // A pool of noise twice an image's size: each image is a slice of it at its own offset.
    QByteArray pool(2 * imageBytes, Qt::Uninitialized);
    QRandomGenerator random(46);
    random.fillRange(reinterpret_cast<quint32 *>(pool.data()), pool.size() / 4);

    const auto start = Clock::now();
    qint64 written = 0, records = 0, images = 0, histograms = 0, scalarRecords = 0, largest = 0;
    auto put = [&](const QByteArray &data) {
        const QByteArray r = record(data);
        if (file.write(r) != r.size()) {
            std::fprintf(stderr, "cannot write %s: %s\n", qPrintable(path), qPrintable(file.errorString()));
            std::exit(1);
        }
        written += r.size();
        largest = std::max<qint64>(largest, r.size());
        ++records;
    };
    put(Proto().real(EventWallTime, 1.7e9).message(EventFileVersion, QByteArray("brain.Event:2")).bytes);
    for (qint64 step = 1; step <= o.steps; ++step) {
        const double loss = 2.0 + 8.0 * std::exp(-double(step) / 5000.0) + 0.05 * std::sin(double(step));
        const double rate = 3e-4 * std::min(1.0, double(step) / 2000.0) * (0.5 + 0.5 * std::cos(M_PI * double(step) / double(o.steps)));
        put(eventBytes(step, summary({simpleValue("loss", float(loss))})));
        put(eventBytes(step, summary({simpleValue("learning_rate", float(rate))})));
        put(eventBytes(step, summary({tensorValue("grad_norm", float(1.0 + 1.0 / std::sqrt(double(step))), step == 1)})));
        scalarRecords += 3;
        if (step % 50 == 0) {
            put(eventBytes(step, summary({histogramValue("weights/layer0.attn.q_proj", step, 1000)})));
            put(eventBytes(step, summary({histogramTensorValue("grads/layer0.mlp.fc1", step, 500, histograms == 0)})));
            histograms += 2;
        }
        // Images spread evenly: one whenever the file is half an image behind its share of the target.
        while (written + imageBytes / 2 < target * step / o.steps) {
            const QByteArrayView png(pool.constData() + (images * 4099) % imageBytes, imageBytes);
            put(eventBytes(step, summary({images % 2 ? imageTensorValue("samples/generated", png, images == 1) : imageValue("samples/input", png)})));
            ++images;
        }
    }
    file.close();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("wrote %s\n  %lld bytes (%.1f MiB) in %.1f s: %lld records, %lld scalar events (3 tags × %lld steps), %lld histograms, %lld images of %lld KiB; largest record %lld bytes\n",
                qPrintable(path), qlonglong(written), written / 1048576.0, seconds, qlonglong(records), qlonglong(scalarRecords), qlonglong(o.steps),
                qlonglong(histograms), qlonglong(images), qlonglong(o.imageKb), qlonglong(largest));
    QFile sidecar(QDir(folder).filePath(QLatin1String(kSidecar)));
    if (sidecar.open(QIODevice::WriteOnly | QIODevice::Truncate))
        sidecar.write(QJsonDocument(QJsonObject{{"steps", double(o.steps)}, {"bytes", double(written)}, {"records", double(records)}}).toJson());
    return 0;
}

int read(const QString &folder)
{
    const long rssStart = currentRssKb(), peakStart = peakRssKb();
    qint64 bytes = 0;
    int files = 0;
    for (QDirIterator it(folder, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
        const QFileInfo info(it.next());
        if (TensorBoardEvents::isEventFile(info.fileName()))
            bytes += info.size(), ++files;
    }
    qint64 steps = -1;
    QFile sidecar(QDir(folder).filePath(QLatin1String(kSidecar)));
    if (sidecar.open(QIODevice::ReadOnly))
        steps = qint64(QJsonDocument::fromJson(sidecar.readAll()).object().value("steps").toDouble(-1));

    const double cpuStart = cpuSeconds();
    const auto start = Clock::now();
    const ScalarLog log = TrainingLogs::read(folder);
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    const double cpu = cpuSeconds() - cpuStart;
    const long rssAfter = currentRssKb(), peakAfter = peakRssKb();

    std::printf("%s, %d cores\n", qPrintable(cpuModel()), QThread::idealThreadCount());
    std::printf("event files: %d, %lld bytes (%.1f MiB)\n", files, qlonglong(bytes), bytes / 1048576.0);
    qint64 points = 0;
    bool ok = true;
    for (const ScalarSeries &s : log.series()) {
        std::printf("  %-16s %lld points, steps %lld – %lld\n", qPrintable(s.tag), qlonglong(s.points.size()), qlonglong(s.points.first().step),
                    qlonglong(s.points.last().step));
        points += s.points.size();
        ok = ok && (steps < 0 || s.points.size() == steps);
    }
    ok = ok && log.series().size() == 3 && log.problems().isEmpty();
    for (const ScalarLogProblem &p : log.problems())
        std::printf("  problem: %s: %s\n", qPrintable(p.path), qPrintable(p.text));
    std::printf("TrainingLogs::read: %.3f s wall, %.3f s CPU (%.0f MiB/s)\n", wall, cpu, bytes / 1048576.0 / wall);
    std::printf("resident memory: %.1f MiB at start (peak so far %.1f MiB), %.1f MiB after the read, peak %.1f MiB (+%.1f MiB over the start)\n",
                mib(rssStart), mib(peakStart), mib(rssAfter), mib(peakAfter), mib(peakAfter - rssStart));
    std::printf("the ScalarLog holds %lld points × %d bytes = %.2f MiB\n", qlonglong(points), int(sizeof(ScalarPoint)),
                double(points) * sizeof(ScalarPoint) / 1048576.0);
    if (!ok)
        std::printf("UNEXPECTED: 3 tags of %lld points each and no problems were expected\n", qlonglong(steps));
    return ok ? 0 : 1;
}

int usage()
{
    std::fprintf(stderr, "usage: bench_event_log write DIR [--megabytes N] [--steps S] [--image-kb K]\n"
                         "       bench_event_log read DIR\n"
                         "       bench_event_log [--megabytes N] [--steps S] [--image-kb K]   (both, in a temporary folder)\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    const QString mode = args.value(0);
    if (mode == QLatin1String("read"))
        return args.size() == 2 ? read(args[1]) : usage();

    QString folder;
    if (mode == QLatin1String("write")) {
        if (args.size() < 2)
            return usage();
        folder = args[1];
        args = args.mid(2);
    }
    WriteOptions o;
    for (qsizetype i = 0; i < args.size(); i += 2) {
        bool valid = false;
        const qint64 v = args.value(i + 1).toLongLong(&valid);
        if (!valid || v <= 0)
            return usage();
        if (args[i] == QLatin1String("--megabytes"))
            o.megabytes = v;
        else if (args[i] == QLatin1String("--steps"))
            o.steps = v;
        else if (args[i] == QLatin1String("--image-kb"))
            o.imageKb = v;
        else
            return usage();
    }
    if (!folder.isEmpty())
        return write(folder, o);

    // Both: write into a temporary folder, read it in a fresh process, remove it.
    QTemporaryDir temporary;
    if (!temporary.isValid() || write(temporary.path(), o) != 0)
        return 1;
    QProcess reader;
    reader.setProcessChannelMode(QProcess::ForwardedChannels);
    reader.start(app.applicationFilePath(), {QStringLiteral("read"), temporary.path()});
    if (!reader.waitForFinished(-1))
        return 1;
    return reader.exitCode();
}
