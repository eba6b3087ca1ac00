// `rankscope export SOURCE --figure NAME --out FILE`: the GUI's figures, rendered headless by the
// same views, from a checkpoint folder (analysed first if needed) or a results file.
#pragma once

#include "CommandOptions.h"
#include "FigureCatalog.h"
#include "figures/FigureOptions.h"
#include "figures/FigureSize.h"
#include "figures/LegendPosition.h"
#include "analysis/results/MetricAggregation.h"
#include "spectral/MetricCatalog.h"
#include "spectral/SpectralMetrics.h"

#include <QStringList>
#include <optional>

namespace rankscope {

// What `rankscope export` was asked, every value read and checked: what the figure itself is
// asked (FigureOptions), and what is drawn and where. What names something in the runs (a block,
// an expert, a type, a step) is checked against them once they are loaded.
struct ExportOptions : FigureOptions {
    QStringList sources;
    FigureKind kind = FigureKind::Lines;
    QString out;
    double energy = kDefaultEnergy;
    std::optional<LayerRange> layers;
    std::optional<LayerRange> lineLayers, barLayers; // the lines' and the bars' own ranges
    std::optional<qint64> step;  // nullopt: the last
    FigureSize size;             // preset, size, resolution, font and theme
    LegendPosition legend = LegendPosition::Auto;
    std::optional<QString> types, block, expert, title;
    QStringList panelTitles; // --panel-title, once per panel in order
    bool relativeDepth = false;
    bool relativeStep = false;
    std::optional<QString> base;   // --base: the first source's base model (BaseModelRuns)
    bool alphaCi = false;        // lines of alpha: its bootstrap interval as error bars (--alpha-ci)
};

// arguments: "export" and what follows it.
ParsedOptions<ExportOptions> parseExportOptions(const QStringList &arguments);
int runExportCommand(const QStringList &arguments);

} // namespace rankscope
