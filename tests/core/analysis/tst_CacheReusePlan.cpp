// What an earlier analysis still gives: an unchanged checkpoint whole, or all but the opt-in
// metrics it lacks; a changed one nothing. The snapshot saved mid-run keeps the checkpoints not
// reached yet.
#include "analysis/discovery/ContentFingerprint.h"
#include "analysis/planning/CacheReusePlan.h"
#include "FormatWriters.h"
#include "TestSuite.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

namespace tst_cachereuseplan {

using namespace rankscope;

namespace {

const QString kPlain = QStringLiteral("solver=gram;rules=builtin-3;schema=4");

void write(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

MatrixResult resultOf(const QString &path, qint64 step)
{
    MatrixResult r;
    r.checkpointPath = path;
    r.step = step;
    r.rows = r.cols = 2;
    r.singularValues = Eigen::Vector2d(2, 1);
    return r;
}

} // namespace

class TestCacheReusePlan : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QList<CheckpointFile> m_files;
    QList<PlacedCheckpoint> m_placed;
    // An earlier analysis of both checkpoints under `key`, as they are on disk now.
    RunAnalysis previousUnder(const QString &key) const
    {
        const CacheReusePlan now(nullptr, key, m_placed);
        RunAnalysis previous;
        previous.settingsKey = key;
        previous.checkpoints = now.identities();
        for (qsizetype i = 0; i < previous.checkpoints.size(); ++i) {
            previous.checkpoints[i].step = 10 * (i + 1);
            previous.results << resultOf(previous.checkpoints[i].path, 10 * (i + 1));
            previous.issues.append({previous.checkpoints[i].path, QStringLiteral("t"), QStringLiteral("left out"), false});
        }
        return previous;
    }

private slots:
    // A checkpoint folder's fingerprint covers its whole subtree (a corrected context/model.yaml, a
    // replaced rank file), each file named by its path inside it; the opened folder's own weights
    // beside checkpoint folders cover only its own files, so a new or changed checkpoint-N/ leaves
    // them as they were.
    void fingerprintsCoverTheCheckpointsSubtree()
    {
        QTemporaryDir dir;
        QDir root(dir.path());
        const QByteArray weights = test::safetensorsFile({{"model.layers.0.self_attn.q_proj.weight", "F32", {2, 2}, QByteArray(16, '\1')}});
        const QByteArray more = test::safetensorsFile({{"model.layers.0.self_attn.k_proj.weight", "F32", {2, 2}, QByteArray(16, '\1')}});
        QVERIFY(root.mkpath("checkpoint-10/context"));
        // The opened folder's own shard set: that checkpoint is the folder itself.
        test::saveBytes(root.filePath("model-00001-of-00002.safetensors"), weights);
        test::saveBytes(root.filePath("model-00002-of-00002.safetensors"), more);
        test::saveBytes(root.filePath("model.safetensors.index.json"),
                        R"({"weight_map": {"model.layers.0.self_attn.q_proj.weight": "model-00001-of-00002.safetensors",
                                           "model.layers.0.self_attn.k_proj.weight": "model-00002-of-00002.safetensors"}})");
        test::saveBytes(root.filePath("checkpoint-10/model.safetensors"), weights);
        test::saveBytes(root.filePath("checkpoint-10/context/model.yaml"), "num_attention_heads: 4\n");
        const auto fingerprints = [&] {
            QHash<QString, QString> out;
            const CheckpointListing listing = CheckpointDiscovery::scan(dir.path());
            for (const CheckpointFile &c : listing.checkpoints)
                out.insert(QFileInfo(c.path).fileName(), ContentFingerprint::of(c));
            return out;
        };
        const QHash<QString, QString> before = fingerprints();
        QCOMPARE(before.size(), 2);
        test::saveBytes(root.filePath("checkpoint-10/context/model.yaml"), "num_attention_heads: 8\n"); // same size
        const QHash<QString, QString> edited = fingerprints();
        QVERIFY(edited.value("checkpoint-10") != before.value("checkpoint-10"));
        const QString own = QFileInfo(dir.path()).fileName();
        QVERIFY(before.contains(own));
        QCOMPARE(edited.value(own), before.value(own));
        // The same file moved within the checkpoint is a different checkpoint.
        QVERIFY(root.rename("checkpoint-10/context/model.yaml", "checkpoint-10/model.yaml"));
        QVERIFY(fingerprints().value("checkpoint-10") != edited.value("checkpoint-10"));
    }

    void init()
    {
        m_files.clear();
        m_placed.clear();
        for (int i = 0; i < 2; ++i) {
            CheckpointFile file;
            file.path = m_dir.filePath(QStringLiteral("ckpt_%1.pt").arg(i));
            file.files = {file.path};
            write(file.path, QByteArray(64 + i, char('a' + i)));
            m_files << file;
        }
        for (int i = 0; i < 2; ++i)
            m_placed.append({&m_files[i], 100 * (i + 1), false, QStringLiteral("the name")});
    }

    void nothingWithoutEarlierResults()
    {
        const CacheReusePlan plan(nullptr, kPlain, m_placed);
        QCOMPARE(plan.identities().size(), 2);
        QCOMPARE(plan.identities()[1].path, m_files[1].path);
        QCOMPARE(plan.identities()[1].size, 65);
        QVERIFY(!plan.identities()[1].fingerprint.isEmpty());
        const CheckpointReuse reuse = plan.reuseOf(0, false, false);
        QVERIFY(!reuse.cached && !reuse.whole && !reuse.missing.any());
    }

    void unchangedCheckpointsServeWhole()
    {
        const RunAnalysis previous = previousUnder(kPlain);
        const CacheReusePlan plan(&previous, kPlain, m_placed);
        for (qsizetype i = 0; i < 2; ++i) {
            const CheckpointReuse reuse = plan.reuseOf(i, false, false);
            QCOMPARE(reuse.cached, &previous.checkpoints[i]);
            QVERIFY(reuse.whole);
        }
        QCOMPARE(plan.knownResults().value(m_files[0].path).size(), 1);
        QCOMPARE(plan.knownIssues(m_files[1].path).size(), 1);
        // Deltas against another reference, or vectors needed: computed, from what is known.
        const CheckpointReuse stale = plan.reuseOf(0, true, false);
        QVERIFY(stale.cached && !stale.whole && stale.missing.delta && !stale.missing.randDistance);
        const CheckpointReuse vectors = plan.reuseOf(1, false, true);
        QVERIFY(vectors.cached && !vectors.whole && !vectors.missing.any());
    }

    void changedCheckpointIsReadAgain()
    {
        const RunAnalysis previous = previousUnder(kPlain);
        write(m_files[1].path, QByteArray(80, 'z'));
        const CacheReusePlan plan(&previous, kPlain, m_placed);
        QVERIFY(plan.reuseOf(0, false, false).whole);
        QVERIFY(!plan.reuseOf(1, false, false).cached);
    }

    void missingOptInsAreComputed()
    {
        const RunAnalysis previous = previousUnder(kPlain);
        const CacheReusePlan plan(&previous, kPlain + QStringLiteral(";rand_distance=1;subspace=16"), m_placed);
        const CheckpointReuse reuse = plan.reuseOf(0, false, false);
        QVERIFY(reuse.cached && !reuse.whole);
        QVERIFY(reuse.missing.randDistance && reuse.missing.subspace && !reuse.missing.delta);
    }

    void otherSettingsServeNothing()
    {
        const RunAnalysis previous = previousUnder(kPlain);
        const CacheReusePlan plan(&previous, QStringLiteral("solver=svd;rules=builtin-3;schema=4"), m_placed);
        QVERIFY(!plan.reuseOf(0, false, false).cached);
        QVERIFY(plan.knownResults().isEmpty());
    }

    // Saved mid-run: the checkpoints not reached come from the earlier results, at today's steps.
    void snapshotKeepsTheUnvisited()
    {
        const RunAnalysis previous = previousUnder(kPlain);
        const CacheReusePlan plan(&previous, kPlain, m_placed);
        RunAnalysis soFar;
        soFar.settingsKey = kPlain;
        soFar.checkpoints << previous.checkpoints[0];
        soFar.results << previous.results[0];
        const RunAnalysis snapshot = plan.withUnvisited(soFar);
        QCOMPARE(snapshot.checkpoints.size(), 2);
        QCOMPARE(snapshot.checkpoints[1].path, m_files[1].path);
        QCOMPARE(snapshot.checkpoints[1].step, 200);
        QCOMPARE(snapshot.results.size(), 2);
        QCOMPARE(snapshot.results[1].step, 200);
        QCOMPARE(snapshot.issues.size(), 1);
        // Results that do not serve whole are not mixed in.
        soFar.settingsKey = kPlain + QStringLiteral(";rand_distance=1");
        QCOMPARE(plan.withUnvisited(soFar).checkpoints.size(), 1);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestCacheReusePlan)
} // namespace tst_cachereuseplan

#include "tst_CacheReusePlan.moc"
