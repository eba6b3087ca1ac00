// Writes a GPT-2-small-shaped nanoGPT run for the analysis benchmark: 12 layers, d = 768, fused
// c_attn, float32, in torch.save's zip format, with trained-like decaying spectra.
//   make_synthetic_run OUT_FOLDER [checkpoints=2] [layers=12] [d=768]
// Each checkpoint is streamed to disk entry by entry; nothing holds a whole checkpoint in memory.
#include "../tests/core/TorchCheckpointWriter.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <cmath>
#include <cstdio>
#include <random>

using namespace rankscope::test;

namespace {

// A stored-entry zip written as it goes: local headers carry zero sizes, as torch.save's do.
class StreamingZip {
public:
    explicit StreamingZip(const QString &path) : m_file(path) { m_file.open(QIODevice::WriteOnly | QIODevice::Truncate); }

    void add(const QString &name, const QByteArray &data)
    {
        const quint32 offset = quint32(m_file.pos());
        const QByteArray n = name.toUtf8();
        QByteArray header;
        u32(header, 0x04034b50); u16(header, 20); u16(header, 8); u16(header, 0); u16(header, 0); u16(header, 0);
        u32(header, 0); u32(header, 0); u32(header, 0); u16(header, quint16(n.size())); u16(header, 0);
        m_file.write(header + n);
        m_file.write(data);
        u32(m_directory, 0x02014b50); u16(m_directory, 20); u16(m_directory, 20); u16(m_directory, 8); u16(m_directory, 0);
        u16(m_directory, 0); u16(m_directory, 0); u32(m_directory, 0);
        u32(m_directory, quint32(data.size())); u32(m_directory, quint32(data.size()));
        u16(m_directory, quint16(n.size())); u16(m_directory, 0); u16(m_directory, 0); u16(m_directory, 0); u16(m_directory, 0);
        u32(m_directory, 0); u32(m_directory, offset);
        m_directory.append(n);
        ++m_count;
    }

    void finish()
    {
        const quint32 directoryOffset = quint32(m_file.pos());
        m_file.write(m_directory);
        QByteArray end;
        u32(end, 0x06054b50); u16(end, 0); u16(end, 0); u16(end, quint16(m_count)); u16(end, quint16(m_count));
        u32(end, quint32(m_directory.size())); u32(end, directoryOffset); u16(end, 0);
        m_file.write(end);
        m_file.close();
    }

private:
    static void u16(QByteArray &b, quint16 v) { char c[2]; qToLittleEndian(v, c); b.append(c, 2); }
    static void u32(QByteArray &b, quint32 v) { char c[4]; qToLittleEndian(v, c); b.append(c, 4); }
    QFile m_file;
    QByteArray m_directory;
    int m_count = 0;
};

// Gaussian entries whose columns fall off as a power law, so the spectrum decays like a trained
// layer's; `progress` in [0, 1] steepens the decay as training goes on.
QByteArray trainedLike(int rows, int cols, double progress, std::mt19937_64 &rng)
{
    std::normal_distribution<float> gauss(0.0f, 0.02f);
    QByteArray bytes(qsizetype(rows) * cols * 4, Qt::Uninitialized);
    auto *values = reinterpret_cast<float *>(bytes.data());
    std::vector<float> scale(static_cast<size_t>(cols));
    for (int c = 0; c < cols; ++c)
        scale[size_t(c)] = float(1.0 + (2.0 + 30.0 * progress) * std::pow(c + 1.0, -0.5 - progress));
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            values[qsizetype(r) * cols + c] = gauss(rng) * scale[size_t(c)];
    return bytes;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: make_synthetic_run OUT_FOLDER [checkpoints=2] [layers=12] [d=768]\n");
        return 1;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    const int checkpoints = argc > 2 ? std::atoi(argv[2]) : 2;
    const int layers = argc > 3 ? std::atoi(argv[3]) : 12;
    const int d = argc > 4 ? std::atoi(argv[4]) : 768;
    QDir().mkpath(out);
    std::mt19937_64 rng(12345);
    for (int c = 0; c < checkpoints; ++c) {
        const int step = c * 1000;
        const QString stem = QStringLiteral("ckpt_%1").arg(step, 6, 10, QLatin1Char('0'));
        StreamingZip zip(QDir(out).filePath(stem + ".pt"));
        QList<FakeTensor> tensors;
        QList<QPair<QString, QByteArray>> pending;
        int key = 0;
        auto tensor = [&](const QString &name, int rows, int cols) {
            tensors.append({name, "FloatStorage", QString::number(key), qint64(rows) * cols, 0, {rows, cols}, {cols, 1}});
            return QString::number(key++);
        };
        // The pickle comes first in the archive, so list every tensor before writing data.
        for (int l = 0; l < layers; ++l) {
            const QString p = QStringLiteral("transformer.h.%1.").arg(l);
            tensor(p + "attn.c_attn.weight", 3 * d, d);
            tensor(p + "attn.c_proj.weight", d, d);
            tensor(p + "mlp.c_fc.weight", 4 * d, d);
            tensor(p + "mlp.c_proj.weight", d, 4 * d);
        }
        zip.add(stem + "/data.pkl", torchPickle(tensors, step, std::max(1, d / 64))); // GPT-2: 64-wide heads
        zip.add(stem + "/byteorder", "little");
        const double progress = checkpoints > 1 ? double(c) / (checkpoints - 1) : 1.0;
        for (const FakeTensor &t : tensors)
            zip.add(stem + "/data/" + t.key, trainedLike(int(t.shape[0]), int(t.shape[1]), progress, rng));
        zip.add(stem + "/version", "3\n");
        zip.finish();
        std::printf("wrote %s/%s.pt (%d tensors)\n", qPrintable(out), qPrintable(stem), int(tensors.size()));
    }
    return 0;
}
