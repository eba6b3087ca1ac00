// The scalars a run logged beside its checkpoints, read as each writer lays them out: the Hugging
// Face Trainer's log_history ({**logs, "step": global_step} per Trainer.log call, in the newest
// checkpoint's trainer_state.json), Lightning's CSVLogger metrics.csv (a "step" column, sparse rows),
// nanochat's meta_N.json; merged by step, the later write winning.
#include "FormatWriters.h"
#include "TensorBoardEventWriter.h"
#include "io/logs/TrainingLogs.h"
#include "TestSuite.h"

#include <QDir>
#include <QTemporaryDir>
#include <cmath>

namespace tst_traininglogs {

using namespace rankscope;
using namespace rankscope::test;

namespace {

QList<ScalarPoint> pointsOf(const ScalarLog &log, const QString &tag)
{
    const ScalarSeries *s = log.find(tag);
    return s ? s->points : QList<ScalarPoint>{};
}

QList<qint64> stepsOf(const QList<ScalarPoint> &points)
{
    QList<qint64> steps;
    for (const ScalarPoint &p : points)
        steps << p.step;
    return steps;
}

} // namespace

class TestTrainingLogs : public QObject {
    Q_OBJECT

private slots:
    void laterWriteOfAStepWins()
    {
        ScalarLog log;
        log.add("loss", "a", {{10, 3.0}, {20, 2.5}, {30, 2.0}});
        log.add("loss", "b", {{20, 2.4}, {40, 1.9}}); // a restart from step 20
        const QList<ScalarPoint> loss = pointsOf(log, "loss");
        QCOMPARE(stepsOf(loss), (QList<qint64>{10, 20, 30, 40}));
        QCOMPARE(loss[1].value, 2.4);
        QCOMPARE(log.find("loss")->sources, (QStringList{"a", "b"}));
        QCOMPARE(TrainingLogs::valueAt(*log.find("loss"), 35), std::optional<double>(2.0)); // the last before it
        QCOMPARE(TrainingLogs::valueAt(*log.find("loss"), 40), std::optional<double>(1.9));
        QVERIFY(!TrainingLogs::valueAt(*log.find("loss"), 5));
    }

    // The newest checkpoint's trainer_state.json holds the whole history; NaN (json.dump's) is kept.
    void trainerStateOfTheNewestCheckpoint()
    {
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath("checkpoint-100"));
        QDir().mkpath(dir.filePath("checkpoint-200"));
        saveBytes(dir.filePath("checkpoint-100/trainer_state.json"),
                  R"({"global_step": 100, "log_history": [{"loss": 9.0, "step": 50}]})");
        saveBytes(dir.filePath("checkpoint-200/trainer_state.json"),
                  R"({"global_step": 200, "log_history": [{"loss": 4.5, "grad_norm": 1.5, "learning_rate": 5e-05, "epoch": 0.5, "step": 50},
                      {"loss": NaN, "grad_norm": Infinity, "learning_rate": 2.5e-05, "epoch": 1.0, "step": 100},
                      {"eval_loss": 4.0, "eval_runtime": 1.2, "epoch": 1.0, "step": 100},
                      {"loss": 3.0, "learning_rate": 0.0, "epoch": 2.0, "step": 200}]})");
        const ScalarLog log = TrainingLogs::read(dir.path());
        QVERIFY(log.problems().isEmpty());
        const QList<ScalarPoint> loss = pointsOf(log, "loss");
        QCOMPARE(stepsOf(loss), (QList<qint64>{50, 100, 200}));
        QCOMPARE(loss[0].value, 4.5); // checkpoint-200's history, not checkpoint-100's
        QVERIFY(std::isnan(loss[1].value));
        QCOMPARE(stepsOf(pointsOf(log, "eval_loss")), QList<qint64>{100});
        QCOMPARE(pointsOf(log, "learning_rate").last().value, 0.0);
        QVERIFY(!log.find("step"));
        QCOMPARE(log.find("loss")->sources, QStringList{dir.filePath("checkpoint-200/trainer_state.json")});
    }

    // CSVLogger writes one row per log call with every column seen so far, empty where not logged.
    void lightningCsvIsSparse()
    {
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath("lightning_logs/version_0"));
        saveBytes(dir.filePath("lightning_logs/version_0/metrics.csv"),
                  "epoch,step,train_loss,\"val,loss\"\n0,49,3.25,\n0,99,2.5,\n0,99,,2.75\n1,149,nan,\n1,199,inf,\n");
        // A metrics.csv outside the log folders is another program's.
        saveBytes(dir.filePath("metrics.csv"), "step,other\n1,2\n");
        const ScalarLog log = TrainingLogs::read(dir.path());
        QVERIFY(log.problems().isEmpty());
        const QList<ScalarPoint> train = pointsOf(log, "train_loss");
        QCOMPARE(stepsOf(train), (QList<qint64>{49, 99, 149, 199}));
        QVERIFY(std::isnan(train[2].value) && std::isinf(train[3].value));
        QCOMPARE(pointsOf(log, "val,loss").size(), 1);
        QCOMPARE(pointsOf(log, "val,loss").first().value, 2.75);
        QVERIFY(!log.find("other"));
        QCOMPARE(log.series().size(), 3); // epoch, train_loss, val,loss
    }

    // nanochat: meta_N.json beside model_N.pt, its numbers at its step; a number the same in every
    // file is configuration, not a curve.
    void nanochatMetaFiles()
    {
        QTemporaryDir dir;
        saveBytes(dir.filePath("meta_000000.json"), R"({"step": 0, "val_bpb": NaN, "device_batch_size": 32, "model_config": {"n_layer": 4}})");
        saveBytes(dir.filePath("meta_000500.json"), R"({"step": 500, "val_bpb": 1.25, "device_batch_size": 32, "model_config": {"n_layer": 4}})");
        saveBytes(dir.filePath("meta_001000.json"), R"({"step": 1000, "val_bpb": 1.0, "device_batch_size": 32})");
        const ScalarLog log = TrainingLogs::read(dir.path());
        QCOMPARE(log.series().size(), 1);
        const QList<ScalarPoint> bpb = pointsOf(log, "val_bpb");
        QCOMPARE(stepsOf(bpb), (QList<qint64>{0, 500, 1000}));
        QVERIFY(std::isnan(bpb[0].value));
    }

    // Event files where trainers write them (the Trainer's runs/<date>_<host>/, Lightning's
    // lightning_logs/version_N/), merged in the order they were written: a restart's file, named
    // with its later time, wins the steps it logs again. Deeper than three levels is not searched.
    void eventFilesInTheLogFolders()
    {
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath("runs/Dec07_10-00_host"));
        QDir().mkpath(dir.filePath("runs/A-restart_host"));
        QDir().mkpath(dir.filePath("logs/a/b/c/d"));
        // The restart (written later, its folder listed first by name) logs steps 20 and 30 again.
        saveBytes(dir.filePath("runs/A-restart_host/events.out.tfevents.1700003600.host.7.0"), lossAndRate({20, 30}, 9.0).bytes);
        saveBytes(dir.filePath("runs/Dec07_10-00_host/events.out.tfevents.1700000000.host.5.0"), lossAndRate({10, 20, 30}).bytes);
        saveBytes(dir.filePath("logs/a/b/c/d/events.out.tfevents.1700000000.host.9.0"), lossAndRate({99}).bytes);
        const ScalarLog log = TrainingLogs::read(dir.path());
        QVERIFY(log.problems().isEmpty());
        const QList<ScalarPoint> loss = pointsOf(log, "loss");
        QCOMPARE(stepsOf(loss), (QList<qint64>{10, 20, 30}));
        QCOMPARE(float(loss[0].value), float(4.0 - 0.1));
        QCOMPARE(float(loss[2].value), float(9.0 - 0.3)); // the restart's
        QCOMPARE(log.find("loss")->sources.size(), 2);
    }

    // A file that cannot be read is said with its reason; the other logs are read.
    void aBadFileIsSaidTheRestRead()
    {
        QTemporaryDir dir;
        saveBytes(dir.filePath("trainer_state.json"), "{\"global_step\": 10, \"log_history\": [");
        QDir().mkpath(dir.filePath("logs/version_0"));
        saveBytes(dir.filePath("logs/version_0/metrics.csv"), "step,loss\n10,2.0\nxx,3.0\n20,1.0\n");
        const ScalarLog log = TrainingLogs::read(dir.path());
        QCOMPARE(log.problems().size(), 2);
        QCOMPARE(log.problems()[0].path, dir.filePath("trainer_state.json"));
        QVERIFY2(log.problems()[1].text.contains("line 3: no step"), qPrintable(log.problems()[1].text));
        QCOMPARE(stepsOf(pointsOf(log, "loss")), QList<qint64>{10}); // the rows before the bad one
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestTrainingLogs)
} // namespace tst_traininglogs

#include "tst_TrainingLogs.moc"
