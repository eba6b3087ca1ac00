// A repository of the Hugging Face hub cache as huggingface_hub 1.29.0.dev0 lays it out
// (src/huggingface_hub/file_download.py: repo_folder_name, _cache_commit_hash_for_specific_revision,
// _create_symlink; _snapshot_download.py; utils/_cache_manager.py: _scan_cached_repo), built here
// file by file: refs/<revision> holding the commit hash without a newline (a revision with slashes
// in folders), snapshots/<commit>/<file> as relative links ../../blobs/<etag>, blobs named by the
// sha256 of an LFS file and the git blob sha1 of a small one. Each is opened as one run whose steps
// come from the ref names, blobs never taken for checkpoints, and every ref or snapshot that is not
// read named.
#include "analysis/discovery/CheckpointDiscovery.h"
#include "analysis/discovery/CheckpointSteps.h"
#include "analysis/discovery/HubCacheLayout.h"
#include "analysis/execution/RunAnalyzer.h"
#include "SmallGpt2Run.h"
#include "TestSuite.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>
#include <random>

namespace tst_hubcachelayout {

using namespace rankscope;
using namespace rankscope::test;

namespace {

// One repository folder being written as huggingface_hub writes it.
class HubRepository {
public:
    HubRepository(const QString &cache, const QString &repoId)
        : m_root(QDir(cache).filePath(QStringLiteral("models--") + QString(repoId).replace(QLatin1Char('/'), QLatin1String("--"))))
    {
        QDir().mkpath(m_root.filePath("blobs"));
        QDir().mkpath(m_root.filePath("snapshots"));
    }
    QString path() const { return m_root.path(); }

    // A file of the revision `commit`: its blob (once per content), and the snapshot's relative link.
    void addFile(const QString &commit, const QString &name, const QByteArray &bytes, bool lfs)
    {
        const QByteArray etag = lfs ? QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()
                                    : QCryptographicHash::hash("blob " + QByteArray::number(bytes.size()) + '\0' + bytes, QCryptographicHash::Sha1).toHex();
        const QString blob = m_root.filePath("blobs/" + QString::fromLatin1(etag));
        if (!QFileInfo::exists(blob))
            saveBytes(blob, bytes);
        QDir().mkpath(m_root.filePath("snapshots/" + commit));
        QVERIFY(QFile::link("../../blobs/" + QString::fromLatin1(etag), m_root.filePath("snapshots/" + commit + "/" + name)));
    }
    // A GPT-2 revision: its config.json and model.safetensors.
    void addRevision(const QString &commit, const gpt2::Gpt2Layer &layer)
    {
        QTemporaryDir scratch;
        gpt2::writeCheckpoint(scratch.filePath("model.safetensors"), layer);
        QFile weights(scratch.filePath("model.safetensors"));
        QVERIFY(weights.open(QIODevice::ReadOnly));
        addFile(commit, "config.json", R"({"model_type": "gpt2", "n_head": 4})", false);
        addFile(commit, "model.safetensors", weights.readAll(), true);
    }
    void addRef(const QString &name, const QString &commit)
    {
        QDir().mkpath(QFileInfo(m_root.filePath("refs/" + name)).absolutePath());
        saveBytes(m_root.filePath("refs/" + name), commit.toLatin1());
    }

private:
    QDir m_root;
};

QString commitOf(char c) { return QString(40, QLatin1Char(c)); }

QList<qint64> stepsOf(const StepPlan &plan)
{
    QList<qint64> steps;
    for (const PlacedCheckpoint &p : plan.checkpoints)
        steps << p.step;
    return steps;
}

StepPlan decide(const CheckpointListing &listing)
{
    QList<const CheckpointFile *> files;
    for (const CheckpointFile &c : listing.checkpoints)
        files << &c;
    return CheckpointSteps::decide(files);
}

const SkippedFile *skippedEnding(const CheckpointListing &listing, const QString &end)
{
    for (const SkippedFile &s : listing.skipped)
        if (s.path.endsWith(end))
            return &s;
    return nullptr;
}

// Pythia's layout: refs step1000 … step3000, and main naming step3000's commit.
void writePythia(HubRepository &repo, std::mt19937_64 &rng)
{
    repo.addRevision(commitOf('a'), gpt2::randomLayer(rng));
    repo.addRevision(commitOf('b'), gpt2::randomLayer(rng));
    repo.addRevision(commitOf('c'), gpt2::randomLayer(rng));
    repo.addRef("step1000", commitOf('a'));
    repo.addRef("step2000", commitOf('b'));
    repo.addRef("step3000", commitOf('c'));
    repo.addRef("main", commitOf('c'));
}

} // namespace

class TestHubCacheLayout : public QObject {
    Q_OBJECT
private slots:
    void pythiaRevisionsAreOneRunWithTheirSteps()
    {
        QTemporaryDir cache;
        HubRepository repo(cache.path(), "EleutherAI/pythia-70m");
        std::mt19937_64 rng(1);
        writePythia(repo, rng);
        QVERIFY(HubCacheLayout::isRepository(repo.path()));
        QCOMPARE(HubCacheLayout::repositoryId(repo.path()), QStringLiteral("EleutherAI/pythia-70m"));

        const CheckpointListing listing = CheckpointDiscovery::scan(repo.path());
        QVERIFY(listing.runs.isEmpty());
        QCOMPARE(listing.checkpoints.size(), 3); // main and step3000 name one snapshot: read once
        for (const CheckpointFile &c : listing.checkpoints) {
            QVERIFY(c.path.contains("/snapshots/"));
            QCOMPARE(c.files.size(), 1);
            QVERIFY(QFileInfo(c.files.first()).isSymLink()); // read through the snapshot's link
            QVERIFY(c.configPath.endsWith("/config.json"));
        }
        QCOMPARE(stepsOf(decide(listing)), (QList<qint64>{1000, 2000, 3000}));
        QVERIFY(decide(listing).notes.isEmpty());
        QCOMPARE(listing.takenFor.value(0),
                 QStringLiteral("a Hugging Face cache of EleutherAI/pythia-70m: 3 revision(s) from refs step1000, step2000, step3000, main"));
        QVERIFY(listing.takenFor.contains(QStringLiteral("refs main, step3000 name one revision (commit ccccccc): read once, as step 3000 of step3000")));
        for (const ClassifiedFile &f : listing.files)
            QVERIFY2(!(f.path.contains("/blobs/") && f.role == FileRole::CheckpointFolder), qPrintable(f.path));
        QVERIFY(std::none_of(listing.skipped.begin(), listing.skipped.end(), [](const SkippedFile &s) { return s.problem; }));
    }

    void olmoStageNamesAndAnUnnumberedMain()
    {
        QTemporaryDir cache;
        HubRepository repo(cache.path(), "allenai/OLMo-1B");
        std::mt19937_64 rng(2);
        repo.addRevision(commitOf('1'), gpt2::randomLayer(rng));
        repo.addRevision(commitOf('2'), gpt2::randomLayer(rng));
        repo.addRevision(commitOf('3'), gpt2::randomLayer(rng));
        repo.addRef("stage1-step1000-tokens4B", commitOf('1'));
        repo.addRef("stage1-step2000-tokens8B", commitOf('2'));
        repo.addRef("main", commitOf('3')); // a commit no numbered ref names: the final one
        const CheckpointListing listing = CheckpointDiscovery::scan(repo.path());
        const StepPlan plan = decide(listing);
        QCOMPARE(stepsOf(plan), (QList<qint64>{1000, 2000, 2001}));
        QVERIFY(!plan.checkpoints[0].unnumbered && !plan.checkpoints[1].unnumbered);
        QVERIFY(plan.checkpoints[2].unnumbered);
        QVERIFY(plan.checkpoints[2].file->path.endsWith(commitOf('3')));
        QVERIFY(plan.checkpoints[0].stepSource == QStringLiteral("stage1-step1000-tokens4B"));
    }

    // A ref whose snapshot was never downloaded is an error of the run; while a blob is still
    // .incomplete it is a download under way, left for --watch. A snapshot no ref names, a ref
    // holding no commit hash, a revision with slashes.
    void whatCannotBeReadIsNamed()
    {
        QTemporaryDir cache;
        HubRepository repo(cache.path(), "EleutherAI/pythia-70m");
        std::mt19937_64 rng(3);
        writePythia(repo, rng);
        repo.addRef("step4000", commitOf('d'));       // no snapshot
        repo.addRevision(commitOf('e'), gpt2::randomLayer(rng)); // no ref names it
        repo.addRef("step5000", "not a commit hash");
        repo.addRef("refs/pr/1", commitOf('b'));      // named like refs/pr/1 in _cache_manager.py
        const CheckpointListing listing = CheckpointDiscovery::scan(repo.path());
        QCOMPARE(listing.checkpoints.size(), 3);
        const SkippedFile *missing = skippedEnding(listing, "refs/step4000");
        QVERIFY(missing && missing->problem);
        QCOMPARE(missing->reason, QStringLiteral("the ref step4000 names commit ddddddd, which has no snapshot: its weights were never downloaded or were deleted"));
        const SkippedFile *detached = skippedEnding(listing, "snapshots/" + commitOf('e'));
        QVERIFY(detached && !detached->problem);
        QVERIFY(detached->reason.contains("a snapshot no ref names"));
        const SkippedFile *garbage = skippedEnding(listing, "refs/step5000");
        QVERIFY(garbage && garbage->problem);
        QVERIFY(listing.takenFor.contains(QStringLiteral("refs refs/pr/1, step2000 name one revision (commit bbbbbbb): read once, as step 2000 of step2000")));
        QVERIFY(listing.beingWritten.isEmpty());

        // A download under way (huggingface_hub writes the ref before the files): not an error, pending.
        saveBytes(QDir(repo.path()).filePath("blobs/0123abcd.incomplete"), "partial");
        const CheckpointListing downloading = CheckpointDiscovery::scan(repo.path());
        const SkippedFile *pending = skippedEnding(downloading, "refs/step4000");
        QVERIFY(pending && !pending->problem);
        QCOMPARE(downloading.beingWritten, QStringList{QDir(repo.path()).filePath("refs/step4000")});
        AnalysisSettings watching;
        watching.settleSeconds = 0.01;
        watching.jobs = 1;
        QThread::msleep(50); // the revisions read are settled, the download under way is not
        const RunAnalysis run = RunAnalyzer(watching).analyzeFolder(repo.path());
        QVERIFY(run.pending.contains(QDir(repo.path()).filePath("refs/step4000")));
        QCOMPARE(run.checkpointsFound, 3);
    }

    // Two commits whose weights are one blob hold the same bytes: said before reading, both read.
    void revisionsSharingABlobAreSaidToHoldTheSameBytes()
    {
        QTemporaryDir cache;
        HubRepository repo(cache.path(), "org/suite");
        std::mt19937_64 rng(4);
        const gpt2::Gpt2Layer layer = gpt2::randomLayer(rng);
        repo.addRevision(commitOf('a'), layer);
        repo.addRevision(commitOf('b'), layer);
        repo.addRef("step100", commitOf('a'));
        repo.addRef("step200", commitOf('b'));
        const CheckpointListing listing = CheckpointDiscovery::scan(repo.path());
        QCOMPARE(listing.checkpoints.size(), 2);
        QVERIFY(std::any_of(listing.takenFor.begin(), listing.takenFor.end(), [](const QString &t) { return t.contains("hold the same bytes"); }));
    }

    // The cache folder holding several repositories: each a run of its own, nothing its own.
    void aCacheFolderHoldsRuns()
    {
        QTemporaryDir cache;
        std::mt19937_64 rng(5);
        HubRepository pythia(cache.path(), "EleutherAI/pythia-70m");
        writePythia(pythia, rng);
        HubRepository other(cache.path(), "EleutherAI/pythia-160m");
        writePythia(other, rng);
        QDir().mkpath(QDir(cache.path()).filePath(".locks/models--EleutherAI--pythia-70m"));
        const CheckpointListing listing = CheckpointDiscovery::scan(cache.path());
        QVERIFY(listing.checkpoints.isEmpty());
        QCOMPARE(listing.runs.size(), 2);
    }

    // The whole path: analysed as one run, three steps of six GPT-2 matrices, main read once.
    void analysedAsOneRun()
    {
        QTemporaryDir cache;
        HubRepository repo(cache.path(), "EleutherAI/pythia-70m");
        std::mt19937_64 rng(6);
        writePythia(repo, rng);
        AnalysisSettings settings;
        settings.jobs = 1;
        const RunAnalysis run = RunAnalyzer(settings).analyzeFolder(repo.path());
        QVERIFY2(run.issues.isEmpty(), qPrintable(run.issueLines().join('\n')));
        QCOMPARE(run.checkpointsAnalysed, 3);
        QCOMPARE(run.results.size(), 18);
        QCOMPARE(run.results.first().step, 1000);
        QCOMPARE(run.results.last().step, 3000);
    }
};

RANKSCOPE_TEST_GUILESS_MAIN(TestHubCacheLayout)
} // namespace tst_hubcachelayout

#include "tst_HubCacheLayout.moc"
