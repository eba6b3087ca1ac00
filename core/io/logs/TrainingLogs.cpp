#include "io/logs/TrainingLogs.h"

#include "base/PrintableText.h"
#include "io/logs/TensorBoardEvents.h"
#include "io/RegularFile.h"

#include <QCollator>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <cmath>
#include <limits>

namespace rankscope {

namespace {

// Where trainers and loggers put their logs below a run folder (Trainer: runs/<date>_<host>/;
// Lightning: lightning_logs/version_N/; others logs/, tb/, tensorboard/).
const QStringList &logFolderNames()
{
    static const QStringList names = {QStringLiteral("runs"), QStringLiteral("logs"), QStringLiteral("lightning_logs"), QStringLiteral("tb"),
                                      QStringLiteral("tensorboard")};
    return names;
}
constexpr int kMaxLogDepth = 3;
constexpr int kMaxLogEntries = 20000; // a folder tree with more is not walked to its end
constexpr qint64 kMaxCsvLine = qint64(1) << 20;

std::optional<double> numberOf(const QJsonValue &value)
{
    // parsePythonJsonObject reads NaN and Infinity as null: a diverged loss is kept as NaN.
    if (value.isDouble())
        return value.toDouble();
    if (value.isNull())
        return std::nan("");
    return std::nullopt;
}

// One CSV record as Python's csv module writes it (the excel dialect: a field with a comma, a
// quote or a line break is quoted, a quote inside doubled).
QStringList csvFields(const QString &line)
{
    QStringList fields;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < line.size() && line[i + 1] == QLatin1Char('"'))
                field += line[++i];
            else if (c == QLatin1Char('"'))
                quoted = false;
            else
                field += c;
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            fields << field;
            field.clear();
        } else {
            field += c;
        }
    }
    fields << field;
    return fields;
}

// The timestamp TensorBoard's writer puts in an event file's name (events.out.tfevents.<time>.…):
// the order the files were written in.
double writtenAt(const QString &path)
{
    const QStringList parts = QFileInfo(path).fileName().split(QLatin1Char('.'));
    bool ok = false;
    const double time = parts.value(3).toDouble(&ok);
    return ok ? time : 0;
}

struct Found {
    QStringList events, trainerStates, lightningCsvs;
    QMap<QString, QStringList> metas; // folder → meta_N.json
};

void collect(const QString &folder, int depth, bool inLogFolder, Found &found, int &entries)
{
    const QFileInfoList list = QDir(folder).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    static const QRegularExpression meta(QStringLiteral(R"(^meta_\d+\.json$)"));
    static const QRegularExpression checkpointN(QStringLiteral(R"(^checkpoint-\d+$)"));
    for (const QFileInfo &info : list) {
        if (++entries > kMaxLogEntries)
            return;
        const QString name = info.fileName();
        if (info.isDir()) {
            if (info.isSymLink() || depth >= kMaxLogDepth)
                continue;
            if (inLogFolder || logFolderNames().contains(name))
                collect(info.filePath(), depth + 1, true, found, entries);
            else if (depth == 0 && checkpointN.match(name).hasMatch() && QFileInfo(QDir(info.filePath()).filePath(QStringLiteral("trainer_state.json"))).isFile())
                found.trainerStates << QDir(info.filePath()).filePath(QStringLiteral("trainer_state.json"));
            continue;
        }
        if (TensorBoardEvents::isEventFile(name))
            found.events << info.filePath();
        else if (name == QLatin1String("trainer_state.json") && depth == 0)
            found.trainerStates << info.filePath();
        else if (name == QLatin1String("metrics.csv") && inLogFolder)
            found.lightningCsvs << info.filePath();
        else if (depth == 0 && meta.match(name).hasMatch())
            found.metas[folder] << info.filePath();
    }
}

// The newest trainer_state.json: the largest global_step (each checkpoint's holds the history up to it).
QString latestTrainerState(const QStringList &paths)
{
    QString latest;
    qint64 best = -1;
    for (const QString &path : paths) {
        const std::optional<QJsonObject> state = readSmallJsonObject(path, qint64(256) << 20);
        const qint64 step = state ? jsonWholeNumber(state->value(QStringLiteral("global_step"))).value_or(0) : -1;
        if (step > best) {
            best = step;
            latest = path;
        }
    }
    return latest.isEmpty() ? paths.value(0) : latest;
}

QString stampOf(const Found &found)
{
    QStringList files = found.events + found.trainerStates + found.lightningCsvs;
    for (const QStringList &metas : found.metas)
        files += metas;
    files.sort();
    QStringList stamp;
    for (const QString &file : std::as_const(files)) {
        const QFileInfo info(file);
        stamp << QStringLiteral("%1|%2|%3").arg(file).arg(info.size()).arg(info.lastModified().toMSecsSinceEpoch());
    }
    // Never null, none found included: a null stamp is "not read yet" (MainWindow reads then).
    return QStringLiteral("logs\n") + stamp.join(QLatin1Char('\n'));
}

} // namespace

QString TrainingLogs::stamp(const QString &runFolder)
{
    Found found;
    int entries = 0;
    collect(runFolder, 0, false, found, entries);
    return stampOf(found);
}

ScalarLog TrainingLogs::read(const QString &runFolder)
{
    ScalarLog log;
    Found found;
    int entries = 0;
    collect(runFolder, 0, false, found, entries);
    log.setSourceStamp(stampOf(found));
    if (entries > kMaxLogEntries)
        log.addProblem(runFolder, QStringLiteral("more than %1 files and folders where logs are kept: the rest not searched").arg(kMaxLogEntries));
    // Several event files (a restart writes a new one) in the order they were written: the later
    // write of a step wins.
    std::stable_sort(found.events.begin(), found.events.end(), [](const QString &a, const QString &b) { return writtenAt(a) < writtenAt(b); });
    for (const QString &events : std::as_const(found.events))
        TensorBoardEvents::read(events, log);
    if (!found.trainerStates.isEmpty())
        readTrainerState(latestTrainerState(found.trainerStates), log);
    for (const QString &csv : std::as_const(found.lightningCsvs))
        readLightningCsv(csv, log);
    for (const QStringList &metas : std::as_const(found.metas))
        readNanochatMeta(metas, log);
    return log;
}

void TrainingLogs::readTrainerState(const QString &path, ScalarLog &log)
{
    QString why;
    // A long run's history is large (one entry per logging_steps): a bigger limit than a sidecar's.
    const std::optional<QJsonObject> state = readSmallJsonObject(path, qint64(256) << 20, &why);
    if (!state) {
        log.addProblem(path, why);
        return;
    }
    QMap<QString, QList<ScalarPoint>> byTag;
    for (const QJsonValue &entry : state->value(QStringLiteral("log_history")).toArray()) {
        const QJsonObject logged = entry.toObject();
        const std::optional<qint64> step = jsonWholeNumber(logged.value(QStringLiteral("step")));
        if (!step)
            continue;
        for (auto it = logged.begin(); it != logged.end(); ++it)
            if (it.key() != QLatin1String("step"))
                if (const std::optional<double> value = numberOf(it.value()))
                    byTag[it.key()].append({*step, *value});
    }
    for (auto it = byTag.cbegin(); it != byTag.cend(); ++it)
        log.add(it.key(), path, it.value());
}

void TrainingLogs::readLightningCsv(const QString &path, ScalarLog &log)
{
    QFile file;
    QString why;
    if (!RegularFile::open(file, path, &why)) {
        log.addProblem(path, why);
        return;
    }
    const QStringList header = csvFields(QString::fromUtf8(file.readLine(kMaxCsvLine)).trimmed());
    const qsizetype stepColumn = header.indexOf(QStringLiteral("step"));
    if (stepColumn < 0) {
        log.addProblem(path, QStringLiteral("no \"step\" column: not a CSVLogger metrics file"));
        return;
    }
    QMap<QString, QList<ScalarPoint>> byTag;
    qint64 line = 1;
    while (!file.atEnd()) {
        ++line;
        const QString text = QString::fromUtf8(file.readLine(kMaxCsvLine)).trimmed();
        if (text.isEmpty())
            continue;
        const QStringList fields = csvFields(text);
        bool ok = false;
        const qint64 step = fields.value(stepColumn).toLongLong(&ok);
        if (!ok || step < 0) {
            log.addProblem(path, QStringLiteral("line %1: no step (\"%2\"): the rest not read").arg(line).arg(printableText(fields.value(stepColumn).left(40))));
            break;
        }
        for (qsizetype c = 0; c < header.size() && c < fields.size(); ++c) {
            const double value = fields[c].toDouble(&ok); // Python writes nan, inf and -inf, which toDouble reads
            if (c != stepColumn && ok)
                byTag[header[c]].append({step, value});
        }
    }
    for (auto it = byTag.cbegin(); it != byTag.cend(); ++it)
        log.add(it.key(), path, it.value());
}

void TrainingLogs::readNanochatMeta(const QStringList &paths, ScalarLog &log)
{
    QMap<QString, QList<ScalarPoint>> byTag;
    for (const QString &path : paths) {
        QString why;
        const std::optional<QJsonObject> meta = readSmallJsonObject(path, kMaxSidecarBytes, &why);
        if (!meta) {
            log.addProblem(path, why);
            continue;
        }
        const std::optional<qint64> step = jsonWholeNumber(meta->value(QStringLiteral("step")));
        if (!step)
            continue;
        for (auto it = meta->begin(); it != meta->end(); ++it)
            if (it.key() != QLatin1String("step"))
                if (const std::optional<double> value = numberOf(it.value()))
                    byTag[it.key()].append({*step, *value});
    }
    const QString source = paths.size() == 1 ? paths.first() : QDir(QFileInfo(paths.first()).path()).filePath(QStringLiteral("meta_N.json"));
    for (auto it = byTag.cbegin(); it != byTag.cend(); ++it) {
        const QList<ScalarPoint> &points = it.value();
        const bool constant = points.size() > 1 && std::all_of(points.begin(), points.end(), [&](const ScalarPoint &p) {
            return p.value == points.first().value;
        });
        const bool noValue = std::all_of(points.begin(), points.end(), [](const ScalarPoint &p) { return std::isnan(p.value); });
        if (!constant && !noValue)
            log.add(it.key(), source, points);
    }
}

std::optional<double> TrainingLogs::valueAt(const ScalarSeries &series, qint64 step)
{
    const auto after = std::upper_bound(series.points.begin(), series.points.end(), step, [](qint64 s, const ScalarPoint &p) { return s < p.step; });
    if (after == series.points.begin())
        return std::nullopt;
    return (after - 1)->value;
}

} // namespace rankscope
