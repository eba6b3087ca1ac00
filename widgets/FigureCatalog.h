// Every figure RankScope draws, a row each, and what the window and the command line call it.
// The window's tabs and View menu (Ctrl+1…), `export --figure` (its names, help and refusal) and
// `rankscope --help` read this table, and tst_CommandOptions holds the man page and the bash
// completion to it. A new figure is a row here, its view (FigureView's two switches), and what
// `export` sets on it (ExportCommand); nothing finds a figure by its position.
#pragma once

#include <QString>
#include <span>

namespace rankscope {

// LinesAndBars: figure (1) of the seeds, the line chart beside the per-layer bars in one figure;
// RankPlan: the Rank plan tab's ranks heatmap beside its error-vs-budget curve.
enum class FigureKind { Lines, Bars, Heatmaps, Spectrum, SpectrumOverSteps, Heads, RankPlan, LinesAndBars };

struct FigureRow {
    const char *id;        // --figure NAME, and the name exported files carry ("spectrogram")
    FigureKind kind;       // the view that draws it
    const char *tabTitle;  // the window's tab (context MainWindow); null: drawn by export alone
    const char *menuTitle; // View ▸ that tab, with its mnemonic
    const char *help;      // what --figure NAME draws, as `export --help` says it (UTF-8; \n: a new line)
    bool withCurves;       // the lines with a training curve (--scalar) under them, on one step axis
};

// The rows in the order of the window's tabs (export-only figures after them).
std::span<const FigureRow> figureRows();
// The row of --figure NAME, or null.
const FigureRow *figureRow(const QString &id);
// The first row of a kind: its name and its tab.
const FigureRow &figureRow(FigureKind kind);
// A line per figure, its NAME and what it draws: `export --help`'s list.
QString figureHelp();
// "lines, bars, …, lines+curves": every NAME --figure takes.
QString figureNames(const QString &separator = QStringLiteral(", "));

} // namespace rankscope
