// What the subcommands (analyze, info, export) share in reading their options: every number is
// read whole or refused, never converted first and checked after (4294968296 wrapped to 1000, "nan"
// passed every comparison), and every output is checked, before any work, against the inputs it
// would destroy and the other outputs it would overwrite.
#pragma once

#include <QList>
#include <QString>
#include <limits>
#include <optional>

namespace rankscope {

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
