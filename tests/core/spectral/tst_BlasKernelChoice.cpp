// Which OpenBLAS kernels RankScope asks for, from the CPU's instruction sets and the core OpenBLAS
// detected: the decision as a pure function, without the CPU it is about.
#include "spectral/BlasKernelChoice.h"
#include "spectral/CpuFeatures.h"
#include "TestSuite.h"

Q_DECLARE_METATYPE(rankscope::CpuFeatures)

namespace tst_blaskernelchoice {

using namespace rankscope;

namespace {

CpuFeatures cpu(const char *vendor, bool avx, bool avx2, bool fma, bool avx512)
{
    CpuFeatures features;
    features.vendor = vendor;
    features.avx = avx;
    features.avx2 = avx2;
    features.fma = fma;
    features.avx512 = avx512;
    return features;
}

const CpuFeatures emeraldRapids = cpu("GenuineIntel", true, true, true, true); // family 6 model 207
const CpuFeatures zen = cpu("AuthenticAMD", true, true, true, false);
const CpuFeatures haswell = cpu("GenuineIntel", true, true, true, false);
const CpuFeatures sandyBridge = cpu("GenuineIntel", true, false, false, false);
const CpuFeatures noAvx = cpu("GenuineIntel", false, false, false, false);

} // namespace

class TestBlasKernelChoice : public QObject {
    Q_OBJECT
private slots:
    void choice_data()
    {
        QTest::addColumn<CpuFeatures>("features");
        QTest::addColumn<QString>("detected");
        QTest::addColumn<QString>("chosen");
        // The VM: AVX-512 CPU, generic kernels detected: the AVX2 kernels measured fastest.
        QTest::newRow("AVX-512, Prescott detected") << emeraldRapids << "Prescott" << "Haswell";
        QTest::newRow("AVX-512, Nehalem detected") << emeraldRapids << "Nehalem" << "Haswell";
        QTest::newRow("AVX-512, Sandybridge detected") << emeraldRapids << "Sandybridge" << "Haswell";
        // A correct detection is kept, AVX-512 kernels included.
        QTest::newRow("AVX-512, SkylakeX detected") << emeraldRapids << "SkylakeX" << "";
        QTest::newRow("AVX-512, SapphireRapids detected") << emeraldRapids << "SapphireRapids" << "";
        QTest::newRow("AVX-512, Haswell detected") << emeraldRapids << "Haswell" << "";
        // AVX2: AMD gets OpenBLAS's own Zen kernels, Intel Haswell's.
        QTest::newRow("Zen, Prescott detected") << zen << "Prescott" << "Zen";
        QTest::newRow("Zen, Zen detected") << zen << "Zen" << "";
        QTest::newRow("Zen, Haswell detected") << zen << "Haswell" << "";
        QTest::newRow("Haswell, Core2 detected") << haswell << "Core2" << "Haswell";
        QTest::newRow("Haswell, unknown name") << haswell << "Unknown" << "Haswell";
        // Never a kernel the CPU (or the OS) cannot run: AVX-512 kernels on an AVX2 CPU, AVX2 on AVX.
        QTest::newRow("Zen, SkylakeX detected") << zen << "SkylakeX" << "Zen";
        QTest::newRow("Sandy Bridge, Prescott detected") << sandyBridge << "Prescott" << "Sandybridge";
        QTest::newRow("Sandy Bridge, Haswell detected") << sandyBridge << "Haswell" << "Sandybridge";
        QTest::newRow("Sandy Bridge, Sandybridge detected") << sandyBridge << "Sandybridge" << "";
        QTest::newRow("no AVX, Prescott detected") << noAvx << "Prescott" << "";
        QTest::newRow("no AVX, Haswell detected") << noAvx << "Haswell" << "Prescott";
        // AVX2 without FMA is not enough for the AVX2 kernels (they use FMA).
        QTest::newRow("AVX2 without FMA") << cpu("GenuineIntel", true, true, false, false) << "Prescott" << "Sandybridge";
    }
    void choice()
    {
        QFETCH(CpuFeatures, features);
        QFETCH(QString, detected);
        QFETCH(QString, chosen);
        QCOMPARE(QString::fromStdString(chooseOpenBlasCoreType(features, detected.toStdString())), chosen);
    }

    // Whatever this machine is, what CPUID reports is consistent, and the choice for the core OpenBLAS
    // actually detected never asks for more than the CPU has.
    void thisMachine()
    {
        const CpuFeatures here = CpuFeatures::detect();
        QVERIFY(!here.avx2 || here.avx);
        QVERIFY(!here.fma || here.avx);
        QVERIFY(!here.avx512 || here.avx2);
        const std::string chosen = chooseOpenBlasCoreType(here, "Prescott");
        if (!here.avx)
            QCOMPARE(chosen, std::string());
        else if (!here.avx2 || !here.fma)
            QCOMPARE(chosen, std::string("Sandybridge"));
        else
            QVERIFY(chosen == "Haswell" || chosen == "Zen");
        QVERIFY(!describeBlasKernel().empty());
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestBlasKernelChoice)
} // namespace tst_blaskernelchoice

#include "tst_BlasKernelChoice.moc"
