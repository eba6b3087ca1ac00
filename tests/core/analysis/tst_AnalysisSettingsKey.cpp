// The settings key: the text the results file keeps is built from the settings and read back in
// one place, and which stored results serve (whole, or for all but some opt-in metrics) follows
// from it.
#include "analysis/results/AnalysisSettingsKey.h"
#include "analysis/results/RunAnalysis.h"
#include "TestSuite.h"

namespace tst_analysissettingskey {

using namespace rankscope;

namespace {

AnalysisSettingsKey keyOf(const AnalysisSettings &settings)
{
    return AnalysisSettingsKey::of(settings, QStringLiteral("builtin-3"), settings.mergeBase.isEmpty() ? QString() : QStringLiteral("none"), 4);
}

} // namespace

class TestAnalysisSettingsKey : public QObject {
    Q_OBJECT

private slots:
    // The text earlier builds wrote: cached results stay valid across this change.
    void writesTheStoredText()
    {
        AnalysisSettings plain;
        QCOMPARE(keyOf(plain).toString(), QStringLiteral("solver=gram;rules=builtin-3;schema=4"));
        AnalysisSettings all;
        all.method = SvdMethod::ExactSvd;
        all.randDistance = true;
        all.delta = true;
        all.referenceStep = 500;
        all.subspace = true;
        all.subspaceK = 8;
        QCOMPARE(keyOf(all).toString(), QStringLiteral("solver=svd;rules=builtin-3;schema=4;rand_distance=1;delta=500;subspace=8"));
        all.referenceStep.reset();
        QCOMPARE(keyOf(all).toString(), QStringLiteral("solver=svd;rules=builtin-3;schema=4;rand_distance=1;delta=first;subspace=8"));
        // A reference step or a k without their option is no part of the key.
        AnalysisSettings unasked;
        unasked.referenceStep = 7;
        unasked.subspaceK = 3;
        QCOMPARE(keyOf(unasked).toString(), keyOf(plain).toString());
    }

    void parsesWhatItWrites()
    {
        AnalysisSettings all;
        all.randDistance = true;
        all.delta = true;
        all.referenceStep = 1200;
        all.subspace = true;
        const AnalysisSettingsKey key = AnalysisSettingsKey::parse(keyOf(all).toString());
        QCOMPARE(key.solver, QStringLiteral("gram"));
        QCOMPARE(key.rules, QStringLiteral("builtin-3"));
        QCOMPARE(key.schema, 4);
        QVERIFY(key.randDistance);
        QVERIFY(key.delta);
        QCOMPARE(key.referenceStep, std::optional<qint64>(1200));
        QCOMPARE(key.subspaceK, std::optional<int>(kDefaultSubspaceK));
        QVERIFY(key.others.isEmpty());
        QCOMPARE(key.toString(), keyOf(all).toString());
    }

    // Results without some opt-in metric serve for the rest; a delta against another reference or
    // subspace metrics at another k are missing too.
    void missingOptIns()
    {
        const AnalysisSettingsKey stored = AnalysisSettingsKey::parse(QStringLiteral("solver=gram;rules=builtin-3;schema=4;delta=first;subspace=16"));
        auto missing = [&](const QString &wanted) { return AnalysisSettingsKey::parse(wanted).missingFrom(stored); };
        const auto none = missing(QStringLiteral("solver=gram;rules=builtin-3;schema=4"));
        QVERIFY(none && !none->any());
        const auto same = missing(QStringLiteral("solver=gram;rules=builtin-3;schema=4;delta=first;subspace=16"));
        QVERIFY(same && !same->any());
        const auto rand = missing(QStringLiteral("solver=gram;rules=builtin-3;schema=4;rand_distance=1;delta=first"));
        QVERIFY(rand && rand->randDistance && !rand->delta && !rand->subspace);
        const auto otherReference = missing(QStringLiteral("solver=gram;rules=builtin-3;schema=4;delta=100"));
        QVERIFY(otherReference && otherReference->delta && !otherReference->randDistance && !otherReference->subspace);
        const auto otherK = missing(QStringLiteral("solver=gram;rules=builtin-3;schema=4;subspace=8"));
        QVERIFY(otherK && otherK->subspace && !otherK->delta);
    }

    // Another solver, rules or schema, or an item this build does not write: nothing serves.
    void otherSettingsServeNothing()
    {
        const AnalysisSettingsKey stored = AnalysisSettingsKey::parse(QStringLiteral("solver=gram;rules=builtin-3;schema=4"));
        for (const char *wanted : {"solver=svd;rules=builtin-3;schema=4", "solver=gram;rules=user-ab-3;schema=4",
                                   "solver=gram;rules=builtin-3;schema=3", "solver=gram;rules=builtin-3;schema=4;tau=0.9",
                                   "solver=gram;rules=builtin-3;schema=4;delta=0100", "solver=gram", ""})
            QVERIFY2(!AnalysisSettingsKey::parse(QString::fromLatin1(wanted)).missingFrom(stored), wanted);
    }

    void coverIsWholeService()
    {
        const QString plain = QStringLiteral("solver=gram;rules=builtin-3;schema=4");
        QVERIFY(RunAnalysis::settingsCover(plain + QStringLiteral(";rand_distance=1"), plain));
        QVERIFY(!RunAnalysis::settingsCover(plain, plain + QStringLiteral(";rand_distance=1")));
        QVERIFY(RunAnalysis::settingsCover(plain, plain));
        QVERIFY(!RunAnalysis::settingsCover(QStringLiteral("solver=svd;rules=builtin-3;schema=4"), plain));
        QVERIFY(AnalysisSettingsKey::parse(plain).coveredBy(AnalysisSettingsKey::parse(plain + QStringLiteral(";delta=first"))));
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestAnalysisSettingsKey)
} // namespace tst_analysissettingskey

#include "tst_AnalysisSettingsKey.moc"
