// Writes DeepSpeed save folders for the reader and layout tests, as deepspeed/runtime/engine.py
// `_save_checkpoint` / `_save_zero_checkpoint` and zero/stage3.py `_rigid_state_dict`,
// zero/stage_1_and_2.py `state_dict` write them at DeepSpeed 38327e07f (0.16.x). Every file is a
// torch.save archive (pickle protocol 2 as Python's pickler emits it, with its memo puts and gets;
// the zip framing of TorchCheckpointWriter.h, without torch's 64-byte entry alignment). Matrices
// hold distinct values (or the values a test gives) and the padding a sentinel, so a wrong offset,
// order or truncation fails.
#pragma once

#include "TorchCheckpointWriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QTest>
#include <functional>
#include <limits>

namespace rankscope::test::deepspeed {

inline constexpr float kPadding = 999.0f;

// Python's pickle protocol 2 with memoization, as torch.save drives it.
class Pickler {
public:
    QByteArray bytes{"\x80\x02", 2};
    Pickler &op(const char *ops) { bytes.append(ops); return *this; }
    Pickler &op(char c) { bytes.append(c); return *this; }
    // BINPUT below 256 memo entries, LONG_BINPUT from there, as CPython's pickler writes them.
    Pickler &put()
    {
        if (m_next < 256) {
            bytes.append('q').append(char(m_next++));
        } else {
            bytes.append('r');
            appendLE<quint32>(quint32(m_next++));
        }
        return *this;
    }
    Pickler &str(const QString &s)
    {
        if (const auto it = m_memo.constFind(QStringLiteral("s:") + s); it != m_memo.constEnd())
            return get(*it);
        const QByteArray utf8 = s.toUtf8();
        bytes.append('X');
        appendLE<quint32>(quint32(utf8.size()));
        bytes.append(utf8);
        m_memo.insert(QStringLiteral("s:") + s, m_next);
        return put();
    }
    Pickler &integer(qint64 v)
    {
        if (v >= 0 && v < 256)
            return op('K').op(char(v));
        if (v >= 0 && v < 65536) {
            op('M');
            appendLE<quint16>(quint16(v));
            return *this;
        }
        if (v >= std::numeric_limits<qint32>::min() && v <= std::numeric_limits<qint32>::max()) {
            op('J');
            appendLE<qint32>(qint32(v));
            return *this;
        }
        op('\x8a').op(char(8)); // LONG1: Python writes the fewest bytes; 8 suffice for the tests
        appendLE<qint64>(v);
        return *this;
    }
    Pickler &global(const QString &module, const QString &name)
    {
        const QString key = QStringLiteral("g:") + module + QLatin1Char(' ') + name;
        if (const auto it = m_memo.constFind(key); it != m_memo.constEnd())
            return get(*it);
        bytes.append('c').append(module.toUtf8()).append('\n').append(name.toUtf8()).append('\n');
        m_memo.insert(key, m_next);
        return put();
    }
    // A tuple of what `items` writes: TUPLE1–3 up to three items, else MARK … TUPLE; memoized.
    template <typename Items>
    Pickler &tuple(int count, Items items)
    {
        if (count == 0)
            return op(')');
        if (count > 3)
            op('(');
        items();
        op(count == 1 ? '\x85' : count == 2 ? '\x86' : count == 3 ? '\x87' : 't');
        return put();
    }
    Pickler &intTuple(const QList<qint64> &values)
    {
        return tuple(int(values.size()), [&] {
            for (const qint64 v : values)
                integer(v);
        });
    }
    Pickler &size(const QList<qint64> &shape) // torch.Size(shape): REDUCE of torch.Size with (shape,)
    {
        global("torch", "Size");
        tuple(1, [&] { intTuple(shape); });
        return op('R').put();
    }
    Pickler &orderedDict() { global("collections", "OrderedDict"); return op(')').op('R').put(); }
    // _rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict()) of a float32 storage.
    Pickler &tensor(const QString &key, qint64 storageNumel, qint64 offset, const QList<qint64> &shape)
    {
        QList<qint64> stride(shape.size(), 1);
        for (qsizetype i = shape.size() - 2; i >= 0; --i)
            stride[i] = stride[i + 1] * shape[i + 1];
        global("torch._utils", "_rebuild_tensor_v2");
        op('(');
        tuple(5, [&] { str("storage").global("torch", "FloatStorage").str(key).str("cpu").integer(storageNumel); });
        op('Q');
        integer(offset).intTuple(shape).intTuple(stride).op('\x89').orderedDict();
        op('t').put();
        return op('R').put();
    }
    // A dict: EMPTY_DICT, then its items by SETITEM (one) or MARK … SETITEMS.
    template <typename Items>
    Pickler &dict(int count, Items items, bool ordered = false)
    {
        ordered ? orderedDict() : op('}').put();
        if (count == 0)
            return *this;
        if (count > 1)
            op('(');
        items();
        return op(count > 1 ? 'u' : 's');
    }
    template <typename Items>
    Pickler &list(int count, Items items)
    {
        op(']').put();
        if (count == 0)
            return *this;
        if (count > 1)
            op('(');
        items();
        return op(count > 1 ? 'e' : 'a');
    }

private:
    Pickler &get(int index)
    {
        if (index < 256)
            return op('h').op(char(index));
        op('j');
        appendLE<quint32>(quint32(index));
        return *this;
    }
    template <typename T>
    void appendLE(T v)
    {
        char b[sizeof(T)];
        qToLittleEndian(v, b);
        bytes.append(b, sizeof(T));
    }
    QHash<QString, int> m_memo;
    int m_next = 0;
};

// A torch.save archive named as torch names its entries (the file's stem as the folder).
inline void writeArchive(const QString &path, const QByteArray &pickle, const QList<QByteArray> &storages)
{
    const QString stem = QFileInfo(path).completeBaseName();
    QList<QPair<QString, QByteArray>> entries{{stem + "/data.pkl", pickle}, {stem + "/byteorder", "little"}};
    for (qsizetype k = 0; k < storages.size(); ++k)
        entries.append({stem + "/data/" + QString::number(k), storages[k]});
    entries.append({stem + "/version", "3\n"});
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(zipArchive(entries));
}

struct Param {
    QString name;
    QList<qint64> shape;
    qint64 numel() const
    {
        qint64 n = 1;
        for (const qint64 d : shape)
            n *= d;
        return n;
    }
    QList<float> values = {}; // row-major; empty: the values below
    // Distinct exact float32 values, different for every parameter (or the values given).
    float value(qint64 k, int index) const { return values.isEmpty() ? float(index * 1000 + k) * 0.25f : values[k]; }
};

// A tiny GPT block: numels 80, 35 (not divisible by 2 or 3), 7 (1-D), 30, 30.
inline QList<Param> trainable()
{
    return {{"wte.weight", {10, 8}},           {"h.0.attn.c_attn.weight", {5, 7}}, {"h.0.ln_1.weight", {7}},
            {"h.0.mlp.c_fc.weight", {6, 5}}, {"h.0.mlp.c_proj.weight", {5, 6}}};
}

inline QByteArray floats(const QList<float> &values) { return rawBytes<float>(values); }

struct Fixture {
    int world = 2;
    bool bf16 = false;
    qint64 globalSteps = 300;
    QList<Param> params = trainable();
    QList<Param> frozen = {{"wpe.weight", {4, 8}}};  // ZeRO-3 frozen: 32 elements, padded on the last rank of 3
    qint64 splitAt = -1;   // where each rank's flat is cut into two groups (inside a slice); -1: the middle
    bool clientArgs = false; // client_state {'args': argparse.Namespace}, merged into the model states
    bool sharedStorage = false; // hostile: the second flat group names the first group's storage
    // More client_state keys, written after DeepSpeed's own as state.update(client_state) orders
    // them: a trainer's checkpoint dict (Lightning's epoch, global_step, loops, …).
    std::function<void(Pickler &)> clientState = {};
};

// Each rank's ZeRO-3 fp32 flat: every parameter's ceil(numel / world) slice, padded, in order.
inline QList<QList<float>> zero3Flats(const Fixture &f, const QList<Param> &params, int firstIndex)
{
    QList<QList<float>> flats(f.world);
    for (qsizetype i = 0; i < params.size(); ++i) {
        const qint64 n = params[i].numel(), pn = (n + f.world - 1) / f.world;
        for (int r = 0; r < f.world; ++r)
            for (qint64 k = r * pn; k < (r + 1) * pn; ++k)
                flats[r] << (k < n ? params[i].value(k, int(i) + firstIndex) : kPadding);
    }
    return flats;
}

// The keys and order of engine.py's _save_checkpoint state, then its ds_config and ds_version.
inline void modelStatesTail(Pickler &p, const Fixture &f)
{
    p.str("lr_scheduler").op('N').str("data_sampler").op('N').str("random_ltd").op('N');
    p.str("sparse_tensor_module_names").global("__builtin__", "set").tuple(1, [&] { p.list(0, [] {}); }).op('R').put();
    p.str("skipped_steps").integer(0).str("global_steps").integer(f.globalSteps).str("global_samples").integer(f.globalSteps * 8);
    p.str("dp_world_size").integer(f.world).str("mp_world_size").integer(1);
    // DeepSpeedConfig: an object of DeepSpeed's, pickled by NEWOBJ and BUILD of its __dict__.
    p.str("ds_config").global("deepspeed.runtime.config", "DeepSpeedConfig").op(')').op('\x81').put();
    p.dict(1, [&] { p.str("train_batch_size").integer(8); }).op('b');
    p.str("ds_version").str("0.16.4");
    if (f.clientArgs)
        p.str("args").global("argparse", "Namespace").op(')').op('\x81').put().dict(1, [&] { p.str("lr").integer(1); }).op('b');
    if (f.clientState)
        f.clientState(p);
}

// zero_pp_rank_R_mp_rank_00_model_states.pt of ZeRO-3: module of placeholders and the buffer,
// param_shapes in two groups, this rank's frozen fragments, shared_params.
inline void writeZero3ModelStates(const QString &dir, const Fixture &f, int rank)
{
    Pickler p;
    QList<QByteArray> storages;
    auto storage = [&](const QList<float> &values) { storages << floats(values); return QString::number(storages.size() - 1); };
    const QList<Param> &params = f.params;
    const int count = 18;
    p.dict(count, [&] {
        p.str("module").dict(int(params.size()) + 2, [&] {
            p.str("h.0.attn.bias").tensor(storage({1, 0, 1, 1}), 4, 0, {2, 2});
            for (const Param &param : params)
                p.str(param.name).tensor(storage({}), 0, 0, {0});
            p.str("wpe.weight").tensor(storage({}), 0, 0, {0});
        }, true);
        p.str("buffer_names").list(1, [&] { p.str("h.0.attn.bias"); });
        p.str("optimizer").op('N');
        p.str("param_shapes").list(2, [&] {
            for (const auto &[from, to] : {std::pair{0, 2}, std::pair{2, int(params.size())}})
                p.dict(to - from, [&] {
                    for (int i = from; i < to; ++i)
                        p.str(params[i].name).size(params[i].shape);
                }, true);
        });
        p.str("frozen_param_shapes").dict(1, [&] { p.str("wpe.weight").size(f.frozen.first().shape); }, true);
        p.str("shared_params").dict(1, [&] { p.str("lm_head.weight").str("wte.weight"); });
        const QList<float> fragment = zero3Flats(f, f.frozen, 50)[rank];
        p.str("frozen_param_fragments").dict(1, [&] { p.str("wpe.weight").tensor(storage(fragment), fragment.size(), 0, {fragment.size()}); }, true);
        modelStatesTail(p, f);
    });
    p.op('.');
    writeArchive(QDir(dir).filePath(QStringLiteral("zero_pp_rank_%1_mp_rank_00_model_states.pt").arg(rank)), p.bytes, storages);
}

// [bf16_]zero_pp_rank_R_mp_rank_00_optim_states.pt: {optimizer_state_dict, ds_config, ds_version}.
template <typename Body>
inline void writeOptimStates(const QString &path, const Fixture &f, Body body, QList<QByteArray> &storages)
{
    Pickler p;
    p.dict(3, [&] {
        p.str("optimizer_state_dict").dict(0, [] {});
        p.op('(');
        body(p);
        p.op('u');
        p.str("ds_config").global("deepspeed.runtime.config", "DeepSpeedConfig").op(')').op('\x81').put();
        p.dict(1, [&] { p.str("train_batch_size").integer(8); }).op('b');
        p.str("ds_version").str("0.16.4");
    });
    p.op('.');
    Q_UNUSED(f);
    writeArchive(path, p.bytes, storages);
}

inline QString optimName(const Fixture &f, int rank)
{
    return QStringLiteral("%1zero_pp_rank_%2_mp_rank_00_optim_states.pt").arg(f.bf16 ? QStringLiteral("bf16_") : QString()).arg(rank);
}

// stage3 _rigid_state_dict: zero_stage = ZeroStageEnum.weights, partition_count, fp32_flat_groups.
inline void writeZero3OptimStates(const QString &dir, const Fixture &f, int rank)
{
    const QList<float> flat = zero3Flats(f, f.params, 0)[rank];
    const qint64 split = f.splitAt >= 0 ? f.splitAt : flat.size() / 2 + 1;
    QList<QByteArray> storages{floats(flat.mid(0, split)), floats(flat.mid(split))};
    writeOptimStates(QDir(dir).filePath(optimName(f, rank)), f, [&](Pickler &p) {
        p.str("zero_stage").global("deepspeed.runtime.zero.config", "ZeroStageEnum").tuple(1, [&] { p.integer(3); }).op('R').put();
        p.str("loss_scaler").global("deepspeed.runtime.fp16.loss_scaler", "LossScaler").op(')').op('\x81').put();
        p.dict(1, [&] { p.str("cur_scale").integer(1); }).op('b');
        p.str("dynamic_loss_scale").op('\x89').str("overflow").op('\x89').str("partition_count").integer(f.world);
        p.str("optimizer_state_dict").dict(0, [] {});
        p.str("fp32_flat_groups").list(2, [&] {
            p.tensor("0", split, 0, {split});
            p.tensor(f.sharedStorage ? "0" : "1", flat.size() - split, 0, {qint64(flat.size()) - split});
        });
    }, storages);
}

inline void writeZero3Tag(const QString &dir, const Fixture &f)
{
    QDir().mkpath(dir);
    for (int r = 0; r < f.world; ++r) {
        writeZero3ModelStates(dir, f, r);
        writeZero3OptimStates(dir, f, r);
    }
}

// mp_rank_00_model_states.pt up to ZeRO-2: module holds the weights (or, withModule false, is empty).
inline void writeZero2ModelStates(const QString &dir, const Fixture &f, bool withModule)
{
    Pickler p;
    QList<QByteArray> storages;
    p.dict(18, [&] {
        p.str("module").dict(withModule ? int(f.params.size()) : 0, [&] {
            for (qsizetype i = 0; i < f.params.size(); ++i) {
                QList<float> values;
                for (qint64 k = 0; k < f.params[i].numel(); ++k)
                    values << f.params[i].value(k, int(i));
                storages << floats(values);
                p.str(f.params[i].name).tensor(QString::number(storages.size() - 1), values.size(), 0, f.params[i].shape);
            }
        }, true);
        p.str("buffer_names").list(0, [] {});
        p.str("optimizer").op('N');
        p.str("param_shapes").list(1, [&] {
            p.dict(int(f.params.size()), [&] {
                for (const Param &param : f.params)
                    p.str(param.name).size(param.shape);
            }, true);
        });
        p.str("frozen_param_shapes").op('N').str("shared_params").dict(0, [] {}).str("frozen_param_fragments").op('N');
        modelStatesTail(p, f);
    });
    p.op('.');
    writeArchive(QDir(dir).filePath(QStringLiteral("mp_rank_00_model_states.pt")), p.bytes, storages);
}

// stage_1_and_2 state_dict: one group, flat-padded to 2·world, split evenly; each rank's
// single_partition_of_fp32_groups is its partition without the group padding (a view of it).
inline void writeZero2OptimStates(const QString &dir, const Fixture &f)
{
    QList<float> group;
    for (qsizetype i = 0; i < f.params.size(); ++i)
        for (qint64 k = 0; k < f.params[i].numel(); ++k)
            group << f.params[i].value(k, int(i));
    const qint64 numel = group.size(), align = 2 * f.world;
    while (group.size() % align)
        group << kPadding;
    const qint64 partition = group.size() / f.world;
    for (int r = 0; r < f.world; ++r) {
        const QList<float> mine = group.mid(r * partition, partition);
        const qint64 real = std::min(partition, numel - r * partition);
        QList<QByteArray> storages{floats(mine)};
        writeOptimStates(QDir(dir).filePath(optimName(f, r)), f, [&](Pickler &p) {
            p.str("loss_scaler").op('N').str("dynamic_loss_scale").op('\x89').str("overflow").op('\x89').str("clip_grad").integer(1);
            p.str("base_optimizer_state").dict(0, [] {});
            p.str("single_partition_of_fp32_groups").list(1, [&] { p.tensor("0", partition, 0, {real}); });
            p.str("zero_stage").global("deepspeed.runtime.zero.config", "ZeroStageEnum").tuple(1, [&] { p.integer(2); }).op('R').put();
            p.str("group_paddings").list(1, [&] { p.integer(group.size() - numel); });
            p.str("partition_count").list(1, [&] { p.integer(f.world); });
            p.str("ds_version").str("0.16.4");
        }, storages);
    }
}

inline void writeText(const QString &path, const QByteArray &text)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

} // namespace rankscope::test::deepspeed
