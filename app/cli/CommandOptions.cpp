#include "CommandOptions.h"

#include "analysis/results/ResultsFile.h"
#include "io/FileContent.h"
#include "base/PrintableText.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTextStream>
#include <charconv>
#include <cmath>
#include <sys/stat.h>

namespace rankscope {

namespace {

QString refusal(const QString &name, const QString &what, const QString &range, const QString &text)
{
    return QStringLiteral("--%1 takes %2%3, not '%4'").arg(name, what, range, printableText(text));
}

QString numberText(double value) { return QString::number(value, 'g', 12); }

// The file a path leads to through any links, even where that file does not exist yet.
QString followLinks(const QString &path)
{
    QFileInfo info(QFileInfo(path).absoluteFilePath());
    for (int depth = 0; depth < 40 && info.isSymLink(); ++depth)
        info = QFileInfo(info.symLinkTarget());
    return info.absoluteFilePath();
}

// Whether writing to a and to b writes one file: both '-', the same file however named (a link, a
// hard link, /dev/stdout for '-'), or, where neither exists yet, the same name in the same folder.
// A character device (/dev/null, a terminal) is not a file that one output would overwrite.
bool sameFile(const QString &a, const QString &b)
{
    if (a == QLatin1String("-") && b == QLatin1String("-"))
        return true;
    auto native = [](const QString &path) { return QFile::encodeName(path == QLatin1String("-") ? QStringLiteral("/dev/stdout") : path); };
    struct stat sa {}, sb {};
    const bool aExists = ::stat(native(a).constData(), &sa) == 0, bExists = ::stat(native(b).constData(), &sb) == 0;
    if (aExists && bExists)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
    if (aExists || bExists || a == QLatin1String("-") || b == QLatin1String("-"))
        return false;
    auto where = [](const QString &path) {
        const QFileInfo info(followLinks(path));
        const QString folder = QFileInfo(info.absolutePath()).canonicalFilePath();
        return (folder.isEmpty() ? QDir::cleanPath(info.absolutePath()) : folder) + QLatin1Char('/') + info.fileName();
    };
    return where(a) == where(b);
}

} // namespace

int CommandExit::print() const
{
    QTextStream(stdout) << out;
    QTextStream(stderr) << err;
    return status;
}

CommandParser::CommandParser(const QString &command, const QString &description)
    : m_command(command)
    , m_energy(QStringLiteral("energy"), QStringLiteral("Energy τ kept for compression_pct (default 0.90)."), QStringLiteral("τ"), QStringLiteral("0.90"))
    , m_rules(QStringLiteral("rules"), QStringLiteral("Naming rules (JSON) applied before the built-in ones."), QStringLiteral("FILE"))
{
    setApplicationDescription(description);
    addHelpOption();
}

void CommandParser::addFolderArgument()
{
    addPositionalArgument(QStringLiteral("FOLDER"), QStringLiteral("The folder of checkpoints."));
}

const QCommandLineOption &CommandParser::addEnergyOption()
{
    addOption(m_energy);
    return m_energy;
}

const QCommandLineOption &CommandParser::addRulesOption()
{
    addOption(m_rules);
    return m_rules;
}

std::optional<CommandExit> CommandParser::parseArguments(const QStringList &arguments)
{
    if (!parse(QStringList{QStringLiteral("rankscope ") + m_command} + arguments))
        return refusal(errorText());
    // --help is answered before anything else is asked of the arguments (it needs no FOLDER).
    if (isSet(QStringLiteral("help")))
        return CommandExit{0, helpText(), {}};
    return std::nullopt;
}

CommandExit CommandParser::refusal(const QString &message) const
{
    return {1, {}, QStringLiteral("rankscope %1: %2\n").arg(m_command, message)};
}

std::optional<double> CommandParser::energy(QString *error) const
{
    return numberOption(QStringLiteral("energy"), value(m_energy), 0, 1, error, QStringLiteral("a number"), true);
}

std::optional<QString> CommandParser::valueIfSet(const QCommandLineOption &option) const
{
    return isSet(option) ? std::optional<QString>(value(option)) : std::nullopt;
}

std::optional<QString> CommandParser::rulesPath() const
{
    return valueIfSet(m_rules);
}

std::optional<qint64> wholeOption(const QString &name, const QString &text, qint64 min, qint64 max, QString *error, const QString &what)
{
    const QByteArray digits = text.trimmed().toLatin1();
    qint64 value = 0;
    const char *end = digits.constData() + digits.size();
    const auto [stop, failure] = std::from_chars(digits.constData(), end, value);
    if (!digits.isEmpty() && failure == std::errc() && stop == end && value >= min && value <= max)
        return value;
    if (error)
        *error = refusal(name, what,
                         max == std::numeric_limits<qint64>::max() ? QStringLiteral(", %1 or more").arg(min)
                                                                   : QStringLiteral(" from %1 to %2").arg(min).arg(max),
                         text);
    return std::nullopt;
}

std::optional<double> numberOption(const QString &name, const QString &text, double min, double max, QString *error,
                                   const QString &what, bool minExcluded)
{
    const QByteArray digits = text.trimmed().toLatin1();
    double value = 0;
    const char *end = digits.constData() + digits.size();
    // from_chars reads "nan" and "inf" too: std::isfinite refuses them; past a double is out_of_range.
    const auto [stop, failure] = std::from_chars(digits.constData(), end, value, std::chars_format::general);
    if (!digits.isEmpty() && failure == std::errc() && stop == end && std::isfinite(value) &&
        (minExcluded ? value > min : value >= min) && value <= max)
        return value;
    if (error)
        *error = refusal(name, what,
                         minExcluded ? QStringLiteral(" in (%1, %2]").arg(numberText(min), numberText(max))
                                     : QStringLiteral(" from %1 to %2").arg(numberText(min), numberText(max)),
                         text);
    return std::nullopt;
}

QString replacedInputProblem(const OptionPath &output, bool resultsFile)
{
    const QString &path = output.path;
    if (path.isEmpty() || path == QLatin1String("-") || !QFileInfo::exists(path))
        return {};
    const QString kept = QStringLiteral("; it is not replaced (give another --%1 path)").arg(output.option);
    const bool results = ResultsFile::isResultsFile(path);
    if (resultsFile)
        return results ? QString() : path + QStringLiteral(": exists and is not a RankScope results file") + kept;
    if (results)
        return path + QStringLiteral(": is a RankScope results file") + kept;
    // By the bytes, as discovery judges a folder's files: a checkpoint named out.csv is still one.
    const FileContent content = FileContent::probe(path);
    switch (content.kind) {
    case FileContent::Kind::Weights:
        return QStringLiteral("%1: is a checkpoint (%2)%3").arg(path, content.detail, kept);
    case FileContent::Kind::DamagedWeights:
        return QStringLiteral("%1: is named or made like a checkpoint (%2)%3").arg(path, content.detail, kept);
    case FileContent::Kind::NpyArray:
    case FileContent::Kind::NoMatrices:
        return QStringLiteral("%1: is %2%3").arg(path, content.detail, kept);
    case FileContent::Kind::NotAFormat:
    case FileContent::Kind::NotRegular:
        break;
    }
    return {};
}

QString sharedPathProblem(const QList<OptionPath> &outputs, const QList<OptionPath> &inputs)
{
    for (qsizetype i = 0; i < outputs.size(); ++i) {
        const OptionPath &output = outputs[i];
        if (output.path.isEmpty())
            continue;
        for (qsizetype j = 0; j < i; ++j) {
            const OptionPath &earlier = outputs[j];
            if (earlier.path.isEmpty() || !sameFile(earlier.path, output.path))
                continue;
            if (output.path == QLatin1String("-") && earlier.path == QLatin1String("-"))
                return QStringLiteral("--%1 and --%2 both write to standard output; give one of them a file").arg(earlier.option, output.option);
            return QStringLiteral("%1: named by both --%2 and --%3, which would overwrite each other; give each its own file")
                .arg(output.path, earlier.option, output.option);
        }
        for (const OptionPath &input : inputs)
            if (!input.path.isEmpty() && output.path != QLatin1String("-") && sameFile(input.path, output.path))
                return QStringLiteral("%1: is read as --%2 and would be replaced by --%3; give --%3 another file")
                    .arg(output.path, input.option, output.option);
    }
    return {};
}

std::optional<Metric> metricOption(const QString &name, const QString &text, QString *error)
{
    const QString wanted = text.trimmed();
    QStringList valid;
    for (const Metric metric : viewMetrics()) {
        const MetricRow &info = metric.info();
        if (wanted.compare(QLatin1String(info.column), Qt::CaseInsensitive) == 0 || wanted.compare(QString::fromUtf8(info.label), Qt::CaseInsensitive) == 0)
            return metric;
        valid << QString::fromLatin1(info.column);
    }
    if (error)
        *error = QStringLiteral("unknown --%1 '%2'; one of: %3").arg(name, printableText(text), valid.join(QLatin1String(", ")));
    return std::nullopt;
}

} // namespace rankscope
