// Every figure RankScope draws, a row each: what the window and the command line call it, and the
// function that builds its panels. The window's tabs and View menu (Ctrl+1…), `export --figure`
// (its names, help and refusal), `rankscope --help`, the manual page and the bash completion
// (resources/desktop/write_command_reference) all read this table, and nothing finds a figure by
// its position. A new figure is a row here and its panels' builder, defined beside its view.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <span>
#include <string_view>

namespace rankscope {

class FigurePanels;
class ViewState;

// Builds a figure's panels (its chart views, and what the window and export set on them) in the
// widget that shows them (a FigureView).
using BuildFigurePanels = FigurePanels *(*)(ViewState *state, QWidget *figure);

// Each figure's builder, defined beside its view.
FigurePanels *buildLinePanels(ViewState *state, QWidget *figure);       // LinePanels.cpp
FigurePanels *buildBarPanels(ViewState *state, QWidget *figure);        // RunPanels.cpp
FigurePanels *buildHeatmapPanels(ViewState *state, QWidget *figure);    // RunPanels.cpp
FigurePanels *buildLinesAndBarsPanels(ViewState *state, QWidget *figure); // RunPanels.cpp
FigurePanels *buildSpectrumPanels(ViewState *state, QWidget *figure);   // SpectrumView.cpp
FigurePanels *buildSpectrogramPanels(ViewState *state, QWidget *figure); // SpectrumOverStepsView.cpp
FigurePanels *buildHeadPanels(ViewState *state, QWidget *figure);       // HeadView.cpp
FigurePanels *buildRankPlanPanels(ViewState *state, QWidget *figure);   // RankPlanPanel.cpp

// A training curve under the figure (`--scalar TAG`): not drawn, drawn when asked, or needed.
enum class FigureCurves { None, Optional, Required };

struct FigureRow {
    const char *id;        // --figure NAME, and the name exported files carry ("spectrogram")
    BuildFigurePanels build;
    const char *tabTitle;  // the window's tab (context MainWindow); null: drawn by export alone
    const char *menuTitle; // View ▸ that tab, with its mnemonic
    const char *help;      // what --figure NAME draws, as `export --help` says it (UTF-8; \n: a new line)
    FigureCurves curves = FigureCurves::None;
    bool heads = false;      // draws the per-head spectra: a folder is analysed with --heads for it
    bool rankTarget = false; // takes `rankscope plan`'s target (--keep, --energy or --max-error)
};

// In the order of the window's tabs (Ctrl+1…7), then the figures only export draws.
inline constexpr FigureRow kFigureRows[] = {
    {"lines", buildLinePanels, QT_TRANSLATE_NOOP("MainWindow", "Metric vs step"), QT_TRANSLATE_NOOP("MainWindow", "&Metric vs step"), "metric vs step per type", FigureCurves::Optional},
    {"bars", buildBarPanels, QT_TRANSLATE_NOOP("MainWindow", "Per layer"), QT_TRANSLATE_NOOP("MainWindow", "&Per layer"), "metric per layer at one step"},
    {"heatmaps", buildHeatmapPanels, QT_TRANSLATE_NOOP("MainWindow", "Heatmaps"), QT_TRANSLATE_NOOP("MainWindow", "&Heatmaps"),
     "type x layer; compression % and weighted alpha side by side unless --metric names one"},
    {"spectrum", buildSpectrumPanels, QT_TRANSLATE_NOOP("MainWindow", "Spectrum"), QT_TRANSLATE_NOOP("MainWindow", "&Spectrum"), "one matrix's spectrum: --layer, --type"},
    {"spectrogram", buildSpectrogramPanels, QT_TRANSLATE_NOOP("MainWindow", "Spectrum over steps"), QT_TRANSLATE_NOOP("MainWindow", "Spectrum &over steps"),
     "one matrix's singular values over steps: step on x, log σ on y, the fraction of its σ in each\n"
     "bin as colour, its stable rank as a line over it: --layer, --type; --type alone: the type's mean\n"
     "over the layers shown"},
    {"heads", buildHeadPanels, QT_TRANSLATE_NOOP("MainWindow", "Heads"), QT_TRANSLATE_NOOP("MainWindow", "Hea&ds"),
     "per-head spectra, computed for a folder if need be, read from a results file analysed with\n"
     "--heads: head x layer of --type Q, K, V, O, QK or OV, default QK; with --layer L, L's heads over\n"
     "the steps; with --layer L --head H, that head's spectrum, whose .csv holds its singular values",
     FigureCurves::None, true},
    {"plan", buildRankPlanPanels, QT_TRANSLATE_NOOP("MainWindow", "Rank plan"), QT_TRANSLATE_NOOP("MainWindow", "&Rank plan"),
     "the ranks `rankscope plan` chooses at --step for --keep F, --energy τ or --max-error E,\n"
     "as a type x layer heatmap, beside the error-vs-budget curve; its .csv: the plan's CSV, then\n"
     "the curve's kept_fraction and relative_error",
     FigureCurves::None, false, true},
    {"lines+bars", buildLinesAndBarsPanels, nullptr, nullptr,
     "stable rank vs step beside compression % per layer, one figure; e.g. --line-layers 0 --steps 0-1000"},
    {"lines+curves", buildLinePanels, nullptr, nullptr,
     "the lines above a training curve from the run's logs, one step axis: --scalar loss", FigureCurves::Required},
};
inline constexpr int kFigureCount = int(std::size(kFigureRows));

// A figure: a row of the table. Named constants exist for the figures code names; a figure no
// code names needs none.
class FigureKind {
public:
    constexpr FigureKind() = default; // lines
    static constexpr FigureKind atRow(int row) { return FigureKind(row); }
    constexpr int row() const { return m_row; }
    constexpr const FigureRow &info() const { return kFigureRows[m_row]; }
    friend constexpr bool operator==(FigureKind, FigureKind) = default;

    static const FigureKind Lines, Bars, Heatmaps, Spectrum, SpectrumOverSteps, Heads, RankPlan, LinesAndBars, LinesAndCurves;

private:
    constexpr explicit FigureKind(int row) : m_row(row) {}
    int m_row = 0;
};

// The figure of --figure NAME at compile time: a name not in the table does not compile.
consteval FigureKind figureOfId(std::string_view id)
{
    for (int i = 0; i < kFigureCount; ++i)
        if (std::string_view(kFigureRows[i].id) == id)
            return FigureKind::atRow(i);
    throw "no such figure";
}

inline constexpr FigureKind FigureKind::Lines = figureOfId("lines");
inline constexpr FigureKind FigureKind::Bars = figureOfId("bars");
inline constexpr FigureKind FigureKind::Heatmaps = figureOfId("heatmaps");
inline constexpr FigureKind FigureKind::Spectrum = figureOfId("spectrum");
inline constexpr FigureKind FigureKind::SpectrumOverSteps = figureOfId("spectrogram");
inline constexpr FigureKind FigureKind::Heads = figureOfId("heads");
inline constexpr FigureKind FigureKind::RankPlan = figureOfId("plan");
inline constexpr FigureKind FigureKind::LinesAndBars = figureOfId("lines+bars");
inline constexpr FigureKind FigureKind::LinesAndCurves = figureOfId("lines+curves");

// Every figure, in the table's order.
std::span<const FigureKind> allFigures();
// The figure of --figure NAME, or nullopt.
std::optional<FigureKind> figureOfName(const QString &id);
// A line per figure, its NAME and what it draws: `export --help`'s list.
QString figureHelp();
// "lines, bars, …, lines+curves": every NAME --figure takes.
QString figureNames(const QString &separator = QStringLiteral(", "));

} // namespace rankscope
