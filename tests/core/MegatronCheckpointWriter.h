// Writes Megatron-LM legacy checkpoints for the tests, byte for byte as torch.save (pickle protocol 2,
// a stored zip) writes what megatron/training/checkpointing.py's generate_state_dict builds:
// {'args': argparse.Namespace(...), 'checkpoint_version': 3.0, 'iteration': N, 'model': {...},
//  'optimizer': {...}, 'rng_state': [...]}, the model a nested dict as the legacy GPTModel's
// state_dict_for_save_checkpoint nests it, or flat as Megatron-Core's state_dict is. An
// argparse.Namespace pickles as NEWOBJ of the class with an empty tuple, then BUILD with its __dict__.
// Also a tar writer, as Python's tarfile writes a .nemo (ustar headers, 512-byte blocks).
#pragma once

#include "TorchCheckpointWriter.h"

#include <Eigen/Core>
#include <QDir>
#include <QFile>
#include <QVariant>

namespace rankscope::test {

// The tiny model the Megatron-family suites (legacy-on-DeepSpeed, NeMo) save: 4 query heads in 2
// groups of head_dim 2 (kv_channels), hidden 8, ffn 6, 2 layers, vocabulary 16, tensor parallel 2.
namespace tiny_megatron {
constexpr int H = 8, HEADS = 4, GROUPS = 2, HD = 2, FF = 6, LAYERS = 2, VOCAB = 16, TP = 2;
} // namespace tiny_megatron

// One tensor of the model: its path of dict keys (the last one may hold dots: "layers.0.mlp.…"), its
// shape and values (row-major; a vector is one row).
struct MegatronEntry {
    QStringList path;
    QList<qint64> shape;
    Eigen::MatrixXd values;
};

class MegatronPickle {
public:
    // args: the Namespace's fields in order (int, bool, double or string values).
    MegatronPickle(const QList<QPair<QString, QVariant>> &args, qint64 iteration) : m_args(args), m_iteration(iteration) {}
    // The model chunks: one under 'model', or several under 'model0', 'model1', … (virtual pipeline).
    void addChunk(const QList<MegatronEntry> &model) { m_chunks << model; }
    void setCheckpointVersion(double version) { m_version = version; }
    // A storage holding fewer elements than a tensor declares (hostile input).
    void setStorageElements(const QString &tensorPath, qint64 elements) { m_storageOverride.insert(tensorPath, elements); }

    QByteArray archive()
    {
        m_storages.clear();
        m_prefix = "archive";
        PickleBuilder p;
        p.op('\x80').op('\x02').op('}').op('(');
        argsVersionAndIteration(p);
        for (qsizetype c = 0; c < m_chunks.size(); ++c) {
            p.str(m_chunks.size() == 1 ? QStringLiteral("model") : QStringLiteral("model%1").arg(c));
            dict(p, m_chunks[c], 0);
        }
        // Optimizer state beside the model: a matrix that is never weights.
        p.str("optimizer").op('}').op('(').str("exp_avg");
        tensor(p, {{"optimizer", "exp_avg"}, {2, 2}, Eigen::MatrixXd::Ones(2, 2)});
        p.op('u');
        p.str("rng_state").op(']').op('(').str("cpu").op('e');
        p.op('u').op('.');
        QList<QPair<QString, QByteArray>> entries{{"archive/data.pkl", p.bytes}, {"archive/byteorder", "little"}};
        entries.append(m_storages);
        entries.append(qMakePair(QStringLiteral("archive/version"), QByteArray("3\n")));
        return zipArchive(entries);
    }

    // What NeMo's model_weights.ckpt is: torch.save(state_dict) of the first chunk alone, flat.
    QByteArray stateDictArchive()
    {
        m_storages.clear();
        m_prefix = "model_weights"; // torch.save names the archive's folder after the file
        PickleBuilder p;
        p.op('\x80').op('\x02');
        dict(p, m_chunks.first(), 0);
        p.op('.');
        QList<QPair<QString, QByteArray>> entries{{"model_weights/data.pkl", p.bytes}, {"model_weights/byteorder", "little"}};
        entries.append(m_storages);
        entries.append(qMakePair(QStringLiteral("model_weights/version"), QByteArray("3\n")));
        return zipArchive(entries);
    }

    // What DeepSpeed's engine.py _save_checkpoint writes for Megatron-DeepSpeed (megatron/checkpointing.py
    // save_checkpoint with --deepspeed --no-pipeline-parallel): mp_rank_TT_model_states.pt, the first
    // chunk under 'module' as the legacy GPTModel's state_dict_for_save_checkpoint nests it, DeepSpeed's
    // own keys, and Megatron's client_state (args, checkpoint_version, iteration) merged at top level.
    QByteArray deepSpeedModelStatesArchive(int mpRank, int mpWorldSize)
    {
        m_storages.clear();
        m_prefix = QStringLiteral("mp_rank_%1_model_states").arg(mpRank, 2, 10, QLatin1Char('0'));
        PickleBuilder p;
        p.op('\x80').op('\x02').op('}').op('(');
        p.str("module");
        dict(p, m_chunks.first(), 0);
        p.str("buffer_names").op(']').str("optimizer").op('N').str("lr_scheduler").op('N');
        p.str("global_steps").integer(m_iteration).str("global_samples").integer(m_iteration * 8);
        p.str("dp_world_size").integer(1).str("mp_world_size").integer(mpWorldSize).str("ds_version").str("0.16.3");
        argsVersionAndIteration(p);
        p.op('u').op('.');
        QList<QPair<QString, QByteArray>> entries{{m_prefix + "/data.pkl", p.bytes}, {m_prefix + "/byteorder", "little"}};
        entries.append(m_storages);
        entries.append(qMakePair(m_prefix + "/version", QByteArray("3\n")));
        return zipArchive(entries);
    }

private:
    // args (an argparse.Namespace of m_args), checkpoint_version and iteration, as save_checkpoint
    // writes them into both the legacy and the Megatron-DeepSpeed state dicts.
    void argsVersionAndIteration(PickleBuilder &p)
    {
        p.str("args").global("argparse", "Namespace").op(')').op('\x81').op('}').op('(');
        for (const auto &[key, value] : m_args)
            scalar(p.str(key), value);
        p.op('u').op('b');
        p.str("checkpoint_version");
        floating(p, m_version);
        p.str("iteration").integer(m_iteration);
    }
    void scalar(PickleBuilder &p, const QVariant &v)
    {
        if (v.typeId() == QMetaType::Bool)
            p.op(v.toBool() ? '\x88' : '\x89');
        else if (v.typeId() == QMetaType::Double)
            floating(p, v.toDouble());
        else if (v.typeId() == QMetaType::QString)
            p.str(v.toString());
        else if (v.isNull())
            p.op('N');
        else
            p.integer(v.toLongLong());
    }
    static void floating(PickleBuilder &p, double v)
    {
        char buffer[8];
        qToBigEndian(v, buffer);
        p.op('G');
        p.bytes.append(buffer, 8);
    }
    // The entries whose path continues past `depth` under one key, in order of first appearance.
    void dict(PickleBuilder &p, const QList<MegatronEntry> &entries, int depth)
    {
        p.op('}').op('(');
        QStringList keys;
        for (const MegatronEntry &e : entries)
            if (!keys.contains(e.path[depth]))
                keys << e.path[depth];
        for (const QString &key : keys) {
            QList<MegatronEntry> under;
            for (const MegatronEntry &e : entries)
                if (e.path[depth] == key)
                    under << e;
            p.str(key);
            if (under.size() == 1 && under.first().path.size() == depth + 1)
                tensor(p, under.first());
            else
                dict(p, under, depth + 1);
        }
        p.op('u');
    }
    void tensor(PickleBuilder &p, const MegatronEntry &e)
    {
        const QString key = QString::number(m_storages.size());
        QList<float> values;
        for (Eigen::Index r = 0; r < e.values.rows(); ++r)
            for (Eigen::Index c = 0; c < e.values.cols(); ++c)
                values << float(e.values(r, c));
        const qint64 numel = m_storageOverride.value(e.path.join('/'), values.size());
        QList<qint64> stride(e.shape.size(), 1);
        for (qsizetype i = e.shape.size() - 2; i >= 0; --i)
            stride[i] = stride[i + 1] * e.shape[i + 1];
        p.global("torch._utils", "_rebuild_tensor_v2").op('(');
        p.op('(').str("storage").global("torch", "FloatStorage").str(key).str("cpu").integer(numel).op('t').op('Q');
        p.integer(0).intTuple(e.shape).intTuple(stride).op('\x89');
        p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        m_storages.append({m_prefix + "/data/" + key, rawBytes(values.mid(0, numel))});
    }

    QList<QPair<QString, QVariant>> m_args;
    qint64 m_iteration;
    double m_version = 3.0;
    QList<QList<MegatronEntry>> m_chunks;
    QHash<QString, qint64> m_storageOverride;
    QList<QPair<QString, QByteArray>> m_storages;
    QString m_prefix = "archive";
};

inline void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(bytes);
}

// A tar archive as Python's tarfile writes a .nemo (tarfile.open(name, "w:"), DEFAULT_FORMAT =
// PAX_FORMAT): a 512-byte ustar header per member (name, octal mode/size/mtime, checksum, typeflag '0'
// or '5', the POSIX magic "ustar\0" "00"), the data padded to 512 bytes, two zero blocks at the end. A
// name over 100 bytes goes in a pax extended header ('x', "././@PaxHeader", record "NN path=…\n")
// first. `declaredSize` overrides the header's size (hostile input).
struct TarEntry {
    QString name;
    QByteArray data;
    bool folder = false;
    qint64 declaredSize = -1;
};

inline QByteArray tarHeader(const QByteArray &name, qint64 size, char type)
{
    QByteArray h(512, '\0');
    auto put = [&](int at, const QByteArray &field) { std::memcpy(h.data() + at, field.constData(), size_t(field.size())); };
    put(0, name.left(100));
    put(100, "0000644");
    put(108, "0000000");
    put(116, "0000000");
    put(124, QByteArray::number(size, 8).rightJustified(11, '0'));
    put(136, "00000000000");
    h[156] = type;
    put(257, QByteArray("ustar\0" "00", 8));
    put(148, QByteArray(8, ' '));
    unsigned sum = 0;
    for (char c : h)
        sum += static_cast<unsigned char>(c);
    put(148, QByteArray::number(sum, 8).rightJustified(6, '0') + QByteArray("\0 ", 2));
    return h;
}

inline QByteArray tarArchive(const QList<TarEntry> &members)
{
    QByteArray out;
    auto pad = [&] { out.append(QByteArray((512 - out.size() % 512) % 512, '\0')); };
    for (const TarEntry &m : members) {
        const QByteArray name = m.name.toUtf8();
        if (name.size() > 100) {
            // A pax record's length counts its own digits.
            const QByteArray body = " path=" + name + "\n";
            qsizetype length = body.size() + 1;
            while (QByteArray::number(length).size() + body.size() != length)
                ++length;
            const QByteArray record = QByteArray::number(length) + body;
            out.append(tarHeader("././@PaxHeader", record.size(), 'x'));
            out.append(record);
            pad();
        }
        out.append(tarHeader(name, m.declaredSize >= 0 ? m.declaredSize : m.data.size(), m.folder ? '5' : '0'));
        out.append(m.data);
        pad();
    }
    out.append(QByteArray(1024, '\0'));
    return out;
}

} // namespace rankscope::test
