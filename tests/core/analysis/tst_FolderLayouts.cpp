// Real training folders as users leave them: each layout is built here, small, beside its clean
// equivalent, and must give exactly the clean equivalent's rows (plus a named duplicate, sidecar or
// note). Sidecars and stray files are classified by content and role, never analysed as checkpoints.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/execution/RunAnalyzer.h"
#include "analysis/results/MetricsTable.h"
#include "FormatWriters.h"
#include "io/CheckpointFormats.h"
#include "io/RegularFile.h"
#include "TestSuite.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtConcurrent>
#include <random>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace tst_folderlayouts {

using namespace rankscope;
using namespace rankscope::test;

namespace {

using Tensors = QList<QPair<QString, Eigen::MatrixXf>>;

// A two-layer nanoGPT (d = 8): fused c_attn, attention and MLP projections, each a pseudo-random
// matrix of its own for `seed`: 12 typed matrices.
Tensors tinyGpt(int seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> gauss;
    Tensors tensors;
    for (int layer = 0; layer < 2; ++layer)
        for (const auto &[name, rows, cols] : {std::tuple{"attn.c_attn", 24, 8}, {"attn.c_proj", 8, 8}, {"mlp.c_fc", 32, 8}, {"mlp.c_proj", 8, 32}}) {
            Eigen::MatrixXf m(rows, cols);
            for (Eigen::Index i = 0; i < m.size(); ++i)
                m.data()[i] = gauss(rng);
            tensors.append({QStringLiteral("transformer.h.%1.%2.weight").arg(layer).arg(QLatin1String(name)), m});
        }
    return tensors;
}

QByteArray rowMajorFloats(const Eigen::MatrixXf &m)
{
    QList<float> values;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c)
            values << m(r, c);
    return rawBytes(values);
}

// torch.save of {weightsKey: OrderedDict(tensors), metadata…, 'model_args': {'n_head': 2}}, as
// nanoGPT (weightsKey 'model', iter_num) or Lightning ('state_dict', global_step and epoch) write it.
QByteArray torchFile(const Tensors &tensors, const QList<QPair<QString, qint64>> &metadata, const QString &weightsKey = QStringLiteral("model"))
{
    PickleBuilder p;
    p.op('\x80').op('\x02').op('}').op('(').str(weightsKey).global("collections", "OrderedDict").op(')').op('R').op('(');
    QList<QPair<QString, QByteArray>> entries;
    for (qsizetype i = 0; i < tensors.size(); ++i) {
        const auto &[name, m] = tensors[i];
        const QString key = QString::number(i);
        p.str(name).global("torch._utils", "_rebuild_tensor_v2").op('(');
        p.op('(').str("storage").global("torch", "FloatStorage").str(key).str("cpu").integer(m.size()).op('t').op('Q');
        p.integer(0).intTuple({m.rows(), m.cols()}).intTuple({m.cols(), 1}).op('\x89');
        p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        entries.append({QStringLiteral("archive/data/") + key, rowMajorFloats(m)});
    }
    p.op('u');
    for (const auto &[key, value] : metadata)
        p.str(key).integer(value);
    p.str("model_args").op('}').op('(').str("n_head").integer(2).op('u');
    p.op('u').op('.');
    entries.prepend({QStringLiteral("archive/data.pkl"), p.bytes});
    return zipArchive(entries);
}

// A torch.save of a plain dict of small values and 1-D tensors: a GradScaler's or RNG state.
QByteArray torchStateFile(const QList<QPair<QString, qint64>> &values, const QStringList &vectors = {})
{
    PickleBuilder p;
    p.op('\x80').op('\x02').op('}').op('(');
    QList<QPair<QString, QByteArray>> entries;
    for (const auto &[key, value] : values)
        p.str(key).integer(value);
    for (qsizetype i = 0; i < vectors.size(); ++i) {
        p.str(vectors[i]).global("torch._utils", "_rebuild_tensor_v2").op('(');
        p.op('(').str("storage").global("torch", "ByteStorage").str(QString::number(i)).str("cpu").integer(16).op('t').op('Q');
        p.integer(0).intTuple({16}).intTuple({1}).op('\x89');
        p.global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        entries.append({QStringLiteral("archive/data/%1").arg(i), QByteArray(16, '\x07')});
    }
    p.op('u').op('.');
    entries.prepend({QStringLiteral("archive/data.pkl"), p.bytes});
    return zipArchive(entries);
}

QByteArray safetensorsOf(const Tensors &tensors)
{
    QList<SafeTensor> list;
    for (const auto &[name, m] : tensors)
        list.append({name, QStringLiteral("F32"), {m.rows(), m.cols()}, rowMajorFloats(m)});
    return safetensorsFile(list);
}

void write(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    saveBytes(path, bytes);
}

// safetensors and .npy carry no hyper-parameters: a run's config.json says the model is GPT-2.
void writeGpt2Config(const QString &folder)
{
    write(QDir(folder).filePath("config.json"), R"({"model_type": "gpt2", "n_head": 2})");
}

void setModified(const QString &path, qint64 secondsAgo)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.setFileTime(QDateTime::currentDateTime().addSecs(-secondsAgo), QFileDevice::FileModificationTime));
}

void copyFile(const QString &from, const QString &to)
{
    QDir().mkpath(QFileInfo(to).absolutePath());
    QVERIFY2(QFile::copy(from, to), qPrintable(to));
}

RunAnalysis analyse(const QString &folder)
{
    AnalysisSettings settings;
    settings.jobs = 2;
    return RunAnalyzer(settings).analyzeFolder(folder);
}

// The rows `rankscope analyze --csv` writes: every column but the source file.
QByteArray rowsOf(const RunAnalysis &run)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    MetricsTable::writeCsv(run.results, buffer);
    return buffer.data();
}

QStringList issueTexts(const RunAnalysis &run)
{
    QStringList texts;
    for (const AnalysisIssue &issue : run.issues)
        texts << issue.text();
    return texts;
}

const SkippedFile *skipped(const RunAnalysis &run, const QString &fileName)
{
    for (const SkippedFile &s : run.sidecars)
        if (QFileInfo(s.path).fileName() == fileName)
            return &s;
    return nullptr;
}

const ClassifiedFile *classified(const CheckpointListing &listing, const QString &fileName)
{
    for (const ClassifiedFile &f : listing.files)
        if (QFileInfo(f.path).fileName() == fileName)
            return &f;
    return nullptr;
}

QList<qint64> stepsOf(const RunAnalysis &run)
{
    QList<qint64> steps;
    for (const CheckpointRecord &c : run.checkpoints)
        steps << c.step;
    return steps;
}

// The same analysis, row for row, as the clean folder's; nothing reported as unreadable.
#define COMPARE_WITH_CLEAN(messy, clean)                                                                  \
    do {                                                                                                 \
        QVERIFY2((messy).issues.isEmpty(), qPrintable(issueTexts(messy).join('\n')));                    \
        QVERIFY(!(clean).results.isEmpty());                                                             \
        QCOMPARE(rowsOf(messy), rowsOf(clean));                                                          \
    } while (false)

// The clean folder's rows, and exactly one whole-file problem for each of `files` (what looks like a
// checkpoint and cannot be read): said, never a silent omission.
#define COMPARE_WITH_CLEAN_BUT_NAMED(messy, clean, files)                                                  \
    do {                                                                                                 \
        QStringList named;                                                                               \
        for (const AnalysisIssue &issue : (messy).issues)                                                \
            named << QFileInfo(issue.path).fileName();                                                   \
        named.sort();                                                                                    \
        QStringList expected = (files);                                                                  \
        expected.sort();                                                                                 \
        QVERIFY2(named == expected, qPrintable(issueTexts(messy).join('\n')));                           \
        QVERIFY(!(clean).results.isEmpty());                                                             \
        QCOMPARE(rowsOf(messy), rowsOf(clean));                                                          \
    } while (false)

// Root reads every folder whatever its mode: for as long as it lives, this makes the calling thread
// (where discovery lists folders) obey permissions as any user does, so that a test of a folder
// without read permission means the same under CI's root as for a user.
class PermissionsObeyed {
public:
    PermissionsObeyed()
    {
        if (::geteuid() != 0 || syscall(SYS_capget, &m_header, m_saved) != 0)
            return;
        __user_cap_data_struct lowered[2] = {m_saved[0], m_saved[1]};
        lowered[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
        m_lowered = syscall(SYS_capset, &m_header, lowered) == 0;
    }
    ~PermissionsObeyed()
    {
        if (m_lowered)
            syscall(SYS_capset, &m_header, m_saved);
    }
    bool active() const { return ::geteuid() != 0 || m_lowered; }

private:
    __user_cap_header_struct m_header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct m_saved[2] = {};
    bool m_lowered = false;
};

} // namespace

class TestFolderLayouts : public QObject {
    Q_OBJECT
private slots:
    // A nanochat run (model_N.pt beside meta_N.json) with a stray losses.npy: the .npy is one 1-D
    // array, not a checkpoint, and the run is analysed whole.
    void strayLossesNpyBesideANanochatRun()
    {
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()})
            for (int step : {100, 200}) {
                write(QDir(dir).filePath(QStringLiteral("model_%1.pt").arg(step, 6, 10, QLatin1Char('0'))), torchFile(tinyGpt(step), {}));
                write(QDir(dir).filePath(QStringLiteral("meta_%1.json").arg(step, 6, 10, QLatin1Char('0'))),
                      QStringLiteral(R"({"step": %1, "model_config": {"n_head": 2}})").arg(step).toUtf8());
            }
        write(messy.filePath("losses.npy"), npyFile("<f4", {100}, rawBytes(QList<float>(100, 2.5f))));
        write(messy.filePath("optim_000200_rank0.pt"), torchStateFile({{"step", 200}}));
        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN(run, analyse(clean.path()));
        QCOMPARE(stepsOf(run), (QList<qint64>{100, 200}));
        QVERIFY(skipped(run, "losses.npy"));
        QVERIFY2(skipped(run, "losses.npy")->reason.contains("1-D float32 array of 100 values"), qPrintable(skipped(run, "losses.npy")->reason));
        QVERIFY(skipped(run, "optim_000200_rank0.pt")->reason.contains("optimizer state"));
    }

    // A folder of .npy arrays is one checkpoint only when its arrays are named matrices.
    void npyArraysAreACheckpointOnlyWhenNamedMatrices()
    {
        QTemporaryDir run;
        for (const auto &[name, m] : tinyGpt(1))
            write(run.filePath(name + ".npy"), npyFile("<f4", {m.rows(), m.cols()}, rowMajorFloats(m)));
        write(run.filePath("losses.npy"), npyFile("<f4", {100}, rawBytes(QList<float>(100, 1.0f))));
        write(run.filePath("confusion.npy"), npyFile("<f4", {2, 2}, rawBytes<float>({1, 2, 3, 4})));
        writeGpt2Config(run.path());
        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        QCOMPARE(listing.checkpoints[0].files.size(), 9); // a matrix beside named matrices is read with them
        QCOMPARE(classified(listing, "losses.npy")->role, FileRole::Other);
        QCOMPARE(classified(listing, "confusion.npy")->role, FileRole::WeightArray);
        QCOMPARE(classified(listing, "transformer.h.0.mlp.c_fc.weight.npy")->role, FileRole::WeightArray);
        const RunAnalysis analysis = analyse(run.path());
        QCOMPARE(analysis.results.size(), 12);
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));

        // Arrays none of which is a named matrix are no checkpoint.
        QTemporaryDir strays;
        write(strays.filePath("losses.npy"), npyFile("<f4", {100}, rawBytes(QList<float>(100, 1.0f))));
        write(strays.filePath("confusion.npy"), npyFile("<f4", {2, 2}, rawBytes<float>({1, 2, 3, 4})));
        QVERIFY(CheckpointDiscovery::scan(strays.path()).checkpoints.isEmpty());
    }

    // Six good checkpoints and a stray pytorch_model.bin.index.json whose shards are not there.
    void strayShardIndexWithMissingShards()
    {
        QTemporaryDir clean, messy;
        const QDir demo(RANKSCOPE_DEMO_RUN);
        for (const QString &name : demo.entryList(QDir::Files)) {
            copyFile(demo.filePath(name), clean.filePath(name));
            copyFile(demo.filePath(name), messy.filePath(name));
        }
        write(messy.filePath("pytorch_model.bin.index.json"),
              R"({"weight_map": {"a": "pytorch_model-00001-of-00002.bin", "b": "pytorch_model-00002-of-00002.bin"}})");
        const RunAnalysis run = analyse(messy.path());
        // The index promises a checkpoint that is not here: the rest is analysed, and that is said.
        COMPARE_WITH_CLEAN_BUT_NAMED(run, analyse(clean.path()), QStringList{"pytorch_model.bin.index.json"});
        QCOMPARE(run.checkpointsAnalysed, 6);
        QVERIFY(skipped(run, "pytorch_model.bin.index.json"));
        QVERIFY(skipped(run, "pytorch_model.bin.index.json")->reason.contains("shard(s) are not here"));
    }

    // A checkpoint folder without read permission is named with the system's reason, and the rest of
    // the run is analysed; opened directly, it says the same rather than "no checkpoints".
    void unreadableFoldersAreNamed()
    {
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()})
            for (int step : {100, 200})
                write(QDir(dir).filePath(QStringLiteral("checkpoint-%1/pytorch_model.bin").arg(step)), torchFile(tinyGpt(step), {}));
        const QString locked = messy.filePath("checkpoint-300");
        write(QDir(locked).filePath("pytorch_model.bin"), torchFile(tinyGpt(300), {}));
        QVERIFY(QFile::setPermissions(locked, {}));
        auto unlock = qScopeGuard([&] { QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner); });
        RunAnalysis run, direct;
        {
            const PermissionsObeyed obeyed;
            QVERIFY(obeyed.active());
            run = analyse(messy.path());
            direct = analyse(locked);
        }
        COMPARE_WITH_CLEAN_BUT_NAMED(run, analyse(clean.path()), QStringList{"checkpoint-300"});
        QVERIFY2(issueTexts(run).first().contains("cannot be read (Permission denied)"), qPrintable(issueTexts(run).join('\n')));
        QVERIFY(direct.results.isEmpty());
        QVERIFY2(issueTexts(direct).join('\n').contains("Permission denied"), qPrintable(issueTexts(direct).join('\n')));
    }

    // An index that names itself, two that name each other, or one naming '.' as a shard: read once,
    // said in one short line, the rest of the folder analysed (they recursed until the stack ran out).
    void shardIndexCyclesAreRefused()
    {
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()})
            write(QDir(dir).filePath("ckpt_000100.pt"), torchFile(tinyGpt(1), {}));
        write(messy.filePath("self.index.json"), R"({"weight_map": {"a": "self.index.json"}})");
        write(messy.filePath("one.index.json"), R"({"weight_map": {"a": "two.index.json"}})");
        write(messy.filePath("two.index.json"), R"({"weight_map": {"a": "one.index.json"}})");
        write(messy.filePath("dot.index.json"), R"({"weight_map": {"a": "."}})");
        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN_BUT_NAMED(run, analyse(clean.path()),
                                     (QStringList{"self.index.json", "one.index.json", "two.index.json", "dot.index.json"}));
        for (const QString &text : issueTexts(run)) {
            QVERIFY2(text.size() < 300, qPrintable(text));
            QVERIFY2(text.contains("a shard index itself") || text.contains("a folder, not a weights file"), qPrintable(text));
        }
        // Opened as a checkpoint folder of its own, too.
        QTemporaryDir folder;
        write(folder.filePath("model.safetensors.index.json"), R"({"weight_map": {"a": "model.safetensors.index.json"}})");
        QString error;
        QVERIFY(!openCheckpoint(folder.path(), &error));
        QVERIFY2(error.contains("a shard index itself"), qPrintable(error));
        QVERIFY(!openCheckpointFiles(WeightsLayout::ShardIndex, {messy.filePath("dot.index.json")}, &error));
        QVERIFY2(error.contains("a folder, not a weights file") && error.size() < 300, qPrintable(error));
        QVERIFY(!openCheckpointFiles(WeightsLayout::ShardIndex, {messy.filePath("one.index.json")}, &error));
        QVERIFY2(error.contains("a shard index itself"), qPrintable(error));
    }

    // A .npy named like a checkpoint or tensor that holds a pickled object array is refused and said
    // (exit 2), never quietly "other"; an object array a script saved (history.npy) is only listed.
    void objectNpyNamedLikeACheckpointIsAnError()
    {
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()})
            write(QDir(dir).filePath("ckpt_000100.pt"), torchFile(tinyGpt(1), {}));
        write(messy.filePath("ckpt_000200.npy"), npyFile("|O", {2}, QByteArray("\x80\x02N.", 4)));
        write(messy.filePath("history.npy"), npyFile("|O", {2}, QByteArray("\x80\x02N.", 4)));
        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN_BUT_NAMED(run, analyse(clean.path()), QStringList{"ckpt_000200.npy"});
        QVERIFY2(issueTexts(run).first().contains("object arrays"), qPrintable(issueTexts(run).first()));
        QVERIFY(skipped(run, "history.npy") == nullptr || !skipped(run, "history.npy")->problem);
    }

    // A shard set is one checkpoint: an index whose shards are here, or -0000k-of-0000n names alone.
    void shardSetsAreOneCheckpoint()
    {
        const Tensors tensors = tinyGpt(3);
        QTemporaryDir single, indexed, named;
        write(single.filePath("model.safetensors"), safetensorsOf(tensors));
        for (const QString &dir : {single.path(), indexed.path(), named.path()})
            writeGpt2Config(dir);
        for (const QString &dir : {indexed.path(), named.path()}) {
            write(QDir(dir).filePath("model-00001-of-00002.safetensors"), safetensorsOf(tensors.mid(0, 4)));
            write(QDir(dir).filePath("model-00002-of-00002.safetensors"), safetensorsOf(tensors.mid(4)));
        }
        QJsonObject map;
        for (qsizetype i = 0; i < tensors.size(); ++i)
            map.insert(tensors[i].first, i < 4 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors");
        write(indexed.filePath("model.safetensors.index.json"), QJsonDocument(QJsonObject{{"weight_map", map}}).toJson());
        const RunAnalysis reference = analyse(single.path());
        for (const QString &dir : {indexed.path(), named.path()}) {
            const CheckpointListing listing = CheckpointDiscovery::scan(dir);
            QCOMPARE(listing.checkpoints.size(), 1);
            QVERIFY(listing.checkpoints[0].isFolder);
            COMPARE_WITH_CLEAN(analyse(dir), reference);
        }
        // One shard of two missing: a checkpoint that cannot be read, and says why.
        QFile::remove(named.filePath("model-00002-of-00002.safetensors"));
        const RunAnalysis broken = analyse(named.path());
        QVERIFY2(issueTexts(broken).join('\n').contains("shard(s) 2 of 2 are missing"), qPrintable(issueTexts(broken).join('\n')));
    }

    // A shard count that only a name claims (model-00001-of-99999.safetensors alone) or an index naming
    // 3,000 shards of which one is here: each checkpoint refused in one short line that names the
    // first shards missing and counts the rest (#41: these were lines of 689 KB and 100 KB), the
    // checkpoint beside them analysed.
    void claimedShardCountsStayShort()
    {
        const Tensors tensors = tinyGpt(5);
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()}) {
            writeGpt2Config(dir);
            write(QDir(dir).filePath("checkpoint-100/model.safetensors"), safetensorsOf(tensors));
        }
        write(messy.filePath("checkpoint-200/model-00001-of-99999.safetensors"), safetensorsOf(tensors.mid(0, 4)));
        QJsonObject map;
        for (int i = 0; i < 3000; ++i)
            map.insert(QStringLiteral("w%1").arg(i), QStringLiteral("model-%1-of-03000.safetensors").arg(i + 1, 5, 10, QLatin1Char('0')));
        write(messy.filePath("checkpoint-300/model.safetensors.index.json"), QJsonDocument(QJsonObject{{"weight_map", map}}).toJson());
        write(messy.filePath("checkpoint-300/model-00001-of-03000.safetensors"), safetensorsOf(tensors.mid(0, 4)));

        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN_BUT_NAMED(run, analyse(clean.path()), (QStringList{"checkpoint-200", "checkpoint-300"}));
        const QString said = issueTexts(run).join('\n');
        QVERIFY2(said.contains("checkpoint-200: shard(s) 2, 3, 4, 5, 6 and 99993 more of 99999 are missing"), qPrintable(said));
        QVERIFY2(said.contains("checkpoint-300: shards model-00002-of-03000.safetensors, model-00003-of-03000.safetensors, "
                               "model-00004-of-03000.safetensors, model-00005-of-03000.safetensors, model-00006-of-03000.safetensors "
                               "and 2994 more named by the index are missing"),
                 qPrintable(said));
        QStringList lines = issueTexts(run) + run.notes;
        for (const SkippedFile &s : run.sidecars)
            lines << QFileInfo(s.path).fileName() + QStringLiteral(": ") + s.reason;
        for (const QString &line : std::as_const(lines))
            QVERIFY2(line.size() <= 1000 && !line.contains('\n'), qPrintable(QStringLiteral("%1 characters: %2…").arg(line.size()).arg(line.left(300))));
    }

    // Training state saved beside the weights is a sidecar, by name or by content: never an error.
    void trainingSidecarsAreNotCheckpoints()
    {
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()})
            for (int step : {100, 200})
                write(QDir(dir).filePath(QStringLiteral("ckpt_%1.pt").arg(step, 6, 10, QLatin1Char('0'))), torchFile(tinyGpt(step), {{"iter_num", step}}));
        write(messy.filePath("scaler.pt"), torchStateFile({{"scale", 65536}, {"_growth_tracker", 0}}));
        write(messy.filePath("optimizer.pt"), torchFile(tinyGpt(7), {}, QStringLiteral("state")));
        write(messy.filePath("rng_state.pth"), torchStateFile({}, {"cpu"}));
        // Not named as any sidecar: its content (a 1-D tensor, no matrices) says it is no checkpoint.
        write(messy.filePath("grad_norms.pt"), torchStateFile({{"step", 200}}, {"norms"}));
        write(messy.filePath("train.bin"), QByteArray(4096, '\x01')); // nanoGPT's token data
        write(messy.filePath("events.out.tfevents.1700000000.host"), "tensorboard");
        write(messy.filePath("loss.png"), "\x89PNG");
        write(messy.filePath("train.log"), "step 100 loss 3.2");
        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN(run, analyse(clean.path()));
        QVERIFY(skipped(run, "scaler.pt")->reason.contains("gradient scaler state"));
        QVERIFY(skipped(run, "optimizer.pt")->reason.contains("optimizer state"));
        QVERIFY(skipped(run, "rng_state.pth")->reason.contains("random number generator state"));
        QVERIFY2(skipped(run, "grad_norms.pt")->reason.contains("no matrices by name"), qPrintable(skipped(run, "grad_norms.pt")->reason));
        QVERIFY(skipped(run, "train.bin"));
        const CheckpointListing listing = CheckpointDiscovery::scan(messy.path());
        QCOMPARE(classified(listing, "events.out.tfevents.1700000000.host")->reason, QStringLiteral("TensorBoard event file"));
        QCOMPARE(classified(listing, "loss.png")->reason, QStringLiteral("image"));
        QCOMPARE(classified(listing, "train.log")->reason, QStringLiteral("log"));
    }

    // ckpt_1000.pt and ckpt_001000.pt: one step, one checkpoint analysed, the other named.
    void twoNamesForOneStep()
    {
        QTemporaryDir clean, identical, different;
        write(clean.filePath("ckpt_000500.pt"), torchFile(tinyGpt(5), {{"iter_num", 500}}));
        write(clean.filePath("ckpt_001000.pt"), torchFile(tinyGpt(10), {{"iter_num", 1000}}));
        for (const QString &dir : {identical.path(), different.path()})
            for (const QString &name : {QStringLiteral("ckpt_000500.pt"), QStringLiteral("ckpt_001000.pt")})
                copyFile(clean.filePath(name), QDir(dir).filePath(name));
        copyFile(clean.filePath("ckpt_001000.pt"), identical.filePath("ckpt_1000.pt"));
        const RunAnalysis same = analyse(identical.path());
        COMPARE_WITH_CLEAN(same, analyse(clean.path()));
        QCOMPARE(same.results.size(), 24); // never 36 rows at one step
        const SkippedFile *twin = skipped(same, "ckpt_1000.pt") ? skipped(same, "ckpt_1000.pt") : skipped(same, "ckpt_001000.pt");
        QVERIFY(twin && twin->duplicate);
        QVERIFY2(twin->reason.contains("identical to"), qPrintable(twin->reason));

        // Different weights claiming one step: the newest is kept, the other named.
        write(different.filePath("ckpt_1000.pt"), torchFile(tinyGpt(99), {{"iter_num", 1000}}));
        setModified(different.filePath("ckpt_001000.pt"), 3600);
        const RunAnalysis newer = analyse(different.path());
        QCOMPARE(newer.results.size(), 24);
        QCOMPARE(newer.checkpoints.last().path, different.filePath("ckpt_1000.pt"));
        QVERIFY(skipped(newer, "ckpt_001000.pt")->duplicate);
        QVERIFY2(skipped(newer, "ckpt_001000.pt")->reason.contains("claims step 1000 like ckpt_1000.pt, which is newer"),
                 qPrintable(skipped(newer, "ckpt_001000.pt")->reason));
        // …and its rows are those of the newer weights alone.
        QTemporaryDir newest;
        copyFile(different.filePath("ckpt_000500.pt"), newest.filePath("ckpt_000500.pt"));
        copyFile(different.filePath("ckpt_1000.pt"), newest.filePath("ckpt_1000.pt"));
        COMPARE_WITH_CLEAN(newer, analyse(newest.path()));
    }

    // Lightning: last.ckpt beside epoch=3-step=1000.ckpt, the step in global_step inside both.
    void lightningLastAndEpochStepNames()
    {
        QCOMPARE(CheckpointDiscovery::stepFromName("epoch=3-step=1000.ckpt"), std::optional<qint64>(1000));
        QTemporaryDir clean, messy;
        const QByteArray early = torchFile(tinyGpt(5), {{"epoch", 1}, {"global_step", 500}}, QStringLiteral("state_dict"));
        const QByteArray late = torchFile(tinyGpt(10), {{"epoch", 3}, {"global_step", 1000}}, QStringLiteral("state_dict"));
        write(clean.filePath("epoch=1-step=500.ckpt"), early);
        write(clean.filePath("epoch=3-step=1000.ckpt"), late);
        write(messy.filePath("epoch=1-step=500.ckpt"), early);
        write(messy.filePath("epoch=3-step=1000.ckpt"), late);
        write(messy.filePath("last.ckpt"), late);
        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN(run, analyse(clean.path()));
        QCOMPARE(stepsOf(run), (QList<qint64>{500, 1000}));
        QVERIFY(std::any_of(run.sidecars.begin(), run.sidecars.end(), [](const SkippedFile &s) { return s.duplicate; }));
    }

    // A final model saved beside its last checkpoint: with the same bytes it is that checkpoint;
    // with other weights and no step it comes after every numbered step, labelled final.
    void finalModelBesideItsLastCheckpoint()
    {
        QTemporaryDir clean, copy, trained;
        for (int step : {500, 1000})
            write(clean.filePath(QStringLiteral("checkpoint-%1/model.safetensors").arg(step)), safetensorsOf(tinyGpt(step)));
        for (const QString &dir : {clean.path(), copy.path(), trained.path()})
            writeGpt2Config(dir);
        for (const QString &dir : {copy.path(), trained.path()})
            for (int step : {500, 1000})
                copyFile(clean.filePath(QStringLiteral("checkpoint-%1/model.safetensors").arg(step)),
                         QDir(dir).filePath(QStringLiteral("checkpoint-%1/model.safetensors").arg(step)));
        copyFile(clean.filePath("checkpoint-1000/model.safetensors"), copy.filePath("final/model.safetensors"));
        const RunAnalysis same = analyse(copy.path());
        COMPARE_WITH_CLEAN(same, analyse(clean.path()));
        QVERIFY2(skipped(same, "final")->reason.contains("identical to checkpoint-1000 (step 1000)"), qPrintable(skipped(same, "final")->reason));

        write(trained.filePath("final/model.safetensors"), safetensorsOf(tinyGpt(4242)));
        const RunAnalysis run = analyse(trained.path());
        QVERIFY2(run.issues.isEmpty(), qPrintable(issueTexts(run).join('\n')));
        QCOMPARE(stepsOf(run), (QList<qint64>{500, 1000, 1001}));
        QVERIFY(run.checkpoints.last().unnumbered);
        QVERIFY(!run.checkpoints.first().unnumbered);
        QCOMPARE(run.results.size(), 36);
        QVERIFY(run.results.last().unnumbered);
        QCOMPARE(stepLabel(run.results.last().step, run.results.last().unnumbered), QStringLiteral("final"));
        QVERIFY2(run.notes.join('\n').contains("final records no step") && run.notes.join('\n').contains("after step 1000"), qPrintable(run.notes.join('\n')));
    }

    // A Trainer output_dir: the final model.safetensors at the top takes its step from the
    // top-level trainer_state.json (never its position), beside checkpoint-500/ and checkpoint-1000/.
    void trainerOutputDir()
    {
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()})
            for (int step : {500, 1000}) {
                writeGpt2Config(dir);
                const QDir sub(QDir(dir).filePath(QStringLiteral("checkpoint-%1").arg(step)));
                write(sub.filePath("model.safetensors"), safetensorsOf(tinyGpt(step)));
                write(sub.filePath("trainer_state.json"), QStringLiteral(R"({"global_step": %1})").arg(step).toUtf8());
            }
        for (int step : {500, 1000}) {
            const QDir sub(messy.filePath(QStringLiteral("checkpoint-%1").arg(step)));
            write(sub.filePath("optimizer.pt"), torchFile(tinyGpt(1), {}, QStringLiteral("state")));
            write(sub.filePath("scheduler.pt"), torchStateFile({{"last_epoch", step}}));
            write(sub.filePath("rng_state.pth"), torchStateFile({}, {"cpu"}));
            write(sub.filePath("training_args.bin"), torchStateFile({{"seed", 42}}));
        }
        write(messy.filePath("trainer_state.json"), R"({"global_step": 1000, "log_history": []})");
        write(messy.filePath("training_args.bin"), torchStateFile({{"seed", 42}}));
        write(messy.filePath("tokenizer.json"), "{}");
        write(messy.filePath("tokenizer_config.json"), "{}");
        write(messy.filePath("model.safetensors"), safetensorsOf(tinyGpt(1000)));
        setModified(messy.filePath("model.safetensors"), 60); // saved after the last checkpoint
        setModified(messy.filePath("checkpoint-1000/model.safetensors"), 600);
        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN(run, analyse(clean.path()));
        QCOMPARE(stepsOf(run), (QList<qint64>{500, 1000}));
        // The same bytes, the newer file: the final model is what step 1000 is read from.
        QCOMPARE(run.checkpoints.last().path, messy.filePath("model.safetensors"));
        QVERIFY2(skipped(run, "checkpoint-1000") && skipped(run, "checkpoint-1000")->reason.contains("identical to model.safetensors"),
                 qPrintable(skipped(run, "checkpoint-1000") ? skipped(run, "checkpoint-1000")->reason : QStringLiteral("not skipped")));
        QVERIFY(run.notes.isEmpty());
    }

    // config.json is read from the checkpoint's own folder or the opened folder, never from above.
    void configAboveTheOpenedFolderIsIgnored()
    {
        QTemporaryDir parent;
        write(parent.filePath("config.json"), R"({"n_head": 1, "num_attention_heads": 1, "num_key_value_heads": 1})");
        for (int step : {100, 200})
            write(parent.filePath(QStringLiteral("run/checkpoint-%1/model.safetensors").arg(step)), safetensorsOf(tinyGpt(step)));
        write(parent.filePath("run/flat_model_000300.safetensors"), safetensorsOf(tinyGpt(300)));
        const QString run = parent.filePath("run");
        CheckpointListing listing = CheckpointDiscovery::scan(run);
        QCOMPARE(listing.checkpoints.size(), 3);
        for (const CheckpointFile &c : listing.checkpoints) {
            QVERIFY2(c.configPath.isEmpty(), qPrintable(c.configPath));
            QVERIFY(c.sidecarConfig.isEmpty());
        }
        // The run's own config.json applies to every checkpoint; a checkpoint folder's own wins there.
        write(parent.filePath("run/config.json"), R"({"n_head": 2})");
        write(parent.filePath("run/checkpoint-200/config.json"), R"({"n_head": 2, "model_type": "gpt2"})");
        listing = CheckpointDiscovery::scan(run);
        QCOMPARE(listing.checkpoints[0].configPath, QDir::cleanPath(parent.filePath("run/config.json")));
        QCOMPARE(listing.checkpoints[1].configPath, QDir::cleanPath(parent.filePath("run/checkpoint-200/config.json")));
        QCOMPARE(listing.checkpoints[2].configPath, QDir::cleanPath(parent.filePath("run/config.json")));
    }

    // run/seed0/checkpoint-100/: the opened folder is a set of runs, and says which.
    void checkpointsTwoLevelsDown()
    {
        QTemporaryDir run;
        write(run.filePath("seed0/checkpoint-100/model.safetensors"), safetensorsOf(tinyGpt(1)));
        write(run.filePath("seed0/checkpoint-200/model.safetensors"), safetensorsOf(tinyGpt(2)));
        writeGpt2Config(run.filePath("seed0"));
        write(run.filePath("notes.txt"), "lr 3e-4");
        const CheckpointListing listing = CheckpointDiscovery::scan(run.path());
        QVERIFY(listing.checkpoints.isEmpty());
        QCOMPARE(listing.runs, QStringList{run.filePath("seed0")});
        QCOMPARE(classified(listing, "seed0")->role, FileRole::RunFolder);
        const RunAnalysis analysis = analyse(run.path());
        QCOMPARE(analysis.runs, QStringList{run.filePath("seed0")});
        const RunAnalysis inner = analyse(run.filePath("seed0"));
        QCOMPARE(stepsOf(inner), (QList<qint64>{100, 200}));
    }

    // Nested runs: seed0/ and seed1/ (flat checkpoints) and lr3e-4/ (one model) are three runs.
    void nestedRuns()
    {
        QTemporaryDir runs;
        for (const char *seed : {"seed0", "seed1"})
            for (int step : {100, 200})
                write(runs.filePath(QStringLiteral("%1/ckpt_%2.pt").arg(QLatin1String(seed)).arg(step, 6, 10, QLatin1Char('0'))),
                      torchFile(tinyGpt(step), {{"iter_num", step}}));
        write(runs.filePath("lr3e-4/model.safetensors"), safetensorsOf(tinyGpt(9)));
        const CheckpointListing listing = CheckpointDiscovery::scan(runs.path());
        QVERIFY(listing.checkpoints.isEmpty());
        QCOMPARE(listing.runs.size(), 3);
        QVERIFY(listing.runs.contains(runs.filePath("seed0")) && listing.runs.contains(runs.filePath("lr3e-4")));
    }

    // A loop -> . link is followed once; a link to a checkpoint already listed is that checkpoint.
    void symlinkLoopsAreFollowedOnce()
    {
        QTemporaryDir clean, messy;
        for (const QString &dir : {clean.path(), messy.path()})
            for (int step : {100, 200})
                write(QDir(dir).filePath(QStringLiteral("ckpt_%1.pt").arg(step, 6, 10, QLatin1Char('0'))), torchFile(tinyGpt(step), {{"iter_num", step}}));
        QVERIFY(QFile::link(".", messy.filePath("loop")));
        QVERIFY(QFile::link("ckpt_000200.pt", messy.filePath("latest.pt")));
        QDir(messy.path()).mkdir("sub");
        QVERIFY(QFile::link("..", messy.filePath("sub/up")));
        const RunAnalysis run = analyse(messy.path());
        COMPARE_WITH_CLEAN(run, analyse(clean.path()));
        const CheckpointListing listing = CheckpointDiscovery::scan(messy.path());
        QCOMPARE(classified(listing, "loop")->role, FileRole::Link);
        QVERIFY2(classified(listing, "loop")->reason.contains("followed once"), qPrintable(classified(listing, "loop")->reason));
        QCOMPARE(classified(listing, "latest.pt")->role, FileRole::Link);
    }

    // A step of 10²⁰ in a name is named as too large, never turned into step 0.
    void stepTooLargeForSixtyFourBits()
    {
        QString problem;
        QVERIFY(!CheckpointDiscovery::stepFromName("ckpt_100000000000000000000.safetensors", &problem));
        QVERIFY2(problem.contains("does not fit in 64 bits"), qPrintable(problem));
        QTemporaryDir run;
        writeGpt2Config(run.path());
        write(run.filePath("ckpt_000100.safetensors"), safetensorsOf(tinyGpt(1)));
        write(run.filePath("ckpt_100000000000000000000.safetensors"), safetensorsOf(tinyGpt(2)));
        write(run.filePath("checkpoint-7/model.safetensors"), safetensorsOf(tinyGpt(3)));
        write(run.filePath("checkpoint-7/trainer_state.json"), R"({"global_step": -5})");
        const RunAnalysis analysis = analyse(run.path());
        QVERIFY2(analysis.issues.isEmpty(), qPrintable(issueTexts(analysis).join('\n')));
        QCOMPARE(stepsOf(analysis), (QList<qint64>{7, 100, 101}));
        QVERIFY(analysis.checkpoints.last().unnumbered);
        const QString notes = analysis.notes.join('\n');
        QVERIFY2(notes.contains("the step 100000000000000000000 in the name") && notes.contains("negative step (-5)"), qPrintable(notes));
    }

    // A config.json linked to /dev/zero or /dev/urandom, a FIFO named config.json or named like a
    // checkpoint: named, never opened for reading in a way that blocks or exhausts memory.
    void irregularFilesNeverHang()
    {
        QTemporaryDir clean, devices, fifos;
        for (const QString &dir : {clean.path(), devices.path(), fifos.path()})
            for (int step : {100, 200})
                write(QDir(dir).filePath(QStringLiteral("checkpoint-%1/pytorch_model.bin").arg(step)), torchFile(tinyGpt(step), {}));
        QVERIFY(QFile::link("/dev/zero", devices.filePath("config.json")));
        QVERIFY(QFile::link("/dev/urandom", devices.filePath("checkpoint-100/config.json")));
        QVERIFY(QFile::link("/dev/zero", devices.filePath("checkpoint-200/trainer_state.json")));
        QVERIFY(QFile::link("/dev/zero", devices.filePath("model.safetensors.index.json")));
        QVERIFY(QFile::link("/dev/zero", devices.filePath("ckpt_000300.pt")));
        for (const char *name : {"config.json", "checkpoint-100/trainer_state.json", "meta_000200.json", "ckpt_000300.pt", "checkpoint-200/model.safetensors.index.json"})
            QCOMPARE(::mkfifo(QFile::encodeName(fifos.filePath(name)).constData(), 0600), 0);

        // If anything blocked on a FIFO or read a device without end, this would never return.
        QFuture<QPair<RunAnalysis, RunAnalysis>> future = QtConcurrent::run([&] { return qMakePair(analyse(devices.path()), analyse(fifos.path())); });
        QElapsedTimer clock;
        clock.start();
        while (!future.isFinished() && clock.elapsed() < 20000)
            QTest::qWait(20);
        if (!future.isFinished())
            qFatal("the analysis of a folder with FIFOs and device links did not finish within 20 s");
        const auto [fromDevices, fromFifos] = future.result();
        const RunAnalysis reference = analyse(clean.path());
        // Named like weights, never opened, and said; a FIFO or device as a sidecar (config.json) is
        // only listed.
        COMPARE_WITH_CLEAN_BUT_NAMED(fromDevices, reference, (QStringList{"model.safetensors.index.json", "ckpt_000300.pt"}));
        COMPARE_WITH_CLEAN_BUT_NAMED(fromFifos, reference, (QStringList{"ckpt_000300.pt", "model.safetensors.index.json"}));
        QVERIFY2(skipped(fromFifos, "ckpt_000300.pt")->reason.contains("a FIFO (named pipe)"), qPrintable(skipped(fromFifos, "ckpt_000300.pt")->reason));
        QVERIFY2(skipped(fromDevices, "ckpt_000300.pt")->reason.contains("/dev/zero, a character device"), qPrintable(skipped(fromDevices, "ckpt_000300.pt")->reason));
        const CheckpointListing listing = CheckpointDiscovery::scan(fifos.path());
        QCOMPARE(classified(listing, "config.json")->role, FileRole::NotRegular);

        // The helper itself: a regular file within its limit, and nothing else.
        QString error;
        QVERIFY(!readSmallRegularFile(devices.filePath("config.json"), 1024, &error));
        QVERIFY2(error.contains("character device"), qPrintable(error));
        QVERIFY(!readSmallRegularFile(fifos.filePath("config.json"), 1024, &error));
        QVERIFY2(error.contains("FIFO"), qPrintable(error));
        write(clean.filePath("big.json"), QByteArray(2048, ' '));
        QVERIFY(!readSmallRegularFile(clean.filePath("big.json"), 1024, &error));
        QVERIFY(readSmallRegularFile(clean.filePath("big.json"), 2048));
        QString openError;
        QVERIFY(!openCheckpoint(fifos.filePath("ckpt_000300.pt"), &openError));
        QVERIFY2(openError.contains("FIFO"), qPrintable(openError));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestFolderLayouts)
} // namespace tst_folderlayouts

#include "tst_FolderLayouts.moc"
