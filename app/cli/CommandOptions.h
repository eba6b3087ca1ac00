// What the subcommands (analyze, info, export) share in reading their options: one parser that
// answers --help and refuses bad arguments alike for every command, the options several commands
// take, declared once (one name, one help text), every number read whole or refused, never
// converted first and checked after (4294968296 wrapped to 1000, "nan" passed every comparison),
// and every output checked, before any work, against the inputs it would destroy and the other
// outputs it would overwrite.
#pragma once

#include "figures/FigureOptions.h"
#include "model/MatrixType.h"
#include "spectral/MetricCatalog.h"

#include <QCommandLineParser>
#include <QList>
#include <QString>
#include <limits>
#include <optional>

namespace rankscope {

// How a command ends without running: --help's text on standard output (status 0), or why its
// arguments were refused on standard error (status 1).
struct CommandExit {
    int status = 0;
    QString out;
    QString err;
    int print() const; // writes both, and returns the status
};

// A command's arguments read into its options struct, or the exit it ends with at once.
template <typename Options>
struct ParsedOptions {
    std::optional<Options> options;
    CommandExit exit;
    ParsedOptions(Options parsed) : options(std::move(parsed)) {}
    ParsedOptions(CommandExit ended) : exit(std::move(ended)) {}
};

// The parser of `rankscope COMMAND`: its description, --help, and the options that several
// commands share, added from here so that each is declared once.
class CommandParser : public QCommandLineParser {
public:
    CommandParser(const QString &command, const QString &description);
    // FOLDER, the folder of checkpoints (analyze, info).
    void addFolderArgument();
    // --energy τ (analyze, export) and --rules FILE (analyze, info).
    const QCommandLineOption &addEnergyOption();
    const QCommandLineOption &addRulesOption();
    // Reads the arguments (those after the command's name); nullopt when the command is to run,
    // else its exit: --help's text, or the parser's refusal.
    std::optional<CommandExit> parseArguments(const QStringList &arguments);
    // "rankscope COMMAND: message", exit status 1.
    CommandExit refusal(const QString &message) const;
    // --energy's value: a number in (0, 1]; nullopt with the refusal's message when it is not one.
    std::optional<double> energy(QString *error) const;
    // --rules' file, when given.
    std::optional<QString> rulesPath() const;
    // The option's value, when it is given.
    std::optional<QString> valueIfSet(const QCommandLineOption &option) const;

private:
    QString m_command;
    QCommandLineOption m_energy, m_rules;
};

// --name's value as a whole number from min to max: decimal digits with an optional minus sign and
// nothing else ("1e3", "0x10", "2.5" are refused, and so is a value past 64 bits, never wrapped or
// cut short). nullopt, with "--name takes WHAT from MIN to MAX, not 'TEXT'", when it is not one.
std::optional<qint64> wholeOption(const QString &name, const QString &text, qint64 min,
                                  qint64 max = std::numeric_limits<qint64>::max(), QString *error = nullptr,
                                  const QString &what = QStringLiteral("a whole number"));

// --name's value as a finite number from min to max (above min, not at it, when minExcluded):
// "nan", "inf" and what overflows a double are refused. nullopt, with the message, when it is not one.
std::optional<double> numberOption(const QString &name, const QString &text, double min, double max, QString *error,
                                   const QString &what = QStringLiteral("a number"), bool minExcluded = false);


// --name's metric by its column ("stable_rank") or by its label as the views show it ("Stable
// rank", "Weighted α"), in any case. nullopt, with "unknown --name 'X'; one of: stable_rank, …",
// when it is neither.
std::optional<Metric> metricOption(const QString &name, const QString &text, QString *error);

// An output or input path of a command, and the option that names it ("csv", "rules").
struct OptionPath {
    QString option;
    QString path;
};

// Why writing --option's output to path would destroy an input of RankScope's: a checkpoint's
// weights or a NumPy array (known by their bytes, whatever the name), or a results file. For the
// results file itself (resultsFile) the rule is the other way round: only a RankScope results file
// is replaced, anything else found there is kept. Empty when nothing is lost ('-' and a path with
// nothing there included). The one check every output of every command goes through.
QString replacedInputProblem(const OptionPath &output, bool resultsFile = false);

// Why two of `outputs` would end up in one file (the same name, a link or a hard link to it, or
// both '-'), or one of them in a file of `inputs` (--rules), or empty. Devices such as /dev/null
// take any number of outputs.
QString sharedPathProblem(const QList<OptionPath> &outputs, const QList<OptionPath> &inputs = {});

} // namespace rankscope
