// `rankscope export SOURCE --figure NAME --out FILE`: the GUI's figures, rendered headless by the
// same views, from a checkpoint folder (analysed first if needed) or a results file.
#pragma once

#include "CommandOptions.h"
#include "figures/FigureSize.h"
#include "figures/HeatmapFigure.h"
#include "FigureView.h"
#include "figures/LegendPosition.h"
#include "figures/LineFigure.h"
#include "figures/SpectrumFigure.h"
#include "analysis/results/MetricAggregation.h"
#include "spectral/MetricCatalog.h"
#include "spectral/SpectralMetrics.h"

#include <QStringList>
#include <optional>

namespace rankscope {

// What `rankscope export` was asked, every value read and checked. What names something in the
// runs (a block, an expert, a type, a step) is checked against them once they are loaded.
struct ExportOptions {
    QStringList sources;
    FigureKind kind = FigureKind::Lines;
    QString out;
    std::optional<Metric> metric;
    double energy = kDefaultEnergy;
    std::optional<LayerRange> layers;
    std::optional<LayerRange> lineLayers, barLayers; // the lines' and the bars' own ranges
    std::optional<StepWindow> steps;                 // lines: the steps shown
    std::optional<qint64> layer; // spectrum
    std::optional<qint64> step;  // nullopt: the last
    FigureSize size;             // preset, size, resolution, font and theme
    LegendPosition legend = LegendPosition::Auto;
    std::optional<QString> types, byLayer, block, expert, title;
    QStringList panelTitles; // --panel-title, once per panel in order
    // heatmaps: what each metric's colours span (--colour-range, --vmin, --vmax); one entry: every panel.
    QList<HeatmapColourRange> colourRanges;
    QString type; // spectrum: the matrix type, as given
    SpectrumTail spectrumTail = SpectrumTail::Ccdf; // spectrum: --eigenvalues
    bool relativeDepth = false;
    bool relativeStep = false;
    std::optional<QString> scalar; // lines: the training scalar drawn under them
    std::optional<QString> base;   // --base: the first source's base model (BaseModelRuns)
    bool alphaGuide = true;
    bool alphaCi = false;        // lines of alpha: its bootstrap interval as error bars (--alpha-ci)
    RankTarget rankTarget;       // plan: --keep, --energy or --max-error, as `rankscope plan` takes them
    std::optional<qint64> head;  // heads: with --layer and --type, that head's spectrum
};

// arguments: "export" and what follows it.
ParsedOptions<ExportOptions> parseExportOptions(const QStringList &arguments);
int runExportCommand(const QStringList &arguments);

} // namespace rankscope
