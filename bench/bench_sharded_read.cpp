// Times reading a model split the way large-scale trainers write it against reading the same
// weights from one safetensors file (#27): a Megatron-Core torch_dist save (torch.distributed.
// checkpoint: layer stacks [L, out, in], each (layer, TP rank) a torch.save chunk in its rank's
// .distcp file, stitched by offset) of two tensor-parallel ranks, and model.safetensors with one
// tensor per matrix. Both hold float32 GPT-style layers (linear_qkv 3d×d, linear_proj d×d,
// linear_fc1 4d×d, linear_fc2 d×4d); every matrix is read as the analysis reads it (as stored,
// then widened to float64). The files are written once into FOLDER and read with a warm page
// cache, so the difference is the readers' own cost. Run by hand:
//   build/bin/bench_sharded_read [FOLDER] [layers] [hidden] [repeats]
#include "DcpCheckpointWriter.h"
#include "FormatWriters.h"
#include "io/CheckpointFormats.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace rankscope;
using namespace rankscope::test;
using Clock = std::chrono::steady_clock;

namespace {

struct Parameter {
    QString name; // Megatron-Core's, without the layer
    qint64 rows, cols;
    bool onColumns; // row-parallel (split on columns) or column-parallel (on rows)
};

QList<Parameter> parameters(qint64 d)
{
    return {{"self_attention.linear_qkv.weight", 3 * d, d, false},
            {"self_attention.linear_proj.weight", d, d, true},
            {"mlp.linear_fc1.weight", 4 * d, d, false},
            {"mlp.linear_fc2.weight", d, 4 * d, true}};
}

// The torch_dist folder: one stacked tensor per parameter, one chunk per (layer, TP rank).
void writeTorchDist(const QString &folder, qint64 layers, qint64 d)
{
    DcpFolderSpec spec;
    spec.megatron = true;
    for (const Parameter &p : parameters(d)) {
        DcpTensorSpec t{"decoder.layers." + p.name, {layers, p.rows, p.cols}, {}};
        for (qint64 l = 0; l < layers; ++l)
            for (int r = 0; r < 2; ++r)
                t.chunks.append(p.onColumns ? DcpChunkSpec{{l, 0, r * p.cols / 2}, {1, p.rows, p.cols / 2}, QStringLiteral("__%1_0.distcp").arg(r)}
                                            : DcpChunkSpec{{l, r * p.rows / 2, 0}, {1, p.rows / 2, p.cols}, QStringLiteral("__%1_0.distcp").arg(r)});
        spec.tensors.append(t);
    }
    DcpFolderWriter::write(folder, spec);
    DcpFolderWriter::writeBytes(QDir(folder).filePath("metadata.json"), R"({"sharded_backend": "torch_dist", "sharded_backend_version": 1})");
    // common.pt as Megatron writes it: the iteration, and args (an argparse.Namespace) giving the
    // shape the naming rules split linear_qkv by: heads of 64, one query group per head.
    PyObjects o;
    const PyRef args = o.newObj("argparse", "Namespace",
                                o.fields({{"num_layers", pyInt(layers)}, {"hidden_size", pyInt(d)}, {"ffn_hidden_size", pyInt(4 * d)},
                                          {"num_attention_heads", pyInt(std::max<qint64>(1, d / 64))}, {"group_query_attention", pyBool(false)},
                                          {"swiglu", pyBool(false)}, {"tensor_model_parallel_size", pyInt(2)}, {"pipeline_model_parallel_size", pyInt(1)}}));
    DcpFolderWriter::writeBytes(QDir(folder).filePath("common.pt"),
                                torchSaveArchive(o.fields({{"args", args}, {"checkpoint_version", pyFloat(3.0)}, {"iteration", pyInt(100)}}), {}));
}

// The same elements (DcpTensorSpec's default: element i of a stack is 1 + i) as one file.
void writeSafetensors(const QString &path, qint64 layers, qint64 d)
{
    QList<SafeTensor> tensors;
    for (const Parameter &p : parameters(d))
        for (qint64 l = 0; l < layers; ++l) {
            QByteArray data(p.rows * p.cols * 4, Qt::Uninitialized);
            auto *out = reinterpret_cast<float *>(data.data());
            const qint64 first = l * p.rows * p.cols;
            for (qint64 i = 0; i < p.rows * p.cols; ++i)
                out[i] = float(1 + first + i);
            tensors.append({QStringLiteral("decoder.layers.%1.%2").arg(l).arg(p.name), "F32", {p.rows, p.cols}, data});
        }
    saveBytes(path, safetensorsFile(tensors));
}

qint64 folderBytes(const QString &folder)
{
    qint64 total = 0;
    for (const QFileInfo &f : QDir(folder).entryInfoList(QDir::Files | QDir::Hidden))
        total += f.size();
    return total;
}

// Seconds to read and widen every matrix, and a checksum so that nothing is optimised away.
std::pair<double, double> readAll(WeightsLayout layout, const QStringList &files)
{
    const auto start = Clock::now();
    QString error;
    auto reader = openCheckpointFiles(layout, files, &error);
    if (!reader) {
        std::fprintf(stderr, "cannot open: %s\n", qPrintable(error));
        std::exit(1);
    }
    double sum = 0;
    for (const TensorInfo &t : reader->tensors()) {
        const MatrixRead m = reader->readMatrix(t.name);
        if (!m.ok()) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(t.name), qPrintable(m.error));
            std::exit(1);
        }
        sum += m.values(0, 0) + m.values(m.values.rows() - 1, m.values.cols() - 1);
    }
    return {std::chrono::duration<double>(Clock::now() - start).count(), sum};
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

QString cpuModel()
{
    QFile f("/proc/cpuinfo");
    if (!f.open(QIODevice::ReadOnly))
        return "unknown CPU";
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith("model name"))
            return QString::fromUtf8(line.mid(line.indexOf(':') + 1).trimmed());
    return "unknown CPU";
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QString folder = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QDir::temp().filePath("rankscope-bench-sharded");
    const qint64 layers = argc > 2 ? std::atoll(argv[2]) : 24, d = argc > 3 ? std::atoll(argv[3]) : 1024;
    const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
    const QString dist = QDir(folder).filePath("iter_0000100"), single = QDir(folder).filePath("model.safetensors");
    if (!QFileInfo::exists(QDir(dist).filePath(".metadata"))) {
        std::printf("writing %lld layers of d = %lld into %s …\n", qlonglong(layers), qlonglong(d), qPrintable(folder));
        writeTorchDist(dist, layers, d);
        writeSafetensors(single, layers, d);
    }
    QStringList distFiles{QDir(dist).filePath(".metadata")};
    for (const QFileInfo &f : QDir(dist).entryInfoList({"*.distcp"}, QDir::Files, QDir::Name))
        distFiles << f.filePath();

    std::printf("%s, %d cores; %lld matrices; torch_dist %.2f GB in %lld files, safetensors %.2f GB\n", qPrintable(cpuModel()),
                QThread::idealThreadCount(), qlonglong(layers * 4), folderBytes(dist) / 1e9, qlonglong(distFiles.size()),
                QFileInfo(single).size() / 1e9);
    readAll(WeightsLayout::DistributedCheckpoint, distFiles); // warm the page cache
    readAll(WeightsLayout::OneFile, {single});
    std::vector<double> distTimes, singleTimes;
    double distSum = 0, singleSum = 0;
    for (int i = 0; i < repeats; ++i) {
        const auto [t1, s1] = readAll(WeightsLayout::DistributedCheckpoint, distFiles);
        const auto [t2, s2] = readAll(WeightsLayout::OneFile, {single});
        distTimes.push_back(t1);
        singleTimes.push_back(t2);
        distSum = s1;
        singleSum = s2;
    }
    std::printf("median of %d, every matrix read and widened to float64:\n", repeats);
    std::printf("  safetensors, one file        %.3f s\n", median(singleTimes));
    std::printf("  torch_dist, TP 2, stitched   %.3f s  (%.2f× the safetensors time)\n", median(distTimes), median(distTimes) / median(singleTimes));
    std::printf("  checksums %s\n", distSum == singleSum ? "equal" : "DIFFER");
    return distSum == singleSum ? 0 : 1;
}
