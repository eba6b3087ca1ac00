// What a figure is asked beyond what the view state holds: the options of `rankscope export` that
// name one figure's things (its metric, its matrix, its head, its target). Each figure's panels
// read what concerns them (FigurePanels::configure); the command line reads and checks the values.
#pragma once

#include "analysis/results/RankPlanner.h"
#include "figures/HeatmapFigure.h"
#include "figures/LineFigure.h"
#include "figures/SpectrumFigure.h"
#include "model/MatrixType.h"
#include "spectral/MetricCatalog.h"

#include <QList>
#include <QString>
#include <optional>

namespace rankscope {

struct FigureOptions {
    std::optional<Metric> metric;
    std::optional<StepWindow> steps; // lines: the steps shown
    std::optional<qint64> layer;     // spectrum, spectrogram, heads
    QString type;                    // spectrum, spectrogram, heads: the matrix type, as given
    std::optional<qint64> head;      // heads: with --layer and --type, that head's spectrum
    std::optional<QString> byLayer;  // lines: one line per layer of this type
    std::optional<QString> scalar;   // lines: the training scalar drawn under them
    bool alphaGuide = true;
    // heatmaps: what each metric's colours span (--colour-range, --vmin, --vmax); one entry: every panel.
    QList<HeatmapColourRange> colourRanges;
    SpectrumTail spectrumTail = SpectrumTail::Ccdf; // spectrum: --eigenvalues
    RankTarget rankTarget;                          // plan: --keep, --energy or --max-error
};

// --name's matrix type as the CSV writes it ("MLP_UP") or as the window shows it ("MLP↑"), in any
// case. nullopt, with "unknown --name 'X'; one of: Q, K, …, MLP_UP (MLP↑), …", when it is neither.
std::optional<MatrixType> matrixTypeOption(const QString &name, const QString &text, QString *error);

} // namespace rankscope
