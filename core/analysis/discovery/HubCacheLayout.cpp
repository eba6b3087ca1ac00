#include "analysis/discovery/HubCacheLayout.h"

#include "analysis/discovery/CheckpointSteps.h"
#include "io/FolderWeights.h"
#include "io/RegularFile.h"

#include <QCollator>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <algorithm>

namespace rankscope {

namespace {

// A ref file is a commit hash (40 bytes); anything much larger is not one.
constexpr qint64 kMaxRefBytes = 4096;

// What _cache_manager.py skips in refs/ and snapshots/.
bool isSystemHelperFile(const QString &name)
{
    return name == QLatin1String(".DS_Store") || name == QLatin1String("Thumbs.db") || name == QLatin1String("desktop.ini");
}

QString shortCommit(const QString &commit) { return commit.left(7); }

struct Ref {
    QString name;   // relative to refs/: "main", "step1000", "refs/pr/1"
    QString path;
    QString commit;
    std::optional<qint64> step;
};

// One repository folder being read.
class RepositoryReading {
public:
    explicit RepositoryReading(const QString &folder) : m_repo(QFileInfo(folder).absoluteFilePath()) {}
    CheckpointListing read();

private:
    QString relative(const QString &path) const { return m_repo.relativeFilePath(path); }
    void classify(const QString &path, FileRole role, const QString &reason, bool problem = false, bool listed = true);
    QList<Ref> readRefs();
    void readTop();
    void readRevision(const QString &commit, const QList<Ref> &refs);
    void addCheckpoint(const QString &snapshot, const FolderWeights &weights, const QList<Ref> &refs);
    void notMissing(const QList<Ref> &refs, const QString &what);
    void noteSameBlobs();
    void sayWhatItWasTakenFor(const QList<Ref> &readRefs);

    QDir m_repo;
    CheckpointListing m_listing;
    bool m_downloading = false; // a blob is .incomplete: huggingface_hub is (or was) downloading
    QHash<QString, QString> m_refNames; // a checkpoint's path → the refs naming it, for what is said of it
};

void RepositoryReading::classify(const QString &path, FileRole role, const QString &reason, bool problem, bool listed)
{
    m_listing.files.append({path, role, reason, problem});
    if (problem || listed)
        m_listing.skipped.append({path, problem ? reason : QStringLiteral("%1: %2").arg(fileRoleName(role), reason), false, problem});
}

// Every ref file, its name relative to refs/ (a revision with slashes lies in folders), and the
// commit it names. huggingface_hub writes a ref through a temporary file it renames: such a file
// left behind is named, not read.
QList<Ref> RepositoryReading::readRefs()
{
    static const QRegularExpression commitHash(QStringLiteral("^[0-9a-f]{40}$"));
    static const QRegularExpression temporary(QStringLiteral(R"(\.[0-9a-f]{8}\.tmp$)"));
    const QDir refs(m_repo.filePath(QStringLiteral("refs")));
    QList<Ref> found;
    QDirIterator it(refs.path(), QDir::Files | QDir::System | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString name = refs.relativeFilePath(path);
        if (isSystemHelperFile(it.fileName()))
            continue;
        if (temporary.match(name).hasMatch()) {
            classify(path, FileRole::Other, QStringLiteral("a ref being written by huggingface_hub (its temporary file): not read"), false, false);
            continue;
        }
        QString error;
        const std::optional<QByteArray> bytes = readSmallRegularFile(path, kMaxRefBytes, &error);
        const QString commit = bytes ? QString::fromLatin1(bytes->trimmed()) : QString();
        if (!commitHash.match(commit).hasMatch()) {
            classify(path, FileRole::TrainingSidecar, bytes ? QStringLiteral("the ref %1 holds no commit hash").arg(name) : error, true);
            continue;
        }
        found.append({name, path, commit, CheckpointDiscovery::stepFromName(name)});
    }
    QCollator collator;
    collator.setNumericMode(true);
    std::sort(found.begin(), found.end(), [&](const Ref &a, const Ref &b) { return collator.compare(a.name, b.name) < 0; });
    return found;
}

// What lies beside refs/ and snapshots/: the blobs (read only through the snapshots' links),
// huggingface_hub's own records, anything else.
void RepositoryReading::readTop()
{
    const QDir blobs(m_repo.filePath(QStringLiteral("blobs")));
    const QStringList incomplete = blobs.entryList({QStringLiteral("*.incomplete")}, QDir::Files | QDir::Hidden | QDir::System);
    m_downloading = !incomplete.isEmpty();
    for (const QFileInfo &entry : m_repo.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System, QDir::Name)) {
        const QString name = entry.fileName();
        if (name == QLatin1String("refs"))
            classify(entry.filePath(), FileRole::Folder, QStringLiteral("the repository's refs: each names a revision by its commit hash"), false, false);
        else if (name == QLatin1String("snapshots"))
            classify(entry.filePath(), FileRole::Folder, QStringLiteral("the repository's revisions, one folder of links each"), false, false);
        else if (name == QLatin1String("blobs"))
            classify(entry.filePath(), FileRole::Folder,
                     QStringLiteral("the cache's file contents, read through the snapshots' links, never as checkpoints of their own%1")
                         .arg(m_downloading ? QStringLiteral("; %1 still being downloaded (.incomplete)").arg(incomplete.size()) : QString()),
                     false, false);
        else if (name == QLatin1String(".no_exist"))
            classify(entry.filePath(), FileRole::Folder, QStringLiteral("huggingface_hub's record of files a revision does not have"), false, false);
        else if (name == QLatin1String("trees"))
            classify(entry.filePath(), FileRole::Folder, QStringLiteral("huggingface_hub's listings of each revision's files"), false, false);
        else
            classify(entry.filePath(), entry.isDir() ? FileRole::Folder : FileRole::Other, QStringLiteral("not part of the Hugging Face cache layout: not read"));
    }
}

// Refs whose revision cannot be read: while a blob is still downloading they are left for a later
// look (huggingface_hub writes a ref before the files of its revision); else a problem of the run,
// as _scan_cached_repo takes "refs refer to missing commit hashes" for a corrupted cache.
void RepositoryReading::notMissing(const QList<Ref> &refs, const QString &what)
{
    for (const Ref &ref : refs) {
        if (m_downloading) {
            classify(ref.path, FileRole::TrainingSidecar, QStringLiteral("the ref %1 names commit %2, %3; still being downloaded").arg(ref.name, shortCommit(ref.commit), what));
            m_listing.beingWritten << ref.path;
        } else {
            classify(ref.path, FileRole::TrainingSidecar, QStringLiteral("the ref %1 names commit %2, %3: its weights were never downloaded or were deleted").arg(ref.name, shortCommit(ref.commit), what), true);
        }
    }
}

// One snapshot and the refs naming it: a checkpoint when it holds weights.
void RepositoryReading::readRevision(const QString &commit, const QList<Ref> &refs)
{
    const QString snapshot = m_repo.filePath(QStringLiteral("snapshots/") + commit);
    if (!QFileInfo(snapshot).isDir()) {
        notMissing(refs, QStringLiteral("which has no snapshot"));
        return;
    }
    const FolderWeights weights = FolderWeights::read(snapshot);
    if (!weights.listingError.isEmpty()) {
        classify(snapshot, FileRole::Folder, weights.listingError, true);
        return;
    }
    for (const ClassifiedFile &file : weights.files)
        classify(file.path, file.role, file.reason, file.problem, false);
    for (const QString &folder : weights.subfolders)
        classify(folder, FileRole::Folder, QStringLiteral("a folder of the revision: not searched (open the snapshot itself to read it as a run)"));
    if (weights.groups.isEmpty()) {
        notMissing(refs, QStringLiteral("whose snapshot holds no weights"));
        return;
    }
    addCheckpoint(snapshot, weights, refs);
}

void RepositoryReading::addCheckpoint(const QString &snapshot, const FolderWeights &weights, const QList<Ref> &refs)
{
    QString error;
    const WeightsGroup *group = weights.checkpoint(&error);
    CheckpointFile c;
    c.path = QDir::cleanPath(snapshot);
    c.isFolder = true;
    c.error = group ? group->error : error;
    if (group) {
        c.layout = group->layout;
        c.files = group->files;
        c.format = group->format;
        c.stepInFile = group->stepInFile;
    }
    // The first numbered ref gives the step; the others naming the revision are said, read once.
    QStringList names;
    for (const Ref &ref : refs)
        names << ref.name;
    const auto numbered = std::find_if(refs.begin(), refs.end(), [](const Ref &r) { return r.step.has_value(); });
    if (numbered != refs.end()) {
        c.stepFromSidecar = numbered->step;
        c.stepSidecar = numbered->path;
    }
    for (const Ref &ref : refs)
        classify(ref.path, FileRole::TrainingSidecar,
                 QStringLiteral("the ref %1: names commit %2, read from snapshots/ as %3")
                     .arg(ref.name, shortCommit(ref.commit),
                          numbered != refs.end() ? QStringLiteral("step %1").arg(*numbered->step) : QStringLiteral("the unnumbered final checkpoint")),
                 false, false);
    if (refs.size() > 1)
        m_listing.takenFor << QStringLiteral("refs %1 name one revision (commit %2): read once, as %3")
                                  .arg(names.join(QLatin1String(", ")), shortCommit(refs.first().commit),
                                       numbered != refs.end() ? QStringLiteral("step %1 of %2").arg(*numbered->step).arg(numbered->name)
                                                              : QStringLiteral("the unnumbered final checkpoint"));
    if (const QString config = QDir(snapshot).filePath(QStringLiteral("config.json")); QFileInfo(config).isFile())
        if (const std::optional<QJsonObject> values = readSmallJsonObject(config)) {
            c.sidecarConfig = values->toVariantMap();
            c.configPath = config;
        }
    classify(snapshot, FileRole::CheckpointFolder,
             QStringLiteral("the revision of ref %1: %2").arg(names.join(QLatin1String(", ")),
                                                               group ? QStringLiteral("one checkpoint, read from %1").arg(group->name)
                                                                     : QStringLiteral("one checkpoint that cannot be read: %1").arg(error)),
             false, false);
    m_refNames.insert(c.path, names.join(QLatin1String(", ")));
    m_listing.checkpoints.append(std::move(c));
}

// Two revisions whose weights are the same blobs hold the same bytes (a blob is stored once per
// content): said here, before anything is read; both are analysed, and the trajectory check names
// the step.
void RepositoryReading::noteSameBlobs()
{
    QMap<QStringList, QStringList> byBlobs;
    for (const CheckpointFile &c : m_listing.checkpoints) {
        QStringList blobs;
        for (const QString &file : c.files)
            blobs << QFileInfo(file).canonicalFilePath();
        if (!blobs.isEmpty() && !blobs.contains(QString()))
            byBlobs[blobs] << QStringLiteral("refs %1").arg(m_refNames.value(c.path));
    }
    for (auto it = byBlobs.begin(); it != byBlobs.end(); ++it)
        if (it.value().size() > 1)
            m_listing.takenFor << QStringLiteral("%1 name different revisions whose weights are the same blobs (%2): they hold the same bytes")
                                      .arg(it.value().join(QLatin1String(" and ")), relative(it.key().first()));
}

void RepositoryReading::sayWhatItWasTakenFor(const QList<Ref> &readRefs)
{
    QStringList names;
    for (const Ref &ref : readRefs)
        names << ref.name;
    const QString shown = names.size() <= 5 ? names.join(QLatin1String(", "))
                                            : QStringList(names.mid(0, 3)).join(QLatin1String(", ")) + QStringLiteral(" … ") + names.last();
    m_listing.takenFor.prepend(QStringLiteral("a Hugging Face cache of %1: %2 revision(s) from refs %3")
                                   .arg(HubCacheLayout::repositoryId(m_repo.path())).arg(m_listing.checkpoints.size()).arg(shown));
}

CheckpointListing RepositoryReading::read()
{
    readTop();
    const QList<Ref> refs = readRefs();
    QMap<QString, QList<Ref>> byCommit;
    for (const Ref &ref : refs)
        byCommit[ref.commit] << ref;
    QList<Ref> read;
    for (auto it = byCommit.begin(); it != byCommit.end(); ++it) {
        const qsizetype before = m_listing.checkpoints.size();
        readRevision(it.key(), it.value());
        if (m_listing.checkpoints.size() > before)
            read << it.value();
    }
    const QDir snapshots(m_repo.filePath(QStringLiteral("snapshots")));
    for (const QFileInfo &entry : snapshots.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System, QDir::Name))
        if (!byCommit.contains(entry.fileName()) && !isSystemHelperFile(entry.fileName()))
            classify(entry.filePath(), FileRole::Folder, QStringLiteral("a snapshot no ref names (a revision downloaded by its commit hash): its step is unknown, not read"));

    QCollator collator;
    collator.setNumericMode(true);
    std::sort(read.begin(), read.end(), [&](const Ref &a, const Ref &b) {
        return a.step != b.step ? (a.step && (!b.step || *a.step < *b.step)) : collator.compare(a.name, b.name) < 0;
    });
    auto stepOf = [](const CheckpointFile &c) { return CheckpointSteps::stepOf(c, nullptr).first; };
    std::stable_sort(m_listing.checkpoints.begin(), m_listing.checkpoints.end(), [&](const CheckpointFile &a, const CheckpointFile &b) {
        const auto sa = stepOf(a), sb = stepOf(b);
        return sa != sb ? (sa && (!sb || *sa < *sb)) : false;
    });
    noteSameBlobs();
    sayWhatItWasTakenFor(read);
    return m_listing;
}

} // namespace

bool HubCacheLayout::isRepository(const QString &folder)
{
    static const QRegularExpression name(QStringLiteral("^(models|datasets|spaces)--.+"));
    const QFileInfo info(folder);
    return name.match(info.fileName()).hasMatch() && QFileInfo(QDir(folder).filePath(QStringLiteral("snapshots"))).isDir();
}

QString HubCacheLayout::repositoryId(const QString &folder)
{
    const QString name = QFileInfo(folder).fileName();
    return name.section(QLatin1String("--"), 1).replace(QLatin1String("--"), QLatin1String("/"));
}

CheckpointListing HubCacheLayout::read(const QString &repository)
{
    return RepositoryReading(repository).read();
}

QString HubCacheLayout::cacheFolder()
{
    for (const char *variable : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"})
        if (const QString path = qEnvironmentVariable(variable); !path.isEmpty())
            return QDir::cleanPath(path);
    QString home = qEnvironmentVariable("HF_HOME");
    if (home.isEmpty()) {
        const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
        home = QDir(xdg.isEmpty() ? QDir::home().filePath(QStringLiteral(".cache")) : xdg).filePath(QStringLiteral("huggingface"));
    }
    return QDir::cleanPath(QDir(home).filePath(QStringLiteral("hub")));
}

QString HubCacheLayout::cachedModel(const QString &id)
{
    // repo_folder_name: "/" becomes "--", so whatever the id says the folder is one name in the cache.
    if (id.isEmpty())
        return {};
    const QString folder = QDir(cacheFolder()).filePath(QStringLiteral("models--") + QString(id).replace(QLatin1Char('/'), QLatin1String("--")));
    return isRepository(folder) ? folder : QString();
}

} // namespace rankscope
