// The lists of the manual page and the bash completion that name figures and metrics, written from
// the tables that hold them (FigureCatalog, MetricCatalog) when the project is built, so neither
// can drift from the program: write_reference TEMPLATE OUTPUT [NAME=VALUE…] fills in @NAME@ with
// VALUE (the version), and
//   @FIGURE_ITEMS@   troff: each --figure NAME in bold with what it draws, as `export --help` says it;
//   @FIGURE_NAMES@   the names, separated by spaces (for compgen -W);
//   @METRIC_COLUMNS@ every column --metric takes, separated by spaces.

#include "FigureCatalog.h"
#include "spectral/MetricCatalog.h"

#include <QFile>
#include <QRegularExpression>
#include <QStringList>
#include <cstdio>

using namespace rankscope;

namespace {

// Plain help text as troff: an option or a `command` in bold, minus signs, Greek letters and the
// multiplication sign as troff's own characters (the page stays ASCII).
QString troffText(const char *help)
{
    QString text = QString::fromUtf8(help).replace(QLatin1Char('\n'), QLatin1Char(' '));
    text.replace(QLatin1Char('\\'), QStringLiteral("\\e"));
    static const QRegularExpression command(QStringLiteral("`([^`]*)`"));
    text.replace(command, QStringLiteral("\\fB\\1\\fR"));
    static const QRegularExpression option(QStringLiteral("(^|[\\s(,;])(--[a-z][a-z-]*)"));
    text.replace(option, QStringLiteral("\\1\\fB\\2\\fR"));
    text.replace(QLatin1Char('-'), QStringLiteral("\\-"));
    text.replace(QStringLiteral(" x "), QStringLiteral(" \\(mu "));
    text.replace(QString::fromUtf8("τ"), QStringLiteral("\\(*t"));
    text.replace(QString::fromUtf8("σ"), QStringLiteral("\\(*s"));
    return text;
}

QString figureItems()
{
    QStringList items;
    const auto figures = allFigures();
    for (std::size_t i = 0; i < figures.size(); ++i) {
        const QString end = i + 2 < figures.size() ? QStringLiteral(",") : i + 1 < figures.size() ? QStringLiteral(" or") : QStringLiteral(".");
        items << QStringLiteral(".B %1\n(%2)%3").arg(QString::fromLatin1(figures[i].info().id), troffText(figures[i].info().help), end);
    }
    return items.join(QLatin1Char('\n'));
}

QString metricColumns()
{
    QStringList columns;
    for (const Metric metric : viewMetrics())
        columns << QLatin1String(metric.info().column);
    return columns.join(QLatin1Char(' '));
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: write_reference TEMPLATE OUTPUT [NAME=VALUE...]\n");
        return 2;
    }
    QFile in(QString::fromLocal8Bit(argv[1]));
    if (!in.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "write_reference: cannot read %s\n", argv[1]);
        return 1;
    }
    QString text = QString::fromUtf8(in.readAll());
    text.replace(QStringLiteral("@FIGURE_ITEMS@"), figureItems());
    text.replace(QStringLiteral("@FIGURE_NAMES@"), figureNames(QStringLiteral(" ")));
    text.replace(QStringLiteral("@METRIC_COLUMNS@"), metricColumns());
    for (int i = 3; i < argc; ++i) {
        const QString assignment = QString::fromLocal8Bit(argv[i]);
        text.replace(QLatin1Char('@') + assignment.section(QLatin1Char('='), 0, 0) + QLatin1Char('@'), assignment.section(QLatin1Char('='), 1));
    }
    QFile out(QString::fromLocal8Bit(argv[2]));
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(text.toUtf8()) < 0) {
        std::fprintf(stderr, "write_reference: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
