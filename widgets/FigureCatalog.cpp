#include "FigureCatalog.h"

#include <QCoreApplication>
#include <QStringList>

namespace rankscope {

namespace {

// In the order of the window's tabs (Ctrl+1…7), then the figures only export draws.
constexpr FigureRow kFigures[] = {
    {"lines", FigureKind::Lines, QT_TRANSLATE_NOOP("MainWindow", "Metric vs step"), QT_TRANSLATE_NOOP("MainWindow", "&Metric vs step"),
     "metric vs step per type", false},
    {"bars", FigureKind::Bars, QT_TRANSLATE_NOOP("MainWindow", "Per layer"), QT_TRANSLATE_NOOP("MainWindow", "&Per layer"),
     "metric per layer at one step", false},
    {"heatmaps", FigureKind::Heatmaps, QT_TRANSLATE_NOOP("MainWindow", "Heatmaps"), QT_TRANSLATE_NOOP("MainWindow", "&Heatmaps"),
     "type x layer; compression % and weighted alpha side by side unless --metric names one", false},
    {"spectrum", FigureKind::Spectrum, QT_TRANSLATE_NOOP("MainWindow", "Spectrum"), QT_TRANSLATE_NOOP("MainWindow", "&Spectrum"),
     "one matrix's spectrum: --layer, --type", false},
    {"spectrogram", FigureKind::SpectrumOverSteps, QT_TRANSLATE_NOOP("MainWindow", "Spectrum over steps"),
     QT_TRANSLATE_NOOP("MainWindow", "Spectrum &over steps"),
     "one matrix's singular values over steps as a density, with its stable rank: --layer, --type;\n"
     "--type alone: its mean over layers", false},
    {"heads", FigureKind::Heads, QT_TRANSLATE_NOOP("MainWindow", "Heads"), QT_TRANSLATE_NOOP("MainWindow", "Hea&ds"),
     "analysed with --heads: head x layer of --type Q, K, V, O, QK or OV, default QK;\n"
     "with --layer L, L's heads over the steps; with --layer L --head H, that head's spectrum", false},
    {"plan", FigureKind::RankPlan, QT_TRANSLATE_NOOP("MainWindow", "Rank plan"), QT_TRANSLATE_NOOP("MainWindow", "&Rank plan"),
     "the ranks `rankscope plan` chooses at --step for --keep F, --energy τ or --max-error E,\n"
     "as a type x layer heatmap, beside the error-vs-budget curve", false},
    {"lines+bars", FigureKind::LinesAndBars, nullptr, nullptr,
     "stable rank vs step beside compression % per layer, one figure; e.g. --line-layers 0 --steps 0-1000", false},
    {"lines+curves", FigureKind::Lines, nullptr, nullptr,
     "the lines above a training curve from the run's logs, one step axis: --scalar loss", true},
};

} // namespace

std::span<const FigureRow> figureRows() { return kFigures; }

const FigureRow *figureRow(const QString &id)
{
    for (const FigureRow &row : figureRows())
        if (id == QLatin1String(row.id))
            return &row;
    return nullptr;
}

const FigureRow &figureRow(FigureKind kind)
{
    for (const FigureRow &row : figureRows())
        if (row.kind == kind)
            return row;
    Q_UNREACHABLE();
}

QString figureHelp()
{
    QString text;
    for (const FigureRow &row : figureRows())
        text += QStringLiteral("  %1%2\n").arg(QString::fromLatin1(row.id).leftJustified(14),
                                               QString::fromUtf8(row.help).replace(QLatin1Char('\n'), QStringLiteral("\n") + QString(16, QLatin1Char(' '))));
    return text;
}

QString figureNames(const QString &separator)
{
    QStringList names;
    for (const FigureRow &row : figureRows())
        names << QLatin1String(row.id);
    return names.join(separator);
}

} // namespace rankscope
