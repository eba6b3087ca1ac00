#include "analysis/discovery/CheckpointSteps.h"
#include "TestSuite.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLocale>
#include <QTemporaryDir>
#include <deque>
#include <limits>

namespace tst_checkpointsteps {

using namespace rankscope;

class TestCheckpointSteps : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;
    std::deque<CheckpointFile> m_checkpoints; // stable addresses for the plan's pointers

    // A file holding bytes, last modified `minute` minutes into a fixed day.
    QString file(const QString &name, const QByteArray &bytes, int minute)
    {
        const QString path = m_dir->filePath(name);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.flush() ||
            !f.setFileTime(QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(60 * minute), QFileDevice::FileModificationTime))
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    // A one-file checkpoint whose name gives its step (or none).
    CheckpointFile &checkpoint(const QString &name, const QByteArray &bytes, int minute, std::optional<qint64> step)
    {
        CheckpointFile c;
        c.path = file(name, bytes, minute);
        c.files = {c.path};
        c.stepFromName = step;
        m_checkpoints.push_back(c);
        return m_checkpoints.back();
    }

    // A checkpoint folder of shards, listed in the order given.
    CheckpointFile &folder(const QString &name, const QList<std::pair<QString, QByteArray>> &shards, int minute, std::optional<qint64> step)
    {
        CheckpointFile c;
        c.path = m_dir->filePath(name);
        c.isFolder = true;
        c.layout = WeightsLayout::NamedShards;
        for (const auto &[shard, bytes] : shards)
            c.files << file(name + QLatin1Char('/') + shard, bytes, minute);
        c.stepFromName = step;
        m_checkpoints.push_back(c);
        return m_checkpoints.back();
    }

    QList<const CheckpointFile *> all() const
    {
        QList<const CheckpointFile *> out;
        for (const CheckpointFile &c : m_checkpoints)
            out << &c;
        return out;
    }

    static QStringList names(const StepPlan &plan)
    {
        QStringList out;
        for (const PlacedCheckpoint &p : plan.checkpoints)
            out << QStringLiteral("%1@%2%3").arg(QFileInfo(p.file->path).fileName()).arg(p.step).arg(p.unnumbered ? "*" : "");
        return out;
    }

private slots:
    // Names of one step are ordered numerically (b2 before b10) by the locale's collation; the C
    // locale a test may run in has none.
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_checkpoints.clear();
    }

    void ordersByStep()
    {
        checkpoint(QStringLiteral("ckpt_300.pt"), "three", 1, 300);
        checkpoint(QStringLiteral("ckpt_100.pt"), "one", 3, 100);
        checkpoint(QStringLiteral("ckpt_200.pt"), "two", 2, 200);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), (QStringList{"ckpt_100.pt@100", "ckpt_200.pt@200", "ckpt_300.pt@300"}));
        for (const PlacedCheckpoint &p : plan.checkpoints)
            QCOMPARE(p.stepSource, QStringLiteral("the name"));
        QVERIFY(plan.duplicates.isEmpty());
        QVERIFY(plan.notes.isEmpty());
        QVERIFY(CheckpointSteps::decide({}).checkpoints.isEmpty());
    }

    // A sidecar's step before the file's own, before the name's; a negative recorded step is none.
    void takesEachStepFromTheBestSource()
    {
        CheckpointFile &sidecar = checkpoint(QStringLiteral("checkpoint-1"), "a", 1, 1);
        sidecar.stepFromSidecar = 10;
        sidecar.stepSidecar = m_dir->filePath(QStringLiteral("checkpoint-1/trainer_state.json"));
        sidecar.stepInFile = 99;
        CheckpointFile &unnamedSidecar = checkpoint(QStringLiteral("b.pt"), "b", 1, std::nullopt);
        unnamedSidecar.stepFromSidecar = 20;
        CheckpointFile &inFile = checkpoint(QStringLiteral("ckpt_3.pt"), "c", 1, 3);
        inFile.stepInFile = 30;
        CheckpointFile &negative = checkpoint(QStringLiteral("ckpt_40.pt"), "d", 1, 40);
        negative.stepInFile = -1;
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), (QStringList{"checkpoint-1@10", "b.pt@20", "ckpt_3.pt@30", "ckpt_40.pt@40"}));
        QCOMPARE(plan.checkpoints[0].stepSource, QStringLiteral("trainer_state.json"));
        QCOMPARE(plan.checkpoints[1].stepSource, QStringLiteral("a sidecar file"));
        QCOMPARE(plan.checkpoints[2].stepSource, QStringLiteral("recorded in the checkpoint"));
        QCOMPARE(plan.checkpoints[3].stepSource, QStringLiteral("the name"));
    }

    // Two different models at one step: the newer is analysed, the other named and never averaged.
    void keepsTheNewestOfOneStep()
    {
        checkpoint(QStringLiteral("a/ckpt_100.pt"), "older model", 1, 100);
        checkpoint(QStringLiteral("b/ckpt_100.pt"), "newer model", 5, 100);
        checkpoint(QStringLiteral("c/ckpt_100.pt"), "oldest", 0, 100);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(plan.checkpoints.size(), 1);
        QCOMPARE(plan.checkpoints[0].file, &m_checkpoints[1]);
        QCOMPARE(plan.duplicates.size(), 2);
        for (const SkippedFile &d : plan.duplicates) {
            QVERIFY(d.duplicate);
            QVERIFY(!d.problem);
            QCOMPARE(d.reason, QStringLiteral("claims step 100 like ckpt_100.pt, which is newer: not analysed (two models at one step are never averaged)"));
        }
        QCOMPARE(plan.duplicates[0].path, m_checkpoints[0].path);
        QCOMPARE(plan.duplicates[1].path, m_checkpoints[2].path);
    }

    // Equally new: the first by path is kept, whatever order they were found in.
    void breaksTiesByPath()
    {
        checkpoint(QStringLiteral("z.pt"), "z", 1, 7);
        checkpoint(QStringLiteral("m.pt"), "m", 1, 7);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), QStringList{"m.pt@7"});
        QCOMPARE(plan.duplicates.value(0).path, m_checkpoints[0].path);
    }

    // The same bytes saved twice under one step are one checkpoint, analysed once.
    void analysesIdenticalCopiesOnce()
    {
        checkpoint(QStringLiteral("ckpt_100.pt"), "same weights", 5, 100);
        checkpoint(QStringLiteral("copy_of_step_100.pt"), "same weights", 1, 100);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), QStringList{"ckpt_100.pt@100"});
        QCOMPARE(plan.duplicates.size(), 1);
        QCOMPARE(plan.duplicates[0].reason, QStringLiteral("identical to ckpt_100.pt, which claims the same step 100: analysed once"));
        QVERIFY(plan.duplicates[0].duplicate);
    }

    // A checkpoint that cannot be read keeps its step but claims nothing: the readable one at
    // that step is analysed, even if older, and both are listed.
    void unreadableCheckpointsClaimNothing()
    {
        CheckpointFile &broken = checkpoint(QStringLiteral("b10.pt"), "broken", 9, 5);
        broken.error = QStringLiteral("shard 2 of 3 is missing");
        checkpoint(QStringLiteral("a.pt"), "readable", 1, 5);
        CheckpointFile &broken2 = checkpoint(QStringLiteral("b2.pt"), "broken too", 8, 5);
        broken2.error = QStringLiteral("truncated");
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), (QStringList{"a.pt@5", "b2.pt@5", "b10.pt@5"})); // numeric order of names
        QVERIFY(plan.duplicates.isEmpty());
    }

    // Recorded steps that could not be used are said.
    void notesStepProblems()
    {
        CheckpointFile &c = checkpoint(QStringLiteral("ckpt_99999999999999999999.pt"), "x", 1, std::nullopt);
        c.stepProblems << QStringLiteral("the step in its name is too large for 64 bits");
        checkpoint(QStringLiteral("ckpt_1.pt"), "y", 1, 1);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(plan.notes.value(0),
                 QStringLiteral("ckpt_99999999999999999999.pt: the step in its name is too large for 64 bits; that step is not used"));
    }

    // A final model saved beside its last checkpoint is that checkpoint.
    void unnumberedTwinIsThatCheckpoint()
    {
        checkpoint(QStringLiteral("ckpt_400.pt"), "four", 1, 400);
        checkpoint(QStringLiteral("ckpt_500.pt"), "five", 2, 500);
        checkpoint(QStringLiteral("final.pt"), "five", 3, std::nullopt);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), (QStringList{"ckpt_400.pt@400", "ckpt_500.pt@500"}));
        QCOMPARE(plan.duplicates.size(), 1);
        QCOMPARE(plan.duplicates[0].path, m_checkpoints[2].path);
        QCOMPARE(plan.duplicates[0].reason, QStringLiteral("records no step and is identical to ckpt_500.pt (step 500): analysed once, as step 500"));
        QVERIFY(plan.notes.isEmpty());
    }

    // Checkpoints with no step come after every numbered one, oldest first, marked unnumbered and
    // noted; an unreadable one is placed as well, with no note (its error is said elsewhere), and
    // is never anyone's twin.
    void placesUnnumberedAfterTheLastStep()
    {
        checkpoint(QStringLiteral("ckpt_500.pt"), "five", 2, 500);
        checkpoint(QStringLiteral("newer.pt"), "n", 9, std::nullopt);
        checkpoint(QStringLiteral("older.pt"), "o", 4, std::nullopt);
        CheckpointFile &broken = checkpoint(QStringLiteral("broken.pt"), "five", 6, std::nullopt);
        broken.error = QStringLiteral("not a checkpoint");
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), (QStringList{"ckpt_500.pt@500", "older.pt@501*", "broken.pt@502*", "newer.pt@503*"}));
        QCOMPARE(plan.checkpoints[1].stepSource, QStringLiteral("none recorded: placed after the numbered steps by modification time"));
        QVERIFY(plan.duplicates.isEmpty());
        QCOMPARE(plan.notes,
                 (QStringList{QStringLiteral("older.pt records no step (no trainer_state.json, meta file, iter_num or global_step, or step in "
                                             "its name): placed after step 500 by modification time, as step 501, and labelled final"),
                              QStringLiteral("newer.pt records no step (no trainer_state.json, meta file, iter_num or global_step, or step in "
                                             "its name): placed after step 500 by modification time, as step 503, and labelled final")}));
    }

    void numbersARunWithNoStepsFromZero()
    {
        checkpoint(QStringLiteral("second.pt"), "2", 2, std::nullopt);
        checkpoint(QStringLiteral("first.pt"), "1", 1, std::nullopt);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), (QStringList{"first.pt@0*", "second.pt@1*"}));
        QVERIFY(plan.notes.value(0).contains(QStringLiteral("placed in order by modification time, as step 0")));
    }

    // The last step at the 64-bit limit: what comes after shares it rather than wrapping around
    // to the most negative step.
    void neverWrapsPastTheLargestStep()
    {
        constexpr qint64 kMax = std::numeric_limits<qint64>::max();
        checkpoint(QStringLiteral("ckpt_max.pt"), "m", 1, kMax);
        checkpoint(QStringLiteral("x10.pt"), "a", 2, std::nullopt);
        checkpoint(QStringLiteral("x9.pt"), "b", 3, std::nullopt);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(plan.checkpoints.size(), 3);
        for (const PlacedCheckpoint &p : plan.checkpoints)
            QCOMPARE(p.step, kMax);
        QCOMPARE(names(plan).mid(1), (QStringList{QStringLiteral("x9.pt@%1*").arg(kMax), QStringLiteral("x10.pt@%1*").arg(kMax)}));
    }

    // Sharded checkpoints are the same when their shards are, pairwise by name whatever order
    // they are listed in; equal totals split differently, or one byte past the first megabyte
    // that differs, are not.
    void comparesShardsPairwise()
    {
        QByteArray big(3 << 20, 'w');
        QByteArray bigChanged = big;
        bigChanged[(1 << 20) + 5] = 'X';
        folder(QStringLiteral("checkpoint-10"), {{"model-1.safetensors", "aaaa"}, {"model-2.safetensors", big}}, 5, 10);
        folder(QStringLiteral("copy-10"), {{"model-2.safetensors", big}, {"model-1.safetensors", "aaaa"}}, 1, 10);
        folder(QStringLiteral("resplit-10"), {{"model-1.safetensors", "aaa"}, {"model-2.safetensors", "a" + big}}, 2, 10);
        folder(QStringLiteral("changed-10"), {{"model-1.safetensors", "aaaa"}, {"model-2.safetensors", bigChanged}}, 3, 10);
        const StepPlan plan = CheckpointSteps::decide(all());
        QCOMPARE(names(plan), QStringList{"checkpoint-10@10"});
        QCOMPARE(plan.duplicates.size(), 3);
        // Newest first: changed-10, resplit-10, copy-10.
        QVERIFY2(plan.duplicates[0].reason.startsWith(QStringLiteral("claims step 10 like checkpoint-10")), qPrintable(plan.duplicates[0].reason));
        QVERIFY2(plan.duplicates[1].reason.startsWith(QStringLiteral("claims step 10 like checkpoint-10")), qPrintable(plan.duplicates[1].reason));
        QCOMPARE(plan.duplicates[2].reason, QStringLiteral("identical to checkpoint-10, which claims the same step 10: analysed once"));
        QCOMPARE(plan.duplicates[2].path, m_checkpoints[1].path);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestCheckpointSteps)
} // namespace tst_checkpointsteps

#include "tst_CheckpointSteps.moc"
