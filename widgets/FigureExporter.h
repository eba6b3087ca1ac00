// Writes a figure — one view, or a grid of panels (a panel per run, a row per metric) — as PNG at a
// resolution, as SVG with real vectors and text kept as text, or as PDF, at a size on paper with a
// base font size. Each panel is drawn by a fresh copy of its view laid out for its share of the
// size (legend, title, ticks); the views on screen are not touched. The file is written whole or
// not at all: an earlier file survives a failed export.
#pragma once

#include "FigureLegend.h"
#include "figures/FigureSize.h"

#include <QList>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

namespace rankscope {

class ChartView;

class FigureExporter {
public:
    // rows of panels; every row is divided equally among its panels. The format comes from the
    // file's suffix: .png, .svg or .pdf.
    // `title`: a title of the whole figure. A figure of one panel takes it as that panel's title;
    // one of several panels gets it on a line above them all, each panel keeping its own. nullopt:
    // the generated titles (none under a caption, FigureSize::captioned, where the axis labels say
    // what they said); empty: no title at all, over the figure or on its panels.
    static bool write(const QList<QList<ChartView *>> &rows, const QString &path, const FigureSize &size, QString *error,
                      const std::optional<QString> &title = std::nullopt);
    static QStringList formats() { return {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}; }

    // The fresh panels write() draws, each laid out for its share of the figure (what is left
    // below the figure's title and legend), and the one legend over them all when their legends
    // say the same (FigureLegend): for tests to measure what is drawn.
    using PaperPanels = std::vector<std::vector<std::unique_ptr<ChartView>>>;
    struct PaperFigure {
        PaperPanels panels;
        std::unique_ptr<FigureLegend> legend; // null: each panel keeps its own
    };
    static PaperFigure layOut(const QList<QList<ChartView *>> &rows, const FigureSize &size, const std::optional<QString> &title = std::nullopt);
};

} // namespace rankscope
