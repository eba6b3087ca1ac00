// Every input a fuzzer found a problem with, or that stands for a case of the hardening table
// (tests/fuzz/regressions/<target>/), replayed through the code of its target. Each input X comes
// with X.expected, the problem the replay must report: no input passes by merely not crashing.
// Under the sanitizer build a relapse is a test failure.
#include "analysis/execution/MatrixPartExtractor.h"
#include "DcpCheckpointWriter.h"
#include "fuzz/FolderFuzzInput.h"
#include "fuzz/Hdf5FuzzImage.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "io/logs/TensorBoardEvents.h"
#include "io/numpy/NpyFormat.h"
#include "io/torch/PickleReader.h"
#include "model/CheckpointLayout.h"
#include "TestSuite.h"

#include <QBuffer>
#include <QDir>
#include <QTemporaryDir>

namespace tst_fuzzregressions {

using namespace rankscope;

namespace {

QByteArray contents(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

// What the readers say of a checkpoint: why it cannot be opened, or its warnings and each
// tensor's problem.
QStringList checkpointProblems(const QString &path)
{
    QString error;
    const auto reader = openCheckpoint(path, &error);
    if (!reader)
        return {error};
    QStringList problems = reader->warnings();
    for (const TensorInfo &t : reader->tensors()) {
        const MatrixRead read = reader->readMatrix(t.name, t.shape.size() == 3 ? 0 : -1);
        if (!read.ok())
            problems << t.name + ": " + read.error;
    }
    return problems;
}

} // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString asFile(const QByteArray &bytes, const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(bytes);
        return path;
    }

    // The problems an input makes its target's code report, as that fuzz target runs it.
    QStringList replay(const QString &target, const QByteArray &input)
    {
        if (target == QLatin1String("fuzz_pickle")) {
            const PickleResult result = readPickle(input);
            QStringList problems{result.error};
            if (!result.unsafeGlobals.isEmpty())
                problems << QStringLiteral("unsafe: ") + result.unsafeGlobals.join(QLatin1String(", "));
            if (result.error.isEmpty() && result.root)
                problems << QStringLiteral("read");
            return problems;
        }
        if (target == QLatin1String("fuzz_torch_checkpoint"))
            return checkpointProblems(asFile(input, "checkpoint.pt"));
        if (target == QLatin1String("fuzz_safetensors"))
            return checkpointProblems(asFile(input, "model.safetensors"));
        if (target == QLatin1String("fuzz_numpy")) {
            QString error;
            if (const auto header = NpyFormat::parseHeader(input, &error); header && header->shape.size() == 2) {
                const StoredRead read = NpyFormat::decodeMatrix(*header, input.mid(header->dataOffset), header->shape[0], header->shape[1]);
                error = read.error;
                if (read.ok())
                    read.matrix.widened(); // widening reads every element the header promised
            }
            return QStringList{error} + checkpointProblems(asFile(input, "arrays.npz"));
        }
        if (target == QLatin1String("fuzz_name_rules")) {
            const QString name = QString::fromUtf8(input.mid(6));
            const CheckpointLayout layout = CheckpointLayout::plan({{name, {12, 4}, "float32"}}, ModelConfig(), TensorNameRules::builtIn());
            QStringList problems;
            for (const LeftOutTensor &left : layout.leftOut)
                problems << left.reason;
            for (const PlannedTensor &t : layout.typed)
                problems << QStringLiteral("typed as %1").arg(csvName(t.parts.first().id.type));
            QString error;
            if (!TensorNameRules::withUserRules(asFile(input.mid(6), "rules.json"), &error))
                problems << error;
            return problems;
        }
        if (target == QLatin1String("fuzz_hdf5")) {
            const QByteArray image = fuzz::Hdf5FuzzImage::build(reinterpret_cast<const uint8_t *>(input.constData()), size_t(input.size()));
            const QString path = asFile(image, "fuzz.h5");
            QString error;
            QStringList problems = checkpointProblems(path);
            if (const auto run = ResultsFile::load(path, &error))
                problems << run->issueLines();
            return problems << error;
        }
        if (target == QLatin1String("fuzz_dcp_metadata")) {
            const QString folder = m_dir.filePath("dcp");
            if (!test::DcpFolderWriter::write(folder, test::dcpFuzzFolder()) || !test::DcpFolderWriter::writeBytes(QDir(folder).filePath(".metadata"), input))
                return {QStringLiteral("cannot write the DCP folder")};
            return checkpointProblems(folder);
        }
        if (target == QLatin1String("fuzz_save_folders")) {
            const QString folder = m_dir.filePath("folder");
            fuzz::writeFolder(input, folder);
            return fuzz::folderProblems(folder);
        }
        if (target == QLatin1String("fuzz_tensorboard_events")) {
            // Each input's first records are whole: their point is kept before the problem is said.
            QByteArray bytes = input;
            QBuffer buffer(&bytes);
            buffer.open(QIODevice::ReadOnly);
            ScalarLog log;
            TensorBoardEvents::read(buffer, QStringLiteral("events.out.tfevents.1700000000.fuzz.1.0"), log);
            QStringList problems;
            for (const ScalarLogProblem &p : log.problems())
                problems << p.text;
            if (const ScalarSeries *loss = log.find(QStringLiteral("loss")); !loss || loss->points.isEmpty())
                problems << QStringLiteral("the whole records before the problem were lost");
            return problems;
        }
        return {QStringLiteral("no replay for %1").arg(target)};
    }

private slots:
    void initTestCase()
    {
        // The per-matrix memory limit is a quarter of the memory available, so without a fixed
        // limit an input's first problem would depend on the machine: on a 24 GB machine a 4 GB
        // broadcast view reaches the storage check, on a 16 GB one the memory limit refuses it
        // first. A limit no input reaches lets each file's own defect be the one reported.
        qputenv("RANKSCOPE_MAX_MATRIX_BYTES", "1000G");
    }

    void everyTargetHasRegressions_data()
    {
        QTest::addColumn<QString>("target");
        for (const char *target : {"fuzz_pickle", "fuzz_torch_checkpoint", "fuzz_safetensors", "fuzz_numpy", "fuzz_name_rules", "fuzz_hdf5", "fuzz_dcp_metadata",
                                   "fuzz_save_folders", "fuzz_tensorboard_events"})
            QTest::newRow(target) << QString::fromLatin1(target);
    }

    void everyTargetHasRegressions()
    {
        QFETCH(QString, target);
        const QDir folder(QStringLiteral(RANKSCOPE_FUZZ_REGRESSIONS "/") + target);
        QVERIFY2(folder.exists(), qPrintable(folder.path()));
        const QStringList expectations = folder.entryList({"*.expected"}, QDir::Files, QDir::Name);
        const QStringList inputs = folder.entryList(QDir::Files, QDir::Name).filter(QRegularExpression(QStringLiteral("^(?!.*\\.expected$)")));
        QVERIFY(!inputs.isEmpty());
        QCOMPARE(expectations.size(), inputs.size()); // each input says what it must produce
        for (const QString &input : inputs) {
            const QString expected = QString::fromUtf8(contents(folder.filePath(input + ".expected"))).trimmed();
            QVERIFY2(!expected.isEmpty(), qPrintable(input + ".expected"));
            const QString said = replay(target, contents(folder.filePath(input))).join('\n');
            QVERIFY2(said.contains(expected), qPrintable(QStringLiteral("%1: expected \"%2\" in:\n%3").arg(input, expected, said)));
        }
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestFuzzRegressions)
} // namespace tst_fuzzregressions

#include "tst_FuzzRegressions.moc"
