// --delta over a run: the reference chosen and opened once, a --reference that names nothing
// refused, deltas against another reference found stale, and each matrix's namesake read (or a
// note saying why its deltas are NaN).
#include "analysis/execution/PlannedTensorRead.h"
#include "analysis/planning/CheckpointPlan.h"
#include "analysis/execution/DeltaPlan.h"
#include "FormatWriters.h"
#include "TestSuite.h"

#include <QTemporaryDir>
#include <cstring>

namespace tst_deltaplan {

using namespace rankscope;

namespace {

QByteArray floats(qint64 count, float start)
{
    QByteArray data(qsizetype(count * 4), Qt::Uninitialized);
    for (qint64 i = 0; i < count; ++i) {
        const float f = start + float(i);
        std::memcpy(data.data() + 4 * i, &f, 4);
    }
    return data;
}

CheckpointRecord cachedWith(const QString &deltaReference)
{
    CheckpointRecord record;
    record.deltaReference = deltaReference;
    return record;
}

} // namespace

class TestDeltaPlan : public QObject {
    Q_OBJECT

private slots:
    // A --reference step no checkpoint has: nothing is analysed, and the steps there are are said.
    void refusesAReferenceThatNamesNothing()
    {
        CheckpointFile a, b;
        a.path = QStringLiteral("/run/ckpt_100.pt");
        b.path = QStringLiteral("/run/ckpt_200.pt");
        const QList<PlacedCheckpoint> checkpoints{{&a, 100, false, {}}, {&b, 200, false, {}}};
        RunAnalysis run;
        run.folder = QStringLiteral("/run");
        DeltaPlan plan(true);
        QVERIFY(!plan.open(checkpoints, 150, TensorNameRules::builtIn(), run));
        QCOMPARE(run.issues.size(), 1);
        QCOMPARE(run.issues[0].path, QStringLiteral("/run"));
        QCOMPARE(run.issues[0].message, DeltaReference::noCheckpointAt(150, checkpoints));
        QVERIFY(run.issues[0].wholeFile);
    }

    // A reference that cannot be read: a note, every delta NaN, recorded against "none".
    void unreadableReferenceIsNoted()
    {
        CheckpointFile missing;
        missing.path = QStringLiteral("/nonexistent/ckpt_100.safetensors");
        missing.files = {missing.path};
        RunAnalysis run;
        DeltaPlan plan(true);
        QVERIFY(plan.open({{&missing, 100, false, {}}}, std::nullopt, TensorNameRules::builtIn(), run));
        QVERIFY(!plan.hasReference());
        QCOMPARE(plan.referenceIdentity(), DeltaReference::unreadableIdentity());
        QCOMPARE(run.notes.size(), 1);
        QVERIFY2(run.notes[0].startsWith(QStringLiteral("--delta: the reference checkpoint ckpt_100.safetensors cannot be read (")), qPrintable(run.notes[0]));
        QVERIFY(run.notes[0].endsWith(QStringLiteral("): every delta metric is NaN")));
        QStringList notes;
        QVERIFY(!plan.namesakeOf(MatrixIdentity{}, 4, 4, notes));
        QVERIFY(notes.isEmpty());
    }

    // Deltas recorded against another reference are computed again; without --delta never.
    void staleAndStamped()
    {
        CheckpointFile missing;
        missing.path = QStringLiteral("/nonexistent/ckpt_100.safetensors");
        RunAnalysis run;
        DeltaPlan plan(true);
        QVERIFY(plan.open({{&missing, 100, false, {}}}, std::nullopt, TensorNameRules::builtIn(), run));
        const CheckpointRecord same = cachedWith(QStringLiteral("none")), other = cachedWith(DeltaReference::identityOf(100, "abc"));
        QVERIFY(!plan.isStale(nullptr));
        QVERIFY(!plan.isStale(&same));
        QVERIFY(plan.isStale(&other));
        CheckpointRecord record;
        plan.stamp(record, &other);
        QCOMPARE(record.deltaReference, QStringLiteral("none"));

        const DeltaPlan off;
        QVERIFY(!off.enabled());
        QVERIFY(!off.isStale(&other));
        CheckpointRecord kept;
        off.stamp(kept, &other);
        QCOMPARE(kept.deltaReference, other.deltaReference);
        CheckpointRecord fresh;
        off.stamp(fresh, nullptr);
        QVERIFY(fresh.deltaReference.isEmpty());
    }

    // The namesake of a matrix in a reference that can be read; another shape, or none there: a
    // note (once), and no namesake.
    void namesakes()
    {
        QTemporaryDir dir;
        test::saveBytes(dir.filePath("ckpt_000100.safetensors"),
                        test::safetensorsFile({{"transformer.h.0.attn.c_proj.weight", "F32", {6, 4}, floats(24, 1)}}));
        const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
        QCOMPARE(listing.checkpoints.size(), 1);
        const CheckpointFile &file = listing.checkpoints[0];
        QString problem;
        const std::unique_ptr<CheckpointReader> reader = file.open(&problem);
        QVERIFY2(reader, qPrintable(problem));
        const CheckpointPlan layout = CheckpointPlan::make(file, *reader, TensorNameRules::builtIn());
        QCOMPARE(layout.layout.typed.size(), 1);
        const PlannedTensor &tensor = layout.layout.typed[0];
        const MatrixIdentity id = tensor.parts[0].id;
        // The matrix as the analysis reads it (GPT-2's Conv1D is stored transposed).
        const PlannedTensorRead read = PlannedTensorRead::read(*reader, tensor, tensor.parts[0].slice, PlannedTensorRead::blockSizeOf(layout.config));
        QVERIFY2(read.ok(), qPrintable(read.error));
        const MatrixPartSource own(read.tensor, tensor.parts[0], read.scales);
        const qint64 rows = own.rows(), cols = own.cols();
        QCOMPARE(rows * cols, 24);
        QVERIFY(rows != cols);

        RunAnalysis run;
        DeltaPlan plan(true);
        QVERIFY(plan.open({{&file, 100, false, {}}}, 100, TensorNameRules::builtIn(), run));
        QVERIFY(plan.hasReference());
        QCOMPARE(plan.referenceStep(), 100);
        QVERIFY(plan.referenceIdentity().startsWith(QStringLiteral("100\n")));
        QVERIFY(run.notes.isEmpty());

        QStringList notes;
        const std::shared_ptr<MatrixPartSource> namesake = plan.namesakeOf(id, rows, cols, notes);
        QVERIFY(namesake);
        QCOMPARE(namesake->widened(), own.widened());
        QVERIFY(notes.isEmpty());
        QVERIFY(!plan.namesakeOf(id, cols, rows, notes));
        QVERIFY(!plan.namesakeOf(id, cols, rows, notes));
        QCOMPARE(notes, QStringList{QStringLiteral("--delta: %1 (%2×%3) is %3×%2 there (step 100): its delta metrics are NaN").arg(id.text()).arg(cols).arg(rows)});
        MatrixIdentity elsewhere = id;
        elsewhere.layer = 7;
        QVERIFY(!plan.namesakeOf(elsewhere, rows, cols, notes));
        QCOMPARE(notes.size(), 2);
        QVERIFY(notes[1].contains(QStringLiteral("has no namesake in the reference checkpoint")));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestDeltaPlan)
} // namespace tst_deltaplan

#include "tst_DeltaPlan.moc"
