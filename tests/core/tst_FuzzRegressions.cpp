// Every input the fuzzers ever found a problem with (tests/fuzz/regressions/<target>/), replayed
// through the code it broke. Under the sanitizer build a relapse is a test failure.
#include "analysis/MatrixPartExtractor.h"
#include "io/CheckpointReader.h"
#include "io/NpyFormat.h"
#include "io/NumpyReaders.h"
#include "io/PickleReader.h"
#include "io/SafetensorsReader.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace rankscope;

namespace {

QFileInfoList inputs(const QString &target)
{
    return QDir(QStringLiteral(RANKSCOPE_FUZZ_REGRESSIONS "/") + target).entryInfoList(QDir::Files, QDir::Name);
}

QByteArray contents(const QFileInfo &file)
{
    QFile f(file.filePath());
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

void readEverything(const QString &path)
{
    QString error;
    if (auto reader = openCheckpoint(path, &error))
        for (const TensorInfo &t : reader->tensors())
            if (t.shape.size() == 2)
                reader->readMatrix(t.name);
}

} // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString asFile(const QFileInfo &input, const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(contents(input));
        return path;
    }

private slots:
    void pickles()
    {
        const QFileInfoList files = inputs("fuzz_pickle");
        QVERIFY(!files.isEmpty());
        for (const QFileInfo &file : files) {
            const PickleResult result = readPickle(contents(file));
            QVERIFY2(!result.error.isEmpty() || result.root, qPrintable(file.fileName()));
        }
    }

    void checkpoints()
    {
        for (const QFileInfo &file : inputs("fuzz_torch_checkpoint"))
            readEverything(asFile(file, "checkpoint.pt"));
        for (const QFileInfo &file : inputs("fuzz_safetensors"))
            readEverything(asFile(file, "model.safetensors"));
        for (const QFileInfo &file : inputs("fuzz_numpy")) {
            QString error;
            const QByteArray bytes = contents(file);
            if (const auto header = NpyFormat::parseHeader(bytes, &error))
                if (header->shape.size() == 2)
                    if (const auto read = NpyFormat::decodeMatrix(*header, bytes.mid(header->dataOffset), header->shape[0], header->shape[1]); read.ok())
                        read.matrix.widened(); // widening reads every element the header promised
            readEverything(asFile(file, "arrays.npz"));
        }
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_FuzzRegressions.moc"
