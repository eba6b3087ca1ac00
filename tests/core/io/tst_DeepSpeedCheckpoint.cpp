// DeepSpeed save folders, and Composer and litgpt run folders, as their trainers write them.
// The DeepSpeed fixtures follow deepspeed/runtime/engine.py `_save_checkpoint` / `_save_zero_checkpoint`
// and zero/stage3.py `_rigid_state_dict`, zero/stage_1_and_2.py `state_dict` at DeepSpeed 38327e07f
// (0.16.x), and are rebuilt as deepspeed/utils/zero_to_fp32.py at that commit rebuilds them. Every
// file is a torch.save archive (pickle protocol 2 as Python's pickler emits it, with its memo puts
// and gets; the zip framing of TorchCheckpointWriter.h, without torch's 64-byte entry alignment).
// Matrices hold distinct values and the padding a sentinel, so a wrong offset, order or
// truncation fails.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/discovery/CheckpointSteps.h"
#include "io/CheckpointFormats.h"
#include "io/deepspeed/DeepSpeedCheckpointReader.h"
#include "io/FolderWeights.h"
#include "TestSuite.h"
#include "DeepSpeedCheckpointWriter.h"
#include "TorchCheckpointWriter.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

namespace tst_deepspeedcheckpoint {

using namespace rankscope;
using namespace rankscope::test;
using namespace rankscope::test::deepspeed;

namespace {

RowMajorMatrix original(const Param &p, int index)
{
    const qint64 cols = p.shape.size() == 2 ? p.shape[1] : p.numel();
    RowMajorMatrix m(p.numel() / cols, cols);
    for (qint64 k = 0; k < p.numel(); ++k)
        m(k / cols, k % cols) = p.value(k, index);
    return m;
}

// Every 2-D matrix of the fixture read back equal to the original, exactly.
void expectOriginals(CheckpointReader &reader, const Fixture &f)
{
    for (qsizetype i = 0; i < f.params.size(); ++i) {
        if (f.params[i].shape.size() != 2)
            continue;
        const MatrixRead read = reader.readMatrix(f.params[i].name);
        QVERIFY2(read.ok(), qPrintable(read.error));
        QCOMPARE(read.values, original(f.params[i], int(i)));
    }
}

std::unique_ptr<CheckpointReader> openTag(const QString &dir, QString *error)
{
    return openCheckpoint(dir, error);
}

} // namespace

class DeepSpeedCheckpointTest : public QObject {
    Q_OBJECT

private slots:
    void zero3RebuildsEachParameterExactly_data()
    {
        QTest::addColumn<int>("world");
        QTest::addColumn<bool>("bf16");
        QTest::newRow("2 ranks") << 2 << false;
        QTest::newRow("3 ranks, bf16_ names") << 3 << true;
    }
    void zero3RebuildsEachParameterExactly()
    {
        QFETCH(int, world);
        QFETCH(bool, bf16);
        QTemporaryDir tmp;
        Fixture f;
        f.world = world;
        f.bf16 = bf16;
        // Cut each rank's flat inside c_attn's slice (offset ceil(80/W) + 1): a slice straddles the groups.
        f.splitAt = (80 + world - 1) / world + 1;
        writeZero3Tag(tmp.path(), f);
        QString error;
        auto reader = openTag(tmp.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->formatName(), QStringLiteral("deepspeed"));
        QCOMPARE(reader->step(), std::optional<qint64>(300));
        auto *ds = dynamic_cast<DeepSpeedCheckpointReader *>(reader.get());
        QVERIFY(ds);
        QCOMPARE(ds->zeroStage(), 3);
        QCOMPARE(ds->worldSize(), world);
        QStringList names;
        for (const TensorInfo &t : reader->tensors())
            names << t.name;
        // zero_to_fp32's order: buffers, frozen, trainable, then the shared ones.
        QCOMPARE(names, (QStringList{"h.0.attn.bias", "wpe.weight", "wte.weight", "h.0.attn.c_attn.weight", "h.0.ln_1.weight",
                                     "h.0.mlp.c_fc.weight", "h.0.mlp.c_proj.weight", "lm_head.weight"}));
        expectOriginals(*reader, f);
        const MatrixRead frozen = reader->readMatrix("wpe.weight");
        QVERIFY2(frozen.ok(), qPrintable(frozen.error));
        QCOMPARE(frozen.values, original(f.frozen.first(), 50));
        const MatrixRead tied = reader->readMatrix("lm_head.weight");
        QVERIFY2(tied.ok(), qPrintable(tied.error));
        QCOMPARE(tied.values, original(f.params.first(), 0));
        const MatrixRead buffer = reader->readMatrix("h.0.attn.bias");
        QVERIFY2(buffer.ok(), qPrintable(buffer.error));
        QCOMPARE(buffer.values(1, 0), 1.0);
        // Only DeepSpeed's own classes are pickled: nothing makes the tag look damaged.
        QCOMPARE(reader->warnings(), QStringList());
    }

    void zero3FolderGivesEveryFileItsRole()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero3Tag(tmp.path(), f);
        const FolderWeights weights = FolderWeights::read(tmp.path());
        QCOMPARE(weights.groups.size(), 1);
        QCOMPARE(weights.groups.first().layout, WeightsLayout::DeepSpeedTag);
        QCOMPARE(weights.groups.first().files.size(), 4);
        QCOMPARE(weights.groups.first().stepInFile, std::optional<qint64>(300));
        for (const ClassifiedFile &file : weights.files) {
            QCOMPARE(file.role, FileRole::Shard);
            QVERIFY2(!file.problem, qPrintable(file.reason));
        }
        const auto rank0 = std::find_if(weights.files.begin(), weights.files.end(),
                                        [](const ClassifiedFile &c) { return c.path.endsWith("zero_pp_rank_0_mp_rank_00_model_states.pt"); });
        QVERIFY(rank0->reason.contains("deepspeed.runtime.config.DeepSpeedConfig"));
    }

    void zero2ReadsModuleAndLeavesPartitionsAsSidecars()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero2ModelStates(tmp.path(), f, true);
        writeZero2OptimStates(tmp.path(), f);
        const FolderWeights weights = FolderWeights::read(tmp.path());
        QCOMPARE(weights.groups.size(), 1);
        for (const ClassifiedFile &file : weights.files)
            QCOMPARE(file.role, file.path.endsWith("optim_states.pt") ? FileRole::TrainingSidecar : FileRole::Weights);
        QString error;
        auto reader = openTag(tmp.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QVERIFY(!dynamic_cast<DeepSpeedCheckpointReader *>(reader.get())->rebuiltFromPartitions());
        QCOMPARE(reader->tensors().size(), f.params.size());
        expectOriginals(*reader, f);
        QCOMPARE(reader->warnings(), QStringList());
    }

    void zero2WithoutModuleIsRebuiltFromPartitions()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero2ModelStates(tmp.path(), f, false);
        writeZero2OptimStates(tmp.path(), f);
        QString error;
        auto reader = openTag(tmp.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        auto *ds = dynamic_cast<DeepSpeedCheckpointReader *>(reader.get());
        QVERIFY(ds->rebuiltFromPartitions());
        QCOMPARE(ds->zeroStage(), 2);
        expectOriginals(*reader, f);
    }

    void saveFolderIsOneRunUpToLatest()
    {
        QTemporaryDir tmp;
        const QDir save(tmp.path());
        Fixture f;
        for (const qint64 step : {10, 20, 30}) {
            f.globalSteps = step;
            writeZero3Tag(save.filePath(QStringLiteral("global_step%1").arg(step)), f);
        }
        // A tag not named by its step: the step is global_steps in its model states.
        f.globalSteps = 5;
        writeZero3Tag(save.filePath("warmup"), f);
        writeText(save.filePath("latest"), "global_step20"); // fd.write(tag): no newline
        writeText(save.filePath("zero_to_fp32.py"), "#!/usr/bin/env python\n");
        const CheckpointListing listing = CheckpointDiscovery::scan(tmp.path());
        QCOMPARE(listing.runs, QStringList());
        QStringList tags;
        QList<qint64> steps;
        for (const CheckpointFile &c : listing.checkpoints) {
            tags << QFileInfo(c.path).fileName();
            steps << c.stepInFile.value_or(-1);
        }
        QCOMPARE(tags, (QStringList{"warmup", "global_step10", "global_step20"}));
        QCOMPARE(steps, (QList<qint64>{5, 10, 20}));
        QCOMPARE(listing.takenFor, QStringList{"a DeepSpeed save folder: 3 tag(s) (latest: global_step20), 1 newer one(s) still being written "
                                               "left out, ZeRO-3 over 2 ranks, weights rebuilt from the fp32 partitions"});
        const auto writing = std::find_if(listing.skipped.begin(), listing.skipped.end(), [](const SkippedFile &s) { return s.path.endsWith("global_step30"); });
        QVERIFY(writing != listing.skipped.end());
        QVERIFY(writing->reason.contains("still being written"));
        QVERIFY(!writing->problem);
        for (const ClassifiedFile &file : listing.files)
            if (file.path.endsWith("/latest") || file.path.endsWith("zero_to_fp32.py"))
                QCOMPARE(file.role, FileRole::TrainingSidecar);
        for (const SkippedFile &s : listing.skipped)
            QVERIFY2(!s.problem, qPrintable(s.path + ": " + s.reason));
    }

    void latestNamingAMissingTagIsAProblem()
    {
        QTemporaryDir tmp;
        const QDir save(tmp.path());
        Fixture f;
        writeZero3Tag(save.filePath("global_step300"), f);
        writeText(save.filePath("latest"), "global_step400");
        const CheckpointListing listing = CheckpointDiscovery::scan(tmp.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        const auto latest = std::find_if(listing.skipped.begin(), listing.skipped.end(), [](const SkippedFile &s) { return s.path.endsWith("/latest"); });
        QVERIFY(latest != listing.skipped.end());
        QVERIFY(latest->problem);
        QVERIFY2(latest->reason.contains("names the tag global_step400, which is not here"), qPrintable(latest->reason));
        QCOMPARE(listing.takenFor, QStringList{"a DeepSpeed save folder: 1 tag(s) (latest names global_step400, which is not here), ZeRO-3 over 2 "
                                               "ranks, weights rebuilt from the fp32 partitions"});
    }

    void missingRankPartitionIsRefused()
    {
        QTemporaryDir tmp;
        Fixture f;
        f.world = 3;
        writeZero3Tag(tmp.path(), f);
        QVERIFY(QFile::remove(QDir(tmp.path()).filePath(optimName(f, 1))));
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("partition_count says 3 ranks, and 2 *_optim_states.pt are here (rank 1 missing)"), qPrintable(error));
    }

    // Each flat group is its own tensor: two naming the same elements would let a small file stand
    // for a large model (one 1 KB storage listed 65,536 times as a 4096 × 4096 matrix).
    void partitionsSharingBytesAreRefused()
    {
        QTemporaryDir tmp;
        Fixture f;
        f.sharedStorage = true;
        writeZero3Tag(tmp.path(), f);
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("two partitions of fp32_flat_groups share elements from 0 of storage 0: partitions cannot share bytes"),
                 qPrintable(error));
    }

    void partitionsTooShortForParamShapesAreRefused()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero3Tag(tmp.path(), f);
        // param_shapes of a bigger model than the partitions hold.
        Fixture bigger = f;
        bigger.params.last().shape = {50, 6};
        for (int r = 0; r < f.world; ++r)
            writeZero3ModelStates(tmp.path(), bigger, r);
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("the partitions are too short"), qPrintable(error));
    }

    void paddingMismatchFailsZeroToFp32sCheck()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero3Tag(tmp.path(), f);
        // One parameter fewer than the partitions hold: zero_to_fp32's "consumed … numels" check.
        Fixture fewer = f;
        fewer.params.removeLast();
        for (int r = 0; r < f.world; ++r)
            writeZero3ModelStates(tmp.path(), fewer, r);
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("consumed 154 numels out of 184"), qPrintable(error));
    }

    void zero2ParamShapesMustFillTheGroup()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero2OptimStates(tmp.path(), f);
        Fixture fewer = f;
        fewer.params.removeLast(); // 152 of the group's 182 elements: 152 ≠ 184, both aligned to 2·world
        writeZero2ModelStates(tmp.path(), fewer, false);
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("consumed 152 numels out of 184 in group 0"), qPrintable(error));
    }

    void truncatedPartitionIsRefusedWhenOpened()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero3Tag(tmp.path(), f);
        // Rank 1's second group declares two elements more than its storage holds.
        const QString path = QDir(tmp.path()).filePath(optimName(f, 1));
        const QList<float> flat = zero3Flats(f, f.params, 0)[1];
        const qint64 split = flat.size() / 2 + 1;
        QList<QByteArray> storages{floats(flat.mid(0, split)), floats(flat.mid(split, flat.size() - split - 2))};
        writeOptimStates(path, f, [&](Pickler &p) {
            p.str("zero_stage").global("deepspeed.runtime.zero.config", "ZeroStageEnum").tuple(1, [&] { p.integer(3); }).op('R').put();
            p.str("partition_count").integer(f.world);
            p.str("fp32_flat_groups").list(2, [&] {
                p.tensor("0", split, 0, {split});
                p.tensor("1", flat.size() - split, 0, {qint64(flat.size()) - split});
            });
        }, storages);
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("zero_pp_rank_1_mp_rank_00_optim_states.pt: a partition of fp32_flat_groups"), qPrintable(error));
    }

    void absurdParamShapesAreRefusedUnread()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero3Tag(tmp.path(), f);
        Fixture absurd = f;
        absurd.params[1].shape = {1000000, 1000000}; // 10^12 elements in a file of a few KB
        for (int r = 0; r < f.world; ++r)
            writeZero3ModelStates(tmp.path(), absurd, r);
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("the partitions are too short"), qPrintable(error));
        absurd.params[1].shape = {qint64(1) << 40, qint64(1) << 40}; // past 64 bits
        for (int r = 0; r < f.world; ++r)
            writeZero3ModelStates(tmp.path(), absurd, r);
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("more than 2^48 elements"), qPrintable(error));
    }

    void modelParallelRanksAreSaidNotMerged()
    {
        QTemporaryDir tmp;
        Fixture f;
        writeZero2ModelStates(tmp.path(), f, true);
        QVERIFY(QFile::copy(QDir(tmp.path()).filePath("mp_rank_00_model_states.pt"), QDir(tmp.path()).filePath("mp_rank_01_model_states.pt")));
        QString error;
        QVERIFY(!openTag(tmp.path(), &error));
        QVERIFY2(error.contains("2 DeepSpeed model-parallel ranks (mp_rank_00 … mp_rank_01): merging them is not done"), qPrintable(error));
    }

    void onlyDeepSpeedsOwnClassesGoUnwarned()
    {
        for (const char *own : {"deepspeed.runtime.config.DeepSpeedConfig", "deepspeed.runtime.zero.config.ZeroStageEnum",
                                "deepspeed.runtime.fp16.loss_scaler.DynamicLossScaler", "deepspeed.runtime.zero.config.DeepSpeedZeroConfig"})
            QVERIFY2(DeepSpeedTagFolder::isOwnClass(own), own);
        // Anything a module of deepspeed happens to import is not one of its checkpoint classes.
        for (const char *foreign : {"deepspeed.launcher.runner.subprocess", "deepspeed.launcher.runner.Popen", "deepspeed.utils.os.system",
                                    "deepspeedx.runtime.config.DeepSpeedConfig", "os.system"})
            QVERIFY2(!DeepSpeedTagFolder::isOwnClass(foreign), foreign);
    }

    void otherClassesInATagAreWarned()
    {
        QTemporaryDir tmp;
        Fixture f;
        f.clientArgs = true;
        writeZero3Tag(tmp.path(), f);
        QString error;
        auto reader = openTag(tmp.path(), &error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->warnings().size(), 2); // each rank's model states
        QVERIFY2(reader->warnings().first().startsWith("zero_pp_rank_0_mp_rank_00_model_states.pt: unsafe pickle: beside DeepSpeed's own "
                                                      "classes it references argparse.Namespace"), qPrintable(reader->warnings().first()));
        expectOriginals(*reader, f);
    }

    void composerFolderStepsAreBatches()
    {
        QCOMPARE(CheckpointDiscovery::stepFromName("ep3-ba1200-rank0.pt"), std::optional<qint64>(1200));
        QCOMPARE(CheckpointDiscovery::stepFromName("ep0-ba7.pt"), std::optional<qint64>(7));
        QTemporaryDir tmp;
        const QDir dir(tmp.path());
        // Composer's State.state_dict() under 'state', the model's weights under state.model.
        for (const qint64 batch : {100, 200}) {
            Pickler p;
            p.dict(2, [&] {
                p.str("state").dict(2, [&] {
                    p.str("model").dict(1, [&] { p.str("model.transformer.h.0.mlp.c_fc.weight").tensor("0", 6, 0, {2, 3}); }, true);
                    p.str("timestamp").dict(1, [&] { p.str("batch").integer(batch); });
                });
                p.str("rng").list(0, [] {});
            });
            p.op('.');
            writeArchive(dir.filePath(QStringLiteral("ep%1-ba%2-rank0.pt").arg(batch / 100).arg(batch)), p.bytes, {floats({1, 2, 3, 4, 5, float(batch)})});
        }
        QVERIFY(QFile::link(dir.filePath("ep2-ba200-rank0.pt"), dir.filePath("latest-rank0.pt")));
        const CheckpointListing listing = CheckpointDiscovery::scan(tmp.path());
        QCOMPARE(listing.checkpoints.size(), 2);
        QCOMPARE(listing.checkpoints[0].stepFromName, std::optional<qint64>(100));
        QCOMPARE(listing.checkpoints[1].stepFromName, std::optional<qint64>(200));
        const auto link = std::find_if(listing.files.begin(), listing.files.end(), [](const ClassifiedFile &c) { return c.path.endsWith("latest-rank0.pt"); });
        QCOMPARE(link->role, FileRole::Link);
        QString error;
        auto reader = listing.checkpoints[1].open(&error);
        QVERIFY2(reader, qPrintable(error));
        QCOMPARE(reader->tensors().size(), 1);
        QCOMPARE(reader->readMatrix("model.transformer.h.0.mlp.c_fc.weight").values(1, 2), 200.0);
    }

    void litgptFolderStepsFromNamesAndFinalLast()
    {
        QTemporaryDir tmp;
        const QDir dir(tmp.path());
        // litgpt/pretrain.py: fabric.save(out_dir / f"step-{step_count:08d}" / "lit_model.pth", state) with
        // state {model, optimizer, train_dataloader, iter_num, step_count}; final/ at the end.
        for (const auto &[folder, steps] : {std::pair{QStringLiteral("step-00000100"), 100}, {QStringLiteral("step-00000200"), 200},
                                            {QStringLiteral("final"), 250}}) {
            QVERIFY(dir.mkpath(folder));
            Pickler p;
            p.dict(4, [&] {
                p.str("model").dict(1, [&] { p.str("transformer.h.0.mlp.fc.weight").tensor("0", 6, 0, {2, 3}); }, true);
                p.str("optimizer").dict(0, [] {});
                p.str("iter_num").integer(steps * 4).str("step_count").integer(steps);
            });
            p.op('.');
            writeArchive(dir.filePath(folder + "/lit_model.pth"), p.bytes, {floats({1, 2, 3, 4, 5, float(steps)})});
            // yaml.dump(asdict(Config)): sorted keys, a nested hf_config, nulls.
            writeText(dir.filePath(folder + "/model_config.yaml"), "bias: true\nblock_size: 2048\nhead_size: 2\nhf_config:\n  n_head: 9\n  "
                                                                   "name: tiny\nn_embd: 8\nn_head: 4\nn_layer: 1\nn_query_groups: 2\nrope_base: 10000\n");
        }
        const CheckpointListing listing = CheckpointDiscovery::scan(tmp.path());
        QCOMPARE(listing.checkpoints.size(), 3);
        QList<const CheckpointFile *> files;
        for (const CheckpointFile &c : listing.checkpoints)
            files << &c;
        const StepPlan plan = CheckpointSteps::decide(files);
        QCOMPARE(plan.checkpoints.size(), 3);
        QStringList order;
        for (const PlacedCheckpoint &placed : plan.checkpoints)
            order << QFileInfo(placed.file->path).fileName() + "@" + QString::number(placed.step);
        // step_count (the optimizer steps the folder is named by), not iter_num (micro-batches).
        QCOMPARE(order, (QStringList{"step-00000100@100", "step-00000200@200", "final@250"}));
        // Its model_config.yaml gives the head counts litgpt's attn.qkv is cut by.
        QVERIFY(listing.checkpoints[0].configPath.endsWith("model_config.yaml"));
        QCOMPARE(listing.checkpoints[0].sidecarConfig.value("model_type").toString(), QStringLiteral("litgpt"));
        QCOMPARE(listing.checkpoints[0].sidecarConfig.value("n_head").toLongLong(), 4);
        QCOMPARE(listing.checkpoints[0].sidecarConfig.value("n_query_groups").toLongLong(), 2);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(DeepSpeedCheckpointTest)
} // namespace tst_deepspeedcheckpoint

#include "tst_DeepSpeedCheckpoint.moc"
